"""``gcv conform --fuzz N --workers K``: fuzzing in shards whose seeds depend on the run's
seed and the shard's index only, so that one and two workers give the same report; a
checkpoint after each shard, from which an interrupted run resumes to the report an
uninterrupted one gives; a checkpoint of another run refused.

The runner runs in this process.  Two workers are Dask's thread workers here (no start-up
cost) except in one test, which shows that two worker processes give the same report.
Signals are sent at the events the driver reports (a shard done), never by a clock.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from gcv.conformance import stopping
from gcv.conformance.runner import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, main
from tests.conformance.helpers import SERVE, fake

BUGGY = [*fake("paper-bug"), "new records labelled resolved"]
"""A fake breaking a paper clause at once: every shard meets the bug."""
SHARDS = ["--seed", "2", "--fuzz-turns", "3", "--shard-examples", "2"]


@pytest.fixture
def threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A local cluster's workers are threads of this process (no start-up cost)."""
    import gcv.campaign

    threaded = functools.partial(gcv.campaign.campaign, processes=False)
    monkeypatch.setattr(gcv.campaign, "campaign", threaded)


def _run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], command: list[str]
) -> tuple[int, str, dict[str, Any]]:
    """``gcv conform OPTIONS -- COMMAND``: its exit code, text report and JSON report (the
    time taken aside)."""
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    capsys.readouterr()
    code = main([*options, "--json", str(report), "--", *command])
    data = json.loads(report.read_text()) if report.is_file() else {}
    data.pop("seconds", None)
    return code, capsys.readouterr().out, data


def _implementations() -> list[int]:
    """This process's descendants running an implementation the tests start."""
    import psutil

    return [
        p.pid
        for p in psutil.Process().children(recursive=True)
        if any("fake_impl.py" in part or part == "serve" for part in p.cmdline())
    ]


@pytest.mark.slow  # about 3 s of CPU: two runs of two shards against gcv serve
@pytest.mark.usefixtures("threads")
def test_one_and_two_workers_find_nothing_in_the_reference_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ["--fuzz", "4", "--seed", "3", "--fuzz-turns", "3", "--shard-examples", "2"]
    one = _run(tmp_path, capsys, options, SERVE)
    two = _run(tmp_path, capsys, [*options, "--workers", "2"], SERVE)
    assert one[0] == EXIT_OK and one[2]["fuzz"]["findings"] == []
    assert one[2]["fuzz"]["shards_done"] == 2 and one[2]["fuzz"]["requests"] > 0
    assert two == one


@pytest.mark.slow  # about 10 s of CPU: two worker processes start and import the engine
def test_two_worker_processes_give_the_report_of_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ["--fuzz", "4", *SHARDS]
    one = _run(tmp_path, capsys, options, BUGGY)
    two = _run(tmp_path, capsys, [*options, "--workers", "2"], BUGGY)
    code, _, report = one
    assert code == EXIT_FAILED
    (finding,) = report["fuzz"]["findings"]
    assert "T3.register.new-active" in finding["key"]
    assert finding["count"] >= 2, "met in both shards, reported once"
    assert two == one, "the same findings, counts and text"
    assert not _implementations(), "every implementation ended"


def _signal_at_first_shard(signum: int, seen: list[str]) -> Any:
    def listener(name: str) -> None:
        seen.append(name)
        if name.startswith("fuzz shard ") and sum(n.startswith("fuzz shard ") for n in seen) == 1:
            os.kill(os.getpid(), signum)

    return listener


@pytest.mark.slow  # about 6 s of CPU: a run of three shards, stopped, resumed, and whole
@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.usefixtures("threads")
def test_a_run_stopped_after_a_shard_resumes_to_the_uninterrupted_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], workers: str
) -> None:
    checkpoint = tmp_path / "fuzz.ckpt"
    options = ["--fuzz", "6", *SHARDS, "--workers", workers, "--checkpoint", str(checkpoint)]
    whole = _run(tmp_path, capsys, options[:-2], BUGGY)
    seen: list[str] = []
    stopping.LISTENERS.append(_signal_at_first_shard(signal.SIGINT, seen))
    try:
        code, _, stopped = _run(tmp_path, capsys, options, BUGGY)
    finally:
        stopping.LISTENERS.pop()
    assert code == 128 + signal.SIGINT
    assert stopped["stopped"] == "interrupted by SIGINT"
    assert stopped["fuzz"]["shards_done"] == 1 and len(stopped["fuzz"]["findings"]) == 1
    assert not _implementations(), "the stopped shards ended their implementations"
    saved = json.loads(checkpoint.read_text())
    assert [shard["index"] for shard in saved["shards"]] == [
        int(next(n for n in seen if n.startswith("fuzz shard ")).split()[2])
    ]
    resumed = _run(tmp_path, capsys, [*options, "--resume"], BUGGY)
    assert resumed == whole
    assert len(json.loads(checkpoint.read_text())["shards"]) == 3


def test_a_checkpoint_of_another_run_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gcv.conformance.fuzz_campaign import FuzzRun, save_checkpoint

    checkpoint = tmp_path / "fuzz.ckpt"
    command = BUGGY
    save_checkpoint(checkpoint, FuzzRun(tuple(command), 6, 2, 2, 3), {})
    before = checkpoint.read_bytes()
    options = ["--fuzz", "8", *SHARDS, "--checkpoint", str(checkpoint), "--resume"]
    code = main([*options, "--", *command])
    error = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT
    assert "[checkpoint-mismatch]" in error and "examples is 6 there, 8 here" in error
    assert checkpoint.read_bytes() == before, "the checkpoint is left as it was"
    checkpoint.write_text("[1, 2]")
    assert main([*options, "--", *command]) == EXIT_BAD_INPUT
    assert "not a fuzzing checkpoint" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--workers", "2"], "only with --fuzz"),
        (["--fuzz", "2", "--resume"], "--resume needs --checkpoint"),
    ],
)
def test_campaign_options_out_of_place_are_bad_input(
    capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    assert main([*options, "--", sys.executable]) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err


def test_without_the_extra_more_workers_say_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # its import fails: not installed
    assert main(["--fuzz", "2", "--workers", "2", "--", sys.executable]) == EXIT_BAD_INPUT
    assert "[campaign]" in capsys.readouterr().err


def test_shard_seeds_depend_on_the_runs_seed_and_the_index_alone() -> None:
    from gcv.conformance.fuzz_campaign import FuzzRun, shards_of

    run = FuzzRun(("impl",), 25, 7, 10)
    shards = shards_of(run)
    assert [(s.index, s.examples, s.seed) for s in shards] == [(0, 10, 7), (1, 10, 27), (2, 5, 47)]
