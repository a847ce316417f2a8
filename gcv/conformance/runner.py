"""``gcv conform -- COMMAND ...``: run the vectors against an implementation under test.

The runner starts COMMAND, performs the handshake, and runs each selected case
on a fresh conversation: a case needing a feature the implementation did not
declare is skipped; otherwise its steps are sent one by one and the first
response that differs from the vector ends the case, reported with the step,
the request, the response, the expected value as a readable diff, and what
the implementation wrote to standard error.  A hung, crashed or garbled
implementation is killed, reported, restarted, and the run goes on.

This module is the command line: its options, the report files, the exit codes, the
fuzzing options' plumbing and the signals; running the cases is
:mod:`gcv.conformance.running` (its names are importable from here as before).

Exit codes (fixed; never a count):

- 0: conforms: under the profile chosen (``--profile``, default ``paper``) no
  selected case failed: in the ``paper`` profile every step that differed is explained by
  the reference's paper-compatible alternatives, alone or together (the report names them
  by id); in the ``reference`` profile no step differed; fuzzing (if asked) found no
  difference;
- 1: does not conform: a case failed under the profile or errored, fuzzing found
  a difference, or (``--strict``) a known failure now passes;
- 2: bad input: a bad option, an unreadable vector or known-failures file, a
  vector file that is not the manifest's, a report path that cannot be written,
  or filters that select no case;
- 3: the implementation could not be used: it did not start or refused the
  handshake;
- 4: incomplete: nothing differed, but not every step of the features the
  implementation declared was run (it answered ``unsupported``, the run was
  stopped early, or no step ran at all);
- 128 + N: stopped by signal N (130: SIGINT, 143: SIGTERM).

Whatever ends the run, the implementation's process group is killed and the
reports are written; they are rewritten as each case finishes, so a run killed
outright leaves them valid and holding the cases that finished.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gcv.conformance.process import Fault, Implementation
from gcv.conformance.report import RunReport
from gcv.conformance.running import (
    MAX_TIMEOUTS,
    KnownFailures,
    close_report,
    run_cases,
    runnable,
    select,
)
from gcv.conformance.stopping import Interrupted, cleaning_up, event, stopped_by_signals
from gcv.conformance.vectors import SUITE_VERSION, Case, Suite, open_suite
from gcv.hints import install_hint
from gcv.jsoninput import read_file
from gcv.options import OptionParser, at_least, seconds, writable_path
from gcv.progress import add_quiet_argument
from gcv.reference.errors import GcvError

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_INCOMPLETE",
    "EXIT_OK",
    "EXIT_UNUSABLE",
    "MAX_TIMEOUTS",
    "Interrupted",
    "KnownFailures",
    "main",
    "run_cases",
    "runnable",
    "select",
]


EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_UNUSABLE, EXIT_INCOMPLETE = 0, 1, 2, 3, 4
MAX_KNOWN_FAILURES_BYTES = 1 << 20

UPDATE_SECONDS = 0.5
"""The longest a finished case waits to reach the report files while the run moves fast."""


def _parser() -> argparse.ArgumentParser:
    parser = OptionParser(
        prog="gcv conform",
        usage="gcv conform [OPTIONS] -- COMMAND [ARGUMENTS ...]",
        description="Run the conformance vectors (or differential fuzzing) against an "
        "implementation that speaks gcv-conform/1 on its standard input and output.",
        epilog="Exit codes: 0 conforms; 1 does not conform; 2 bad input; "
        "3 the implementation could not be started; 4 incomplete (steps of declared "
        "features not run); 130, 143 interrupted. See docs/conformance.md.",
    )
    parser.add_argument("--vectors", metavar="DIR", help="a vectors directory (default: shipped)")
    parser.add_argument(
        "--vectors-version",
        metavar="VERSION",
        help="refuse to run (exit 2) unless the vectors are this suite version",
    )
    parser.add_argument(
        "-k",
        "--id",
        action="append",
        default=[],
        metavar="GLOB",
        help="run only cases whose id matches (repeatable)",
    )
    parser.add_argument(
        "--feature",
        action="append",
        default=[],
        metavar="NAME",
        help="run only cases with this feature or tag (repeatable)",
    )
    parser.add_argument("--max-fail", type=at_least(1), metavar="N", help="stop after N failures")
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="per-request timeout (default 10)",
    )
    parser.add_argument(
        "--start-timeout",
        type=seconds,
        default=30.0,
        metavar="SECONDS",
        help="time allowed to start and answer the handshake (default 30)",
    )
    parser.add_argument(
        "--deadline",
        type=seconds,
        metavar="SECONDS",
        help="stop the whole run after SECONDS; the cases left are reported as not run",
    )
    parser.add_argument(
        "--max-timeouts",
        type=at_least(1),
        default=MAX_TIMEOUTS,
        metavar="N",
        help=f"stop after N cases in a row time out (default {MAX_TIMEOUTS})",
    )
    parser.add_argument(
        "--known-failures",
        metavar="FILE",
        help="cases (ids or globs) or steps (CASE#N) expected to fail, one a line",
    )
    parser.add_argument(
        "--write-known-failures",
        type=writable_path,
        metavar="FILE",
        help="write the steps that differ (in the profile chosen) as a known-failures file",
    )
    parser.add_argument("--strict", action="store_true", help="fail when a known failure passes")
    parser.add_argument(
        "--profile",
        choices=("paper", "reference"),
        default="paper",
        help="which steps decide the exit code: those the papers alone decide (default), "
        "or every step (the reference's full behaviour)",
    )
    parser.add_argument(
        "--json", type=writable_path, metavar="FILE", help="write the JSON report ('-': stdout)"
    )
    parser.add_argument(
        "--junit", type=writable_path, metavar="FILE", help="write a JUnit XML report"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list every case")
    add_quiet_argument(parser)
    fuzz = parser.add_argument_group("differential fuzzing (instead of the vectors)")
    fuzz.add_argument(
        "--fuzz",
        type=at_least(1),
        metavar="N",
        help="N Hypothesis-generated conversations, in lockstep with the reference",
    )
    fuzz.add_argument("--seed", type=int, help="the fuzzing seed (default: random, printed)")
    fuzz.add_argument(
        "--fuzz-turns",
        type=at_least(1, 1000),
        default=8,
        metavar="T",
        help="at most T turns per conversation (default 8)",
    )
    fuzz.add_argument(
        "--save-vector",
        metavar="FILE",
        help="append each shrunk finding to this vector file",
    )
    fuzz.add_argument(
        "--shard-examples",
        type=at_least(1),
        default=10,
        metavar="B",
        help="conversations per shard, the unit of a task and a checkpoint (default 10)",
    )
    fuzz.add_argument(
        "--workers",
        type=at_least(1),
        default=1,
        metavar="K",
        help="run the shards on a local Dask cluster of K processes (default 1: in this "
        "process; more needs the campaign extra)",
    )
    fuzz.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run the shards on the Dask scheduler at ADDRESS (tcp://host:8786)",
    )
    fuzz.add_argument(
        "--checkpoint",
        type=writable_path,
        metavar="FILE",
        help="rewrite FILE after each finished shard with the findings so far",
    )
    fuzz.add_argument(
        "--resume",
        action="store_true",
        help="run only the shards the --checkpoint file lacks (refused if it was made "
        "with other parameters)",
    )
    fuzz.add_argument(
        "--fuzz-ignore",
        action="append",
        default=[],
        type=_clause_id,
        metavar="CLAUSE",
        help="a clause id of spec/gcv/spec/normative.md whose steps and refusals are not compared "
        "(repeatable)",
    )
    return parser


def _clause_id(text: str) -> str:
    """A clause id of ``gcv.spec.transition`` (spec/gcv/spec/normative.md lists them).

    The spec is loaded only here, for ``--fuzz-ignore``: running the vectors needs none of it.
    """
    import gcv.spec.transition  # noqa: F401  (importing it declares every clause CLAUSES lists)
    from gcv.spec.clauses import CLAUSES

    if text not in CLAUSES:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a clause id of spec/gcv/spec/normative.md"
        )
    return text


def _split(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    words = list(argv)
    if "--" not in words:
        return words, []
    cut = words.index("--")
    return words[:cut], words[cut + 1 :]


def _replace_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that ``path`` always holds a whole file: the old one
    until the new one is complete (a rename is atomic)."""
    draft = path.with_name(path.name + ".partial")
    draft.write_text(text, encoding="utf-8")
    os.replace(draft, path)


