"""The operation table (Table 3, Algorithm 1): one row per operation.

The engine's precondition checks and effects read this table, and the Z3
encoding in ``proofs/`` is built from the same rows.  What each row must be is
stated in ``spec/transition.py`` (the clauses of Table 3, each the paper's or a
choice).  The obligation ``table-3`` proves the encoding built from these rows
equal, for every state, to a second statement written from the spec
(``proofs/table3.py``); ``tests/test_transition.py`` checks the engine against the
spec, and ``tests/refinement.py`` checks engine, spec and encoding on every step
of every state of a small scope.  That the encoding is the engine is tested
there, not proved.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from gcv.reference.operations import OperationKind
from gcv.reference.records import Standing

__all__ = ["RULES", "Registration", "Rule"]


class Registration(enum.Enum):
    """Whether an operation registers a new record (always labelled active)."""

    NEVER = "never"
    ALWAYS = "always"
    EVIDENCE = "when its evidence carries a claim"


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of Table 3; the defaults are those of an operation without a target.

    Attributes
    ----------
    registers:
        Whether the operation adds a record to Args_t (labelled active).
    target_standing:
        The labels the target may carry; empty when the operation has no target.
    target_unattacked:
        The target must have no recorded incoming attack.
    target_becomes:
        The label the target carries afterwards (``None``: unchanged).
    attacks_target:
        The operation adds attacks on the target, from its evidence or attackers.
    grounds_in_good_standing:
        The records it cites as grounds (evidence, attackers, premises) must be in S_t.
    """

    registers: Registration
    target_standing: frozenset[Standing] = frozenset()
    target_unattacked: bool = False
    target_becomes: Standing | None = None
    attacks_target: bool = False
    grounds_in_good_standing: bool = False


_ANY = frozenset(Standing)

RULES: Mapping[OperationKind, Rule] = MappingProxyType(
    {
        OperationKind.EXPAND_AWARENESS: Rule(registers=Registration.NEVER),
        OperationKind.OBSERVE: Rule(registers=Registration.ALWAYS),
        OperationKind.HYPOTHESIZE: Rule(registers=Registration.ALWAYS),
        # Support changes no label, so it may target any record not abandoned.
        OperationKind.SUPPORT: Rule(
            registers=Registration.EVIDENCE,
            target_standing=frozenset({Standing.ACTIVE, Standing.WEAKENED, Standing.RESOLVED}),
            target_unattacked=False,
            target_becomes=None,
            attacks_target=False,
            grounds_in_good_standing=True,
        ),
        # Lemma 2.2's proof: "Undermine, whose precondition requires an active or
        # weakened target, adds (alpha_e, alpha_gamma) and leaves st = weakened".
        OperationKind.UNDERMINE: Rule(
            registers=Registration.EVIDENCE,
            target_standing=frozenset({Standing.ACTIVE, Standing.WEAKENED}),
            target_unattacked=False,
            target_becomes=Standing.WEAKENED,
            attacks_target=True,
            grounds_in_good_standing=True,
        ),
        # "Revise adds attacks on alpha_gamma and sets st = abandoned", from any label.
        OperationKind.REVISE: Rule(
            registers=Registration.NEVER,
            target_standing=_ANY,
            target_unattacked=False,
            target_becomes=Standing.ABANDONED,
            attacks_target=True,
            grounds_in_good_standing=True,
        ),
        # "Resolve sets st = resolved only when alpha_gamma in S_t and no attack on it
        # is recorded (Table 3)".
        OperationKind.RESOLVE: Rule(
            registers=Registration.NEVER,
            target_standing=frozenset({Standing.ACTIVE, Standing.RESOLVED}),
            target_unattacked=True,
            target_becomes=Standing.RESOLVED,
            attacks_target=False,
            grounds_in_good_standing=True,
        ),
        # B.3 T1: "Args_1 = {timeline}" although the Question opened I_1.
        OperationKind.QUESTION: Rule(registers=Registration.NEVER),
    }
)
