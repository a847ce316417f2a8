"""The conformance suite's epistemic part: the protocol's M_t queries and declared M_0, the
generator's cross-check with ``gcv.spec.epistemic`` (it catches planted bugs, its M_0 is the
reference's, its bound changes no vector), how answers about M_t compare, and the runner
skipping the layer for an implementation that does not declare it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv import translate
from gcv.conformance import session as session_module
from gcv.conformance.cases import CaseBuilder, CaseError, oracle, rederive
from gcv.conformance.cases.blame import with_alternatives
from gcv.conformance.cases.registry import REGISTRY
from gcv.conformance.compare import check, normalize_state
from gcv.conformance.protocol import request_problem
from gcv.conformance.runner import EXIT_FAILED, EXIT_INCOMPLETE
from gcv.conformance.session import Session, model_from_json
from gcv.conformance.vectors import load_suite
from gcv.reference.epistemic import effects, updates
from gcv.reference.epistemic.formula import parse
from gcv.reference.errors import NoSurvivingWorld
from gcv.reference.operations import Hypothesize, Observe, Question
from gcv.reference.rules import observe, shared
from tests.conformance.helpers import ADAPTER, conform, fake, statuses

SUITE = load_suite()
EPISTEMIC = [c for c in SUITE if "epistemic" in c.features]


def test_the_epistemic_cases_are_the_new_files_and_scenarios_and_say_so() -> None:
    ids = {c.id for c in EPISTEMIC}
    assert {c.id for c in SUITE if c.id.startswith("epistemic/")} <= ids
    assert {
        "scenarios/phase1-muddy-children/replay",
        "scenarios/phase1-muddy-children/final-state",
        "scenarios/phase2-epistemic/replay",
        "scenarios/phase2-epistemic/final-state",
    } <= ids
    later = [c for c in EPISTEMIC if c.added_in == "1.2.0"]
    cells = {c.id for c in EPISTEMIC if c.id.startswith("epistemic/cells/")}
    assert cells and cells <= {c.id for c in later}
    # 2.0.0: the epistemic layer where the papers decide whatever the reference chose.
    newest = [c for c in EPISTEMIC if c.added_in == "2.0.0"]
    assert {c.id for c in newest} == {
        c.id for c in EPISTEMIC if c.id.startswith("epistemic/paper/")
    }
    # Phase 3 (1.0.0) needs the feature since its positions enter Prop by Hypothesize's
    # `introduces` (B.3: "Each Hypothesize adds its position to Prop").
    phase3 = [c for c in EPISTEMIC if c.id.startswith("scenarios/phase3-deliberation/")]
    assert phase3 and all(c.added_in == "1.0.0" for c in phase3)
    assert all(c.added_in == "1.1.0" for c in EPISTEMIC if c not in later + newest + phase3)
    added = ("core/scenario-maps/",)  # in 1.2.0, as epistemic/cells/
    assert all(c.added_in == "1.2.0" for c in SUITE if c.id.startswith(added))
    # Core cases are 1.0.0's, but for the paper clauses' interactions new in 1.2.0 and the
    # issue ids of 2.0.0.
    assert all(
        c.added_in == "1.0.0"
        or (c.added_in == "1.2.0" and c.id.startswith("core/interactions/"))
        or (c.added_in == "2.0.0" and c.id == "core/choices/issue-ids-apart")
        for c in SUITE
        if c not in EPISTEMIC and not c.id.startswith(added)
    )


# -- the protocol ----------------------------------------------------------------------


def _session(**start: Any) -> Session:
    s = Session()
    response = s.handle({"id": 0, "cmd": "start", "agents": ["a", "b"], **start})
    assert response["ok"], response
    return s


def _ask(s: Session, **query: Any) -> Any:
    return s.handle({"id": 1, "cmd": "query", **query})


def test_start_declares_m0_as_a_trace_does() -> None:
    s = _session(atoms=["p", "q"], model={"worlds": [["p"], ["q"]], "observes": {"a": ["p"]}})
    assert _ask(s, query="worlds")["result"] == [["p"], ["q"]]
    assert _ask(s, query="knows", agent="a", formula="p", at=["p"])["result"] is True
    assert _ask(s, query="knows", agent="b", formula="p", at=["p"])["result"] is False
    refused = Session().handle(
        {"id": 0, "cmd": "start", "agents": ["a"], "atoms": ["p"], "model": {"worlds": [["z"]]}}
    )
    assert refused["error"]["code"] == "unknown-atom"


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ({"query": "knows", "agent": "a"}, "'formula' is a required property"),
        ({"query": "knows", "agent": "a", "formula": "p", "given": "q"}, "should not be valid"),
        ({"query": "ordered", "agent": "a", "layers": ["p"]}, "is too short"),
        ({"query": "holds", "formula": ""}, "should be non-empty"),
        ({"query": "worlds", "agent": "a"}, "Additional properties"),
    ],
)
def test_an_epistemic_query_off_the_schema_is_a_malformed_request(
    query: dict[str, Any], problem: str
) -> None:
    request = {"id": 1, "cmd": "query", **query}
    found = request_problem(request)
    assert found is not None and problem in found, found
    assert Session().handle(request)["error"]["code"] == "malformed-request"


def test_the_query_checks_the_agent_before_the_formula_whatever_the_query() -> None:
    s = _session(atoms=["p"])
    for query in ("knows", "believes"):
        answer = _ask(s, query=query, agent="zz", formula="zz_atom")
        assert answer["error"]["code"] == "unknown-agent", answer


def test_a_record_formula_in_the_state_dump_compares_by_parsing() -> None:
    s = _session(atoms=["p", "q"])
    op = {"op": "observe", "id": "o1", "claim": "p and q", "formula": "p & q"}
    s.handle({"id": 1, "cmd": "apply", "speaker": "a", "operations": [op]})
    state = _ask(s, query="state")
    request = {"cmd": "query", "query": "state"}
    expect = {"result": normalize_state(state["result"])}
    record = state["result"]["records"][0]
    assert record["formula"] == "p & q"
    for text, same in [("((p) &q)", True), ("q & p", False), ("p &", False)]:
        record["formula"] = text
        assert (check(request, expect, state) is None) is same, text


def test_worlds_compare_as_a_set_of_sets() -> None:
    request = {"cmd": "query", "query": "worlds"}
    expect = {"result": [[], ["p"], ["p", "q"]]}

    def answer(worlds: Any) -> Any:
        return check(request, expect, {"id": 1, "ok": True, "result": worlds})

    assert answer([["q", "p"], [], ["p"]]) is None
    assert answer([["p"], ["p", "q"]]).diff == "missing {{}}"
    assert answer([[], ["p"], ["p", "q"], ["q"]]).diff == "unexpected {{q}}"
    assert "repeated {{p}}" in answer([[], ["p"], ["p"], ["p", "q"]]).diff
    assert "repeats an atom" in answer([[], ["p", "p"], ["p", "q"]]).diff


# -- the generator's cross-check with spec.epistemic ------------------------------------------


def test_an_upgrade_the_spec_computes_otherwise_stops_the_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shared, "conservative_upgrade", updates.lexicographic_upgrade)
    with pytest.raises(CaseError, match=r"spec.transition disagree: <=_a differs"):
        REGISTRY["epistemic/operations/support-conservative-upgrade"]()


def test_a_queue_the_spec_keeps_otherwise_stops_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    from gcv.reference.epistemic import abduction

    monkeypatch.setattr(abduction, "is_surprising", lambda model, agent, chi: True)
    b = CaseBuilder("epistemic/x/queue", "d", ["Definition A.2"], atoms=("p",))
    b.apply("a", Hypothesize("h1", "p", formula=parse("p")))
    with pytest.raises(CaseError, match="problem queues differ"):
        b.apply("a", Question("q1", "why p?", formula=parse("p")))


def test_announcements_made_one_after_another_are_refused_by_the_spec(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The normative reading is simultaneous; an engine announcing a turn's observations in
    sequence refuses 'p, and a did not know p', which the spec accepts."""
    real = effects.announce_simultaneously

    def one_by_one(state: Any, observations: Any) -> Any:
        for observation in observations:
            if effects.find_empty_announcement(state.model, [observation[1]]) is not None:
                raise NoSurvivingWorld("no world", field="formula", record=observation[0])
            state = real(state, [observation])
        return state

    monkeypatch.setattr(observe, "announce_simultaneously", one_by_one)
    b = CaseBuilder("epistemic/x/sequence", "d", ["A.1 (updates)"], atoms=("p",))
    turn = (Observe("o1", "p", formula=parse("p")), Observe("o2", "~K", formula=parse("~K[a] p")))
    with pytest.raises(CaseError, match="the spec applies the turn"):
        b.apply("b", *turn, rejected="no-surviving-world")


