"""``--known-failures`` entries that name steps (``CASE#N``), against a real fake process: the
listed steps do not count, the others still do, and a listed step that agrees is reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gcv.conformance.runner import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, KnownFailures
from gcv.conformance.vectors import open_suite
from tests.conformance.helpers import conform, fake

CASE = "core/queries/affected-is-one-step"


def _run(tmp_path: Path, entries: str, *extra: str) -> tuple[int, dict[str, Any]]:
    known = tmp_path / "known.txt"
    known.write_text(entries)
    return conform(tmp_path, ["-k", CASE, "--known-failures", str(known), *extra], fake("one-step"))


def _differing_steps(tmp_path: Path) -> list[int]:
    """The steps the one-step fake gets wrong, from a run without known failures; each is an
    Affected* query on a chain, the fake's bug."""
    code, report = conform(tmp_path, ["-k", CASE], fake("one-step"))
    (result,) = report["results"]
    assert code == EXIT_FAILED and result["status"] == "fail"
    (case,) = [c for c in open_suite(None).cases if c.id == CASE]
    steps = list(result["failed_steps"])
    assert len(steps) >= 2, "the test needs two differing steps"
    assert {case.steps[n - 1].request.get("query") for n in steps} == {"affected_star"}
    return steps


@pytest.mark.slow
def test_listing_every_differing_step_makes_the_case_a_known_failure(tmp_path: Path) -> None:
    steps = _differing_steps(tmp_path)
    code, report = _run(tmp_path, "".join(f"{CASE}#{n}  # one-step for now\n" for n in steps))
    (result,) = report["results"]
    assert code == EXIT_OK
    assert result["status"] == "xfail" and result["known_failed_steps"] == steps
    assert result["failed_steps"] == [] and result["paper_failed_steps"] == []


@pytest.mark.slow
def test_a_differing_step_not_listed_still_fails_the_case(tmp_path: Path) -> None:
    first, *rest = _differing_steps(tmp_path)
    code, report = _run(tmp_path, f"{CASE}#{first}\n")
    (result,) = report["results"]
    assert code == EXIT_FAILED and result["status"] == "fail"
    assert result["failed_steps"] == rest and result["known_failed_steps"] == [first]
    assert result["step"] == rest[0], "the step shown is the first one not listed"


@pytest.mark.slow
def test_a_listed_step_that_agrees_is_reported_and_fails_under_strict(tmp_path: Path) -> None:
    steps = _differing_steps(tmp_path)
    agreeing = min(set(range(1, 12)) - set(steps))
    entries = "".join(f"{CASE}#{n}\n" for n in [*steps, agreeing])
    code, report = _run(tmp_path, entries)
    (result,) = report["results"]
    assert code == EXIT_OK and result["status"] == "xpass"
    assert result["known_passing_steps"] == [agreeing]
    assert f"steps listed as known failures pass: {agreeing}" in result["reason"]
    code, _ = _run(tmp_path, entries, "--strict")
    assert code == EXIT_FAILED


@pytest.mark.slow
def test_a_step_entry_for_no_selected_case_is_noted(tmp_path: Path) -> None:
    steps = _differing_steps(tmp_path)
    _, report = _run(tmp_path, f"{CASE}#{steps[0]}\n{CASE}#{steps[1]}\nno/such/case#2\n")
    assert "known-failures entry matches no selected case: no/such/case#2" in report["notes"]


def test_step_entries_parse_and_bad_ones_are_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    known = KnownFailures.parse("a/b/*#2  # a comment after a space\n# a line\nc/d/e # why\n")
    assert known.patterns == ("c/d/e",) and known.steps == (("a/b/*", 2),)
    assert known.steps_of("a/b/x") == {2} and known.steps_of("c/d/e") == set()
    for bad in ("x/y#0\n", "x/y#two\n", "x/y#\n", "x/y#-1\n"):
        code, _ = _run(tmp_path, f"# a comment\n{bad}")
        assert code == EXIT_BAD_INPUT, bad
        assert f"known failures, line 2: {bad.strip()!r}" in capsys.readouterr().err


@pytest.mark.slow
def test_written_known_failures_list_the_differing_steps_and_excuse_them(tmp_path: Path) -> None:
    """``--write-known-failures FILE`` writes each differing step as ``CASE#N``; a rerun
    with that file excuses exactly those steps (exit 0)."""
    steps = _differing_steps(tmp_path)
    written = tmp_path / "written.txt"
    code, _ = conform(
        tmp_path, ["-k", CASE, "--write-known-failures", str(written)], fake("one-step")
    )
    assert code == EXIT_FAILED
    entries = [line for line in written.read_text().splitlines() if not line.startswith("#")]
    assert entries == [f"{CASE}#{n}" for n in steps]
    rerun, report = conform(
        tmp_path, ["-k", CASE, "--known-failures", str(written)], fake("one-step")
    )
    assert rerun == EXIT_OK, report["results"]
    assert report["results"][0]["status"] == "xfail"
