"""Running the vectors' cases against a started implementation: the run, not its command line.

:func:`run_cases` sends each case's steps on a fresh conversation and turns what came
back into a :class:`~gcv.conformance.report.CaseResult`: the first differing step with
the request, the response and the expected value, a skip for a feature the
implementation did not declare or answered ``unsupported``, a fault (hang, crash,
garbage) with the implementation restarted for the next case.  :class:`KnownFailures`
marks expected failures; :func:`select` picks cases by id and feature.  The command line
(``gcv conform``, its options, report files and exit codes) is :mod:`gcv.conformance.runner`.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import icontract

from gcv.conformance.compare import check, show_expected
from gcv.conformance.process import DeadlinePassed, Fault, Implementation, TimedOut
from gcv.conformance.protocol import CASE_FEATURES, feature_of
from gcv.conformance.report import NOT_REACHED, CaseResult, RunReport, quoted, quoted_text
from gcv.conformance.stopping import event
from gcv.conformance.vectors import SUITE_VERSION, Case, Step
from gcv.errors import Unsupported
from gcv.progress import progress
from gcv.reference.errors import MalformedInput

__all__ = [
    "MAX_TIMEOUTS",
    "KnownFailures",
    "close_report",
    "run_cases",
    "runnable",
    "select",
]


def is_ordered_subset(chosen: Sequence[Any], pool: Sequence[Any]) -> bool:
    """Check that ``chosen`` is ``pool`` with some members left out, in ``pool``'s order."""
    members = iter(pool)
    return all(any(item is other for other in members) for item in chosen)


RESTART_ATTEMPTS = 3
"""Consecutive failed restarts after which the remaining cases are not attempted."""

MAX_TIMEOUTS = 3
"""Consecutive cases ending in a timeout after which the run stops (the circuit breaker)."""


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
        close_report(report, cases, features)
    report.notes += [
        f"known-failures entry matches no selected case: {p}"
        for p in known.unused([c.id for c in cases])
    ]
    return report


def close_report(report: RunReport, cases: Sequence[Case], features: frozenset[str]) -> None:
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
