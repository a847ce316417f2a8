"""Traces with formulas, a declared M_0 and epistemic expectations; their defects."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gcv.errors import MalformedTrace
from gcv.replay import replay
from gcv.trace import load_trace


def _trace(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "format": "gcv-trace/1",
        "agents": {"a": "Alice", "b": "Bob"},
        "atoms": ["p", "q"],
        "turns": [
            {
                "turn": 1,
                "speaker": "a",
                "operations": [{"op": "observe", "id": "o1", "claim": "p", "formula": "p"}],
                "expect": [
                    {"query": "knows", "agent": "b", "formula": "p", "equals": True},
                    {"query": "worlds", "count": 2},
                    {"query": "unexplained", "agent": "b", "equals": ["o1"]},
                ],
            }
        ],
    }
    base.update(extra)
    return base


def _load(document: dict[str, Any]) -> Any:
    return load_trace(json.dumps(document))


def test_a_trace_with_formulas_replays() -> None:
    assert replay(_load(_trace())).ok


def test_a_declared_model_is_m_0() -> None:
    document = _trace(
        model={
            "worlds": [["p"], ["p", "q"], ["q"]],
            "observes": {"a": ["q"]},
            "ranks": {"b": [{"world": ["q"], "rank": 1}]},
            "awareness": {"b": ["p"]},
        }
    )
    document["turns"][0]["expect"] = [
        {"query": "worlds", "equals": [["p"], ["p", "q"]]},
        {"query": "knows", "agent": "a", "formula": "q", "at": ["p", "q"], "equals": True},
        {"query": "holds", "formula": "A[b] p & ~A[b] q", "equals": True},
    ]
    trace = _load(document)
    assert trace.model is not None and trace.model.size == 3
    result = replay(trace)
    assert result.ok, [(c.expectation.describe(), c.actual) for c in result.checks if not c.ok]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda d: d["turns"][0]["operations"][0].update(formula="p &"), "formula"),
        (lambda d: d["turns"][0]["operations"][0].update(formula="~" * 99_000 + "p"), "formula"),
        (lambda d: d["turns"][0]["expect"][0].update(formula="K[b p"), "expect[0].formula"),
        (lambda d: d.update(model={"worlds": [["p"], ["p"]]}), "model"),
        (lambda d: d.update(model={"observes": {"z": ["p"]}}), "model"),
        (lambda d: d.update(model={"worlds": [["zz"]]}), "model"),
        (
            lambda d: d["turns"][0]["operations"].append(
                {"op": "support", "target": "o1", "evidence": "o1", "downgrade": "conservative"}
            ),
            "turns[0].operations[1]",
        ),
        (
            lambda d: d["turns"][0]["operations"].append(
                {"op": "hypothesize", "id": "h", "claim": "x", "introduces": ["true"]}
            ),
            "introduces",
        ),
    ],
)
def test_a_defective_epistemic_part_is_a_malformed_trace(edit: Any, where: str) -> None:
    document = _trace()
    edit(document)
    with pytest.raises(MalformedTrace) as caught:
        _load(document)
    assert caught.value.code == "malformed-trace"
    assert where in (caught.value.field or ""), caught.value


def test_a_turn_rejected_for_an_epistemic_reason_leaves_the_state_unchanged() -> None:
    document = _trace()
    document["turns"].append(
        {
            "turn": 2,
            "speaker": "b",
            "operations": [{"op": "observe", "id": "o2", "claim": "not p", "formula": "~p"}],
            "rejected": "no-surviving-world",
            "expect": [{"query": "worlds", "count": 2}],
        }
    )
    document["turns"].append(
        {
            "turn": 2,
            "speaker": "b",
            "operations": [{"op": "observe", "id": "o2", "claim": "r", "formula": "r"}],
            "rejected": "unknown-atom",
        }
    )
    result = replay(_load(document))
    assert result.ok, [t.error for t in result.turns]
