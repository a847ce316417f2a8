"""``gcv conform -- COMMAND ...``: run the vectors against an implementation under test.

The runner starts COMMAND, performs the handshake, and runs each selected case
on a fresh conversation: a case needing a feature the implementation did not
declare is skipped; otherwise its steps are sent one by one and the first
response that differs from the vector ends the case, reported with the step,
the request, the response, the expected value as a readable diff, and what
the implementation wrote to standard error.  A hung, crashed or garbled
implementation is killed, reported, restarted, and the run goes on.

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
import dataclasses
import fnmatch
import importlib.util
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import icontract

from gcv.conformance.compare import check, show_expected
from gcv.conformance.process import DeadlinePassed, Fault, Implementation, TimedOut
from gcv.conformance.protocol import CASE_FEATURES, feature_of
from gcv.conformance.report import NOT_REACHED, CaseResult, RunReport, quoted, quoted_text
from gcv.conformance.stopping import Interrupted, cleaning_up, event, stopped_by_signals
from gcv.conformance.vectors import SUITE_VERSION, Case, Step, Suite, open_suite
from gcv.errors import Unsupported
from gcv.hints import install_hint
from gcv.jsoninput import read_file
from gcv.options import OptionParser, at_least, seconds, writable_path
from gcv.progress import add_quiet_argument, progress
from gcv.reference.errors import GcvError, MalformedInput

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


def is_ordered_subset(chosen: Sequence[Any], pool: Sequence[Any]) -> bool:
    """Check that ``chosen`` is ``pool`` with some members left out, in ``pool``'s order."""
    members = iter(pool)
    return all(any(item is other for other in members) for item in chosen)


EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_UNUSABLE, EXIT_INCOMPLETE = 0, 1, 2, 3, 4
MAX_KNOWN_FAILURES_BYTES = 1 << 20

RESTART_ATTEMPTS = 3
"""Consecutive failed restarts after which the remaining cases are not attempted."""

MAX_TIMEOUTS = 3
"""Consecutive cases ending in a timeout after which the run stops (the circuit breaker)."""

UPDATE_SECONDS = 0.5
"""The longest a finished case waits to reach the report files while the run moves fast."""


@dataclass(frozen=True, slots=True)
class KnownFailures:
    """The known-failures file: one entry per line, a case id or glob (the whole case is
    expected to fail) or ``GLOB#N`` (its step N, numbered as the reports number them, is
    expected to differ); ``#`` at the start of a line or after a space starts a comment."""

    patterns: tuple[str, ...] = ()
    steps: tuple[tuple[str, int], ...] = ()
    """(case glob, step number) for each entry that names a step."""

    @staticmethod
    def parse(text: str) -> KnownFailures:
        """Read the file's text; a step that is not a positive number is bad input.

        >>> known = KnownFailures.parse("core/queries/*  # Affected* is one-step\\nx/y/z#3\\n")
        >>> known.patterns, known.steps
        (('core/queries/*',), (('x/y/z', 3),))
        """
        patterns: list[str] = []
        steps: list[tuple[str, int]] = []
        for number, line in enumerate(text.splitlines(), start=1):
            entry = _COMMENT.sub("", line).strip()
            if "#" not in entry:
                patterns += [entry] if entry else []
                continue
            glob, _, step = entry.rpartition("#")
            if not glob or not step.isdigit() or int(step) < 1:
                raise MalformedInput(
                    f"known failures, line {number}: {entry!r} is neither a case id nor "
                    "CASE#STEP with a step number from 1",
                    field="known-failures",
                )
            steps.append((glob, int(step)))
        return KnownFailures(tuple(patterns), tuple(steps))

    def __contains__(self, case_id: object) -> bool:
        return isinstance(case_id, str) and any(
            fnmatch.fnmatchcase(case_id, p) for p in self.patterns
        )

    def steps_of(self, case_id: str) -> frozenset[int]:
        """The steps of ``case_id`` expected to differ."""
        return frozenset(n for glob, n in self.steps if fnmatch.fnmatchcase(case_id, glob))

    def unused(self, ids: Sequence[str]) -> list[str]:
        """Entries that match none of ``ids``."""
        entries = [*self.patterns, *(f"{glob}#{n}" for glob, n in self.steps)]
        globs = [*self.patterns, *(glob for glob, _ in self.steps)]
        return [
            entry
            for entry, glob in zip(entries, globs, strict=True)
            if not any(fnmatch.fnmatchcase(i, glob) for i in ids)
        ]


_COMMENT = re.compile(r"(^|\s)#.*$")


