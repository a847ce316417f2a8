"""Phase 2's epistemic trajectory (B.2): the trace ``phase2-epistemic`` is Phase 2 with
formulas, and M_t follows the paper turn by turn."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import pytest

from gcv.audits.readings import replay_on_the_spec
from gcv.oracles import epistemic_bits as bits
from gcv.reference.epistemic.formula import parse
from gcv.reference.operations import EPISTEMIC_FIELDS, Revise, Undermine, realisation
from gcv.reference.rules import Update
from gcv.reference.verifier import Verifier
from gcv.replay import replay
from gcv.trace import EPISTEMIC_QUERIES, Trace, load_trace


def _document(name: str) -> dict[str, Any]:
    text = resources.files("gcv.spec").joinpath("scenarios", f"{name}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _load(name: str) -> Trace:
    return load_trace(json.dumps(_document(name)))


def _argumentation(document: dict[str, Any]) -> list[Any]:
    """The turns with the epistemic fields and expectations taken out."""
    turns = []
    for t in document["turns"]:
        ops = [{k: v for k, v in op.items() if k not in EPISTEMIC_FIELDS} for op in t["operations"]]
        expect = [e for e in t.get("expect", []) if e["query"] not in EPISTEMIC_QUERIES]
        turns.append({**t, "operations": ops, "expect": expect})
    return turns


def test_the_epistemic_trace_is_phase_2_with_formulas() -> None:
    plain, epistemic = _document("phase2-debugging"), _document("phase2-epistemic")
    assert _argumentation(epistemic) == _argumentation(plain)
    assert epistemic["agents"] == plain["agents"] and epistemic["atoms"] == plain["atoms"]
    assert epistemic.get("expect", []) == plain.get("expect", [])


@pytest.mark.slow
def test_every_expectation_holds() -> None:
    result = replay(_load("phase2-epistemic"))
    assert result.ok, [(c.expectation.describe(), c.actual) for c in result.checks if not c.ok]


def _after(turns: int) -> Verifier:
    trace = _load("phase2-epistemic")
    v = Verifier(list(trace.agents), list(trace.atoms))
    for t in trace.turns[:turns]:
        v.apply_turn(t.turn)
    return v


def test_the_table_realises_t7_t9_and_t12_as_b2_says() -> None:
    trace = _load("phase2-epistemic")
    undermine = trace.turns[6].turn.operations[1]
    revise_t9 = trace.turns[8].turn.operations[0]
    revise_t12 = trace.turns[11].turn.operations[1]
    assert isinstance(undermine, Undermine)
    assert isinstance(revise_t9, Revise) and isinstance(revise_t12, Revise)
    # T7: "Undermine applies [up-up ~h2]"; T9: "Revise applies the hard announcement !~h2";
    # T12: "the engine adds the attack (h4, h2) and h2 stays abandoned".
    assert (realisation(undermine).update, realisation(undermine).negated) == (
        Update.LEXICOGRAPHIC_UPGRADE,
        True,
    )
    assert (realisation(revise_t9).update, realisation(revise_t9).negated) == (
        Update.HARD_ANNOUNCEMENT,
        True,
    )
    assert realisation(revise_t12).update is None


@pytest.mark.slow
def test_mis_monitor_enters_every_awareness_set_at_t4_and_prop_grows_to_fifteen_atoms() -> None:
    trace = _load("phase2-epistemic")
    v = Verifier(list(trace.agents), list(trace.atoms))
    for turns in range(14):
        if turns:
            v.apply_turn(trace.turns[turns - 1].turn)
        if turns < 4:
            assert "mis_monitor" not in v.model.atoms
            assert not any(v.is_aware(a, "mis_monitor") for a in "abc")
        else:
            assert all(v.is_aware(a, "mis_monitor") for a in "abc"), turns
            assert v.holds(parse("A[a] mis_monitor & A[b] mis_monitor & A[c] mis_monitor"))
    # Proposition 2.5's proof: k = 15 for Phase 2 (7 observables, mis_monitor, h1-h4, three
    # causal atoms).
    assert len(v.model.atoms) == 15


@pytest.mark.slow
def test_h2_is_believed_false_after_t7_and_known_false_after_t9_for_every_agent() -> None:
    trace = _load("phase2-epistemic")
    v = _after(7)
    for after in (7, 8):
        for agent in "abc":
            assert v.believes(agent, "~h2") and not v.knows(agent, "~h2"), (after, agent)
        v.apply_turn(trace.turns[after].turn)
    assert all(v.knows(agent, "~h2") for agent in "abc"), "after T9"


# -- abduction under both readings (Definition A.2; spec/gcv/spec/normative.md, del.hypothesize.solv

READINGS = {"default": False, "literal": True}
"""The engine's two readings of Definition A.2's explanatory model: M_chi^t, and M_t."""

Queue = tuple[tuple[tuple[str, str, tuple[str, ...]], ...], ...]
"""The problem queue after each turn (index 0: before T1): each problem's agent, source and
the hypotheses that solved it, in order."""


def _opened(queue: Queue, good: frozenset[str], agent: str | None = None) -> frozenset[str]:
    """The sources with a problem (of ``agent``, or of anyone) no hypothesis in S_t solved."""
    return frozenset(
        source for who, source, solved in queue if agent in (None, who) and not good & set(solved)
    )


@cache
def oracle_queue(literal: bool) -> tuple[Queue, tuple[frozenset[str], ...]]:
    """Phase 2's queue computed without the engine: the argumentation by the spec's
    transition, M_t and the queue by the bit-parallel oracle (``process_turn_model``); with
    S_t after each turn."""
    trace = _load("phase2-epistemic")
    agents = tuple(trace.agents)
    model = bits.compute_default_model(agents, trace.atoms, dict.fromkeys(agents, trace.atoms))
    problems: tuple[bits.BitProblem, ...] = ()
    queues: list[tuple[tuple[str, str, tuple[str, ...]], ...]] = [()]
    good = [frozenset[str]()]
    for before, after, turn in replay_on_the_spec(trace):
        model, problems = bits.process_turn_model(
            before, after, turn, model, problems, literal=literal
        )
        queues.append(tuple((p.agent, p.source, p.closed_by) for p in problems))
        good.append(after.active_set())
    return tuple(queues), tuple(good)


@pytest.mark.slow
@pytest.mark.parametrize("reading", READINGS)
def test_the_engines_queue_is_the_oracles_after_every_turn(reading: str) -> None:
    literal = READINGS[reading]
    queues, good = oracle_queue(literal)
    trace = _load("phase2-epistemic")
    v = Verifier(list(trace.agents), list(trace.atoms), literal_abduction=literal)
    for t, turn in enumerate(trace.turns, start=1):
        v.apply_turn(turn.turn)
        problems = v.state.epistemic.problems
        engine = tuple((p.agent, p.source, p.closed_by) for p in problems)
        assert engine == queues[t], (reading, t)
        assert frozenset(p.source for p in v.unexplained()) == _opened(queues[t], good[t])


def test_the_scenarios_unexplained_expectations_are_the_oracles() -> None:
    """The trace's ``unexplained`` expectations, source by source, are what the oracle's queue
    leaves open for that agent (the default reading): the trace states the oracle's values."""
    queues, good = oracle_queue(False)
    trace = _load("phase2-epistemic")
    stated = [
        (t.number, e.subject, e.expected)
        for t in trace.turns
        for e in t.expectations
        if e.query == "unexplained"
    ]
    assert len(stated) == 10
    for number, agent, expected in stated:
        assert frozenset(expected) == _opened(queues[number], good[number], agent), number
