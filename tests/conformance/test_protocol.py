"""The protocol and the reference behind it: message schemas, the session, ``gcv serve``."""

from __future__ import annotations

import io
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv import trace
from gcv.conformance import protocol
from gcv.conformance.fuzz import turns_over
from gcv.conformance.server import serve
from gcv.conformance.session import Session
from gcv.conformance.vectors import load_suite

SUITE = load_suite()


def _full_schema_accepts(request: object) -> bool:
    return bool(protocol._validator("urn:gcv:conform:1:request", "").is_valid(request))


@pytest.mark.slow
def test_every_response_of_the_reference_to_every_vector_step_is_a_protocol_response() -> None:
    checked = 0
    for case in SUITE:
        session = Session()
        start = {"id": 0, **case.start()}
        assert protocol.response_problem(start, session.handle(start)) is None
        for number, step in enumerate(case.steps, start=1):
            request = {"id": number, **step.request}
            assert protocol.request_problem(request) is None, (case.id, number)
            response = session.handle(request)
            assert protocol.response_problem(request, response) is None, (case.id, response)
            checked += 1
    assert checked == sum(len(c.steps) for c in SUITE)


_MUTATIONS = st.sampled_from(
    [
        ("id", -1),
        ("id", True),
        ("id", 1.5),
        ("cmd", "launch"),
        ("query", "knows"),
        ("record", "not an id"),
        ("speaker", 7),
        ("extra", 1),
        ("operations", [{"op": "observe", "id": "x"}]),
        ("operations", [{"op": "teleport"}]),
        ("operations", [{"op": "support", "target": "h1", "evidence": "e1", "extra": 1}]),
        (
            "operations",
            [{"op": "support", "target": "h1", "evidence": "e1", "downgrade": "lexicographic"}],
        ),
        ("operations", [{"op": "undermine", "target": "h1", "evidence": "e1", "specific": True}]),
    ]
)


@pytest.mark.slow
@given(st.data())
def test_the_fast_check_accepts_only_what_the_request_schema_accepts(data: st.DataObject) -> None:
    """request_problem dispatches on cmd, query and op instead of evaluating every if/then
    branch; it must agree with the schema itself, valid or not."""
    existing = tuple(data.draw(st.lists(st.sampled_from(["o1", "h1", "e1"]), unique=True)))
    request: dict[str, Any] = {
        "id": data.draw(st.integers(0, 9)),
        **data.draw(turns_over(existing)),
    }
    if data.draw(st.booleans()):
        request = {"id": 3, "cmd": "query", "query": data.draw(st.sampled_from(protocol.QUERIES))}
        request |= data.draw(st.sampled_from([{"record": "h1"}, {"record": None}, {"agent": "a"}]))
    if data.draw(st.booleans()):
        key, value = data.draw(_MUTATIONS)
        request[key] = value
    verdict = protocol.request_problem(request) is None
    assert verdict == _full_schema_accepts(request), request


def test_the_schemas_are_valid_draft_2020_12() -> None:
    for uri in ("urn:gcv:conform:1:request", "urn:gcv:conform:1:response", "urn:gcv:vectors:1"):
        jsonschema.Draft202012Validator.check_schema(protocol.schema(uri))


