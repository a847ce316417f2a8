"""The runner against fault-injecting implementations: each fault is reported as what it is,
the implementation is restarted, and the run goes on to the next case.

The fakes (``fakes/fake_impl.py``) are the reference's session with one fault each, so a
case that does not reach the fault passes; each test runs one case that reaches it and
one that does not, in that order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gcv.conformance.runner import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_OK, EXIT_UNUSABLE
from tests.conformance.helpers import conform, fake, statuses

# A case that comes after the others in the suite's order and reaches no fault: its only
# query is dependencies, and its rejected turn is rejected with unknown-record.
CLEAN = "core/turns/same-kind-keeps-written-order"


def _run(tmp_path: Path, mode: str, case: str, *extra: str) -> tuple[int, dict[str, Any]]:
    # Every step decides (the reference profile): these tests are about where a fault shows.
    options = ["-k", case, "-k", CLEAN, "--timeout", "2", "--profile", "reference", *extra]
    return conform(tmp_path, options, fake(mode))


def _result(report: dict[str, Any], case: str) -> dict[str, Any]:
    return next(r for r in report["results"] if r["id"] == case)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "case", "status", "reason", "step"),
    [
        ("hang", "core/operations/support-new-evidence", "error", "timeout: no response", 8),
        ("crash", "core/operations/undermine-new-evidence", "error", "crash: the impl", 4),
        ("garbage", "core/operations/observe-observation", "error", "garbage: not JSON", 2),
        ("wrong-id", "core/queries/verify-grounded-returns-dep-star", "error", "garbage", 6),
        ("bad-shape", "core/operations/expand-awareness-all-agents", "error", "garbage", 1),
        ("wrong-commitments", "core/operations/observe-observation", "fail", "the sets", 4),
        ("wrong-code", "core/preconditions/revise-attacker-abandoned", "fail", "the turn was", 4),
        ("one-step", "core/queries/affected-is-one-step", "fail", "the sets differ", 7),
        (
            "ignore-standing",
            "core/queries/verify-flags-a-distant-withdrawal",
            "fail",
            "grounded",
            7,
        ),
    ],
)
def test_each_fault_is_reported_at_its_step_and_the_next_case_runs(
    tmp_path: Path, mode: str, case: str, status: str, reason: str, step: int
) -> None:
    code, report = _run(tmp_path, mode, case)
    assert code == EXIT_FAILED
    result = _result(report, case)
    assert (result["status"], result["step"]) == (status, step), result
    assert str(result["reason"]).startswith(reason), result
    assert result["request"] is not None and "id" in result["request"]  # as sent
    assert statuses(report)[CLEAN] == "pass", "the implementation was restarted and the run went on"


def test_a_crash_reports_what_the_implementation_wrote_to_stderr(tmp_path: Path) -> None:
    _, report = _run(tmp_path, "crash", "core/operations/undermine-new-evidence")
    result = _result(report, "core/operations/undermine-new-evidence")
    assert "crashing on purpose" in str(result["stderr"])
    assert str(result["reason"]) == "crash: the implementation exited with status 3"


def test_wrong_results_show_the_response_the_expectation_and_a_diff(tmp_path: Path) -> None:
    _, report = _run(tmp_path, "one-step", "core/queries/affected-is-one-step")
    result = _result(report, "core/queries/affected-is-one-step")
    assert result["response"]["result"] == ["h1"]
    assert result["expected"] == "{h1, h2, h3} (a set)"
    assert result["diff"] == "missing {h2, h3}"


@pytest.mark.slow
def test_a_walk_ignoring_standing_is_caught_by_the_scenarios(tmp_path: Path) -> None:
    # Phases 2 and 3 withdraw records; in Phase 1 every record stays in S_t.
    scenarios = ["-k", "scenarios/phase2-*", "-k", "scenarios/phase3-*"]
    options = [*scenarios, "--timeout", "5", "--profile", "reference"]
    code, report = conform(tmp_path, options, fake("ignore-standing"))
    assert code == EXIT_FAILED
    assert set(statuses(report).values()) == {"fail"}
    assert all(r["reason"] == "grounded is true" for r in report["results"])


@pytest.mark.slow
def test_a_crash_at_every_start_errors_every_case_without_stopping_the_run(tmp_path: Path) -> None:
    code, report = _run(tmp_path, "crash-on-start", "core/operations/observe-observation")
    assert code == EXIT_FAILED
    assert list(statuses(report).values()) == ["error", "error"]
    assert all(r["step"] == 0 and "status 4" in r["reason"] for r in report["results"])
    assert all("cannot start a conversation" in r["stderr"] for r in report["results"])


@pytest.mark.slow
def test_undeclared_features_are_skipped_and_unsupported_answers_leave_the_run_incomplete(
    tmp_path: Path,
) -> None:
    case = "core/operations/observe-observation"
    code, report = _run(tmp_path, "partial", case)
    assert code == EXIT_OK
    assert statuses(report) == {case: "pass", CLEAN: "skip"}
    assert _result(report, CLEAN)["reason"] == "needs query:dependencies"
    # standing and the turn ran; dependencies, commitments twice, verify and state did not
    assert (_result(report, case)["steps_run"], _result(report, case)["steps_skipped"]) == (2, 5)
    code, report = _run(tmp_path, "unsupported", case)
    assert code == EXIT_INCOMPLETE  # it declared the state query, then did not answer it
    assert statuses(report) == {case: "skip", CLEAN: "pass"}
    assert _result(report, case)["reason"] == "the implementation answered unsupported at step 7"
    assert report["unsupported"] == {case: 7} and report["not_run"] == {case: 1}


@pytest.mark.slow
def test_a_chatty_implementation_does_not_block_and_passes(tmp_path: Path) -> None:
    code, report = conform(
        tmp_path, ["-k", "scenarios/phase2-debugging/final-state"], fake("noisy")
    )
    assert code == EXIT_OK and statuses(report) == {
        "scenarios/phase2-debugging/final-state": "pass"
    }


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("dies", "exited with status 5"),
        ("refuses", "refused"),
        ("deep-handshake", "nested more than 32 deep"),
    ],
)
def test_an_implementation_that_cannot_start_is_exit_3(
    tmp_path: Path, mode: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _run(tmp_path, mode, CLEAN)
    assert code == EXIT_UNUSABLE and report["results"] == []
    out, err = capsys.readouterr()
    assert message in out + err
    said = out + err
    assert said.count("could not be used") + said.count("cannot use") == 1, "said once"
    if mode == "dies":
        assert "dying before the handshake" in err
