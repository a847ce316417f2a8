"""The reference engine against the spec transition (spec/gcv/spec/transition.py), and the clause
registry against spec/gcv/spec/normative.md.

Every scenario is replayed through both, turn by turn: an accepted turn must leave the
same D_t (records, standing, Dep, Att, Cm, dissent, Prop_t, A_i and, where the brute force
can afford it, M_t and the problem queue), and a rejected turn must be rejected by both with
the same code at the same operation.  Hypothesis then generates multi-operation turns over
the fuzzer's operations (most valid, some breaking a precondition, some interacting within
the turn) and checks the same.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gcv.reference.operations
from gcv.conformance.cases import CaseBuilder, CaseError
from gcv.conformance.fuzz import AGENTS, ATOMS, typed_operations_over
from gcv.conformance.statements import LEMMA22
from gcv.reference.errors import GcvError
from gcv.reference.operations import (
    Observe,
    Operation,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from gcv.reference.records import Standing
from gcv.reference.verifier import Turn, Verifier
from gcv.scenarios import builtin_scenarios, read_trace
from gcv.spec import transition
from gcv.spec.clauses import CLAUSES
from gcv.translate import spec_formula, spec_model, spec_operation
from tests import broken_engines

NORMATIVE = Path(__file__).resolve().parents[1] / "spec" / "gcv" / "spec" / "normative.md"
SMALL_MODEL = 64
"""M_t is compared only while the spec's brute force stays within this many worlds."""


class _Lockstep:
    """The engine and the spec transition side by side.

    While the spec's brute force can afford M_t (:data:`SMALL_MODEL`), the epistemic layer is
    compared too; from the first turn it cannot, the spec follows the argumentation alone
    (``process_turn(..., epistemic=False)``) and :attr:`epistemic` says so.
    """

    def __init__(self, engine: Verifier, state: transition.State) -> None:
        self.engine, self.state, self.epistemic = engine, state, True

    def step(self, turn: Turn) -> None:
        """Apply ``turn`` to both; they must agree on acceptance, the error, and D_t+1."""
        before = self.engine.state.digest()
        try:
            self.engine.apply_turn(turn)
        except GcvError as error:
            assert self.engine.state.digest() == before, "a rejected turn changed the engine"
            with pytest.raises(transition.Rejected) as refused:
                self._spec(turn)
            spec = refused.value
            assert (spec.code, spec.index) == (error.code, error.operation_index), (
                f"engine {error.code} at {error.operation_index}, spec {spec} at {spec.index}"
            )
            return
        try:
            self.state = self._spec(turn).state
        except transition.Rejected as refused:
            raise AssertionError(
                f"the engine accepted {turn}; the spec refuses: {refused}"
            ) from None
        _same_map(self.engine, self.state, epistemic=self.epistemic)

    def _spec(self, turn: Turn) -> transition.Outcome:
        ops = tuple(spec_operation(op) for op in turn.operations)
        if self.epistemic:
            try:
                small = transition.Budget(SMALL_MODEL, SMALL_MODEL)
                spec_turn = transition.Turn(turn.speaker, ops)
                return transition.process_turn(self.state, spec_turn, budget=small)
            except transition.TooCostly:
                self.epistemic = False
        spec_turn = transition.Turn(turn.speaker, ops)
        return transition.process_turn(self.state, spec_turn, epistemic=False)


def _same_map(engine: Verifier, state: transition.State, *, epistemic: bool) -> None:
    theirs = engine.state.snapshot()
    for part, value in state.snapshot().items():
        mine = theirs[part]
        if part == "dissent":
            mine = {r: ags for r, ags in mine.items() if ags}  # type: ignore[union-attr]
        if part == "records":  # formulas compare as values, below
            mine = [{k: v for k, v in r.items() if k != "formula"} for r in mine]  # type: ignore[union-attr]
        assert mine == value, (part, mine, value)
    for name, record in engine.state.records.items():
        formula = None if record.formula is None else spec_formula(record.formula)
        assert formula == state.records[name].formula, name
    if epistemic and state.model is not None:
        model = spec_model(engine.model.explicit())
        assert (model.worlds, dict(model.leq), dict(model.awareness)) == (
            state.model.worlds,
            dict(state.model.leq),
            dict(state.model.awareness),
        ), "M_t differs"
        queued = [(p.agent, p.source, p.closed_by) for p in engine.state.epistemic.problems]
        assert queued == [(p.agent, p.source, p.closed_by) for p in state.problems]


