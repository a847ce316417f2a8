"""``gcv conform --fuzz N``: differential fuzzing as a campaign of shards.

The N conversations are cut into shards of at most ``shard_examples`` each
(:func:`shards_of`); shard i's rounds use the seeds ``seed + MAX_ROUNDS * i + r``, so a
shard's conversations depend on the run's seed and its index alone.  Each shard is one
task (:func:`gcv.conformance.fuzz.run_shard`) that starts its own copy of the
implementation under test and fuzzes it.  With one worker the shards run one after
another in this process; with more, or a cluster's address, they run on a Dask cluster
(:mod:`gcv.campaign`).  Either way the driver merges the finished shards' findings in
shard order, one per cause with its shortest example and its count
(:func:`~gcv.conformance.fuzz.merge_finding`), so the report does not depend on the
number of workers or on which shard ends first.

After each finished shard the driver rewrites the checkpoint file (``--checkpoint``, a
rename: whole or absent) with the run's parameters and every finished shard's findings;
``--resume`` refuses a checkpoint of other parameters (:class:`CheckpointMismatch`) and
runs only the shards it lacks.  A signal cancels the tasks, ends the cluster (its workers
end the implementations they started) and leaves the report of the finished shards.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import icontract

from gcv.conformance.fuzz import (
    MAX_ROUNDS,
    FuzzShard,
    ShardResult,
    merge_finding,
    run_shard,
    save_findings,
)
from gcv.conformance.report import CaseResult, FuzzFinding, RunReport
from gcv.conformance.stopping import Interrupted, cleaning_up, event
from gcv.conformance.vectors import SUITE_VERSION
from gcv.jsoninput import parse_json, read_file
from gcv.progress import progress
from gcv.reference.errors import MalformedInput

__all__ = [
    "CHECKPOINT_FORMAT",
    "SHARD_EXAMPLES",
    "CheckpointMismatch",
    "FuzzRun",
    "fuzz_campaign",
    "shards_of",
]

SHARD_EXAMPLES = 10
"""Conversations per shard by default: a shard is the unit of a checkpoint and of a task,
and each starts a copy of the implementation (a fraction of a second of its CPU)."""

CHECKPOINT_FORMAT = "gcv-fuzz-checkpoint/1"
MAX_CHECKPOINT_BYTES = 256 << 20


class CheckpointMismatch(MalformedInput):
    """``--resume`` was given a checkpoint of a run with other parameters; the message
    names each parameter that differs."""

    code = "checkpoint-mismatch"


@dataclass(frozen=True, slots=True)
class FuzzRun:
    """A fuzzing run's parameters: what its findings depend on, and all a checkpoint must
    match to be resumed."""

    command: tuple[str, ...]
    examples: int
    seed: int | None
    """None: drawn at random (:func:`plan`), or the checkpoint's when resuming."""
    shard_examples: int = SHARD_EXAMPLES
    max_turns: int = 8
    profile: str = "paper"
    ignore: tuple[str, ...] = ()
    suite: str = SUITE_VERSION
    """The reference's suite version: another reference may find otherwise."""

    def parameters(self) -> dict[str, Any]:
        """The parameters as JSON data."""
        return {
            "command": list(self.command),
            "examples": self.examples,
            "seed": self.seed,
            "shard_examples": self.shard_examples,
            "fuzz_turns": self.max_turns,
            "profile": self.profile,
            "ignore": list(self.ignore),
            "suite": self.suite,
        }


