"""``core/scenario-maps``: Phase 3's final map reached without a choice, its survey in the
paper profile, and the maps such a conversation cannot reach refused with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.conformance.cases.realise import Unrealisable, trace_from_map
from gcv.conformance.cases.scenario_maps import replayed_scenario
from gcv.conformance.runner import EXIT_FAILED
from gcv.conformance.session import Session
from gcv.conformance.vectors import open_suite
from gcv.spec import core
from gcv.translate import spec_map
from tests.conformance.helpers import conform, fake

CASE = "core/scenario-maps/phase3-deliberation"


def test_the_case_rebuilds_phase3sreplayed_scenario_and_its_survey_makes_no_choice() -> None:
    (case,) = [c for c in open_suite(None).cases if c.id == CASE]
    session = Session()
    session.handle({"id": 0, **case.start()})
    for number, step in enumerate(case.steps, start=1):
        if step.request["cmd"] == "apply":
            assert session.handle({"id": number, **step.request})["ok"], step.request
            assert len(step.request["operations"]) == 1
    scenario, _ = replayed_scenario("phase3-deliberation")
    assert session.verifier is not None and scenario.verifier is not None
    assert spec_map(session.verifier.state) == spec_map(scenario.verifier.state)
    # Only the answers that read Cm_t (commitments, the state dump) depend on a choice.
    chosen = {s.request.get("query") for s in case.steps if s.choices}
    assert chosen == {"commitments", "state"}
    # Every query about each of Phase 3's 19 records but those reading Cm_t (a Question
    # registers none since B.3 T1's reading).
    assert sum(s.profile == "paper" for s in case.steps) >= 170


def test_maps_only_a_choice_reaches_are_refused() -> None:
    phase2, agents = replayed_scenario("phase2-debugging")
    with pytest.raises(Unrealisable, match="Dep cycle"):
        assert phase2.verifier is not None
        trace_from_map(spec_map(phase2.verifier.state), agents=agents, paper_only=True)
    weakened = core.DependencyMap(
        frozenset({"e", "h"}),
        frozenset({("e", "h")}),
        {"e": "active", "h": "weakened"},
        frozenset(),
    )
    with pytest.raises(Unrealisable, match="h is weakened"):
        trace_from_map(weakened, paper_only=True)


@pytest.mark.slow
def test_one_step_affected_fails_paper_profile_steps_of_the_case(tmp_path: Path) -> None:
    code, report = conform(tmp_path, ["-k", CASE], fake("one-step"))
    (result,) = report["results"]
    assert code == EXIT_FAILED and result["paper_failed_steps"]