def _start(agents: Sequence[str], atoms: Sequence[str], engine: Verifier) -> transition.State:
    if engine.model.is_explicit and engine.model.size <= SMALL_MODEL:
        return transition.State.start(agents, atoms, spec_model(engine.model))
    return transition.State.start(agents, atoms)


@pytest.mark.slow
@pytest.mark.parametrize("name", builtin_scenarios())
def test_every_scenario_turn_is_the_spec_transition(name: str) -> None:
    trace = read_trace(name)
    engine = Verifier(list(trace.agents), trace.atoms, trace.model)
    both = _Lockstep(engine, _start(list(trace.agents), trace.atoms, engine))
    for step in trace.turns:
        both.step(step.turn)
    assert both.state.turn == engine.state.turn
    # The brute force follows M_t through the small scenarios to their end.
    assert both.epistemic or name.startswith("phase2-epistemic"), name


@st.composite
def _conversations(draw: st.DrawFn) -> list[Turn]:
    """Up to six turns of one to four operations over the records registered so far."""
    engine, turns = Verifier(AGENTS, ATOMS), []
    for _ in range(draw(st.integers(1, 6))):
        existing = tuple(sorted(engine.state.records))
        ops = draw(st.lists(typed_operations_over(existing), min_size=1, max_size=4))
        turn = Turn(draw(st.sampled_from((*AGENTS, "zz"))), tuple(ops))
        with contextlib.suppress(GcvError):
            engine.apply_turn(turn)
        turns.append(turn)
    return turns


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(_conversations())
def test_generated_multi_operation_turns_are_the_spec_transition(turns: list[Turn]) -> None:
    both = _Lockstep(Verifier(AGENTS, ATOMS), transition.State.start(AGENTS, ATOMS))
    for turn in turns:
        both.step(turn)


# Turns whose outcome depends on the operations' interaction within the turn (A.3, "State
# composition"): each must be accepted or refused by both, identically.
_SETUP = Turn("a", (Observe("o1", "c"), Observe("o2", "c")))


def _interacting() -> list[tuple[Operation, ...]]:
    return [
        (Undermine("o1", "e1", "against"), Resolve("o1")),  # Resolve sees the weakened target
        (Revise("o1"), Resolve("o1")),
        (Support("o1", "e2", "for"), Resolve("o1", authoritative=True, premises=("e2",))),
        (Resolve("o1"), Support("o1", "e3", "for")),  # Support applies first: accepted
        (Undermine("o1", "e4", "against"), Support("o2", "e4")),  # e4 registered, then cited
    ]


@pytest.mark.parametrize("ops", _interacting(), ids=repr)
def test_turns_whose_operations_interact(ops: tuple[Operation, ...]) -> None:
    both = _Lockstep(Verifier(AGENTS, ATOMS), transition.State.start(AGENTS, ATOMS))
    both.step(_SETUP)
    both.step(Turn("b", ops))


def test_the_spec_refuses_undermine_then_resolve_at_the_resolve() -> None:
    """Resolve reads the state Undermine left (turn.composition): its target is weakened."""
    state = transition.State.start(AGENTS, ATOMS)
    state = transition.process_turn(
        state, transition.Turn("a", ({"op": "observe", "id": "o1", "claim": "c"},))
    ).state
    turn = transition.Turn(
        "b",
        (
            {"op": "resolve", "target": "o1"},
            {"op": "undermine", "target": "o1", "evidence": "e1", "evidence_claim": "x"},
        ),
    )
    with pytest.raises(transition.Rejected) as refused:
        transition.process_turn(state, turn)
    assert (refused.value.code, refused.value.index, refused.value.clause) == (
        "wrong-standing",
        0,
        "T3.resolve.target-in-good-standing",
    )
    assert state.label("o1") == "active", "a rejected turn leaves D_t as it was"