@icontract.ensure(
    lambda run, result: sum(s.examples for s in result) == run.examples,
    "the shards hold the run's N conversations",
)
@icontract.ensure(
    lambda run, result: all(s.seed == run.seed + MAX_ROUNDS * s.index for s in result),
    "shard i's seeds are the run's seed + MAX_ROUNDS * i + r: its index decides them",
)
@icontract.require(lambda run: run.seed is not None, "the run's seed is chosen (plan)")
def shards_of(
    run: FuzzRun, timeout: float = 10.0, start_timeout: float = 30.0, deadline: float | None = None
) -> list[FuzzShard]:
    """The run's conversations cut into shards of at most ``run.shard_examples``."""
    assert run.seed is not None, "required"
    count = -(-run.examples // run.shard_examples)
    return [
        FuzzShard(
            index,
            min(run.shard_examples, run.examples - index * run.shard_examples),
            run.seed + MAX_ROUNDS * index,
            run.command,
            run.max_turns,
            run.profile,
            run.ignore,
            timeout,
            start_timeout,
            deadline,
        )
        for index in range(count)
    ]


# -- the checkpoint -------------------------------------------------------------------


def _case_result(data: Mapping[str, Any]) -> CaseResult:
    """A :class:`CaseResult` from its JSON form (lists back to the tuples it holds)."""
    fields = dict(data)
    for name in ("statements", "failed_steps", "paper_failed_steps", "known_failed_steps"):
        fields[name] = tuple(fields.get(name, ()))
    fields["known_passing_steps"] = tuple(fields.get("known_passing_steps", ()))
    fields["explanations"] = tuple(
        (step, tuple(tuple(reading) for reading in found))
        for step, found in fields.get("explanations", ())
    )
    return CaseResult(**fields)


def _shard_to_json(result: ShardResult) -> dict[str, Any]:
    return asdict(result) | {"findings": [asdict(f) for f in result.findings]}


def _shard_from_json(data: Mapping[str, Any]) -> ShardResult:
    findings = tuple(
        FuzzFinding(
            **(
                dict(f)
                | {
                    "mismatch": _case_result(f["mismatch"]),
                    "trace": tuple(f["trace"]),
                    "keys": tuple(f["keys"]),
                }
            )
        )
        for f in data["findings"]
    )
    return ShardResult(**(dict(data) | {"findings": findings}))


def save_checkpoint(path: Path, run: FuzzRun, done: Mapping[int, ShardResult]) -> None:
    """Write the run's parameters and its finished shards to ``path`` whole (a rename)."""
    data = {
        "format": CHECKPOINT_FORMAT,
        "parameters": run.parameters(),
        "shards": [_shard_to_json(done[i]) for i in sorted(done)],
    }
    draft = path.with_name(path.name + ".partial")
    draft.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(draft, path)


def plan(
    run: FuzzRun, checkpoint: Path | None, resume: bool
) -> tuple[FuzzRun, dict[int, ShardResult]]:
    """The run to make and the shards already finished: with ``resume`` and an existing
    ``checkpoint``, those it holds (and its seed, if ``run`` has none); the seed, if
    still none, drawn at random.

    Raises :class:`CheckpointMismatch` naming every parameter that differs from the
    checkpoint's, and :class:`MalformedInput` for a file that is not a checkpoint."""
    if not (resume and checkpoint is not None and checkpoint.exists()):
        seed = run.seed if run.seed is not None else random.SystemRandom().randrange(2**32)
        return dataclasses.replace(run, seed=seed), {}
    data = parse_json(
        read_file(str(checkpoint), MAX_CHECKPOINT_BYTES, MalformedInput, "a checkpoint"),
        MAX_CHECKPOINT_BYTES,
        MalformedInput,
        str(checkpoint),
    )
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise MalformedInput(
            f"{checkpoint} is not a fuzzing checkpoint ({CHECKPOINT_FORMAT})", field="checkpoint"
        )
    theirs = data.get("parameters", {})
    if run.seed is None and isinstance(theirs.get("seed"), int):
        run = dataclasses.replace(run, seed=theirs["seed"])
    differ = [
        f"{name} is {theirs.get(name)!r} there, {value!r} here"
        for name, value in run.parameters().items()
        if theirs.get(name) != value
    ]
    if differ:
        raise CheckpointMismatch(
            f"{checkpoint} was made by another run: {'; '.join(differ)}", field="checkpoint"
        )
    try:
        results = [_shard_from_json(shard) for shard in data["shards"]]
    except (KeyError, TypeError, ValueError) as error:
        raise MalformedInput(
            f"{checkpoint}: a shard's result is not readable ({error})", field="checkpoint"
        ) from None
    return run, {result.index: result for result in results}


# -- the run --------------------------------------------------------------------------


def merged_report(
    implementation: Mapping[str, Any], run: FuzzRun, done: Mapping[int, ShardResult]
) -> RunReport:
    """The report of the shards in ``done``, merged in shard order: each cause once, with
    its shortest example and how many times the shards met it."""
    report = RunReport(dict(implementation), run.suite, 0, fuzz_examples=run.examples)
    report.fuzz_seed = run.seed
    report.fuzz_profile = run.profile
    report.profile = run.profile
    report.fuzz_ignored = tuple(sorted(run.ignore))
    report.fuzz_shard_examples = run.shard_examples
    report.fuzz_shards = -(-run.examples // run.shard_examples)
    report.fuzz_shards_done = len(done)
    for index in sorted(done):
        result = done[index]
        for finding in result.findings:
            merge_finding(report.fuzz_findings, finding)
        report.fuzz_rounds += result.rounds
        report.fuzz_requests += result.requests
        report.fuzz_uncompared += result.uncompared
        report.fuzz_not_generated += result.not_generated
        report.fuzz_repeats += result.repeats
        if result.unusable and not report.unusable:
            report.unusable = f"shard {index}: {result.unusable}"
    return report


def _in_process(shards: Sequence[FuzzShard]) -> Generator[ShardResult, None, None]:
    """The shards one after another, in this process."""
    for shard in shards:
        yield run_shard(shard)


def _stop_if_unwanted(name: str) -> None:
    """On a Dask worker, in a shard's task: stop it (as a signal would) once its task is
    cancelled or its worker is closing, so that it ends its implementation."""
    from distributed import get_worker
    from distributed.core import Status
    from distributed.threadpoolexecutor import thread_state

    key = getattr(thread_state, "key", None)
    if key is None:  # not a task's thread (the driver, or another library's)
        return
    try:
        worker = get_worker()
    except ValueError:
        return
    task = worker.state.tasks.get(key)
    if worker.status != Status.running or task is None or task.state != "executing":
        raise Interrupted(signal.SIGTERM)


class ShardStopped(Exception):
    """A shard's task was stopped before it finished (its run was interrupted)."""


def _shard_task(shard: FuzzShard) -> ShardResult:
    """A shard as a Dask task: it stops at its next step once it is no longer wanted."""
    from gcv.conformance import stopping

    stopping.LISTENERS.append(_stop_if_unwanted)
    try:
        return run_shard(shard)
    except Interrupted as stop:  # a task ends with an Exception, which Dask reports
        raise ShardStopped(f"shard {shard.index}: {stop}") from None
    finally:
        stopping.LISTENERS.remove(_stop_if_unwanted)


@icontract.require(lambda run: run.seed is not None, "the run's seed is chosen (plan)")
@icontract.require(lambda workers: workers >= 1)
def fuzz_campaign(
    run: FuzzRun,
    implementation: Mapping[str, Any],
    done: Mapping[int, ShardResult] | None = None,
    *,
    workers: int = 1,
    cluster: str | None = None,
    checkpoint: Path | None = None,
    save_to: Path | None = None,
    timeout: float = 10.0,
    start_timeout: float = 30.0,
    deadline: float | None = None,
    quiet: bool = True,
    on_progress: Callable[[RunReport], None] = lambda report: None,
) -> RunReport:
    """Fuzz ``run.command`` in shards, those in ``done`` finished already; the merged
    report (``implementation``: the handshake the driver got).

    ``on_progress`` gets the report of the shards finished so far at the start and after
    each shard, so that a run stopped by a signal keeps them; the ``checkpoint`` (if any)
    is rewritten after each shard.  With one worker and no ``cluster`` the shards run in
    this process; otherwise on a local Dask cluster of ``workers`` processes or the
    scheduler at ``cluster`` (the ``campaign`` extra).  ``save_to`` receives each
    finding's shortest example as a vector when the run ends whole.
    """
    finished = dict(done or {})
    pending = [
        s for s in shards_of(run, timeout, start_timeout, deadline) if s.index not in finished
    ]

    def report() -> RunReport:
        return merged_report(implementation, run, finished)

    def status() -> str:
        return f"{len(report().fuzz_findings)} findings"

    on_progress(report())
    if checkpoint is not None:
        save_checkpoint(checkpoint, run, finished)
    shown = "fuzz shards" + (f" ({len(finished)} resumed)" if finished else "")
    with _results(workers, cluster, pending) as results:
        for result in progress(results, shown, total=len(pending), quiet=quiet, status=status):
            finished[result.index] = result
            if checkpoint is not None:
                save_checkpoint(checkpoint, run, finished)
            on_progress(report())
            event(f"fuzz shard {result.index} done")
    final = report()
    if save_to is not None and run.seed is not None and not final.unusable:
        against = f"{implementation.get('name')} {implementation.get('version')}"
        features = implementation.get("features", ())
        final.fuzz_findings = save_findings(
            final.fuzz_findings, save_to, run.seed, against, features
        )
    return final


@contextmanager
def _results(
    workers: int, cluster: str | None, shards: Sequence[FuzzShard]
) -> Iterator[Generator[ShardResult, None, None]]:
    """The finished shards' results as they come: in this process for one worker, else
    from a Dask cluster.  On leaving (a signal included) the tasks left are cancelled and
    a local cluster is closed: its workers stop their shards, whose implementations end."""
    if workers == 1 and cluster is None:
        with closing(_in_process(shards)) as results:
            yield results
        return
    from gcv.campaign import campaign  # Dask, only when asked

    with campaign(workers, cluster) as running:
        try:
            with closing(running.completed(_shard_task, shards)) as completed:
                yield completed
        except Interrupted:
            cleaning_up()  # further signals wait until the workers have ended
            raise