class _ReportFiles:
    """The ``--json`` and ``--junit`` targets (``-``: standard output, at the end only).

    They are rewritten as cases finish, at most every ``UPDATE_SECONDS`` while the run
    moves fast (a rewrite renders every result so far), and as soon as the implementation
    is slow to answer, so that a killed run leaves them holding what had finished.
    """

    def __init__(
        self,
        json_target: str | None,
        junit_target: str | None,
        known_target: str | None = None,
        profile: str = "paper",
    ) -> None:
        self.json_target = json_target
        self.junit_target = junit_target
        self.known_target = known_target
        self.profile = profile
        self.written = -UPDATE_SECONDS
        self.pending: RunReport | None = None
        self.latest: RunReport | None = None

    def _renderings(self, report: RunReport) -> Iterator[tuple[str, str]]:
        if self.json_target:
            yield self.json_target, json.dumps(report.to_json(), indent=2) + "\n"
        if self.junit_target:
            yield self.junit_target, report.junit()
        if self.known_target:
            yield self.known_target, report.known_failures(self.profile)

    def update(self, report: RunReport) -> None:
        """Rewrite the report files with the run so far, or soon."""
        self.pending = self.latest = report
        if time.monotonic() - self.written >= UPDATE_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Rewrite the report files if an update is pending."""
        report, self.pending = self.pending, None
        if report is not None:
            self._write(report, final=False)
            self.written = time.monotonic()

    def finish(self, report: RunReport, verbose: bool) -> None:
        """Write the final reports, and the summary unless the JSON goes to standard output."""
        sys.stdout.write(report.text(verbose) if self.json_target != "-" else "")
        self._write(report, final=True)

    def _write(self, report: RunReport, final: bool) -> None:
        for target, text in self._renderings(report):
            if target != "-":
                _replace_file(Path(target), text)
            elif final:
                sys.stdout.write(text)


def _cases(args: argparse.Namespace) -> tuple[Suite, list[Case], KnownFailures]:
    directory = None if args.vectors is None else Path(args.vectors)
    if directory is not None and not directory.is_dir():
        raise GcvError(f"{directory}: no such vectors directory")
    suite = open_suite(directory)
    if args.vectors_version is not None and suite.version != args.vectors_version:
        # A pinned suite that is not the one at hand is a setup error, not a verdict.
        raise GcvError(
            f"the vectors are suite {suite.version}, not {args.vectors_version} "
            "(--vectors-version): install the gcv that ships it, or give --vectors a "
            "bundle of it (gcv vectors --export)"
        )
    cases = select(suite.cases, args.id, args.feature)
    known = KnownFailures()
    if args.known_failures:
        data = read_file(args.known_failures, MAX_KNOWN_FAILURES_BYTES, GcvError, "a list")
        try:
            known = KnownFailures.parse(data.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise GcvError(f"{args.known_failures}: not UTF-8 text (byte {error.start})") from None
    return suite, cases, known


def _fail_early(message: str, code: int) -> int:
    print(f"gcv conform: {message}", file=sys.stderr)
    return code


def _exit_code(report: RunReport, strict: bool, profile: str) -> int:
    if report.unusable:
        return EXIT_UNUSABLE
    if not report.conforms(strict, profile):
        return EXIT_FAILED
    return EXIT_INCOMPLETE if report.incomplete() else EXIT_OK


def _conform(
    args: argparse.Namespace,
    impl: Implementation,
    report: RunReport,
    cases: Sequence[Case],
    known: KnownFailures,
    files: _ReportFiles,
    campaign: tuple[Any, Any] | None = None,
) -> RunReport:
    """Start the implementation, run the vectors (or fuzz, the ``campaign`` planned by
    :func:`_fuzz_plan`) and end it; the report."""
    impl.on_idle = files.flush
    try:
        impl.start()
    except Fault as fault:
        stderr = impl.take_stderr(settle=0.05)
        for line in stderr.splitlines():
            print(f"  | {line}", file=sys.stderr)
        if files.json_target == "-":  # otherwise the report on stdout says it
            print(
                f"gcv conform: cannot use {' '.join(impl.command)}: {fault.kind}: {fault}",
                file=sys.stderr,
            )
        report.unusable = f"{fault.kind}: {fault}"
        report.notes += [f"stderr | {line}" for line in stderr.splitlines()[-20:]]
        return report
    assert impl.handshake is not None, "started"
    report.implementation = dict(impl.handshake.raw)
    event("handshake")
    try:
        if args.fuzz is not None and "core" not in impl.handshake.features:
            report.unusable = "fuzzing needs the core feature, which is not declared"
            print(f"gcv conform: {report.unusable}", file=sys.stderr)
        elif campaign is not None:
            impl.close()  # the handshake is the driver's; each shard starts its own copy
            report = _fuzz(args, impl, files, *campaign)
        else:
            files.update(report)
            run_cases(
                impl,
                cases,
                known,
                args.max_fail,
                max_timeouts=args.max_timeouts,
                report=report,
                on_result=files.update,
                quiet=args.quiet,
            )
    except Interrupted:
        impl.kill()  # at once: a shutdown request could wait behind a hung one
        raise
    finally:
        impl.close()
    return report


def _fuzz_plan(args: argparse.Namespace, command: Sequence[str]) -> tuple[Any, Any]:
    """The fuzzing run the options ask for, and the shards its checkpoint holds when
    resuming (:func:`gcv.conformance.fuzz_campaign.plan`).

    Raises :class:`GcvError` for a checkpoint that cannot be read or is another run's."""
    from gcv.conformance.fuzz_campaign import FuzzRun, plan  # Hypothesis, only now

    run = FuzzRun(
        tuple(command),
        args.fuzz,
        args.seed,
        args.shard_examples,
        args.fuzz_turns,
        args.profile,
        tuple(args.fuzz_ignore),
    )
    checkpoint = None if args.checkpoint is None else Path(args.checkpoint)
    return plan(run, checkpoint, args.resume)