# -- the clause registry and spec/gcv/spec/normative.md ------------------------------

_ENTRY = re.compile(
    r"^- `(?P<id>[a-zA-Z0-9]+\.[a-z0-9.-]+)` \*\*(?P<source>paper|chosen)\*\*", re.M
)


def test_every_clause_has_one_normative_entry_with_its_source() -> None:
    entries = [(m["id"], m["source"]) for m in _ENTRY.finditer(NORMATIVE.read_text())]
    ids = [i for i, _ in entries]
    assert len(ids) == len(set(ids)), "an entry is repeated"
    missing = sorted(set(CLAUSES) - set(ids))
    unknown = sorted(set(ids) - set(CLAUSES))
    assert not missing, f"clauses with no entry in spec/gcv/spec/normative.md: {missing}"
    assert not unknown, f"entries with no clause in spec/gcv/spec/transition.py: {unknown}"
    wrong = [(i, s) for i, s in entries if CLAUSES[i].source != s]
    assert not wrong, f"entries whose source differs from the clause's: {wrong}"


def test_a_turn_reports_the_clauses_it_exercised() -> None:
    state = transition.State.start(AGENTS, ATOMS)
    observe = {"op": "observe", "id": "o1", "claim": "c"}
    question = {"op": "question", "id": "q", "claim": "?"}
    resting = {"op": "hypothesize", "id": "h", "claim": "h", "depends_on": ["o1"]}
    apart = transition.process_turn(state, transition.Turn("a", (observe, question)))
    assert {"T3.observe.speaker-commits", "T3.question.registers-record"} <= apart.clauses
    assert "order.kinds" not in apart.clauses, "operations naming nothing in common commute"
    assert "T3.undermine.target-standing" not in apart.clauses
    linked = transition.process_turn(state, transition.Turn("a", (resting, observe)))
    assert "order.kinds" in linked.clauses, "h rests on o1: the order decides the turn"
    with pytest.raises(transition.Rejected) as refused:
        transition.process_turn(apart.state, transition.Turn("a", (observe,)))
    assert {"T3.register.id-new", "turn.numbering"} <= refused.value.clauses


# -- the lockstep and the generator's cross-check catch an engine that departs from the spec -----

_BROKEN: list[tuple[type[Verifier], tuple[tuple[Operation, ...], ...]]] = [
    (broken_engines.UndermineLeavesTargetActive, ((Undermine("o1", "e1", "against"),),)),
    (broken_engines.SupportRevivesAbandoned, ((Revise("o1"),), (Support("o1", "o2"),))),
    (broken_engines.SupportForgetsDependency, ((Support("o1", "e1", "for"),),)),
    (broken_engines.NonAtomicTurn, ((Observe("o3", "c"), Observe("o1", "again")),)),
]


@pytest.mark.parametrize(("engine", "turns"), _BROKEN, ids=lambda x: getattr(x, "__name__", ""))
def test_the_lockstep_catches_an_engine_that_departs_from_the_spec(
    engine: type[Verifier], turns: tuple[tuple[Operation, ...], ...]
) -> None:
    both = _Lockstep(engine(AGENTS, ATOMS), transition.State.start(AGENTS, ATOMS))
    both.step(_SETUP)
    *before, last = turns
    for ops in before:
        both.step(Turn("b", ops))
    with pytest.raises(AssertionError):
        both.step(Turn("b", last))


def test_the_generator_stops_on_an_engine_row_that_is_not_the_spec(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The vector generator's oracle is the spec transition, not the engine's own table."""
    order = tuple(
        replace(rule, row=replace(rule.row, target_standing=frozenset(Standing)))
        if rule.name == "support"
        else rule
        for rule in gcv.reference.operations.ORDER
    )
    monkeypatch.setattr(gcv.reference.operations, "ORDER", order)
    b = CaseBuilder("x/support", "Support needs a target not abandoned", (LEMMA22,))
    b.apply("a", Observe("o1", "c"), Observe("o2", "c"))
    b.apply("a", Revise("o1"))
    with pytest.raises(CaseError, match=r"spec.transition disagree.*wrong-standing"):
        b.apply("b", Support("o1", "o2"))
