"""An operation as one object: its Table 3 row, its preconditions and its effect.

Each operation's home (:mod:`gcv.reference.rules`) builds one :class:`Rule`: the value the
operation is written as (``Revise``), its row of Table 3 (:class:`Row`), its
preconditions (one function, its checks in the spec's clause order) and its effect (one
function: the argumentation effect and the DEL realisation).  Every rule's checks take the
same arguments, and so do its effects, so the engine runs any operation the same way
(:func:`gcv.reference.apply.apply_operation`) and the order of a turn is one tuple of
rules (:data:`gcv.reference.operations.ORDER`).  ``proofs/gcv/proofs/encode.py`` builds the encoded
transition from the same rows.  What each row must be is stated in
``spec/gcv/spec/transition.py`` (the clauses of Table 3, each the paper's or a choice).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic.formula import Formula
from gcv.reference.epistemic.semantics import check_formula
from gcv.reference.errors import PreconditionViolation
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.records import Standing

__all__ = [
    "Effect",
    "OperationValue",
    "Preconditions",
    "Realisation",
    "Registration",
    "Row",
    "Rule",
    "Settle",
    "Update",
    "formula_violation",
    "own_formula_in_language",
]


class OperationValue(Protocol):
    """What every operation value has: its name (``revise``)."""

    name: ClassVar[str]


Op = TypeVar("Op", bound=OperationValue)


class Registration(enum.Enum):
    """Whether an operation registers a new record (always labelled active)."""

    NEVER = "never"
    ALWAYS = "always"
    EVIDENCE = "when its evidence carries a claim"


@dataclass(frozen=True, slots=True)
class Row:
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


Preconditions = Callable[[Op, StateView, AgentId, Row], PreconditionViolation | None]
"""An operation's checks: the first clause ``op`` breaks in the state, or None."""
Effect = Callable[[Op, DependencyMap, AgentId, Row], None]
"""An operation's effect on D_t (inside the turn's transaction)."""
Settle = Callable[[DependencyMap, Sequence[tuple[int, Op]]], None]
"""What a turn does once all of its operations of one kind are applied, given them with
their written positions."""


class Update(enum.Enum):
    """The plausibility updates an operation's realisation applies (Appendix A.1)."""

    HARD_ANNOUNCEMENT = "[!phi]"
    LEXICOGRAPHIC_UPGRADE = "[up-up phi]"
    CONSERVATIVE_UPGRADE = "[up phi]"


@dataclass(frozen=True, slots=True)
class Realisation:
    """One reading of an operation in M_t: an update of its formula, or of its negation.

    ``update`` None: no change to M_t (Revise's attacks alone; an authoritative Resolve).
    """

    update: Update | None
    negated: bool = False


def formula_violation(
    view: StateView, formula: Formula | None, also: Sequence[str] = ()
) -> PreconditionViolation | None:
    """del.formula.agents-in-ags, del.formula.atoms-in-prop: ``formula`` names only agents of
    Ags and atoms of Prop_t (with ``also``, the atoms the operation introduces).  A target's
    formula was checked when the target was registered, and Prop_t only grows."""
    if formula is None:
        return None
    assert view.model is not None, "a formula is read in M_t, and this view carries none"
    return check_formula(view.model, formula, also=also)


def own_formula_in_language(
    op: Any, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
    """The epistemic precondition of an operation that may carry a formula: its own
    formula, when it gives one, is in M_t's language (:func:`formula_violation`)."""
    formula: Formula | None = op.formula
    return None if formula is None else formula_violation(view, formula)


def _no_attackers(op: Any) -> tuple[RecordId, ...]:
    return ()


@dataclass(frozen=True, slots=True)
class Rule(Generic[Op]):
    """One operation: the value it is written as, its row, its preconditions, its effect.

    Attributes
    ----------
    value:
        The operation value's class (``Revise``); its ``name`` is the operation's name in
        traces, errors and the conformance protocol.
    row:
        Its row of Table 3, which the preconditions and the effect read (as ``row``).
    preconditions:
        Its checks of Table 3, in the clause order of its ``process_<operation>``: the
        first violated, or None.  Pure: it reads the state through a
        :class:`~gcv.reference.depmap.StateView`.
    epistemic:
        Its checks on M_t, made after Table 3's (clause ``order.epistemic-after-table``).
    effect:
        Its argumentation effect and its DEL realisation, written through the map's
        journaled primitives.
    attackers:
        The records it attacks its target with, when its row says it attacks
        (``attacks_target``): read by the turn's postcondition.
    settle:
        What the turn does after its last operation of this kind (Observe's
        simultaneous announcement); None for the others.
    realisation:
        The plausibility update it applies to gamma (Section 2's operation table), for the
        operations whose realisation is one update of their formula or its negation
        (Hypothesize, Support, Undermine, Revise, Resolve); None for the others.
    """

    value: type[Op]
    row: Row
    preconditions: Preconditions[Op]
    effect: Effect[Op]
    epistemic: Preconditions[Op] = own_formula_in_language
    attackers: Callable[[Op], tuple[RecordId, ...]] = _no_attackers
    settle: Settle[Op] | None = None
    realisation: Callable[[Op], Realisation] | None = None

    @property
    def name(self) -> str:
        """The operation's name (``revise``)."""
        return self.value.name

    def check(self, op: Op, view: StateView, speaker: AgentId) -> PreconditionViolation | None:
        """The first precondition ``op``, spoken by ``speaker``, breaks in ``view``, or None:
        Table 3's, then those on M_t (``order.epistemic-after-table``)."""
        found = self.preconditions(op, view, speaker, self.row)
        return found if found is not None else self.epistemic(op, view, speaker, self.row)

    def apply(self, op: Op, dmap: DependencyMap, speaker: AgentId) -> None:
        """Apply ``op``'s effect to ``dmap`` (its preconditions hold)."""
        self.effect(op, dmap, speaker, self.row)