@icontract.ensure(
    lambda cases, result: is_ordered_subset(result, cases), "a selection keeps the suite's order"
)
def select(cases: Sequence[Case], ids: Sequence[str], features: Sequence[str]) -> list[Case]:
    """The cases whose id matches one of the ``ids`` globs (if any are given) and that carry
    one of ``features`` as a feature or a tag (if any are given)."""
    chosen = []
    for case in cases:
        if ids and not any(fnmatch.fnmatchcase(case.id, pattern) for pattern in ids):
            continue
        if features and not set(features) & (set(case.features) | set(case.tags)):
            continue
        chosen.append(case)
    return chosen


@dataclass(slots=True)
class _Outcome:
    status: str
    reason: str = ""
    step: int | None = None
    request: dict[str, Any] | None = None
    response: Any = None
    expected: str = ""
    got: str = ""
    diff: str = ""
    steps_run: int = 0
    steps_skipped: int = 0
    sent: dict[str, Any] | None = None
    fault: str = ""
    """The kind of the fault that ended the case, if one did."""
    unsupported_at: int | None = None
    """The step answered ``unsupported`` (0: ``start``), if one was."""
    failed: tuple[tuple[int, Step, list[tuple[str, ...]]], ...] = ()
    """Every step whose answer differed, by number (a difference does not stop the case),
    with the smallest sets of readings whose answers give its answer
    (:meth:`Step.explained_by`; none: it fails the paper profile)."""
    paper_steps: int = 0
    """How many of the steps sent are in the paper profile."""


def _run_steps(
    impl: Implementation, case: Case, features: frozenset[str], listed: frozenset[int]
) -> _Outcome:
    """Every step of ``case``: a step whose answer differs is recorded and the case goes on,
    so that later steps are judged too (whether a later difference is explained by the
    reference's alternatives, each step's ``alternatives`` say).  The step shown is the first
    that no alternative explains, else the first that differs, each not ``listed`` as a
    known failure if one is not."""
    start = case.start()
    sent = skipped = 0
    request: dict[str, Any] = start
    # The step shown: by rank, unlisted before listed, unexplained before explained.
    shown: dict[tuple[bool, bool], _Outcome] = {}
    failed: list[tuple[int, Step, list[tuple[str, ...]]]] = []
    try:
        response = impl.request(start)
        if not response["ok"]:
            code = response["error"]["code"]
            if code == Unsupported.code:
                reason = "the implementation answered unsupported to start"
                return _Outcome("skip", reason, unsupported_at=0)
            reason = f"start was refused with {code}"
            return _Outcome("fail", reason, 0, start, response, sent=impl.last_request)
        for number, step in enumerate(case.steps, start=1):
            request = dict(step.request)
            if feature_of(request) not in features:  # a query: skipping it changes nothing after
                skipped += 1
                sent = number
                continue
            response = impl.request(request)
            sent = number
            if not response["ok"] and response["error"]["code"] == Unsupported.code:
                reason = f"the implementation answered unsupported at step {number}"
                run = sent - skipped - 1
                return _Outcome("skip", reason, number, steps_run=run, unsupported_at=number)
            mismatch = check(request, step.expect, response)
            # The deadline bounds the runner's own work too: no step is judged after it
            # passes (one comparison is linear in a response of at most MAX_RESPONSE_BYTES).
            if impl.deadline is not None and time.monotonic() >= impl.deadline:
                raise DeadlinePassed("the run's deadline passed while comparing answers")
            if mismatch is not None:
                explained = step.explained_by(response)
                failed.append((number, step, explained))
                shown.setdefault(
                    (number in listed, bool(explained)),
                    _Outcome(
                        "fail",
                        mismatch.reason,
                        number,
                        request,
                        response,
                        mismatch.expected,
                        mismatch.got,
                        mismatch.diff,
                        sent=impl.last_request,
                    ),
                )
    except DeadlinePassed as fault:
        reason = f"not finished: {fault}"
        return _Outcome("skip", reason, steps_run=sent - skipped, fault=fault.kind)
    except Fault as fault:
        number = sent + 1 if request is not start else 0
        expected = show_expected(request, case.steps[sent].expect) if number else "a response"
        return _Outcome(
            "error",
            f"{fault.kind}: {fault}",
            number,
            request,
            None,
            expected,
            steps_run=sent - skipped,
            steps_skipped=skipped,
            sent=impl.last_request,
            fault=fault.kind,
        )
    paper = sum(
        step.profile == "paper" and feature_of(step.request) in features for step in case.steps
    )
    return dataclasses.replace(
        shown[min(shown)] if shown else _Outcome("pass"),
        failed=tuple(failed),
        steps_run=sent - skipped,
        steps_skipped=skipped,
        paper_steps=paper,
    )


