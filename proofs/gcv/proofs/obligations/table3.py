"""Table 3 twice: the encoding built from the engine's table equals the statement written
from ``spec/gcv/spec/normative.md`` (``proofs/gcv/proofs/table3.py``), unbounded.

For each operation, two checks over every state and every parameter (no invariant
assumed): the two preconditions are the same formula, and where they hold the two next
states are the same four arrays.  A rule's row (``gcv.reference.operations.ORDER``)
changed in any way that changes the engine's transition fails one of them.
"""

from __future__ import annotations

import dataclasses

import z3

from gcv.proofs.decode import Decoded, decode_map, decode_members, decode_record
from gcv.proofs.encode import OPERATIONS, REC, EncodedState, Params, Transition, transition
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import CheckResult, prove
from gcv.proofs.table3 import stated
from gcv.spec import transition as spec
from gcv.spec.clauses import UNDERMINE_TARGET

__all__ = ["OBLIGATION"]

_x, _y = z3.Consts("x y", REC)


def _same_state(a: EncodedState, b: EncodedState) -> z3.BoolRef:
    return z3.And(a.ex == b.ex, a.st == b.st, a.att == b.att, a.dep == b.dep)


def _same_precondition(table: Transition, statement: Transition, ms: int) -> CheckResult:
    return prove([], table.precondition == statement.precondition, timeout_ms=ms)


def _same_effect(table: Transition, statement: Transition, ms: int) -> CheckResult:
    return prove([statement.precondition], _same_state(table.after, statement.after), timeout_ms=ms)


def checks(budget: Budget) -> list[Check]:
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    out = []
    for op in OPERATIONS:
        table, statement = transition(op, s, p), stated(op, s, p)
        ms = budget.timeout_ms
        out.append(Check(f"{op}: same precondition", _same_precondition(table, statement, ms)))
        out.append(Check(f"{op}: same next state", _same_effect(table, statement, ms)))
    return out


def _any_standing_twin(budget: Budget) -> Twin:
    """Undermine stated without its target-standing clause: the spec's label set decides."""
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    op = "undermine"
    statement = stated(op, s, p).without(UNDERMINE_TARGET)
    name = "statement: Undermine of a target of any standing"
    result = _same_precondition(transition(op, s, p), statement, budget.timeout_ms)
    if result.model is None:
        return Twin(name, result)
    d = Decoded(result.model)
    m, target = decode_map(d, s), decode_record(d, p.target)
    label = m.standing.get(target, "unregistered")
    text = f"the table refuses Undermine of {target} ({label}), the statement accepts it"
    return Twin(name, result, text, label not in spec.UNDERMINE_TARGETS)


def _forgets_subsumes_twin(budget: Budget) -> Twin:
    """Resolve stated without its subsumes link: the link the spec's clause adds is missing."""
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    op, t = "resolve", p.target
    full = stated(op, s, p)
    forgetful = dataclasses.replace(
        full.after,
        dep=z3.Lambda([_x, _y], z3.Or(s.dep[_x, _y], z3.And(_x == t, p.premises[_y]))),
    )
    statement = Transition(op, full.clauses, forgetful)
    name = "statement: Resolve forgetting its subsumes link"
    result = _same_effect(transition(op, s, p), statement, budget.timeout_ms)
    if result.model is None:
        return Twin(name, result)
    d = Decoded(result.model)
    engine, twin = decode_map(d, transition(op, s, p).after), decode_map(d, forgetful)
    target, subsumed = decode_record(d, t), decode_members(d, p.subsumes)
    missing = engine.dep - twin.dep
    text = f"Resolve {target} subsuming {sorted(subsumed)}: the statement lacks {sorted(missing)}"
    required = {(x, target) for x in subsumed}  # T3.resolve.subsumes-dep
    return Twin(name, result, text, bool(missing) and missing <= required)


OBLIGATION = Obligation(
    id="table-3",
    statement="Table 3 (spec/gcv/spec/normative.md): the engine's operation table gives every "
    "operation the precondition and next state the spec states",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=lambda budget: [_any_standing_twin(budget), _forgets_subsumes_twin(budget)],
)