def test_an_answer_no_case_states_is_still_recomputed(monkeypatch: pytest.MonkeyPatch) -> None:
    real = session_module._epistemic_answer

    def believed(verifier: Any, request: Any) -> Any:
        if request["query"] == "knows":
            return verifier.believes(request["agent"], request["formula"])
        return real(verifier, request)

    monkeypatch.setattr(session_module, "_epistemic_answer", believed)
    b = CaseBuilder("epistemic/x/answer", "d", ["Definition A.1"], atoms=("p",))
    b.apply("a", Hypothesize("h1", "p", formula=parse("p")))
    with pytest.raises(CaseError, match=r"knows: reference \{'result': True\}, spec.epistemic"):
        b.query("knows", agent="a", formula="p")


def test_the_spec_bound_changes_what_is_recomputed_never_the_vector() -> None:
    case_id = "epistemic/operations/support-conservative-upgrade"
    oracle.TALLY.clear()
    full = REGISTRY[case_id]()
    assert oracle.TALLY["turns recomputed bit-parallel"] == 0
    with oracle.bound(2):
        bounded = REGISTRY[case_id]()
    assert oracle.TALLY["turns recomputed bit-parallel"] == 1, "the conservative upgrade"
    assert oracle.TALLY["answers recomputed bit-parallel"] == 1, "believes; ordered is not"
    assert bounded == full