def test_the_reference_declares_every_feature_and_no_reserved_one() -> None:
    result = Session().handle({"id": 0, "cmd": "handshake", "protocol": protocol.PROTOCOL})
    assert set(result["result"]["features"]) == set(protocol.FEATURES)
    assert not set(protocol.FEATURES) & set(protocol.RESERVED_FEATURES)
    assert {f"query:{q}" for q in protocol.QUERIES} <= set(protocol.FEATURES)
    epistemic = {"holds", "knows", "believes", "worlds", "ordered", "unexplained"}
    assert {"epistemic"} | {f"query:{q}" for q in epistemic} <= set(protocol.FEATURES)
    assert epistemic == trace.EPISTEMIC_QUERIES


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        ({"id": 0, "cmd": "handshake", "protocol": "gcv-conform/2"}, "unsupported"),
        ({"id": 1, "cmd": "query", "query": "standing", "record": "o1"}, "malformed-request"),
        ({"id": 2, "cmd": "apply", "speaker": "a", "operations": []}, "malformed-request"),
        ({"id": 3, "cmd": "launch"}, "malformed-request"),
        ({"cmd": "shutdown"}, "malformed-request"),
        ([1, 2], "malformed-request"),
        ({"id": 4, "cmd": "start", "agents": []}, "malformed-request"),
    ],
)
def test_requests_out_of_protocol_or_out_of_place_get_a_typed_error(
    request_: object, code: str
) -> None:
    response = Session().handle(request_)
    assert response["ok"] is False and response["error"]["code"] == code, response
    expected_id = request_.get("id") if isinstance(request_, dict) else None
    assert response["id"] == expected_id


def test_a_rejected_turn_answers_with_the_located_error_and_changes_nothing() -> None:
    session = Session()
    session.handle({"id": 0, "cmd": "start", "agents": ["a"]})
    assert session.verifier is not None
    before = session.verifier.state.digest()
    bad = [{"op": "observe", "id": "o1", "claim": "x"}, {"op": "revise", "target": "zz"}]
    response = session.handle({"id": 1, "cmd": "apply", "speaker": "a", "operations": bad})
    error = response["error"]
    assert (error["code"], error["operation_index"], error["field"]) == (
        "unknown-record",
        1,
        "target",
    )
    assert session.verifier.state.digest() == before
    malformed = [{"op": "resolve", "target": "o1", "dissenters": ["a"]}]
    response = session.handle({"id": 2, "cmd": "apply", "speaker": "a", "operations": malformed})
    error = response["error"]
    assert (error["code"], error["operation_index"], error["turn"]) == ("malformed-operation", 0, 1)


def _serve(lines: list[bytes]) -> list[dict[str, Any]]:
    out = io.StringIO()
    assert serve(lines, out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_serve_answers_each_line_skips_blank_ones_and_stops_at_shutdown() -> None:
    answers = _serve(
        [
            b'{"id": 1, "cmd": "start", "agents": ["a"]}\n',
            b"\n",
            b"not json\n",
            b"\xff\xfe\n",
            b"[" * 100_000 + b"\n",
            b'{"id": 2, "cmd": "shutdown"}\n',
            b'{"id": 3, "cmd": "start", "agents": ["a"]}\n',
        ]
    )
    assert [a["id"] for a in answers] == [1, None, None, None, 2]
    assert [a["ok"] for a in answers] == [True, False, False, False, True]
    assert {a["error"]["code"] for a in answers if not a["ok"]} == {"malformed-request"}


def test_gcv_serve_is_a_delegated_command() -> None:
    from gcv.cli import _DELEGATED

    assert _DELEGATED["serve"][0] == "gcv.conformance.server"
    assert _DELEGATED["conform"][0] == "gcv.conformance.runner"
    assert _DELEGATED["vectors"][0] == "gcv.conformance.generate"


@pytest.mark.parametrize(
    "operation",
    [
        {"op": "support", "target": "h1", "evidence": "e1", "downgrade": "conservative"},
        {"op": "undermine", "target": "h1", "evidence": "e1", "specific": False},
    ],
)
def test_a_field_of_the_other_evidence_operation_is_a_malformed_request(
    operation: dict[str, Any],
) -> None:
    """Support has no downgrade and Undermine no specific: the request schema refuses both.
    The fast check once read one definition for the two (and so accepted them), and the
    reference then crashed building the operation."""
    session = Session()
    session.handle({"id": 0, "cmd": "start", "agents": ["a"]})
    assert protocol.request_problem(
        {"id": 1, "cmd": "apply", "speaker": "a", "operations": [operation]}
    )
    response = session.handle({"id": 1, "cmd": "apply", "speaker": "a", "operations": [operation]})
    assert response["ok"] is False and response["error"]["code"] == "malformed-request", response
