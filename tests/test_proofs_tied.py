"""The Z3 encoding agrees with the engine, and with the spec transition, on concrete steps.

Hypothesis drives the engine (and, separately, ``spec.transition``) through operation
sequences; at every step the encoded transition relation is instantiated on the concrete
state (a finite universe: the registered records and the identifiers the operation names)
and must agree with the system that took the step: the encoded precondition holds exactly
when it accepts the operation, and then the encoded next state is exactly its next state.
Agents and awareness are outside the encoded state, so rejections on their account
(``unknown-agent``, ``already-aware``, a speaker dissenting from their own decision) are
not compared.
"""

from __future__ import annotations

import dataclasses

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs.encode import LABELS, REC, Params, Rules, State, transition
from proofs.solver import Outcome, prove
from reference.conformance.cases.oracle import spec_operation
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
from spec import transition as spec_transition
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


@dataclasses.dataclass(frozen=True)
class Concrete:
    """The parts of D_t the encoding models: Args_t with st_t, Dep and Att as pairs."""

    standing: dict[str, Standing]
    dep: frozenset[tuple[str, str]]
    att: frozenset[tuple[str, str]]

    @classmethod
    def of_engine(cls, dmap: DependencyMap) -> Concrete:
        """The engine's map."""
        return cls(
            dict(dmap.standing),
            frozenset((a, b) for a, bs in dmap.dep.items() for b in bs),
            frozenset((a, b) for a, bs in dmap.att.items() for b in bs),
        )

    @classmethod
    def of_spec(cls, state: spec_transition.State) -> Concrete:
        """The spec transition's map."""
        standing = {r: Standing(rec.standing) for r, rec in state.records.items()}
        return cls(standing, frozenset(state.dep), frozenset(state.att))


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

    def state(self, s: State, m: Concrete) -> list[z3.BoolRef]:
        """Constraints fixing ``s`` to the concrete map."""
        c = self.const
        out = []
        for a in self.names:
            out.append(s.ex[c[a]] == (a in m.standing))
            if a in m.standing:
                out.append(s.st[c[a]] == LABELS[m.standing[a]])
            for b in self.names:
                out.append(s.dep[c[a], c[b]] == ((a, b) in m.dep))
                out.append(s.att[c[a], c[b]] == ((a, b) in m.att))
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


def _unmodelled(code: str, field: str | None) -> bool:
    return code in ("unknown-agent", "already-aware") or field == "dissenters"


def _check(
    before: Concrete,
    op: Operation,
    after: Concrete | tuple[str, str | None],
    rules: Rules = RULES,
) -> None:
    """``after`` is the next map the system reached, or the (code, field) it refused with."""
    u = Universe(set(before.standing) | _named(op))
    s, p = State.fresh("s"), Params.fresh("p")
    t = transition(op.operation, s, p, rules)
    context = [*u.axioms(), *u.state(s, before), *u.params(p, op)]
    if isinstance(after, tuple):
        if _unmodelled(*after):
            return
        outcome = prove(context, z3.Not(t.precondition), timeout_ms=20_000).outcome
        assert outcome is Outcome.PROVED, f"{op} is refused ({after[0]}); the encoding allows it"
        return
    assert prove(context, t.precondition, timeout_ms=20_000).outcome is Outcome.PROVED, (
        f"{op} is accepted; the encoding's precondition does not hold"
    )
    same = z3.And(u.state(t.after, after))
    assert prove(context, same, timeout_ms=20_000).outcome is Outcome.PROVED, (
        f"after {op} the encoded state differs from the system's"
    )


def _check_step(v: Verifier, op: Operation, rules: Rules = RULES) -> None:
    before, digest = Concrete.of_engine(v.state), v.state.digest()
    try:
        v.apply_turn(Turn("a", (op,)))
    except GcvError as error:
        assert v.state.digest() == digest
        _check(before, op, (error.code, error.field), rules)
        return
    _check(before, op, Concrete.of_engine(v.state), rules)


def _check_spec_step(state: spec_transition.State, op: Operation) -> spec_transition.State:
    before = Concrete.of_spec(state)
    turn = spec_transition.Turn("a", (spec_operation(op),))
    try:
        state = spec_transition.process_turn(state, turn).state
    except spec_transition.Rejected as refused:
        _check(before, op, (refused.code, refused.field))
        return state
    _check(before, op, Concrete.of_spec(state))
    return state


@settings(max_examples=25)
@given(st.data())
def test_encoding_and_engine_agree_step_by_step(data: st.DataObject) -> None:
    v = Verifier(list(AGENTS), ["p"])
    for _ in range(data.draw(st.integers(1, 12), label="steps")):
        op = data.draw(operations_over(tuple(v.state.records)), label="op")
        _check_step(v, op)


@settings(max_examples=25)
@given(st.data())
def test_encoding_and_spec_transition_agree_step_by_step(data: st.DataObject) -> None:
    """The encoding is tied to the spec transition directly, not only through the engine."""
    state = spec_transition.State.start(AGENTS, ["p"])
    for _ in range(data.draw(st.integers(1, 12), label="steps")):
        op = data.draw(operations_over(tuple(state.records)), label="op")
        state = _check_spec_step(state, op)


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


def test_a_broken_encoding_disagrees_with_the_spec_transition() -> None:
    """The spec tie has teeth too: an encoding whose Revise accepts only active targets
    disagrees with the spec's Revise of an abandoned record (B.2 T12)."""
    broken = dict(RULES)
    broken[OperationKind.REVISE] = dataclasses.replace(
        RULES[OperationKind.REVISE], target_standing=frozenset({Standing.ACTIVE})
    )
    state = spec_transition.State.start(AGENTS, ["p"])
    state = _check_spec_step(state, Hypothesize("h1", "x"))
    state = _check_spec_step(state, Revise("h1"))
    before = Concrete.of_spec(state)
    again = spec_transition.process_turn(
        state, spec_transition.Turn("a", (spec_operation(Revise("h1")),))
    )
    with pytest.raises(AssertionError, match="precondition does not hold"):
        _check(before, Revise("h1"), Concrete.of_spec(again.state), broken)
