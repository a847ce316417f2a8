"""Per-turn composition (``turn.composition``, A.3 "EncodedState composition"), unbounded.

A turn applies its operations one after another, each checked against and applied to the
state the turn has left so far.  For every ordered pair of operation kinds, in one check
over both steps (no intermediate lemma assumed): from a well-formed, conflict-free state,
the first operation's precondition on it and the second's on the intermediate state imply
that the state after both is well-formed and conflict-free (Lemma 2.2), each invariant
from only the hypotheses it needs (with more, the solver gives up on a few pairs: its
quantifier instantiation is incomplete).  Longer turns follow by induction on the number
of operations.  The twin reads the second operation's precondition
from the turn's start state instead, as an engine that checks a whole turn up front
would: Undermine then Resolve of one target then resolves an attacked record.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import z3

from gcv.proofs.encode import (
    OPERATIONS,
    EncodedState,
    Params,
    Transition,
    conflict_free,
    transition,
    well_formed,
)
from gcv.proofs.obligations.conflict_free import step_twin
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove
from gcv.proofs.table3 import stated

__all__ = ["OBLIGATION"]


_KEPT: dict[
    str, tuple[list[Callable[[EncodedState], z3.BoolRef]], Callable[[EncodedState], z3.BoolRef]]
] = {
    "well-formed": ([well_formed], well_formed),
    "Lemma 2.2": ([well_formed, conflict_free], conflict_free),
}
"""Each invariant the turn keeps, with the invariants it is proved from."""


def _turn(first: Transition, second: Transition, checked: Transition) -> Transition:
    """The two-operation turn: ``first``, then ``second``'s effect under ``checked``'s
    precondition (``second`` itself, unless a twin reads it elsewhere)."""
    clauses = {f"first: {n}": c for n, c in first.clauses.items() if n not in first.dropped}
    clauses |= {f"second: {n}": c for n, c in checked.clauses.items() if n not in checked.dropped}
    return Transition(second.operation, clauses, second.after)


def checks(budget: Budget) -> list[Check]:
    s, p, q = EncodedState.fresh("s"), Params.fresh("p"), Params.fresh("q")
    out = []
    for a, b in itertools.product(OPERATIONS, repeat=2):
        first = transition(a, s, p)
        second = transition(b, first.after, q)
        turn = _turn(first, second, second)
        for name, (needs, invariant) in _KEPT.items():
            hypotheses = [*(h(s) for h in needs), turn.precondition]
            result = prove(hypotheses, invariant(turn.after), timeout_ms=budget.timeout_ms)
            out.append(Check(f"{name}: {a} then {b}", result))
    return out


def twins(budget: Budget) -> list[Twin]:
    s, p, q = EncodedState.fresh("s"), Params.fresh("p"), Params.fresh("q")
    undermine = stated("undermine", s, p)
    resolve = stated("resolve", undermine.after, q)
    up_front = _turn(undermine, resolve, stated("resolve", s, q))
    return [
        step_twin(
            "Undermine then Resolve, Resolve checked on the turn's start state",
            up_front,
            s,
            [well_formed(s), conflict_free(s)],
            budget,
        )
    ]


OBLIGATION = Obligation(
    id="composition",
    statement="Section 2 / A.3: a turn's operations, each checked on the state the turn has "
    "left so far, keep Lemma 2.2 and well-formedness, for every pair of kinds",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=twins,
)
