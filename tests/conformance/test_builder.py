"""Writing cases: stated outcomes and the spec's definitions check the reference's answers
before a vector records them; the trace hook; re-deriving cases from their requests."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gcv.conformance import session as session_module
from gcv.conformance.cases import CaseBuilder, CaseError, case_from_trace, rederive
from gcv.conformance.cases.builder import SURVEY
from gcv.conformance.compare import check, normalize_state
from gcv.reference.operations import Hypothesize, Observe, Revise


def test_a_stated_outcome_the_reference_does_not_give_stops_the_build() -> None:
    b = CaseBuilder("core/x/stated", "d", ["Lemma 2.1"])
    b.apply("a", Observe("o1", "401s"))
    with pytest.raises(CaseError, match="states standing"):
        b.query("standing", "o1", equals="weakened")
    with pytest.raises(CaseError, match="duplicate-record"):
        b.apply("a", Observe("o1", "again"))  # duplicate-record, but stated as accepted
    with pytest.raises(CaseError, match="field"):
        b.apply("a", Revise("zz"), rejected="unknown-record", field="attackers")


def test_a_reference_answer_the_spec_disagrees_with_stops_the_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = session_module.answer

    def one_step(verifier: Any, request: Any) -> Any:
        if request["query"] == "affected_star":
            return list(verifier.affected(request["record"]))
        return real(verifier, request)

    monkeypatch.setattr(session_module, "answer", one_step)
    b = CaseBuilder("core/x/spec", "d", ["Definition 2.3"])
    b.apply("a", Observe("o1", "x"), Hypothesize("h1", "y", depends_on=("o1",)))
    b.apply("a", Hypothesize("h2", "z", depends_on=("h1",)))
    with pytest.raises(CaseError, match=r"affected_star: reference \['h1'\], spec \['h1', 'h2'\]"):
        b.query("affected_star", "o1")


TRACE = {
    "format": "gcv-trace/1",
    "agents": {"a": "Alice", "b": "Bob"},
    "turns": [
        {
            "turn": 1,
            "speaker": "a",
            "operations": [
                {"op": "observe", "id": "o1", "claim": "401s"},
                {"op": "hypothesize", "id": "h1", "claim": "token bug", "depends_on": ["o1"]},
            ],
        },
        {
            "turn": 2,
            "speaker": "b",
            "operations": [{"op": "revise", "target": "zz"}],
            "rejected": "unknown-record",
        },
        {
            "turn": 2,
            "speaker": "b",
            "operations": [{"op": "revise", "target": "o1"}],
            "expect": [{"query": "affected_star", "record": "o1", "equals": ["h1"]}],
        },
    ],
    "expect": [{"query": "verify", "record": "h1", "grounded": False}],
}


def test_a_counterexample_trace_becomes_a_case_that_keeps_what_the_trace_states() -> None:
    origin = {"kind": "proof", "obligation": "lemma-2.1", "twin": "walk without the S_t check"}
    case = case_from_trace(
        json.dumps(TRACE),
        "findings/proofs/walk-without-standing",
        "a walk that ignores standing accepts h1",
        ["Lemma 2.1"],
        origin=origin,
        final_survey=("verify",),
    )
    assert [s.expect for s in case.steps[:3]] == [
        {"accepted": True},
        {"rejected": "unknown-record"},
        {"accepted": True},
    ]
    assert case.steps[3].expect == {"result": ["h1"]}
    assert case.steps[4].expect == {"result": {"grounded": False, "witnesses": ["o1"]}}
    assert case.steps[-1].request == {"cmd": "query", "query": "state"}
    assert case.origin == origin and "reject" in case.tags
    bad = dict(TRACE, expect=[{"query": "verify", "record": "h1", "grounded": True}])
    with pytest.raises(CaseError):
        case_from_trace(json.dumps(bad), "findings/proofs/x", "d", ["Lemma 2.1"], origin=origin)


def test_rederiving_a_case_from_its_requests_gives_it_back() -> None:
    origin = {"kind": "proof", "obligation": "x"}
    case = case_from_trace(
        json.dumps(TRACE),
        "findings/proofs/x",
        "d",
        ["Lemma 2.1"],
        origin=origin,
        final_survey=SURVEY,
    )
    assert rederive(case) == case


def test_state_dumps_compare_as_sets() -> None:
    state = {
        "turn": 1,
        "agents": ["b", "a"],
        "atoms": ["p"],
        "records": [],
        "dep": [["x", "y"]],
        "att": [],
        "awareness": {"a": ["p"], "b": ["p"]},
        "commitments": {"a": []},
        "dissent": {},
    }
    shuffled = dict(state, agents=["a", "b"], commitments={}, extra="ignored")
    request = {"cmd": "query", "query": "state"}
    assert (
        check(
            request, {"result": normalize_state(state)}, {"id": 1, "ok": True, "result": shuffled}
        )
        is None
    )
    wrong = dict(state, dep=[["y", "x"]])
    mismatch = check(
        request, {"result": normalize_state(state)}, {"id": 1, "ok": True, "result": wrong}
    )
    assert mismatch is not None
    assert '-dep: ["x", "y"]' in mismatch.diff.splitlines()
    assert '+dep: ["y", "x"]' in mismatch.diff.splitlines()


def test_a_set_answer_with_a_repeated_member_is_wrong() -> None:
    request = {"cmd": "query", "query": "affected", "record": "o1"}
    mismatch = check(request, {"result": ["h1"]}, {"id": 1, "ok": True, "result": ["h1", "h1"]})
    assert mismatch is not None and mismatch.diff == "repeated {h1}"


def test_any_witness_outside_good_standing_is_accepted() -> None:
    request = {"cmd": "query", "query": "verify", "record": "h5"}
    expect = {"result": {"grounded": False, "witnesses": ["h4", "o1"]}}
    for witness in ("h4", "o1", None):
        answer: dict[str, Any] = {"grounded": False, "witness": witness, "path": []}
        assert check(request, expect, {"id": 1, "ok": True, "result": answer}) is None
    answer = {"grounded": False, "witness": "h5"}
    mismatch = check(request, expect, {"id": 1, "ok": True, "result": answer})
    assert mismatch is not None and "not a member of Dep* outside S_t" in mismatch.reason
