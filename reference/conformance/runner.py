"""``gcv conform -- COMMAND ...``: run the vectors against an implementation under test.

The runner starts COMMAND, performs the handshake, and runs each selected case
on a fresh conversation: a case needing a feature the implementation did not
declare is skipped; otherwise its steps are sent one by one and the first
response that differs from the vector ends the case, reported with the step,
the request, the response, the expected value as a readable diff, and what
the implementation wrote to standard error.  A hung, crashed or garbled
implementation is killed, reported, restarted, and the run goes on.

Exit codes (fixed; never a count):

- 0: conforms: every selected case passed, was skipped, or is a known failure
  that still fails; fuzzing (if asked) found no difference;
- 1: does not conform: a case failed or errored, fuzzing found a difference,
  or (``--strict``) a known failure now passes;
- 2: bad input: a bad option, an unreadable vector or known-failures file,
  or filters that select no case;
- 3: the implementation could not be used: it did not start or refused the
  handshake.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.util
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import icontract

from reference.conformance.compare import check, show_expected
from reference.conformance.predicates import is_ordered_subset
from reference.conformance.process import Fault, Implementation
from reference.conformance.protocol import CASE_FEATURES, feature_of
from reference.conformance.report import CaseResult, RunReport
from reference.conformance.vectors import SUITE_VERSION, Case, load_suite
from reference.errors import GcvError, Unsupported
from reference.jsoninput import read_file
from reference.options import OptionParser, at_least, seconds, writable_path

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNUSABLE",
    "KnownFailures",
    "main",
    "run_cases",
    "select",
]

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_UNUSABLE = 0, 1, 2, 3
MAX_KNOWN_FAILURES_BYTES = 1 << 20

RESTART_ATTEMPTS = 3
"""Consecutive failed restarts after which the remaining cases are not attempted."""


@dataclass(frozen=True, slots=True)
class KnownFailures:
    """The known-failures file: one case id or glob per line, ``#`` starts a comment."""

    patterns: tuple[str, ...] = ()

    @staticmethod
    def parse(text: str) -> KnownFailures:
        """Read the file's text.

        >>> KnownFailures.parse("core/queries/*  # Affected* is one-step for now\\n\\n").patterns
        ('core/queries/*',)
        """
        lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
        return KnownFailures(tuple(line for line in lines if line))

    def __contains__(self, case_id: object) -> bool:
        return isinstance(case_id, str) and any(
            fnmatch.fnmatchcase(case_id, p) for p in self.patterns
        )

    def unused(self, ids: Sequence[str]) -> list[str]:
        """Patterns that match none of ``ids``."""
        return [p for p in self.patterns if not any(fnmatch.fnmatchcase(i, p) for i in ids)]


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


def _run_steps(impl: Implementation, case: Case, features: frozenset[str]) -> _Outcome:
    start = case.start()
    sent = skipped = 0
    request: dict[str, Any] = start
    try:
        response = impl.request(start)
        if not response["ok"]:
            code = response["error"]["code"]
            if code == Unsupported.code:
                return _Outcome("skip", "the implementation answered unsupported to start")
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
                return _Outcome("skip", f"the implementation answered unsupported at step {number}")
            mismatch = check(request, step.expect, response)
            if mismatch is not None:
                return _Outcome(
                    "fail",
                    mismatch.reason,
                    number,
                    request,
                    response,
                    mismatch.expected,
                    mismatch.got,
                    mismatch.diff,
                    sent - skipped,
                    skipped,
                    impl.last_request,
                )
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
        )
    return _Outcome("pass", steps_run=sent - skipped, steps_skipped=skipped)


class _Driver:
    """Runs cases one after another, restarting the implementation when it faults."""

    def __init__(self, impl: Implementation) -> None:
        self.impl = impl
        self.failed_restarts = 0

    def ready(self) -> str | None:
        """Make sure the implementation runs; the reason it cannot, if it cannot."""
        if self.impl.alive:
            return None
        if self.failed_restarts >= RESTART_ATTEMPTS:
            return f"the implementation could not be restarted ({RESTART_ATTEMPTS} attempts)"
        try:
            self.impl.restart()
        except Fault as fault:
            self.failed_restarts += 1
            return f"restart failed: {fault.kind}: {fault}"
        self.failed_restarts = 0
        return None

    def run(self, case: Case, known: KnownFailures) -> CaseResult:
        started = time.perf_counter()
        handshake = self.impl.handshake
        features = handshake.features if handshake else frozenset()
        missing = _missing(case, features)
        if missing:
            return _result(case, _Outcome("skip", f"needs {missing}"), "", 0.0)
        problem = self.ready()
        if problem is not None:
            stderr = self.impl.take_stderr()
            return _known(case, _result(case, _Outcome("error", problem), stderr, 0.0), known)
        outcome = _run_steps(self.impl, case, features)
        stderr = self.impl.take_stderr(settle=0.05 if outcome.status == "error" else 0.0)
        result = _result(case, outcome, stderr, time.perf_counter() - started)
        return _known(case, result, known)


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
        response=outcome.response,
        expected=outcome.expected,
        got=outcome.got,
        diff=outcome.diff,
        stderr=stderr,
        seconds=seconds,
    )


def _known(case: Case, result: CaseResult, known: KnownFailures) -> CaseResult:
    if case.id not in known:
        return result
    if result.status in ("fail", "error"):
        reason = f"known failure: {result.reason}"
        return _replace(result, status="xfail", reason=reason)
    if result.status == "pass":
        return _replace(result, status="xpass", reason="listed as a known failure, but passes")
    return result


