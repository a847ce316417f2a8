"""Blame by cause: a differing step is put down to the fewest readings whose answers give it.

The vectors keep, for each step, every answer the reference's alternatives give otherwise,
alone or combined, keyed by the combination (``Step.alternatives``, written by
``gcv/conformance/cases/blame.py``).  A step none answers otherwise is in the paper profile;
the runner explains a differing answer by one combination's answer or several whose changes
compose, names the fewest readings that do (one set for the whole run), and fails the paper
profile on an answer none explains, whatever the step's tags.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from gcv.conformance.compare import explanations
from gcv.conformance.report import CaseResult, RunReport, choose_blame
from gcv.conformance.vectors import Step, combination_of, load_suite

SUITE = load_suite()
NO_COMMITMENT = "T3.hypothesize.no-commitment"


def _commitments_step() -> Step:
    """A step of the suite whose alternatives hold T3.hypothesize.no-commitment's answer."""
    return next(
        step
        for case in SUITE
        for step in case.steps
        if step.request.get("query") == "commitments" and NO_COMMITMENT in step.alternatives
    )


def test_a_step_is_explained_by_the_alternative_that_gives_its_answer() -> None:
    step = _commitments_step()
    alternative = step.alternatives[NO_COMMITMENT]["result"]
    assert step.explained_by({"ok": True, "result": alternative}) == [(NO_COMMITMENT,)]
    # Another wrong answer (a member no reading commits anyone to) is explained by none.
    assert step.explained_by({"ok": True, "result": [*alternative, "zz"]}) == []


def test_the_profile_is_the_answers_and_the_tags_stay_as_information() -> None:
    """A step no combination answers otherwise is the paper's, tagged or not; every step
    some combination answers otherwise carries tags (the fuzzer still cuts by them)."""
    steps = [step for case in SUITE for step in case.steps]
    assert all(step.profile == ("reference" if step.alternatives else "paper") for step in steps)
    assert not [s for s in steps if s.alternatives and not s.choices]
    assert [s for s in steps if s.choices and not s.alternatives], "a tagged step in the paper's"
    combined = [key for s in steps for key in s.alternatives if len(combination_of(key)) > 1]
    assert combined, "some answers need several readings together"


def test_answers_of_readings_that_change_different_parts_compose() -> None:
    """Two readings, each changing one member of a set answer: their changes made together
    give an answer neither gives, explained by both (and by nothing smaller)."""
    request = {"cmd": "query", "query": "commitments", "agent": "a"}
    expect = {"result": ["o1"]}
    alternatives = {"x.one": {"result": ["o1", "h1"]}, "y.two": {"result": []}}
    both = {"ok": True, "result": ["h1"]}
    assert explanations(request, expect, alternatives, both) == [("x.one", "y.two")]
    assert explanations(request, expect, alternatives, {"ok": True, "result": ["h2"]}) == []
    # A state dump: one record's kind and another agent's commitments.
    assert explanations(request, expect, {"x.one+y.two": {"result": ["h1"]}}, both) == [
        ("x.one", "y.two")
    ]


def test_the_run_blames_one_set_of_readings() -> None:
    """A step two readings explain is put down to the one other steps need anyway."""
    chosen = choose_blame([("s1", (("x",), ("y",))), ("s2", (("y", "z"),))])
    assert chosen == {"s2": ("y", "z"), "s1": ("y",)}


def _differing(explained: bool) -> CaseResult:
    return CaseResult(
        id="core/operations/x",
        status="fail",
        reason="the sets differ",
        step=2,
        steps=3,
        steps_run=3,
        failed_steps=(2,),
        paper_failed_steps=() if explained else (2,),
        explanations=(((2, ((NO_COMMITMENT,),)),) if explained else ()),
    )


@pytest.mark.parametrize(
    ("profile", "explained", "heading", "failures"),
    [
        ("paper", True, "CHOICE", "0"),
        ("reference", True, "FAIL", "1"),
        ("paper", False, "FAIL", "1"),
    ],
)
def test_a_case_is_a_choice_where_the_alternatives_explain_it_and_a_failure_else(
    profile: str, explained: bool, heading: str, failures: str
) -> None:
    report = RunReport({"name": "x", "version": "1"}, "2.0.0", 1, profile=profile)
    report.results.append(_differing(explained))
    text = report.text()
    assert f"{heading:5} core/operations/x" in text, text
    if explained:
        assert f"explained by the alternatives to {NO_COMMITMENT}: steps 2" in text
        assert report.to_json()["results"][0]["differing_choices"] == [NO_COMMITMENT]
    else:
        assert "steps no alternative explains (they fail the paper profile): 2" in text
    assert report.profiles()["only_on_choices"] == (profile == "paper" and explained)
    assert ET.fromstring(report.junit()).get("failures") == failures