class _Driver:
    """Runs cases one after another, restarting the implementation when it faults."""

    def __init__(self, impl: Implementation) -> None:
        self.impl = impl
        self.failed_restarts = 0

    def ready(self) -> _Outcome | None:
        """Make sure the implementation runs; why it cannot, if it cannot."""
        if self.impl.alive:
            return None
        if self.failed_restarts >= RESTART_ATTEMPTS:
            problem = f"the implementation could not be restarted ({RESTART_ATTEMPTS} attempts)"
            return _Outcome("error", problem)
        try:
            self.impl.restart()
        except DeadlinePassed as fault:
            return _Outcome("skip", f"not started: {fault}", fault=fault.kind)
        except Fault as fault:
            self.failed_restarts += 1
            return _Outcome("error", f"restart failed: {fault.kind}: {fault}", fault=fault.kind)
        self.failed_restarts = 0
        return None

    def run(self, case: Case, known: KnownFailures) -> tuple[CaseResult, _Outcome]:
        started = time.perf_counter()
        handshake = self.impl.handshake
        features = handshake.features if handshake else frozenset()
        missing = _missing(case, features)
        if missing:
            outcome = _Outcome("skip", f"needs {missing}")
            return _result(case, outcome, "", 0.0), outcome
        problem = self.ready()
        if problem is not None:
            stderr = self.impl.take_stderr()
            return _known(case, _result(case, problem, stderr, 0.0), known), problem
        outcome = _run_steps(self.impl, case, features, known.steps_of(case.id))
        stderr = self.impl.take_stderr(settle=0.05 if outcome.status == "error" else 0.0)
        result = _result(case, outcome, stderr, time.perf_counter() - started)
        return _known(case, result, known), outcome


def _declared_steps(case: Case, features: frozenset[str]) -> int:
    """How many of the case's steps use a feature the implementation declared: all those it
    must run to conform (none, when the case needs a feature it did not declare)."""
    if _missing(case, features):
        return 0
    return sum(feature_of(step.request) in features for step in case.steps)


def _missing(case: Case, features: frozenset[str]) -> str:
    """Why the case cannot run at all: the implementation lacks core, a feature the case needs
    as a whole (``epistemic``: a declared M_0, formulas in its turns), or every query it asks."""
    if "core" not in features:
        return "core"
    lacking = sorted(f for f in CASE_FEATURES & set(case.features) if f not in features)
    if lacking:
        return " and ".join(lacking)
    asked = {feature_of(step.request) for step in case.steps} - {"core"}
    if asked and not asked & features:
        return " or ".join(sorted(asked))
    return ""


def runnable(case: Case, features: frozenset[str]) -> bool:
    """Whether an implementation declaring ``features`` runs ``case`` (or skips it whole)."""
    return not _missing(case, features)


def _result(case: Case, outcome: _Outcome, stderr: str, seconds: float) -> CaseResult:
    return CaseResult(
        id=case.id,
        status=outcome.status,
        statements=case.statements,
        reason=outcome.reason,
        step=outcome.step,
        steps=len(case.steps),
        steps_run=outcome.steps_run,
        steps_skipped=outcome.steps_skipped,
        request=outcome.sent if outcome.sent is not None else outcome.request,
        response=quoted(outcome.response),
        expected=outcome.expected,
        got=quoted_text(outcome.got),
        diff=quoted_text(outcome.diff),
        stderr=stderr,
        seconds=seconds,
        failed_steps=tuple(number for number, _, _ in outcome.failed),
        # Whatever the step's profile: an answer no alternative gives is the papers' to judge.
        paper_failed_steps=tuple(n for n, _, explained in outcome.failed if not explained),
        explanations=tuple(
            (n, tuple(explained)) for n, _, explained in outcome.failed if explained
        ),
        paper_steps=outcome.paper_steps,
    )


def _known(case: Case, result: CaseResult, known: KnownFailures) -> CaseResult:
    if case.id in known:
        if result.status in ("fail", "error"):
            reason = f"known failure: {result.reason}"
            return _replace(result, status="xfail", reason=reason)
        if result.status == "pass":
            return _replace(result, status="xpass", reason="listed as a known failure, but passes")
        return result
    listed = known.steps_of(case.id)
    if not listed or result.status not in ("pass", "fail"):
        return result
    return _known_steps(result, listed)


