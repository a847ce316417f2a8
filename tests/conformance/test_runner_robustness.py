"""The runner's honesty and robustness, against real fake implementations and real signals:
no vacuous conformance, the suite's integrity, the implementation's process group always
ended, reports that survive a killed run, linear reading and comparing, bounded standard
error, the run deadline and the circuit breaker, a report even when the handshake fails.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gcv.conformance.process import MAX_RESPONSE_BYTES, STDERR_KEEP
from gcv.conformance.runner import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_OK,
    EXIT_UNUSABLE,
    main,
)
from gcv.conformance.vectors import SUITE_VERSION, default_directory, load_suite
from tests.conformance.helpers import conform, fake, statuses

OBSERVE = "core/operations/observe-observation"  # no affected_star query: "hang" passes it
HANGS = "core/operations/support-new-evidence"  # "hang" never answers its step 8
RUNNER = [sys.executable, "-m", "gcv.cli", "conform"]


def _properties(junit: Path) -> dict[str, str]:
    root = ET.parse(junit).getroot()
    found = root.findall("testsuite/properties/property")
    return {p.get("name", ""): p.get("value", "") for p in found}


def _gone(pid: int) -> bool:
    """Whether the process has ended (a zombie waiting for its reaper has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"


def _all_gone(pids: list[int], within: float = 120.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if all(_gone(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


def _pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.is_file() else []


@pytest.fixture
def events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where a hung fake says ``hung`` and records the requests it is sent after that."""
    path = tmp_path / "events.txt"
    monkeypatch.setenv("GCV_FAKE_EVENTS", str(path))
    return path


def _wait_until_hung(events: Path) -> None:
    """Polls for the fake's handshake: it has begun to hang on the second case (pytest-timeout
    bounds a fake that never says)."""
    while not (events.is_file() and events.read_text().startswith("hung\n")):
        time.sleep(0.05)


def _wait_for_reports(tmp_path: Path) -> None:
    """Polls until both reports hold the first case (the runner writes them once the second
    case's answer is slow to come; each file is replaced whole)."""
    json_report, junit = tmp_path / "report.json", tmp_path / "report.xml"
    while not (
        json_report.is_file()
        and json.loads(json_report.read_text())["results"]
        and junit.is_file()
        and next(ET.parse(junit).getroot().iter("testcase"), None) is not None
    ):
        time.sleep(0.05)


@pytest.fixture
def pid_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Fakes started in this test write their pid and their child's here; whatever is still
    running at the end is killed, so a failing test leaves no process behind."""
    path = tmp_path / "pids.txt"
    monkeypatch.setenv("GCV_FAKE_PIDS", str(path))
    yield path
    for pid in _pids(path):
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)


# -- no vacuous conformance -------------------------------------------------------------


def test_unsupported_to_everything_is_incomplete_not_conforming(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = conform(tmp_path, ["-k", "core/operations/*"], fake("unsupported-everything"))
    assert code == EXIT_INCOMPLETE
    assert set(statuses(report).values()) == {"skip"}
    assert len(report["unsupported"]) == 21 and set(report["unsupported"].values()) == {0}
    every_step = sum(len(c.steps) for c in load_suite() if c.id.startswith("core/operations/"))
    assert report["steps"] == 0 and sum(report["not_run"].values()) == every_step
    assert report["incomplete"][0].startswith(f"{sum(report['not_run'].values())} steps of")
    out = capsys.readouterr().out
    assert "incomplete: 21 cases answered unsupported: core/operations/" in out
    assert "incomplete: no step was run" in out


def test_declaring_no_feature_runs_nothing_and_is_incomplete(tmp_path: Path) -> None:
    code, report = conform(tmp_path, ["-k", OBSERVE], fake("declares-nothing"))
    assert code == EXIT_INCOMPLETE
    assert report["incomplete"] == ["no step was run"] and report["not_run"] == {}


def test_a_failure_outranks_incompleteness(tmp_path: Path) -> None:
    options = ["-k", "core/queries/affected-is-one-step", "-k", "core/queries/verify-*"]
    code, report = conform(tmp_path, options, fake("one-step"))
    assert code == EXIT_FAILED and report["counts"]["fail"] >= 1


# -- integrity --------------------------------------------------------------------------


def _copy_suite(tmp_path: Path) -> Path:
    copy = tmp_path / "vectors"
    shutil.copytree(str(default_directory()), copy)
    return copy


def test_every_report_records_the_suite_version_and_the_manifests_hash(tmp_path: Path) -> None:
    junit = tmp_path / "report.xml"
    code, report = conform(tmp_path, ["-k", OBSERVE, "--junit", str(junit)], fake("correct"))
    assert code == EXIT_OK
    manifest = default_directory().joinpath("manifest.json").read_bytes()
    digest = hashlib.sha256(manifest).hexdigest()
    assert (report["suite"], report["suite_sha256"]) == (SUITE_VERSION, digest)
    assert _properties(junit) == {"suite": SUITE_VERSION, "suite_sha256": digest}


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ("edit", "core/queries.json has another SHA-256 than manifest.json"),
        ("add", "core/extra.json is not listed in manifest.json"),
        ("remove", "manifest.json lists ['core/wellformed.json'], which are not there"),
    ],
)
def test_a_vector_file_that_is_not_the_manifests_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str, named: str
) -> None:
    vectors = _copy_suite(tmp_path)
    queries = vectors / "core" / "queries.json"
    if change == "edit":  # one expectation changed, the file still valid
        text = queries.read_text()
        queries.write_text(text.replace('"accepted": true', '"rejected": "unknown-record"', 1))
    elif change == "add":
        shutil.copy(queries, vectors / "core" / "extra.json")
    else:
        (vectors / "core" / "wellformed.json").unlink()
    code, report = conform(tmp_path, ["--vectors", str(vectors)], fake("correct"))
    assert (code, report) == (EXIT_BAD_INPUT, {})
    err = capsys.readouterr().err
    assert "[manifest-mismatch]" in err and named in err


def test_the_unchanged_copy_passes_the_same_check(tmp_path: Path) -> None:
    vectors = _copy_suite(tmp_path)
    code, report = conform(tmp_path, ["--vectors", str(vectors), "-k", OBSERVE], fake("correct"))
    assert code == EXIT_OK and report["suite_sha256"] is not None


# -- the process group ------------------------------------------------------------------


def test_the_implementations_children_are_ended_after_a_clean_shutdown(
    tmp_path: Path, pid_file: Path
) -> None:
    code, _ = conform(tmp_path, ["-k", OBSERVE], fake("correct"))
    assert code == EXIT_OK
    pids = _pids(pid_file)
    assert len(pids) == 2, "the fake and its child"
    assert _all_gone(pids), "the child outlived the implementation"


@pytest.mark.slow
def test_the_children_of_a_hung_implementation_are_ended(tmp_path: Path, pid_file: Path) -> None:
    code, report = conform(tmp_path, ["-k", HANGS, "--timeout", "1"], fake("hang"))
    assert code == EXIT_FAILED and statuses(report) == {HANGS: "error"}
    assert _all_gone(_pids(pid_file))


def _started(options: list[str], mode: str, tmp_path: Path) -> subprocess.Popen[bytes]:
    json_path, junit_path = tmp_path / "report.json", tmp_path / "report.xml"
    reports = ["--json", str(json_path), "--junit", str(junit_path)]
    return subprocess.Popen(
        [*RUNNER, *reports, *options, "--", *fake(mode)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_implementation_and_still_writes_both_reports(
    tmp_path: Path, pid_file: Path, events: Path, signum: signal.Signals
) -> None:
    runner = _started(["-k", OBSERVE, "-k", HANGS, "--timeout", "600"], "hang", tmp_path)
    try:
        _wait_until_hung(events)
        runner.send_signal(signum)
        code = runner.wait()
    finally:
        runner.kill()
    assert code == 128 + signum
    # Killed at once: a shutdown request to a hung implementation would wait 2 s for nothing.
    assert events.read_text() == "hung\n", "the runner asked a hung implementation to stop"
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["stopped"] == f"interrupted by {signum.name}; 1 cases not run"
    assert statuses(report) == {OBSERVE: "pass", HANGS: "skip"}
    assert _properties(tmp_path / "report.xml")["stopped"] == report["stopped"]
    assert _all_gone(_pids(pid_file)), "the hung implementation or its child survived"


@pytest.mark.slow
def test_a_killed_run_leaves_valid_partial_reports(
    tmp_path: Path, pid_file: Path, events: Path
) -> None:
    runner = _started(["-k", OBSERVE, "-k", HANGS, "--timeout", "600"], "hang", tmp_path)
    try:
        _wait_until_hung(events)
        _wait_for_reports(tmp_path)
        runner.kill()  # SIGKILL: no handler runs
        runner.wait()
    finally:
        runner.kill()
    report = json.loads((tmp_path / "report.json").read_text())
    assert statuses(report) == {OBSERVE: "pass"} and report["selected"] == 2
    root = ET.parse(tmp_path / "report.xml").getroot()
    assert [c.get("name") for c in root.iter("testcase")] == ["observe-observation"]


# -- reading and comparing --------------------------------------------------------------


@pytest.mark.slow
def test_a_60_mib_line_is_read_in_linear_time(tmp_path: Path) -> None:
    # Searching the whole buffer for a newline after each 64 KiB read copies ~30 GB for this
    # line and takes far longer than the response timeout; reading it once, well under a
    # second.
    code, report = conform(tmp_path, ["-k", OBSERVE, "--timeout", "300"], fake("long-line"))
    assert code == EXIT_FAILED
    result = report["results"][0]
    refused = f"garbage: a response line longer than {MAX_RESPONSE_BYTES} bytes"
    assert result["status"] == "error" and result["reason"].startswith(refused), result


@pytest.mark.slow
def test_a_huge_valid_answer_is_refused_past_the_limit_in_bounded_memory(tmp_path: Path) -> None:
    """A valid 50 MB set answer is refused once MAX_RESPONSE_BYTES are read: the runner
    neither holds nor parses the rest (it once cost 389 MB and a 105 MB JUnit report)."""
    options = ["-k", "core/queries/affected-is-one-step", "--junit", str(tmp_path / "r.xml")]

    def peak_of(mode: str) -> tuple[int, int, dict[str, Any]]:
        tracemalloc.start()
        try:
            code, report = conform(tmp_path, options, fake(mode))
            return tracemalloc.get_traced_memory()[1], code, report
        finally:
            tracemalloc.stop()

    baseline, _, _ = peak_of("correct")  # loading the suite costs the most
    peak, code, report = peak_of("huge-answer")
    assert code == EXIT_FAILED
    result = report["results"][0]
    refused = f"garbage: a response line longer than {MAX_RESPONSE_BYTES} bytes"
    assert result["status"] == "error" and result["reason"].startswith(refused), result
    extra = peak - baseline
    assert extra < 4 * MAX_RESPONSE_BYTES, f"{extra} more bytes traced for a 50 MB answer"
    assert (tmp_path / "r.xml").stat().st_size < 64 * 1024


@pytest.mark.slow
def test_a_set_answer_of_600000_members_is_compared_in_linear_time(tmp_path: Path) -> None:
    # Counting each member's repetitions with list.count would take about half an hour, past
    # pytest-timeout's bound; counting once, a second.
    case = "core/queries/affected-is-one-step"
    finished = subprocess.run(
        [*RUNNER, "-k", case, "--json", "-", "--", *fake("repeats")],
        capture_output=True,
        check=False,
    )
    assert finished.returncode == EXIT_FAILED, finished.stderr
    result = json.loads(finished.stdout)["results"][0]
    assert result["diff"] == "repeated {h1, h2, h3}"


@pytest.mark.slow
def test_standard_error_kept_per_case_is_bounded_in_memory_and_keeps_the_end(
    tmp_path: Path,
) -> None:
    def peak_of(mode: str) -> tuple[int, int, dict[str, Any]]:
        tracemalloc.start()
        try:
            code, report = conform(tmp_path, ["-k", OBSERVE], fake(mode))
            return tracemalloc.get_traced_memory()[1], code, report
        finally:
            tracemalloc.stop()

    # The same run without the flood is the baseline (loading the suite costs the most).
    baseline, _, _ = peak_of("correct")
    peak, code, report = peak_of("flood")
    assert code == EXIT_OK
    extra = peak - baseline
    assert extra < 16 * 1024 * 1024, f"{extra} more bytes traced for 32 MiB of standard error"
    stderr = report["results"][0]["stderr"]
    assert stderr.startswith("fake: flooding") and stderr.endswith("fake: last words\n")
    assert "bytes dropped) ..." in stderr and len(stderr) <= STDERR_KEEP + 100


# -- the deadline and the circuit breaker -----------------------------------------------


@pytest.mark.slow
def test_the_run_deadline_stops_a_slow_run_and_reports_what_was_not_run(tmp_path: Path) -> None:
    options = ["-k", "core/preconditions/*", "--deadline", "1.5"]
    code, report = conform(tmp_path, options, fake("slow"))
    assert code == EXIT_INCOMPLETE
    assert report["stopped"].startswith("the run's deadline passed; ")
    done = [r for r in report["results"] if r["status"] == "pass"]
    left = [r for r in report["results"] if r["status"] == "skip"]
    # At 0.05 s a start, 46 cases cannot all run in 1.5 s; how many do is the machine's.
    preconditions = sum(1 for c in load_suite() if c.id.startswith("core/preconditions/"))
    assert left and len(done) + len(left) == report["selected"] == preconditions
    assert set(report["not_run"]) == {r["id"] for r in left}


@pytest.mark.slow
def test_the_circuit_breaker_stops_after_consecutive_timeouts(tmp_path: Path) -> None:
    options = ["-k", "core/preconditions/*", "--timeout", "0.5", "--max-timeouts", "2"]
    code, report = conform(tmp_path, options, fake("hang-on-start"))
    assert code == EXIT_FAILED
    preconditions = sum(1 for c in load_suite() if c.id.startswith("core/preconditions/"))
    not_run = preconditions - 2
    assert report["stopped"] == (
        f"2 cases in a row timed out (--max-timeouts); {not_run} cases not run"
    )
    assert list(report["counts"].items())[:4] == [
        ("pass", 0),
        ("fail", 0),
        ("error", 2),
        ("skip", not_run),
    ]


# -- the handshake ----------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "reason"), [("dies", "crash"), ("refuses", "refused")])
def test_a_failed_handshake_still_writes_both_reports(
    tmp_path: Path, mode: str, reason: str
) -> None:
    junit = tmp_path / "report.xml"
    code, report = conform(tmp_path, ["-k", OBSERVE, "--junit", str(junit)], fake(mode))
    assert code == EXIT_UNUSABLE
    assert report["unusable"].startswith(f"{reason}: ") and report["results"] == []
    assert report["implementation"] == {"command": fake(mode)}
    assert report["suite"] == SUITE_VERSION and report["suite_sha256"]
    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("errors")) == ("1", "1")
    error = root.find("testsuite/testcase[@name='handshake']/error")
    assert error is not None and error.get("message") == report["unusable"]


def test_bad_limits_and_unwritable_reports_are_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--deadline", "0", "--", *fake("correct")]) == EXIT_BAD_INPUT
    assert "argument --deadline: 0 is not a duration" in capsys.readouterr().err
    unwritable = str(tmp_path / "no" / "such" / "report.xml")
    assert main(["--junit", unwritable, "--", *fake("correct")]) == EXIT_BAD_INPUT
    assert "argument --junit: " in capsys.readouterr().err
