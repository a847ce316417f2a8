"""The runner never sends a request before it has read the previous one's response: a round
trip cut short (a signal, an error of the runner's own) ends the implementation, so no later
request can read an earlier one's answer; and a signal during fuzzing keeps what was found."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis.errors import Flaky

from gcv.conformance.fuzz import _round
from gcv.conformance.process import Crashed, Implementation, _LineReader
from gcv.conformance.report import QUOTE_CHARS, quoted
from gcv.conformance.runner import EXIT_FAILED, EXIT_OK
from tests.conformance.helpers import conform, fake

RUNNER = [sys.executable, "-m", "gcv.cli", "conform"]
START = {"cmd": "start", "agents": ["a"], "atoms": ["p"]}
OBSERVE = {
    "cmd": "apply",
    "speaker": "a",
    "operations": [{"op": "observe", "id": "o1", "claim": "c"}],
}


@pytest.fixture
def impl() -> Iterator[Implementation]:
    # Timeouts far above any wait: only the cut below may end a round trip early.
    started = Implementation(fake("correct"), timeout=600, start_timeout=600)
    started.start()
    yield started
    started.kill()


class _Cut(BaseException):
    """Stands for a signal arriving after a request went out, before its response is read."""


def test_a_round_trip_cut_short_ends_the_implementation(
    impl: Implementation, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert impl.request(START)["ok"]
    reading = _LineReader.line

    def cut(self: _LineReader, *args: object, **kwargs: object) -> bytes | None:
        raise _Cut

    monkeypatch.setattr(_LineReader, "line", cut)
    with pytest.raises(_Cut):
        impl.request(OBSERVE)
    monkeypatch.setattr(_LineReader, "line", reading)
    assert not impl.alive, "a process whose answer was not read must not be asked again"
    with pytest.raises(Crashed):
        impl.request(OBSERVE)
    impl.restart()
    assert impl.request(START)["ok"]
    assert impl.request(OBSERVE) == {
        "id": impl.last_request["id"],
        "ok": True,
        "result": {"turn": 1},
    }


@pytest.mark.slow
def test_sigterm_while_fuzzing_writes_a_report_with_the_findings_so_far(tmp_path: Path) -> None:
    """The fake signals the runner on a request of round 2, after round 1 found and shrank
    its difference (seed 2): the run exits 143 with that finding in its report."""
    report = tmp_path / "report.json"
    command = [*RUNNER, "--fuzz", "40", "--seed", "2", "--json", str(report), "--"]
    environment = {**os.environ, "GCV_FAKE_SIGTERM_AT": "3900"}
    run = subprocess.run([*command, *fake("one-step")], env=environment, capture_output=True)
    assert run.returncode == 128 + signal.SIGTERM, run.stderr
    assert b"Traceback" not in run.stderr
    written = json.loads(report.read_text())
    assert written["stopped"] == "interrupted by SIGTERM"
    (finding,) = written["fuzz"]["findings"]
    assert finding["keys"][0] == "affected_star: the sets differ"
    assert finding["key"].startswith("an answer differs [") and "T3.register.dep" in finding["key"]


class _FlakyRun:
    """A lockstep whose every conversation ends in Hypothesis's own Flaky error."""

    target: str | None = None
    found: object = None
    last_trace = ({"cmd": "start", "agents": ["a"], "atoms": ["p"]},)

    def conversation(self, data: object) -> None:
        raise Flaky("the implementation answered a replayed conversation otherwise")


def test_a_hypothesis_state_of_its_own_becomes_a_finding_not_a_traceback() -> None:
    run = _FlakyRun()
    _round(run, 1, 0)  # type: ignore[arg-type]
    assert run.found is not None
    assert run.found.key == "hypothesis: Flaky"  # type: ignore[attr-defined]
    assert "replayed conversation" in run.found.result.reason  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_slow_correct_implementation_fuzzes_clean_in_the_reference_profile(
    tmp_path: Path,
) -> None:
    """Many conversations against a correct fake that is slow to start each one: no
    difference and no fault (a desynchronised answer would be one)."""
    options = ["--fuzz", "40", "--seed", "1", "--profile", "reference", "--timeout", "600"]
    code, report = conform(tmp_path, options, fake("slow"))
    assert code == EXIT_OK, report["fuzz"]["findings"]
    assert report["fuzz"]["requests"] > 400


@pytest.mark.slow
def test_a_huge_response_is_quoted_in_the_reports_by_a_prefix_and_a_hash(
    tmp_path: Path,
) -> None:
    """The repeats fake answers Affected* with each member 50,000 times (over 600 KB)."""
    code, report = conform(tmp_path, ["-k", "core/queries/affected-is-one-step"], fake("repeats"))
    assert code == EXIT_FAILED
    response = report["results"][0]["response"]
    assert response["chars"] > 500_000
    assert len(response["quoted"]) == QUOTE_CHARS
    assert response["quoted"].startswith('{"id":') and len(response["sha256"]) == 64
    assert quoted({"ok": True}) == {"ok": True}
    assert (tmp_path / "report.json").stat().st_size < 64 * 1024