def _known_steps(result: CaseResult, listed: frozenset[int]) -> CaseResult:
    """A case some of whose steps are listed: those steps no longer decide its status; a
    listed step that was run and agreed makes it ``xpass`` (counted only under --strict)."""
    differing = set(result.failed_steps)
    ran = range(1, result.steps_run + result.steps_skipped + 1)
    passing = tuple(sorted(n for n in listed if n in ran and n not in differing))
    unexpected = tuple(n for n in result.failed_steps if n not in listed)
    excused = tuple(sorted(listed & differing))
    kept = {
        "failed_steps": unexpected,
        "paper_failed_steps": tuple(n for n in result.paper_failed_steps if n not in listed),
        "explanations": tuple(e for e in result.explanations if e[0] not in listed),
        "known_failed_steps": excused,
        "known_passing_steps": passing,
    }
    if unexpected:
        return _replace(result, **kept)
    if passing:
        shown = ", ".join(map(str, passing))
        reason = f"steps listed as known failures pass: {shown}"
        return _replace(result, status="xpass", reason=reason, **kept)
    if excused:
        shown = ", ".join(map(str, excused))
        return _replace(result, status="xfail", reason=f"known failing steps: {shown}", **kept)
    return result


def _replace(result: CaseResult, **changes: Any) -> CaseResult:
    data = {name: getattr(result, name) for name in CaseResult.__slots__}
    return CaseResult(**(data | changes))


def run_cases(
    impl: Implementation,
    cases: Sequence[Case],
    known: KnownFailures = KnownFailures(),
    max_fail: int | None = None,
    *,
    max_timeouts: int = MAX_TIMEOUTS,
    report: RunReport | None = None,
    on_result: Callable[[RunReport], None] | None = None,
    quiet: bool = True,
) -> RunReport:
    """Run ``cases`` against a started implementation and report every outcome.

    The run stops early after ``max_fail`` failures or errors, after ``max_timeouts``
    cases in a row that ended in a timeout, or when ``impl.deadline`` passes; the cases it
    did not reach are reported as not run.  ``report`` (default: a fresh one) receives
    the results, and ``on_result`` is called with it after each case.  Unless ``quiet``,
    a bar on a terminal stderr counts the cases run.
    """
    assert impl.handshake is not None, "start the implementation first"
    if report is None:
        report = RunReport(dict(impl.handshake.raw), SUITE_VERSION, len(cases))
    features = impl.handshake.features
    driver = _Driver(impl)
    started = time.perf_counter()
    failures = timeouts = 0
    for index, case in enumerate(progress(cases, "cases", quiet=quiet)):
        if impl.deadline is not None and time.monotonic() >= impl.deadline:
            report.stopped = "the run's deadline passed"
            break
        event(f"case {case.id}")
        result, outcome = driver.run(case, known)
        report.results.append(result)
        report.seconds = time.perf_counter() - started
        if outcome.unsupported_at is not None:
            report.unsupported[case.id] = outcome.unsupported_at
        if outcome.unsupported_at is not None or outcome.fault == DeadlinePassed.kind:
            report.not_run[case.id] = _declared_steps(case, features) - outcome.steps_run
        if on_result is not None:
            on_result(report)
        failures += result.status in ("fail", "error")
        timeouts = timeouts + 1 if outcome.fault == TimedOut.kind else 0
        if index + 1 == len(cases):
            break
        if outcome.fault == DeadlinePassed.kind:
            report.stopped = "the run's deadline passed"
        elif timeouts >= max_timeouts:
            report.stopped = f"{timeouts} cases in a row timed out (--max-timeouts)"
        elif max_fail is not None and failures >= max_fail:
            report.stopped = f"--max-fail {max_fail} reached"
        if report.stopped:
            break
    report.seconds = time.perf_counter() - started
    if report.stopped:
        _close_report(report, cases, features)
    report.notes += [
        f"known-failures entry matches no selected case: {p}"
        for p in known.unused([c.id for c in cases])
    ]
    return report


def _close_report(report: RunReport, cases: Sequence[Case], features: frozenset[str]) -> None:
    """Report each of ``cases`` that has no result as not run, for why the run stopped."""
    done = {result.id for result in report.results}
    left = [case for case in cases if case.id not in done]
    if report.stopped and left:
        report.stopped += f"; {len(left)} cases not run"
    for case in left:
        report.results.append(_result(case, _Outcome("skip", NOT_REACHED), "", 0.0))
        declared = _declared_steps(case, features)
        if declared:
            report.not_run[case.id] = declared


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
        _close_report(report, cases, features)
        code = 128 + stop.signum
    files.finish(report, args.verbose)
    return code
