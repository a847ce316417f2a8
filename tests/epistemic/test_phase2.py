"""Phase 2's epistemic trajectory (B.2): the trace ``phase2-epistemic`` is Phase 2 with
formulas, and M_t follows the paper turn by turn."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from gcv.reference.epistemic.formula import parse
from gcv.reference.operations import EPISTEMIC_FIELDS, Revise, Undermine
from gcv.reference.rules import Update, realisation
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