def _fuzz(
    args: argparse.Namespace, impl: Implementation, files: _ReportFiles, run: Any, done: Any
) -> RunReport:
    """Fuzz ``run`` in shards, those in ``done`` finished already; the merged report."""
    from gcv.conformance.fuzz_campaign import fuzz_campaign  # Dask, if asked, only now

    assert impl.handshake is not None, "started"
    deadline = None if impl.deadline is None else time.time() + impl.deadline - time.monotonic()
    return fuzz_campaign(
        run,
        impl.handshake.raw,
        done,
        workers=args.workers,
        cluster=args.cluster,
        checkpoint=None if args.checkpoint is None else Path(args.checkpoint),
        save_to=None if args.save_vector is None else Path(args.save_vector),
        timeout=args.timeout,
        start_timeout=args.start_timeout,
        deadline=deadline,
        quiet=args.quiet,
        on_progress=files.update,
    )


def _fuzz_options_problem(args: argparse.Namespace) -> str:
    """What is wrong with the options of a fuzzing campaign, if anything."""
    campaign = ("--workers", args.workers > 1), ("--cluster", args.cluster is not None)
    given = [
        *(name for name, used in campaign if used),
        *(["--checkpoint"] if args.checkpoint else []),
        *(["--resume"] if args.resume else []),
    ]
    if args.fuzz is None:
        return f"{', '.join(given)} only with --fuzz" if given else ""
    if args.resume and not args.checkpoint:
        return "--resume needs --checkpoint FILE"
    if any(used for _, used in campaign) and importlib.util.find_spec("distributed") is None:
        return f"--workers above 1 and --cluster need Dask: {install_hint('campaign')}"
    return ""


