"""What no operation does to standing, unbounded: nothing weakened or abandoned returns
to S_t (Section 2, proof of Lemma 2.2), and an abandoned record stays abandoned (Table 3
as spec/gcv/spec/normative.md completes it: only Revise touches an abandoned record, and it
leaves it abandoned).
"""

from __future__ import annotations

from collections.abc import Callable

import z3

from gcv.proofs.decode import Decoded, decode_map
from gcv.proofs.encode import (
    LABELS,
    OPERATIONS,
    REC,
    EncodedState,
    Params,
    Transition,
    conflict_free,
    no_return_to_good_standing,
    transition,
    well_formed,
)
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove
from gcv.proofs.table3 import stated
from gcv.reference.records import Standing
from gcv.spec import core
from gcv.spec.clauses import RESOLVE_TARGET, UNDERMINE_TARGET

__all__ = ["ABANDONED_FINAL", "NO_RETURN", "abandoned_stays_abandoned"]

Property = Callable[[EncodedState, EncodedState], z3.BoolRef]


def abandoned_stays_abandoned(before: EncodedState, after: EncodedState) -> z3.BoolRef:
    """Every registered abandoned record is still abandoned afterwards."""
    x = z3.Const("x", REC)
    abandoned = LABELS[Standing.ABANDONED]
    return z3.ForAll(
        [x], z3.Implies(z3.And(before.ex[x], before.st[x] == abandoned), after.st[x] == abandoned)
    )


def _checks(prop: Property, budget: Budget) -> list[Check]:
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    out = []
    for op in OPERATIONS:
        t = transition(op, s, p)
        hypotheses = [well_formed(s), conflict_free(s), t.precondition]
        out.append(Check(op, prove(hypotheses, prop(s, t.after), timeout_ms=budget.timeout_ms)))
    return out


def _changed(before: core.DependencyMap, after: core.DependencyMap) -> list[tuple[str, str, str]]:
    return [
        (r, before.standing[r], after.standing[r])
        for r in sorted(before.args)
        if before.standing[r] != after.standing[r]
    ]


def _twin(
    name: str,
    prop: Property,
    t: Transition,
    s: EncodedState,
    budget: Budget,
    violates: Callable[[str, str], bool],
) -> Twin:
    result = prove(
        [well_formed(s), conflict_free(s), t.precondition],
        prop(s, t.after),
        timeout_ms=budget.timeout_ms,
    )
    if result.model is None:
        return Twin(name, result)
    d = Decoded(result.model)
    changes = _changed(decode_map(d, s), decode_map(d, t.after))
    bad = [(r, a, b) for r, a, b in changes if violates(a, b)]
    text = "; ".join(f"{r}: {a} -> {b}" for r, a, b in bad)
    return Twin(name, result, f"after {t.operation}: {text}", bool(bad))


def _no_return_twins(budget: Budget) -> list[Twin]:
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    resolve = stated("resolve", s, p).without(RESOLVE_TARGET)
    return [
        _twin(
            "Resolve of a target outside S_t",
            no_return_to_good_standing,
            resolve,
            s,
            budget,
            lambda a, b: a not in core.GOOD_STANDING and b in core.GOOD_STANDING,
        )
    ]


def _abandoned_twins(budget: Budget) -> list[Twin]:
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    undermine = stated("undermine", s, p).without(UNDERMINE_TARGET)
    return [
        _twin(
            "Undermine of any target",
            abandoned_stays_abandoned,
            undermine,
            s,
            budget,
            lambda a, b: a == core.ABANDONED and b != core.ABANDONED,
        )
    ]


NO_RETURN = Obligation(
    id="no-return",
    statement="Section 2: no operation moves a weakened or abandoned argument back into S_t",
    bound=lambda budget: "unbounded",
    checks=lambda budget: _checks(no_return_to_good_standing, budget),
    twins=_no_return_twins,
)

ABANDONED_FINAL = Obligation(
    id="abandoned-final",
    statement="Table 3 (spec/gcv/spec/normative.md): an abandoned argument stays abandoned",
    bound=lambda budget: "unbounded",
    checks=lambda budget: _checks(abandoned_stays_abandoned, budget),
    twins=_abandoned_twins,
)
