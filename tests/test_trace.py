"""The trace format: every kind of bad input is a typed error that names where it is."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv.errors import MalformedTrace
from gcv.replay import replay
from gcv.scenarios import trace_text
from gcv.trace import MAX_TRACE_BYTES, load_trace, operation_from_json, operation_to_json
from tests.strategies import operations_over


def _trace(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "gcv-trace/1",
        "agents": {"a": "Alice"},
        "turns": [
            {"turn": 1, "speaker": "a", "operations": [{"op": "observe", "id": "o1", "claim": "x"}]}
        ],
    }
    doc.update(overrides)
    return doc


def _load(doc: object) -> None:
    load_trace(json.dumps(doc))


def _turn(op: dict[str, Any]) -> dict[str, Any]:
    return _trace(turns=[{"turn": 1, "speaker": "a", "operations": [op]}])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested more than 32 deep"),
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested more than 32 deep"),
        (b"\xff\xfe\x00", "not UTF-8"),
        ("[]", "is not of type 'object'"),
    ],
)
def test_unreadable_text_is_a_malformed_trace(text: str | bytes, message: str) -> None:
    with pytest.raises(MalformedTrace, match=message):
        load_trace(text)


def test_an_oversized_trace_is_refused_before_parsing() -> None:
    with pytest.raises(MalformedTrace, match="at most"):
        load_trace(" " * (MAX_TRACE_BYTES + 1))


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        (_trace(format="gcv-trace/2"), "format"),
        (_trace(agents={}), "agents"),
        (_trace(agents={"not an id": "x"}), "agents"),
        (_trace(extra=1), "extra"),
        (_trace(turns=[{"turn": 1, "speaker": "a"}]), "turns[0].operations"),
        (_turn({"op": "teleport", "id": "o1"}), "turns[0].operations[0].op"),
        (_turn({"op": "observe", "id": "o1"}), "turns[0].operations[0].claim"),
        (
            _turn({"op": "observe", "id": "o1", "claim": "x", "target": "h1"}),
            "turns[0].operations[0].target",
        ),
        (_turn({"op": "observe", "id": "o 1", "claim": "x"}), "turns[0].operations[0].id"),
        (_turn({"op": "observe", "id": "o1", "claim": ""}), "turns[0].operations[0].claim"),
        (
            _turn({"op": "observe", "id": "o1", "claim": "x", "kind": "evidence"}),
            "turns[0].operations[0].kind",
        ),
        (
            _turn({"op": "revise", "target": "h1", "attackers": ["a", "a"]}),
            "turns[0].operations[0].attackers",
        ),
        (
            _turn({"op": "resolve", "target": "h1", "authoritative": "yes"}),
            "turns[0].operations[0].authoritative",
        ),
        (
            _trace(expect=[{"query": "standing", "record": "o1", "equals": "shiny"}]),
            "expect[0].equals",
        ),
        (_trace(expect=[{"query": "teleport"}]), "expect[0].query"),
    ],
)
def test_schema_violations_name_the_field(doc: dict[str, Any], field: str) -> None:
    with pytest.raises(MalformedTrace) as caught:
        _load(doc)
    assert caught.value.field == field, str(caught.value)


def test_a_bad_turn_names_its_line_operation_field_and_the_fields_allowed() -> None:
    document = json.loads(trace_text("phase2-debugging"))
    document["turns"][4]["operations"][0]["bogus"] = 1
    text = json.dumps(document, indent=2)
    line = 1 + text.splitlines().index('          "bogus": 1')
    with pytest.raises(MalformedTrace) as caught:
        load_trace(text)
    said = str(caught.value)
    assert f"line {line}, turn 5, operation 0 (observe): unknown field 'bogus'" in said, said
    assert "observe allows: claim, depends_on, formula, id, kind, why" in said, said
    assert caught.value.field == "turns[4].operations[0].bogus"


def test_turns_must_be_numbered_in_sequence() -> None:
    turn = {"turn": 2, "speaker": "a", "operations": []}
    with pytest.raises(MalformedTrace, match="out of sequence") as caught:
        _load(_trace(turns=[turn]))
    assert caught.value.field == "turns[0].turn"


def test_an_operation_the_schema_admits_but_the_type_rejects() -> None:
    """A consensual Resolve with dissenters is well typed JSON but not a well-formed operation."""
    op = {"op": "resolve", "target": "h1", "dissenters": ["b"]}
    with pytest.raises(MalformedTrace) as caught:
        _load(_turn(op))
    assert caught.value.field == "turns[0].operations[0].dissenters"


def test_a_rejected_turn_takes_no_number() -> None:
    turns = [
        {
            "turn": 1,
            "speaker": "a",
            "operations": [{"op": "revise", "target": "zz"}],
            "rejected": "unknown-record",
        },
        {
            "turn": 1,
            "speaker": "a",
            "operations": [{"op": "observe", "id": "o1", "claim": "x"}],
            "expect": [{"query": "standing", "record": "o1", "equals": "active"}],
        },
    ]
    result = replay(load_trace(json.dumps(_trace(turns=turns))))
    assert result.ok and result.turns[0].error is not None


@pytest.mark.parametrize(
    ("turn", "expect"),
    [
        ({"turn": 1, "speaker": "a", "operations": [{"op": "revise", "target": "zz"}]}, []),
        ({"turn": 1, "speaker": "a", "operations": [], "rejected": "unknown-record"}, []),
        (
            {
                "turn": 1,
                "speaker": "a",
                "operations": [{"op": "revise", "target": "zz"}],
                "rejected": "wrong-standing",
            },
            [],
        ),
        (
            {
                "turn": 1,
                "speaker": "a",
                "operations": [{"op": "observe", "id": "o1", "claim": "x"}],
            },
            [{"query": "standing", "record": "o1", "equals": "weakened"}],
        ),
        (
            {"turn": 1, "speaker": "a", "operations": []},
            [{"query": "standing", "record": "o1", "equals": "active"}],
        ),
        (
            {
                "turn": 1,
                "speaker": "a",
                "operations": [{"op": "observe", "id": "o1", "claim": "x"}],
            },
            [{"query": "verify", "record": "o1", "grounded": True, "closure": ["o1", "o2"]}],
        ),
    ],
)
def test_replay_reports_every_kind_of_disagreement(turn: dict[str, Any], expect: list[Any]) -> None:
    result = replay(load_trace(json.dumps(_trace(turns=[turn], expect=expect))))
    assert not result.ok and result.failures == 1


@given(st.data())
def test_operations_round_trip_through_json(data: st.DataObject) -> None:
    op = data.draw(operations_over(("o1", "h1", "h2")))
    encoded = operation_to_json(op)
    assert operation_from_json(json.loads(json.dumps(encoded))) == op
    _load(_turn(encoded))  # and the encoding is valid under the schema