def main(argv: list[str]) -> int:
    """Run ``gcv conform``.  A signal stops it wherever it is, its set-up included: before
    the run begins, nothing is reported but the exit code."""
    with stopped_by_signals():
        try:
            return _main(argv)
        except Interrupted as stop:
            cleaning_up()
            print(f"gcv conform: interrupted by {stop} before the run began", file=sys.stderr)
            return 128 + stop.signum


def _main(argv: list[str]) -> int:
    options, command = _split(argv)
    parser = _parser()
    try:
        args = parser.parse_args(options)
    except SystemExit as stop:
        if stop.code != 0 and not command:
            print("gcv conform: the implementation's command goes after --", file=sys.stderr)
        return EXIT_OK if stop.code == 0 else EXIT_BAD_INPUT
    event("options")
    if not command:
        return _fail_early("give the implementation's command after --", EXIT_BAD_INPUT)
    suite: Suite | None = None
    cases: list[Case] = []
    known = KnownFailures()
    if args.fuzz is None:
        try:
            suite, cases, known = _cases(args)
        except (GcvError, OSError) as error:
            return _fail_early(str(error), EXIT_BAD_INPUT)
        if not cases:
            return _fail_early("the filters select no case", EXIT_BAD_INPUT)
    elif importlib.util.find_spec("hypothesis") is None:
        return _fail_early(
            f"--fuzz needs Hypothesis: {install_hint('conformance')}", EXIT_BAD_INPUT
        )
    problem = _fuzz_options_problem(args)
    if problem:
        return _fail_early(problem, EXIT_BAD_INPUT)
    campaign: tuple[Any, Any] | None = None
    if args.fuzz is not None:
        try:
            campaign = _fuzz_plan(args, command)
        except GcvError as error:
            return _fail_early(str(error), EXIT_BAD_INPUT)
    event("suite")
    impl = Implementation(command, timeout=args.timeout, start_timeout=args.start_timeout)
    if args.deadline is not None:
        impl.deadline = time.monotonic() + args.deadline
    report = RunReport(
        {"command": command},
        SUITE_VERSION if suite is None else suite.version,
        len(cases),
        None if suite is None else suite.sha256,
        profile=args.profile,
    )
    files = _ReportFiles(args.json, args.junit, args.write_known_failures, args.profile)
    try:
        files.update(report)  # a report exists from the start, and its paths are writable
    except OSError as error:
        return _fail_early(f"cannot write the report: {error}", EXIT_BAD_INPUT)
    try:
        event("report")
        report = _conform(args, impl, report, cases, known, files, campaign)
        code = _exit_code(report, args.strict, args.profile)
    except ConnectionError as unreachable:  # --cluster: no scheduler answers there
        impl.kill()
        return _fail_early(str(unreachable), EXIT_BAD_INPUT)
    except Interrupted as stop:
        cleaning_up()
        impl.kill()
        # The report as it last stood (a fuzzing run's holds its findings so far).
        report = files.latest or report
        report.stopped = f"interrupted by {stop}"
        features = impl.handshake.features if impl.handshake else frozenset()
        close_report(report, cases, features)
        code = 128 + stop.signum
    files.finish(report, args.verbose)
    return code
