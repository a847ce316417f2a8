"""Untrusted replies: every defect is reported with its code, and nothing is half-applied."""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv.interpret.protocol import Reply, Request
from gcv.interpret.turn import interpret_turn
from gcv.interpret.validate import (
    MAX_OPERATIONS,
    OPERATION_NAMES,
    check_turn,
    read_reply,
    response_schema,
)
from gcv.reference.operations import Hypothesize, Observe, Revise
from gcv.reference.verifier import Turn, Verifier
from gcv.trace import Trace, load_trace, operation_to_json, trace_schema
from tests.strategies import operations_over


def _scenario(name: str) -> Trace:
    path = resources.files("gcv.spec").joinpath("scenarios", f"{name}.json")
    return load_trace(path.read_bytes())


@cache
def _replayed(turns: int) -> Verifier:
    trace = _scenario("phase2-debugging")
    verifier = Verifier(list(trace.agents), list(trace.atoms))
    for t in trace.turns[:turns]:
        verifier.apply_turn(t.turn)
    return verifier


def _phase2_after(turns: int) -> Verifier:
    """A fresh copy of Phase 2's D_t after ``turns`` turns."""
    return copy.deepcopy(_replayed(turns))


class Scripted:
    """An interpreter that answers with a fixed text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def describe(self) -> dict[str, str]:
        return {"interpreter": "scripted"}

    def interpret(self, request: Request) -> Reply:
        return Reply(self.text)


def _ops(*items: object) -> str:
    return json.dumps({"operations": list(items)})


# -- the reply schema is the trace schema's ----------------------------------------

TRACE_OPERATION = jsonschema.Draft202012Validator(
    {"$defs": trace_schema()["$defs"], "$ref": "#/$defs/operation"}
)
REPLY_ITEM = jsonschema.Draft202012Validator(
    {
        "$defs": response_schema()["$defs"],
        "anyOf": response_schema()["properties"]["operations"]["items"]["anyOf"],
    }
)


def test_the_response_schema_is_a_valid_schema_over_the_eight_operations() -> None:
    schema = response_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    variants = schema["properties"]["operations"]["items"]["anyOf"]
    assert [v["properties"]["op"]["const"] for v in variants] == list(OPERATION_NAMES)
    assert json.loads(json.dumps(schema)) == schema, "the schema is plain JSON"


@pytest.mark.parametrize("name", ["phase2-debugging", "phase3-deliberation"])
def test_every_gold_operation_fits_both_schemas(name: str) -> None:
    for t in _scenario(name).turns:
        reply = {"operations": [operation_to_json(op) for op in t.turn.operations]}
        jsonschema.validate(reply, response_schema())
        for item in reply["operations"]:
            assert TRACE_OPERATION.is_valid(item), item


_junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["", "bad id!", "h1", "x" * 200, "lexicographic"]),
)
_FIELDS = ["op", "id", "claim", "kind", "target", "evidence", "attackers", "atom", "agents"]
# Fields some operations accept and others forbid, and one no operation has.
_keys = st.sampled_from([*_FIELDS, "formula", "specific", "downgrade", "extra"])


@st.composite
def _mutated(draw: st.DrawFn) -> dict[str, Any]:
    item: dict[str, Any] = operation_to_json(draw(operations_over(("o1", "h1", "h2"))))
    for _ in range(draw(st.integers(0, 2))):
        match draw(st.sampled_from(["drop", "set", "list"])):
            case "drop" if item:
                item.pop(draw(st.sampled_from(sorted(item))))
            case "set":
                item[draw(_keys)] = draw(_junk)
            case "list":
                item[draw(_keys)] = draw(st.lists(_junk, max_size=2))
    return item


@given(_mutated())
def test_the_reply_schema_accepts_exactly_what_the_trace_schema_accepts(
    item: dict[str, Any],
) -> None:
    assert TRACE_OPERATION.is_valid(item) == REPLY_ITEM.is_valid(item), item


# -- read_reply: each defect, its code and where it is -------------------------------

OBSERVE = {"op": "observe", "id": "o1", "claim": "401s"}

CASES = [
    ("not JSON", "Sure! Here are the operations.", [("malformed-reply", None)]),
    ("empty", "  ", [("malformed-reply", None)]),
    ("truncated", '{"operations": [{"op": "obs', [("malformed-reply", None)]),
    ("a bare list", json.dumps([OBSERVE]), [("malformed-reply", None)]),
    ("no operations key", json.dumps({"ops": [OBSERVE]}), [("malformed-reply", None)]),
    ("operations not a list", json.dumps({"operations": OBSERVE}), [("malformed-reply", None)]),
    ("an extra field", json.dumps({"operations": [], "notes": "x"}), [("malformed-reply", None)]),
    ("an item not an object", _ops("observe"), [("malformed-reply", "operations[0]")]),
    ("no op", _ops({"id": "o1"}), [("malformed-reply", "operations[0].op")]),
    ("an unknown op", _ops({"op": "conclude"}), [("unknown-operation", "operations[0].op")]),
    (
        "a missing field",
        _ops({"op": "observe", "id": "o1"}),
        [("malformed-reply", "operations[0]")],
    ),
    (
        "a bad identifier",
        _ops({"op": "revise", "target": "h 2"}),
        [("malformed-reply", "operations[0].target")],
    ),
    (
        "an unknown field",
        _ops({**OBSERVE, "confidence": 0.9}),
        [("malformed-reply", "operations[0]")],
    ),
    (
        "a consensual Resolve with premises",
        _ops({"op": "resolve", "target": "h4", "premises": ["a1"]}),
        [("malformed-operation", "operations[0].premises")],
    ),
    (
        "two defects, both reported",
        _ops(OBSERVE, {"op": "guess"}, {"op": "revise"}),
        [("unknown-operation", "operations[1].op"), ("malformed-reply", "operations[2]")],
    ),
    (
        "too many operations",
        _ops(*[{"op": "question", "id": f"q{i}", "claim": "?"} for i in range(MAX_OPERATIONS + 1)]),
        [("malformed-reply", "operations")],
    ),
    ("too long", "x" * 1_000_001, [("malformed-reply", None)]),
    ("nested too deeply", "[" * 100_000 + "]" * 100_000, [("malformed-reply", None)]),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_defect_is_reported_with_its_code_and_place(
    text: str, expected: list[tuple[str, str | None]]
) -> None:
    read = read_reply(text)
    assert read.operations is None
    assert [(p.code, p.field) for p in read.problems] == expected


def test_labels_are_read_even_from_a_refused_reply() -> None:
    read = read_reply(_ops({"op": "observe", "id": "o1"}, {"op": "conclude"}, {"op": "revise"}))
    assert read.labels == {"observe", "conclude", "revise"} and read.operations is None


def test_a_fenced_reply_is_unwrapped() -> None:
    read = read_reply("```json\n" + _ops(OBSERVE) + "\n```")
    assert read.operations == (Observe("o1", "401s"),)


def test_an_empty_list_is_a_turn_with_no_operations() -> None:
    read = read_reply('{"operations": []}')
    assert read.operations == () and read.labels == frozenset()


@pytest.mark.slow
@given(st.text(max_size=200))
def test_reading_never_raises_on_any_text(text: str) -> None:
    read = read_reply(text)
    assert (read.operations is None) == bool(read.problems)


# -- the engine's preconditions, on a copy ---------------------------------------

ENGINE_CASES = [
    ("an unknown record", [{"op": "revise", "target": "h9"}], "unknown-record", 0),
    ("a reused identifier", [{**OBSERVE, "id": "o5"}], "duplicate-record", 0),
    (
        "an abandoned evidence record",
        [{"op": "support", "target": "h1", "evidence": "h2"}],
        "wrong-standing",
        0,
    ),
    (
        "a resolve of an abandoned record",
        [{"op": "resolve", "target": "h2"}],
        "wrong-standing",
        0,
    ),
    ("a self-attack", [{"op": "revise", "target": "h1", "attackers": ["h1"]}], "self-reference", 0),
    (
        "an awareness that changes nothing",
        [{"op": "expand-awareness", "atom": "p_db"}],
        "already-aware",
        0,
    ),
    (
        "a sound operation before an unsound one",
        [
            {"op": "question", "id": "q9", "claim": "?"},
            {"op": "undermine", "target": "zz", "evidence": "o9"},
        ],
        "unknown-record",
        1,
    ),
]


@pytest.mark.parametrize(
    ("items", "code", "index"), [c[1:] for c in ENGINE_CASES], ids=[c[0] for c in ENGINE_CASES]
)
def test_a_violated_precondition_is_refused_whole_and_leaves_the_state(
    items: list[dict[str, Any]], code: str, index: int
) -> None:
    verifier = _phase2_after(9)  # h2 abandoned at T9
    before = verifier.state.digest()
    outcome = interpret_turn(Scripted(_ops(*items)), verifier, Request(9, "b", "..."))
    assert not outcome.accepted and outcome.report is None
    [problem] = outcome.problems
    assert (problem.code, problem.operation_index) == (code, index)
    assert verifier.state.digest() == before


def test_checking_without_committing_leaves_the_state() -> None:
    verifier = _phase2_after(11)
    before = verifier.state.digest()
    ops = [Hypothesize("h4", "retries exhaust Redis", depends_on=("h3",)), Revise("h2", ("h4",))]
    assert check_turn(verifier, "c", ops) is None
    assert verifier.state.digest() == before and "h4" not in verifier.state.records


@st.composite
def _replies(draw: st.DrawFn) -> str:
    existing = ("o1", "o5", "o8", "o9", "h1", "h2", "q1", "ghost")
    items: list[object] = [
        draw(st.one_of(_mutated(), st.builds(operation_to_json, operations_over(existing))))
        for _ in range(draw(st.integers(0, 3)))
    ]
    return json.dumps({"operations": items})


@given(_replies())
def test_a_reply_is_applied_whole_or_not_at_all(text: str) -> None:
    verifier = _phase2_after(9)
    scratch = copy.deepcopy(verifier)
    before = verifier.state.digest()
    outcome = interpret_turn(Scripted(text), verifier, Request(9, "b", "..."))
    if outcome.accepted:
        assert outcome.operations is not None
        scratch.apply_turn(Turn("b", outcome.operations))
        assert verifier.state.digest() == scratch.state.digest()
    else:
        assert outcome.problems and verifier.state.digest() == before
