"""The Z3 encoding and the engine agree on concrete steps.

Hypothesis drives the engine through operation sequences; at every step the encoded
transition relation is instantiated on the concrete state (a finite universe: the
registered records and the identifiers the operation names) and must agree with the
engine: the encoded precondition holds exactly when the engine accepts the operation,
and then the encoded next state is exactly the engine's.  Agents and awareness are
outside the encoded state, so rejections on their account (``unknown-agent``,
``already-aware``, a speaker dissenting from their own decision) are not compared.
"""

from __future__ import annotations

import dataclasses

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs.encode import LABELS, REC, Params, Rules, State, transition
from proofs.solver import Outcome, prove
from reference.depmap import DependencyMap
from reference.errors import GcvError
from reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    OperationKind,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from reference.records import Standing
from reference.rules import RULES
from reference.verifier import Turn, Verifier
from tests.strategies import AGENTS, operations_over

_x, _y = z3.Consts("x y", REC)


def _named(op: Operation) -> set[str]:
    match op:
        case Observe() | Hypothesize() | Question():
            return {op.id, *op.depends_on}
        case Support() | Undermine():
            return {op.target, op.evidence, *op.evidence_depends_on}
        case Revise():
            return {op.target, *op.attackers}
        case Resolve():
            return {op.target, *op.subsumes, *op.premises}
    return set()


class Universe:
    """A finite interpretation of the record sort."""

    def __init__(self, names: set[str]) -> None:
        self.names = sorted(names) or ["nobody"]
        self.const = {n: z3.Const(f"u.{n}", REC) for n in self.names}

    def axioms(self) -> list[z3.BoolRef]:
        consts = list(self.const.values())
        return [
            z3.Distinct(consts) if len(consts) > 1 else z3.BoolVal(True),
            z3.ForAll([_x], z3.Or([_x == c for c in consts])),
        ]

    def members(self, names: object) -> z3.ArrayRef:
        chosen = [self.const[n] for n in names]  # type: ignore[attr-defined]
        return z3.Lambda([_x], z3.Or([_x == c for c in chosen]) if chosen else z3.BoolVal(False))

    def state(self, s: State, dmap: DependencyMap) -> list[z3.BoolRef]:
        """Constraints fixing ``s`` to the concrete map."""
        c = self.const
        dep = {(a, b) for a, bs in dmap.dep.items() for b in bs}
        att = {(a, b) for a, bs in dmap.att.items() for b in bs}
        out = []
        for a in self.names:
            out.append(s.ex[c[a]] == (a in dmap.records))
            if a in dmap.records:
                out.append(s.st[c[a]] == LABELS[dmap.standing[a]])
            for b in self.names:
                out.append(s.dep[c[a], c[b]] == ((a, b) in dep))
                out.append(s.att[c[a], c[b]] == ((a, b) in att))
        return out

    def params(self, p: Params, op: Operation) -> list[z3.BoolRef]:
        """Constraints fixing the parameters to the operation's arguments."""
        c, first = self.const, self.const[self.names[0]]
        new = target = evidence = first
        registers = False
        cited: object = ()
        attackers: object = ()
        subsumes: object = ()
        premises: object = ()
        match op:
            case Observe() | Hypothesize() | Question():
                new, cited = c[op.id], op.depends_on
            case Support() | Undermine():
                target, evidence = c[op.target], c[op.evidence]
                registers, cited = op.evidence_claim is not None, op.evidence_depends_on
            case Revise():
                target, attackers = c[op.target], op.attackers
            case Resolve():
                target, subsumes, premises = c[op.target], op.subsumes, op.premises
        eq = lambda a, b: z3.ForAll([_x], a[_x] == b[_x])  # noqa: E731
        return [
            p.new == new,
            p.target == target,
            p.evidence == evidence,
            p.registers_evidence == registers,
            eq(p.cited, self.members(cited)),
            eq(p.attackers, self.members(attackers)),
            eq(p.subsumes, self.members(subsumes)),
            eq(p.premises, self.members(premises)),
        ]


def _same_state(u: Universe, s: State, dmap: DependencyMap) -> z3.BoolRef:
    return z3.And(u.state(s, dmap))


def _unmodelled(error: GcvError) -> bool:
    return error.code in ("unknown-agent", "already-aware") or error.field == "dissenters"


def _check_step(v: Verifier, op: Operation, rules: Rules = RULES) -> None:
    u = Universe(set(v.state.records) | _named(op))
    s, p = State.fresh("s"), Params.fresh("p")
    t = transition(op.operation, s, p, rules)
    context = [*u.axioms(), *u.state(s, v.state), *u.params(p, op)]
    before = v.state.digest()
    try:
        v.apply_turn(Turn("a", (op,)))
    except GcvError as error:
        assert v.state.digest() == before
        if _unmodelled(error):
            return
        outcome = prove(context, z3.Not(t.precondition), timeout_ms=20_000).outcome
        assert outcome is Outcome.PROVED, (
            f"the engine rejects {op} ({error.code}); the encoding allows it"
        )
        return
    assert prove(context, t.precondition, timeout_ms=20_000).outcome is Outcome.PROVED, (
        f"the engine accepts {op}; the encoding's precondition does not hold"
    )
    after = _same_state(u, t.after, v.state)
    assert prove(context, after, timeout_ms=20_000).outcome is Outcome.PROVED, (
        f"after {op} the encoded state differs from the engine's"
    )


@settings(max_examples=25)
@given(st.data())
def test_encoding_and_engine_agree_step_by_step(data: st.DataObject) -> None:
    v = Verifier(list(AGENTS), ["p"])
    for _ in range(data.draw(st.integers(1, 12), label="steps")):
        op = data.draw(operations_over(tuple(v.state.records)), label="op")
        _check_step(v, op)


def test_expand_awareness_leaves_the_encoded_state_unchanged() -> None:
    v = Verifier(list(AGENTS), ["p"])
    v.apply_turn(Turn("a", (Observe("o1", "x"),)))
    _check_step(v, ExpandAwareness("q"))
    assert v.standing("o1") is Standing.ACTIVE


def test_a_broken_encoding_is_caught() -> None:
    """The check has teeth: with Undermine's row changed, the first Undermine disagrees."""
    broken = dict(RULES)
    broken[OperationKind.UNDERMINE] = dataclasses.replace(
        RULES[OperationKind.UNDERMINE], target_becomes=Standing.ACTIVE
    )
    v = Verifier(list(AGENTS), ["p"])
    _check_step(v, Hypothesize("h1", "x"), broken)
    with pytest.raises(AssertionError, match="encoded state differs"):
        _check_step(v, Undermine("h1", "e1", "counter-evidence"), broken)
