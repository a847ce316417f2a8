"""Phase 2's epistemic trajectory (B.2): the trace ``phase2-epistemic`` is Phase 2 with
formulas, and M_t follows the paper turn by turn."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import pytest

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
def test_mis_monitor_is_outside_every_awareness_set_until_t4() -> None:
    for turns in range(4):
        v = _after(turns)
        assert "mis_monitor" not in v.model.atoms
        assert not any(v.is_aware(a, "mis_monitor") for a in "abc")
    for turns in range(4, 14):
        v = _after(turns)
        assert all(v.is_aware(a, "mis_monitor") for a in "abc"), turns
        assert v.holds(parse("A[a] mis_monitor & A[b] mis_monitor & A[c] mis_monitor"))


@pytest.mark.slow
def test_h2_is_believed_false_after_t7_and_known_false_after_t9_for_every_agent() -> None:
    t7, t8, t9 = _after(7), _after(8), _after(9)
    for agent in "abc":
        assert t7.believes(agent, "~h2") and not t7.knows(agent, "~h2")
        assert t8.believes(agent, "~h2") and not t8.knows(agent, "~h2")
        assert t9.knows(agent, "~h2")


@pytest.mark.slow
def test_the_vocabulary_grows_to_the_fifteen_atoms_of_proposition_2_5() -> None:
    assert len(_after(13).model.atoms) == 15


# -- abduction under both readings (Definition A.2; spec/normative.md, del.hypothesize.solves) --


@dataclass(frozen=True)
class Queue:
    """The problem queue after each turn of Phase 2 (index 0: before T1), by source record:
    the sources with an open problem, and each source's solutions so far."""

    open: tuple[frozenset[str], ...]
    solved_by: tuple[dict[str, frozenset[str]], ...]


@cache
def _queue(literal: bool) -> Queue:
    trace = _load("phase2-epistemic")
    v = Verifier(list(trace.agents), list(trace.atoms), literal_abduction=literal)
    opened, solved = [frozenset[str]()], [dict[str, frozenset[str]]()]
    for t in trace.turns:
        v.apply_turn(t.turn)
        problems = v.state.epistemic.problems
        opened.append(frozenset(p.source for p in v.unexplained()))
        sources = {p.source for p in problems}
        solved.append(
            {
                s: frozenset(h for p in problems if p.source == s for h in p.closed_by)
                for s in sources
            }
        )
    return Queue(tuple(opened), tuple(solved))


OBSERVATIONS = frozenset({"o1", "o2", "o3", "o5", "o6", "o7", "o8"})
"""The observations with a formula that posed a problem (o4, o8p and o9 were believed)."""

B2_QUEUE: dict[str, dict[str, frozenset[str]]] = {
    # Transcribed from the engine's two readings, each row argued in docs/epistemic.md: the
    # chosen one as the scenario's expectations state it; the literal one empty from h1 on.
    "chosen": {
        "T2": frozenset({"o1", "o2", "o3", "o5", "o6"}),
        "T6": frozenset({"o2", "o3", "o5", "o6", "o8"}),
        "T9": frozenset({"o1", "o2", "o3", "o5", "o6", "o8"}),
        "T11": frozenset({"o1", "o2", "o3", "o5", "o8"}),
        "T12": frozenset({"o1", "o2", "o3", "o5"}),
        "T13": frozenset({"o1", "o2", "o3", "o5"}),
    },
    "literal": {
        "T2": frozenset({"o1", "o2", "o3", "o5", "o6"}),
        "T6": frozenset(),
        "T9": frozenset(),
        "T11": frozenset(),
        "T12": frozenset(),
        "T13": frozenset(),
    },
}

READINGS = {"chosen": False, "literal": True}


@pytest.mark.slow
@pytest.mark.parametrize("reading", READINGS)
def test_the_queue_at_b2s_turns_under_each_reading(reading: str) -> None:
    queue = _queue(READINGS[reading])
    computed = {turn: queue.open[int(turn[1:])] for turn in B2_QUEUE[reading]}
    assert computed == B2_QUEUE[reading]


Statement = Callable[[Queue], bool]

B2_STATEMENTS: tuple[tuple[str, str, Statement, frozenset[str]], ...] = (
    # (turn, B.2's words, the statement about the queue, the readings under which it holds)
    (
        "T2",
        "o6 poses an abductive problem ... the problem remains open until T11",
        lambda q: all("o6" in q.open[t] for t in range(2, 11)) and "o6" not in q.open[11],
        frozenset({"chosen"}),
    ),
    (
        "T5",
        "[h1] explains the Stripe failures but does not yet explain the auth failures",
        lambda q: "h1" in q.solved_by[5]["o7"] and "o1" in q.open[5],
        frozenset({"chosen"}),
    ),
    (
        "T6",
        "h2 := (p_redis -> p_auth) answers the abductive problem posed by o1",
        lambda q: "h2" in q.solved_by[6]["o1"],
        frozenset({"chosen"}),
    ),
    ("T6", "Remaining unexplained: o6", lambda q: q.open[6] == {"o6"}, frozenset()),
    (
        "T9",
        "o1 (auth failures), o5 (token errors), and o6 (3x traffic) have no causal explanation",
        lambda q: q.open[9] == {"o1", "o5", "o6"},
        frozenset(),
    ),
    (
        "T9",
        "o6 remains the open abductive problem flagged at T2",
        lambda q: "o6" in q.open[9],
        frozenset({"chosen"}),
    ),
    (
        "T10",
        "The Question keeps o6 on the abductive-problem queue: (B_i, o6) in AbdProb_10",
        lambda q: "o6" in q.open[10] and "q6" not in q.solved_by[10],
        frozenset({"chosen"}),
    ),
    ("T11", "[h3] Explains o6", lambda q: "h3" in q.solved_by[11]["o6"], frozenset({"chosen"})),
    (
        "T12",
        "It answers the problem posed by o8",
        lambda q: "h4" in q.solved_by[12]["o8"],
        frozenset({"chosen"}),
    ),
    (
        "T12",
        "h1, h3 and h4 form a single causal chain explaining all observations o1-o9 and o8'",
        lambda q: not q.open[12] and not q.open[13] and set(q.solved_by[13]) == OBSERVATIONS,
        frozenset({"literal"}),
    ),
)


@pytest.mark.slow
@pytest.mark.parametrize(("turn", "words", "statement", "holds_under"), B2_STATEMENTS)
def test_each_b2_statement_about_the_queue_holds_under_the_readings_marked(
    turn: str, words: str, statement: Statement, holds_under: frozenset[str]
) -> None:
    under = {reading for reading, literal in READINGS.items() if statement(_queue(literal))}
    assert under == holds_under, (turn, words)
