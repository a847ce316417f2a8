"""Lemma 2.2 (conflict-free invariant), unbounded.

Initiation (D_0 satisfies the invariant) and consecution (the invariant and one
operation's precondition imply the invariant afterwards), one check per
(operation, invariant) pair.  The invariant is Lemma 2.2 together with the
well-formedness it needs: Att and Dep relate registered records only (without
it, an attack recorded on a not-yet-registered identifier would land on an
active record the moment it is registered; the twin below shows it); and every
weakened record has a recorded attacker (the proof's "Undermine ... adds
(alpha_e, alpha_gamma) and leaves st = weakened"): a weakened record with no
attacker is not a reachable state.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import z3

from gcv.proofs.decode import Decoded, decode_map, is_definition_2_1_map
from gcv.proofs.encode import (
    LABELS,
    OPERATIONS,
    EncodedState,
    Params,
    Transition,
    conflict_free,
    initial,
    transition,
    weakened_attacked,
    well_formed,
)
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove
from gcv.proofs.table3 import stated
from gcv.reference.records import Standing
from gcv.spec import core
from gcv.spec.clauses import CITED_REGISTERED, RESOLVE_TARGET, RESOLVE_UNATTACKED

__all__ = ["INVARIANTS", "OBLIGATION", "describe_conflict", "inductive", "step_twin"]

INVARIANTS: dict[str, Callable[[EncodedState], z3.BoolRef]] = {
    "well-formed": well_formed,
    "conflict-free": conflict_free,
    "weakened records attacked": weakened_attacked,
}


def inductive(s: EncodedState) -> list[z3.BoolRef]:
    """The invariant Lemma 2.2 is proved with, as hypotheses."""
    return [inv(s) for inv in INVARIANTS.values()]


def checks(budget: Budget) -> list[Check]:
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    out = [
        Check(f"initiation: {name}", prove([initial(s)], inv(s), timeout_ms=budget.timeout_ms))
        for name, inv in INVARIANTS.items()
    ]
    for op in OPERATIONS:
        t = transition(op, s, p)
        for name, inv in INVARIANTS.items():
            result = prove(
                [*inductive(s), t.precondition], inv(t.after), timeout_ms=budget.timeout_ms
            )
            out.append(Check(f"consecution: {name} under {op}", result))
    return out


def describe_conflict(d: core.DependencyMap) -> str:
    """Name the attacks on members of S_t in a spec map."""
    active = core.get_active_set(d)
    return ", ".join(f"{a} attacks {t} ({d.standing[t]})" for a, t in sorted(d.att) if t in active)


def step_twin(
    name: str,
    t: Transition,
    s: EncodedState,
    hypotheses: list[z3.BoolRef],
    budget: Budget,
    *,
    inductive_hypothesis: bool = True,
) -> Twin:
    """A twin of consecution for Lemma 2.2.  Its counterexample is confirmed when the spec
    finds the decoded state after the step not conflict-free and, unless the twin drops
    the inductive hypothesis itself, the state before it conflict-free."""
    result = prove(
        [*hypotheses, t.precondition], conflict_free(t.after), timeout_ms=budget.timeout_ms
    )
    if result.model is None:
        return Twin(name, result)
    d = Decoded(result.model)
    before, after = decode_map(d, s), decode_map(d, t.after)
    held = core.is_conflict_free_map(before) or not inductive_hypothesis
    confirmed = held and not core.is_conflict_free_map(after)
    return Twin(name, result, f"after {t.operation}: {describe_conflict(after)}", confirmed)


def _well_formed_twin(name: str, t: Transition, s: EncodedState, budget: Budget) -> Twin:
    """A twin of consecution for well-formedness: confirmed when the spec accepts the
    state before the step as a dependency map and refuses the state after it."""
    result = prove(
        [*inductive(s), t.precondition], well_formed(t.after), timeout_ms=budget.timeout_ms
    )
    if result.model is None:
        return Twin(name, result)
    d = Decoded(result.model)
    confirmed = is_definition_2_1_map(d, s) and not is_definition_2_1_map(d, t.after)
    return Twin(name, result, f"after {t.operation}: a relation leaves Args_t", confirmed)


def _unattacked_weakened(d: core.DependencyMap) -> list[str]:
    attacked = {target for _, target in d.att}
    return sorted(r for r in d.args if d.standing[r] == core.WEAKENED and r not in attacked)


def _weakened_twin(name: str, t: Transition, s: EncodedState, budget: Budget) -> Twin:
    """A twin of consecution for "weakened records are attacked": confirmed when the spec's
    map before the step has no unattacked weakened record and the map after it has one."""
    result = prove(
        [*inductive(s), t.precondition], weakened_attacked(t.after), timeout_ms=budget.timeout_ms
    )
    if result.model is None:
        return Twin(name, result)
    d = Decoded(result.model)
    before, after = (
        _unattacked_weakened(decode_map(d, s)),
        _unattacked_weakened(decode_map(d, t.after)),
    )
    text = f"after {t.operation}: {', '.join(after)} weakened with no attacker"
    return Twin(name, result, text, not before and bool(after))


def twins(budget: Budget) -> list[Twin]:
    """Built from Table 3 as the spec states it (``proofs/gcv/proofs/table3.py``, proved equal to
    the engine's table by ``table-3``), so that no twin depends on the table's current rows."""
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    undermine = stated("undermine", s, p)
    stays_active = dataclasses.replace(
        undermine.after, st=z3.Store(undermine.after.st, p.target, LABELS[Standing.ACTIVE])
    )
    undermine = Transition(undermine.operation, undermine.clauses, stays_active)
    resolve = stated("resolve", s, p).without(RESOLVE_TARGET)
    resolve = resolve.without(RESOLVE_UNATTACKED)
    observe = stated("observe", s, p)
    attacking = Transition(
        "observe",
        observe.clauses | {"attacker registered": s.ex[p.target]},
        dataclasses.replace(observe.after, att=z3.Store(observe.after.att, p.target, p.new, True)),
    )
    unregistered = f"{CITED_REGISTERED}: attackers"
    unattacking = stated("undermine", s, p)
    unattacking = Transition(
        unattacking.operation,
        unattacking.clauses,
        dataclasses.replace(unattacking.after, att=s.att),
    )
    return [
        step_twin("Undermine leaves its target active", undermine, s, inductive(s), budget),
        step_twin("Resolve without its preconditions", resolve, s, inductive(s), budget),
        step_twin("Observe adds an attack on its new record", attacking, s, inductive(s), budget),
        step_twin(
            "consecution without Lemma 2.2 as hypothesis",
            observe,
            s,
            [well_formed(s)],
            budget,
            inductive_hypothesis=False,
        ),
        _weakened_twin("Undermine without its attack", unattacking, s, budget),
        _well_formed_twin(
            "Revise by unregistered attackers",
            stated("revise", s, p).without(unregistered),
            s,
            budget,
        ),
    ]


OBLIGATION = Obligation(
    id="lemma-2.2",
    statement="Lemma 2.2: under Table 3's preconditions no argument of S_t is attacked",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=twins,
)