@pytest.mark.slow
def test_every_hand_written_epistemic_case_is_recomputed_whole() -> None:
    oracle.TALLY.clear()
    for case_id, build in REGISTRY.items():
        if case_id.startswith("epistemic/"):
            build()
    beyond = ("turns recomputed bit-parallel", "answers recomputed bit-parallel")
    assert all(oracle.TALLY[kind] == 0 for kind in beyond), oracle.TALLY
    assert oracle.TALLY["refusals recomputed"] >= 10


def test_an_epistemic_case_rederives_to_itself() -> None:
    for case in EPISTEMIC[:6] + [c for c in EPISTEMIC if c.model is not None][:2]:
        assert with_alternatives(rederive(case)) == case, case.id


_WORLDS = st.lists(
    st.frozensets(st.sampled_from(["p", "q", "r"])), min_size=1, max_size=8, unique=True
)


@given(
    worlds=st.none() | _WORLDS,
    observes=st.dictionaries(
        st.sampled_from(["a", "b"]), st.sets(st.sampled_from(["p", "q", "r"]))
    ),
    ranks=st.lists(st.integers(-2, 3), min_size=8, max_size=8),
    awareness=st.dictionaries(st.sampled_from(["a", "b"]), st.sets(st.sampled_from(["p", "r"]))),
)
def test_the_specs_m0_is_the_model_start_builds(
    worlds: list[frozenset[str]] | None,
    observes: dict[str, set[str]],
    ranks: list[int],
    awareness: dict[str, set[str]],
) -> None:
    """The oracle reads a declaration by the trace format's definition; build_model must agree."""
    listed = [sorted(w) for w in worlds] if worlds is not None else None
    every = listed or [
        [a for a, bit in zip("pqr", f"{n:03b}", strict=True) if bit == "1"] for n in range(8)
    ]
    declared: dict[str, Any] = {
        "observes": {a: sorted(o) for a, o in observes.items()},
        "ranks": {"b": [{"world": w, "rank": r} for w, r in zip(every, ranks, strict=False)]},
        "awareness": {a: sorted(s) for a, s in awareness.items()},
    }
    if listed is not None:
        declared["worlds"] = listed
    agents, atoms = ("a", "b"), ("p", "q", "r")
    built = translate.spec_model(model_from_json(agents, atoms, declared).explicit())
    assert built == translate.declared_model(agents, atoms, declared), declared


# -- the runner ----------------------------------------------------------------------------


@pytest.mark.slow
def test_an_implementation_without_the_epistemic_feature_has_those_cases_skipped(
    tmp_path: Path,
) -> None:
    for command in ([sys.executable, str(ADAPTER)], fake("no-epistemic")):
        code, report = conform(tmp_path, ["--feature", "epistemic"], command)
        # Nothing it declared was selected: skipped, not failed, and a run that checked
        # nothing does not conform either.
        assert code == EXIT_INCOMPLETE and report["incomplete"] == ["no step was run"]
        assert report["counts"]["skip"] == len(EPISTEMIC) and report["counts"]["fail"] == 0
        assert all(r["reason"] == "needs epistemic" for r in report["results"]), command


@pytest.mark.slow
def test_knowledge_answered_as_belief_is_reported_at_its_step(tmp_path: Path) -> None:
    case = "epistemic/operations/hypothesize-upgrades"
    clean = "epistemic/operations/revise-announces-the-negation"
    code, report = conform(tmp_path, ["-k", case, "-k", clean], fake("knows-as-believes"))
    assert code == EXIT_FAILED
    result = next(r for r in report["results"] if r["id"] == case)
    assert (result["status"], result["step"]) == ("fail", 5), result
    assert result["request"]["query"] == "knows" and result["response"]["result"] is True
    assert result["expected"] == "false"
    assert statuses(report)[clean] == "pass", "K ~p holds there: belief and knowledge agree"
    code, report = conform(tmp_path, ["--feature", "epistemic"], fake("knows-as-believes"))
    failed = {i for i, s in statuses(report).items() if s == "fail"}
    assert "scenarios/phase2-epistemic/replay" in failed, "B.2 T5: h1 believed, not known"
