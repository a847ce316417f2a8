"""What a turn under way keeps besides D_t: the clauses it exercised and the brute force's budget.

:func:`gcv.spec.transition.process_turn` makes one :class:`Ledger` per turn and passes it
to every ``process_<operation>``.  Neither part changes what the turn does to D_t: the
clauses are what a conformance step reports it depends on, and the budget only decides
whether the brute force is attempted at all (:class:`TooCostly` leaves nothing decided).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gcv.spec import epistemic as se
from gcv.spec.clauses import (
    CITED_CHECKS,
    EPISTEMIC_LAST,
    FIELD_ORDER,
    FIRST_FAILING,
    NUMBERED,
    ORDER_KINDS,
    ORDER_NARRATED,
    ORDER_WRITTEN,
    SPEAKER_FIRST,
)

__all__ = ["UNBOUNDED", "Budget", "Ledger", "Operation", "TooCostly", "refusal_clauses"]

Operation = Mapping[str, Any]
"""An operation object of the trace format, its ``formula`` a spec formula."""


# -- the cost of the brute force --------------------------------------------------------------


class TooCostly(Exception):
    """The brute force would exceed its :class:`Budget`; nothing was decided."""


@dataclass(frozen=True)
class Budget:
    """The largest models the brute force is asked to compute on (None: no limit)."""

    worlds: int | None = None
    """For a modal formula and Definition A.2's check (O(|W|^2) per world)."""
    conservative: int | None = None
    """For a conservative upgrade (O(|W|^4))."""

    def afford(
        self, model: se.EpistemicModel, *formulas: se.Formula, conservative: bool = False
    ) -> None:
        """Raise :class:`TooCostly` if evaluating ``formulas`` (or a conservative upgrade) on
        ``model`` would exceed the budget."""
        limit = self.conservative if conservative else self.worlds
        if limit is None or len(model.worlds) <= limit:
            return
        if conservative or any(_is_modal(f) for f in formulas):
            raise TooCostly(f"{len(model.worlds)} worlds, beyond the budget of {limit}")

    def afford_abduction(self, model: se.EpistemicModel, chi: se.Formula) -> None:
        """Raise :class:`TooCostly` if Definition A.2's check of a problem about ``chi`` would
        exceed the budget (M_chi is brought to Prop_t, doubling per atom of chi)."""
        size = max(len(model.worlds) << len(se.compute_atoms(chi)), len(model.worlds))
        if self.worlds is not None and size > self.worlds:
            raise TooCostly(f"Definition A.2's check on {size} worlds")


UNBOUNDED = Budget()


def _is_modal(f: se.Formula) -> bool:
    match f:
        case se.Top() | se.Bottom() | se.Atom():
            return False
        case se.Not(body):
            return _is_modal(body)
        case se.And(parts) | se.Or(parts):
            return any(_is_modal(p) for p in parts)
        case se.Implies(left, right) | se.Iff(left, right):
            return _is_modal(left) or _is_modal(right)
    return True


# -- the clauses a turn exercised -------------------------------------------------------------


@dataclass
class Ledger:
    """One turn's bookkeeping: the clauses it exercised, whether it follows M_t (``epistemic``
    False: the argumentation alone), and the :class:`Budget` of its brute force."""

    budget: Budget = UNBOUNDED
    epistemic: bool = True
    clauses: set[str] = field(default_factory=set)

    def note(self, *clause_ids: str) -> None:
        """Record that the turn exercised these clauses."""
        self.clauses.update(clause_ids)

    def note_order(
        self, operations: Sequence[Operation], acts_on_m: Callable[[Operation], bool]
    ) -> None:
        """The order clauses a turn exercises: each only where two of its operations interact
        (``acts_on_m``: whether an operation acts on M_t), since between operations that
        commute the order chosen decides nothing."""
        if _interact(operations, acts_on_m, same_kind=False, narrated=False):
            self.note(ORDER_KINDS)
        if _interact(operations, acts_on_m, same_kind=False, narrated=True):
            self.note(ORDER_NARRATED)
        if _interact(operations, acts_on_m, same_kind=True):
            self.note(ORDER_WRITTEN)


def refusal_clauses(operations: Sequence[Operation], broken: str) -> frozenset[str]:
    """The clauses a refusal of a turn of ``operations`` for breaking ``broken`` exercises
    besides those its operations did: the broken clause, and the choices of which error a
    refused turn reports and that it takes no turn number."""
    clauses = {broken, NUMBERED, SPEAKER_FIRST, FIELD_ORDER, CITED_CHECKS}
    if len(operations) > 1:
        clauses.add(FIRST_FAILING)
    # The epistemic checks come after Table 3's, so a turn with epistemic inputs that
    # breaks a Table 3 row would report another code if they came first.
    if broken.startswith("del.") or any(
        op.get("formula") is not None or op.get("introduces") for op in operations
    ):
        clauses.add(EPISTEMIC_LAST)
    return frozenset(clauses)


# The pairs of kinds whose order the paper's scenarios fix (clause order.kinds.narrated).
_NARRATED = frozenset(
    {
        frozenset({"observe", "undermine"}),
        frozenset({"hypothesize", "revise"}),
        frozenset({"support", "resolve"}),
    }
)
_CITING = ("id", "target", "evidence")
_CITING_LISTS = ("depends_on", "evidence_depends_on", "attackers", "subsumes", "premises")


def _interact(
    operations: Sequence[Operation],
    acts_on_m: Callable[[Operation], bool],
    *,
    same_kind: bool,
    narrated: bool = False,
) -> bool:
    """Whether two operations (of different kinds, or of one kind) could decide each other's
    outcome: one changes a record or atom the other names, or both act on M_t.  Operations
    that do neither commute, so the order chosen between them decides nothing.
    ``narrated``: only pairs of kinds whose order the paper's scenarios fix (else only the
    other pairs)."""
    touched = [(op["op"], _names(op), _changes(op), acts_on_m(op)) for op in operations]
    return any(
        (a_kind == b_kind) == same_kind
        and (same_kind or (frozenset({a_kind, b_kind}) in _NARRATED) == narrated)
        and bool(a_changes & b_names or b_changes & a_names or (a_m and b_m))
        for k, (a_kind, a_names, a_changes, a_m) in enumerate(touched)
        for b_kind, b_names, b_changes, b_m in touched[k + 1 :]
    )


def _atoms(op: Operation) -> list[str]:
    atoms = [*op.get("introduces", ()), *([op["atom"]] if "atom" in op else ())]
    if op.get("formula") is not None:
        atoms += sorted(se.compute_atoms(op["formula"]))
    return [f"atom:{a}" for a in atoms]


def _names(op: Operation) -> set[str]:
    """The records and atoms an operation reads or changes."""
    names = {op[f] for f in _CITING if f in op} | {r for f in _CITING_LISTS for r in op.get(f, ())}
    return names | set(_atoms(op))


def _changes(op: Operation) -> set[str]:
    """The records and atoms an operation changes: what it registers, its target (label, Dep,
    attacks, commitments), the records a Resolve subsumes (their Dep), the atoms it adds."""
    changed = {op[f] for f in ("id", "target") if f in op}
    if op.get("evidence_claim") is not None:
        changed.add(op["evidence"])
    changed |= set(op.get("subsumes", ()))
    added = [*op.get("introduces", ()), *([op["atom"]] if "atom" in op else ())]
    return changed | {f"atom:{a}" for a in added}
