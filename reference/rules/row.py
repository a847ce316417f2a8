"""A row of Table 3: the columns the engine and the Z3 encoding both read.

Each operation's home (:mod:`gcv.reference.rules`) states its row; the engine's checks
and effects read it, and ``proofs/encode.py`` builds the encoded transition from the
same columns.  What each row must be is stated in ``spec/transition.py`` (the clauses
of Table 3, each the paper's or a choice).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gcv.reference.records import Standing

__all__ = ["Registration", "Rule"]


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
        The records it cites as grounds (reused evidence, attackers, premises) must be
        in S_t.  The records it rests on or subsumes may carry any label: that is stated
        once, in :mod:`~gcv.reference.rules.shared` (``T3.register.depends-on-any-standing``)
        and in Resolve's home (``T3.resolve.subsumes-any-standing``).
    """

    registers: Registration
    target_standing: frozenset[Standing] = frozenset()
    target_unattacked: bool = False
    target_becomes: Standing | None = None
    attacks_target: bool = False
    grounds_in_good_standing: bool = False
