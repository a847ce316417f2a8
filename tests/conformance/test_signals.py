"""SIGTERM and SIGINT stop every mode of ``gcv conform`` wherever it is, set-up, cases,
fuzzing and shrinking included: exit 128 + N, the reports written and valid, a fuzzing
run's findings those of the rounds that ended.

The signal is sent at the events the runner reports (``gcv.conformance.stopping.event``),
from a listener, to the runner's own process: no clock decides where it lands.  The runner
runs in this process (its handler is installed while it runs); the implementation is a
process of its own.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from gcv.conformance import stopping
from gcv.conformance.runner import main
from tests.conformance.helpers import SERVE, fake

pytestmark = pytest.mark.slow

VECTORS = ["-k", "core/operations/observe-*", "-k", "core/turns/*"]
FUZZ = ["--fuzz", "5", "--seed", "1", "--fuzz-turns", "3"]
BUG = "new records labelled resolved"  # met at once: the run finds, shrinks, searches again


@contextmanager
def _signal_at(point: int | None, signum: int, seen: list[str]) -> Iterator[None]:
    """Record every event; at the ``point``-th (from 1), send ``signum`` to this process."""

    def listener(name: str) -> None:
        seen.append(name)
        if len(seen) == point:
            os.kill(os.getpid(), signum)

    stopping.LISTENERS.append(listener)
    try:
        yield
    finally:
        stopping.LISTENERS.remove(listener)


def _run(tmp_path: Path, argv: list[str], point: int | None, signum: int) -> Any:
    report = tmp_path / f"report-{point}.json"
    cut = argv.index("--")
    seen: list[str] = []
    with _signal_at(point, signum, seen):
        code = main([*argv[:cut], "--json", str(report), *argv[cut:]])
    return code, seen, json.loads(report.read_text()) if report.is_file() else None


def _points(count: int, wanted: int) -> list[int]:
    """``wanted`` event numbers spread over ``count`` events, the first and last included."""
    step = max(1, (count - 1) // (wanted - 1))
    return sorted({*range(1, count + 1, step), count})


@pytest.mark.parametrize(
    ("mode", "argv"),
    [
        ("vectors", [*VECTORS, "--", *SERVE]),
        ("fuzz", [*FUZZ, "--", *fake("paper-bug"), BUG]),
    ],
)
def test_a_signal_at_any_event_stops_the_run_with_its_reports(
    tmp_path: Path, mode: str, argv: list[str]
) -> None:
    code, events, full = _run(tmp_path, argv, None, signal.SIGTERM)
    assert code in (0, 1) and full is not None
    kinds = {" ".join(name.split()[:2]) for name in events}
    if mode == "fuzz":
        assert {"fuzz round", "fuzz example", "fuzz shrinking", "fuzz step"} <= kinds, kinds
    stopped = []
    for n, point in enumerate(_points(len(events), 12)):
        signum = (signal.SIGTERM, signal.SIGINT)[n % 2]
        code, seen, report = _run(tmp_path, argv, point, signum)
        where = f"{mode}: {signum.name} at event {point} ({seen[point - 1]})"
        assert code == 128 + signum, where
        assert len(seen) == point, f"{where}: the run went on to {seen[point:][:3]}"
        if seen[point - 1] in ("options", "suite"):
            assert report is None, where  # before the run began, the exit code only
            continue
        assert report is not None, where
        assert report["stopped"].startswith(f"interrupted by {signum.name}"), where
        if mode == "fuzz":
            findings = report["fuzz"]["findings"]
            assert len(findings) <= len(full["fuzz"]["findings"]), where
            assert all(f["trace"] and f["count"] >= 1 for f in findings), where
        stopped.append(seen[point - 1])
    assert stopped, "no point after the run began"


def test_a_signal_caught_on_the_way_still_stops_the_run() -> None:
    """Code the runner calls may catch Interrupted (Hypothesis has): the next checkpoint
    raises it again, until the runner's own handler takes it; then signals are ignored."""
    with stopping.stopped_by_signals():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            stopping.checkpoint()  # reached only if the handler did not raise at once
        except stopping.Interrupted:
            pass  # caught on the way, and dropped
        with pytest.raises(stopping.Interrupted) as again:
            stopping.checkpoint()
        assert again.value.signum == signal.SIGTERM
        stopping.cleaning_up()
        os.kill(os.getpid(), signal.SIGINT)  # ignored while the reports are written
        stopping.checkpoint()