def _replace(result: CaseResult, **changes: Any) -> CaseResult:
    data = {name: getattr(result, name) for name in CaseResult.__slots__}
    return CaseResult(**(data | changes))


def run_cases(
    impl: Implementation,
    cases: Sequence[Case],
    known: KnownFailures = KnownFailures(),
    max_fail: int | None = None,
) -> RunReport:
    """Run ``cases`` against a started implementation and report every outcome."""
    assert impl.handshake is not None, "start the implementation first"
    report = RunReport(dict(impl.handshake.raw), SUITE_VERSION, len(cases))
    driver = _Driver(impl)
    started = time.perf_counter()
    failures = 0
    for index, case in enumerate(cases):
        result = driver.run(case, known)
        report.results.append(result)
        failures += result.status in ("fail", "error")
        if max_fail is not None and failures >= max_fail and index + 1 < len(cases):
            report.stopped = (
                f"--max-fail {max_fail} reached; {len(cases) - index - 1} cases not run"
            )
            break
    report.seconds = time.perf_counter() - started
    report.notes += [
        f"known-failures entry matches no selected case: {p}"
        for p in known.unused([c.id for c in cases])
    ]
    return report


def _parser() -> argparse.ArgumentParser:
    parser = OptionParser(
        prog="gcv conform",
        usage="gcv conform [OPTIONS] -- COMMAND [ARGUMENTS ...]",
        description="Run the conformance vectors (or differential fuzzing) against an "
        "implementation that speaks gcv-conform/1 on its standard input and output.",
        epilog="Exit codes: 0 conforms; 1 does not conform; 2 bad input; "
        "3 the implementation could not be started. See docs/conformance.md.",
    )
    parser.add_argument("--vectors", metavar="DIR", help="a vectors directory (default: shipped)")
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
        "--known-failures", metavar="FILE", help="case ids or globs expected to fail, one a line"
    )
    parser.add_argument("--strict", action="store_true", help="fail when a known failure passes")
    parser.add_argument(
        "--json", type=writable_path, metavar="FILE", help="write the JSON report ('-': stdout)"
    )
    parser.add_argument(
        "--junit", type=writable_path, metavar="FILE", help="write a JUnit XML report"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list every case")
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
        help="append the shrunk mismatch to this vector file",
    )
    return parser


def _split(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    words = list(argv)
    if "--" not in words:
        return words, []
    cut = words.index("--")
    return words[:cut], words[cut + 1 :]


def _write(target: str, text: str) -> None:
    if target == "-":
        sys.stdout.write(text)
    else:
        Path(target).write_text(text, encoding="utf-8")


def _cases(args: argparse.Namespace) -> tuple[list[Case], KnownFailures]:
    directory = None if args.vectors is None else Path(args.vectors)
    if directory is not None and not directory.is_dir():
        raise GcvError(f"{directory}: no such vectors directory")
    cases = select(load_suite(directory), args.id, args.feature)
    known = KnownFailures()
    if args.known_failures:
        data = read_file(args.known_failures, MAX_KNOWN_FAILURES_BYTES, GcvError, "a list")
        try:
            known = KnownFailures.parse(data.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise GcvError(f"{args.known_failures}: not UTF-8 text (byte {error.start})") from None
    return cases, known


def _fail_early(message: str, code: int) -> int:
    print(f"gcv conform: {message}", file=sys.stderr)
    return code


def main(argv: list[str]) -> int:
    """Run ``gcv conform``."""
    options, command = _split(argv)
    parser = _parser()
    try:
        args = parser.parse_args(options)
    except SystemExit as stop:
        return EXIT_OK if stop.code == 0 else EXIT_BAD_INPUT
    if not command:
        return _fail_early("give the implementation's command after --", EXIT_BAD_INPUT)
    if args.fuzz is None:
        try:
            cases, known = _cases(args)
        except (GcvError, OSError) as error:
            return _fail_early(str(error), EXIT_BAD_INPUT)
        if not cases:
            return _fail_early("the filters select no case", EXIT_BAD_INPUT)
    elif importlib.util.find_spec("hypothesis") is None:
        return _fail_early(
            "--fuzz needs Hypothesis: pip install -e '.[conformance]'", EXIT_BAD_INPUT
        )
    impl = Implementation(command, timeout=args.timeout, start_timeout=args.start_timeout)
    try:
        impl.start()
    except Fault as fault:
        stderr = impl.take_stderr(settle=0.05)
        for line in stderr.splitlines():
            print(f"  | {line}", file=sys.stderr)
        return _fail_early(f"cannot use {' '.join(command)}: {fault.kind}: {fault}", EXIT_UNUSABLE)
    assert impl.handshake is not None, "started"
    if args.fuzz is not None and "core" not in impl.handshake.features:
        impl.close()
        return _fail_early("fuzzing needs the core feature, which is not declared", EXIT_UNUSABLE)
    try:
        if args.fuzz is not None:
            from reference.conformance.fuzz import fuzz_report  # Hypothesis, only when asked

            report = fuzz_report(impl, args.fuzz, args.seed, args.fuzz_turns, args.save_vector)
        else:
            report = run_cases(impl, cases, known, args.max_fail)
    finally:
        impl.close()
    sys.stdout.write(report.text(args.verbose) if args.json != "-" else "")
    if args.json:
        _write(args.json, json.dumps(report.to_json(), indent=2) + "\n")
    if args.junit:
        _write(args.junit, report.junit())
    return EXIT_OK if report.conforms(args.strict) else EXIT_FAILED
