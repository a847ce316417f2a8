"""Blame by cause: a differing step is put down to the choices whose alternative explains it.

The vectors keep, for each step, what the reference making one choice's alternative alone
answers where that differs (``Step.alternatives``, written by
``gcv/conformance/cases/blame.py``); the runner names only the choices whose alternative
gives the implementation's answer, and a paper-profile run shows a case that differs only on
choices as such (``CHOICE``), not as a failure.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from gcv.conformance.report import CaseResult, RunReport
from gcv.conformance.vectors import Step, load_suite

SUITE = load_suite()


def _commitments_step() -> Step:
    """A step of the suite whose alternatives hold T3.hypothesize.no-commitment's answer."""
    return next(
        step
        for case in SUITE
        for step in case.steps
        if step.request.get("query") == "commitments"
        and "T3.hypothesize.no-commitment" in step.alternatives
    )


def test_a_step_is_explained_by_the_alternative_that_gives_its_answer() -> None:
    step = _commitments_step()
    alternative = step.alternatives["T3.hypothesize.no-commitment"]["result"]
    assert step.explained_by({"ok": True, "result": alternative}) == (
        "T3.hypothesize.no-commitment",
    )
    # Another wrong answer (a member no reading commits anyone to) is explained by none.
    assert step.explained_by({"ok": True, "result": [*alternative, "zz"]}) == ()
    assert set(step.alternatives) <= set(step.choices)


def test_the_tags_name_every_choice_whose_alternative_changes_a_step() -> None:
    """The generator stops on an alternative changing a step that does not name its choice,
    so the shipped alternatives are a subset of the tags, and the paper profile has none."""
    for case in SUITE:
        for step in case.steps:
            assert set(step.alternatives) <= set(step.choices), case.id
    assert sum(bool(step.alternatives) for case in SUITE for step in case.steps) > 0


def _differs_on_choices_only() -> CaseResult:
    return CaseResult(
        id="core/operations/x",
        status="fail",
        reason="the sets differ",
        step=2,
        steps=3,
        steps_run=3,
        failed_steps=(2,),
        differing_choices=("T3.hypothesize.no-commitment",),
    )


@pytest.mark.parametrize(
    ("profile", "heading", "failures"), [("paper", "CHOICE", "0"), ("reference", "FAIL", "1")]
)
def test_a_case_differing_only_on_choices_is_shown_as_such_in_the_paper_profile(
    profile: str, heading: str, failures: str
) -> None:
    report = RunReport({"name": "x", "version": "1"}, "1.2.0", 1, profile=profile)
    report.results.append(_differs_on_choices_only())
    text = report.text()
    assert f"{heading:5} core/operations/x" in text, text
    assert "explained by the alternatives to: T3.hypothesize.no-commitment" in text
    assert report.profiles()["only_on_choices"] == (profile == "paper")
    assert ET.fromstring(report.junit()).get("failures") == failures
