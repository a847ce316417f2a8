"""``epistemic/cells``: the reference passes it, its belief steps are in the paper profile, and
the fakes with the bugs it targets fail it (belief over W; a believed hypothesis solving)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.conformance.runner import EXIT_FAILED, EXIT_OK
from gcv.conformance.vectors import Case, open_suite
from tests.conformance.helpers import SERVE, conform, fake, statuses

CELLS = "epistemic/cells/*"
OVER_W = "over W's most plausible worlds"


def _cases() -> dict[str, Case]:
    return {c.id: c for c in open_suite(None).cases if c.id.startswith("epistemic/cells/")}


def test_belief_cases_make_no_choice_and_the_abduction_one_names_its_two() -> None:
    cases = _cases()
    for name in ("belief-in-the-cell", "upgrade-in-each-cell"):
        assert all(s.profile == "paper" for s in cases[f"epistemic/cells/{name}"].steps), name
    abduction = cases["epistemic/cells/believed-hypothesis-solves-nothing"]
    # The problem queue is read through the chosen readings of Observe's problems and of
    # Definition A.2's models; every other step is the papers'.
    for step in abduction.steps:
        if step.request.get("query") == "unexplained":
            assert set(step.choices) <= {"del.observe.poses-problems", "del.hypothesize.solves"}
        else:
            assert step.choices == ()


@pytest.mark.slow
def test_the_reference_passes_the_cells_cases(tmp_path: Path) -> None:
    code, report = conform(tmp_path, ["-k", CELLS], SERVE)
    assert code == EXIT_OK and set(statuses(report).values()) == {"pass"}


@pytest.mark.slow
def test_belief_over_w_fails_exactly_the_steps_where_the_readings_part(tmp_path: Path) -> None:
    code, report = conform(tmp_path, ["-k", "epistemic/cells/*-cell*"], fake("belief-over-w"))
    assert code == EXIT_FAILED
    cases = _cases()
    for result in report["results"]:
        # The fake changes only the believes query: the holds step on B_a is the marked step
        # it does not reach.
        marked = [
            n
            for n, s in enumerate(cases[result["id"]].steps, start=1)
            if OVER_W in s.note and s.request.get("query") == "believes"
        ]
        assert result["status"] == "fail" and marked
        assert result["paper_failed_steps"] == marked, result["id"]


@pytest.mark.slow
def test_a_believed_hypothesis_that_solves_fails_the_abduction_case(tmp_path: Path) -> None:
    case_id = "epistemic/cells/believed-hypothesis-solves-nothing"
    code, report = conform(tmp_path, ["-k", case_id, "--profile", "reference"], SERVE)
    assert code == EXIT_OK
    code, report = conform(
        tmp_path, ["-k", case_id, "--profile", "reference"], fake("believed-solves")
    )
    (result,) = report["results"]
    steps = _cases()[case_id].steps
    notes = [steps[n - 1].note for n in result["failed_steps"]]
    assert code == EXIT_FAILED and result["status"] == "fail"
    # h1 = chi is still refused by gamma != chi; h2, believed but not chi, closes the problem.
    assert notes[0] == "gamma is believed in M_t"
    assert "gamma = chi, and believed" not in notes
