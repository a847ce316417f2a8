"""``gcv smoke [OPTIONS] -- COMMAND ...``: a first check that an adapter speaks the protocol.

As Bowtie's ``smoke`` does for a JSON Schema harness ("an absolute minimum level of assumed
correctness", enough to tell whether the harness is correctly written), it starts the
implementation, checks its handshake, and runs one small case of the shipped suite for
each feature it declares: the case with the fewest steps among those that use the
feature and need nothing the implementation did not declare.  Each check prints one
line; a failing one also prints the step, the request, the answer, what was expected and
what the implementation wrote to standard error.  A case passes as ``gcv conform`` judges
it in the paper profile: a difference on the reference's choices alone is named, not
failed.

Exit codes (those of ``gcv conform``):

- 0: every check passed;
- 1: a check failed (a wrong answer, or the implementation hung, exited or wrote garbage
  during a case);
- 2: bad input (an option, no command);
- 3: the implementation could not be used: it did not start, or its handshake was refused
  or not a valid response;
- 4: nothing failed, but no check ran beyond the handshake (no feature this suite knows
  was declared, or no case uses only declared features).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import icontract

from gcv.conformance.process import Fault, Implementation
from gcv.conformance.protocol import FEATURES
from gcv.conformance.report import CaseResult
from gcv.conformance.runner import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_OK,
    EXIT_UNUSABLE,
    run_cases,
    runnable,
)
from gcv.conformance.vectors import Case, open_suite
from gcv.reference.errors import GcvError

__all__ = ["SmokeCheck", "main", "smoke_cases"]


@dataclass(frozen=True)
class SmokeCheck:
    """One feature's check: the case chosen for it, or None when no case can check it."""

    feature: str
    case: Case | None


def _uses(case: Case, feature: str) -> bool:
    return feature == "core" or feature in case.features


@icontract.ensure(
    lambda features, result: [c.feature for c in result] == sorted(features & set(FEATURES)),
    "one check per declared feature the suite knows, in name order",
)
def smoke_cases(cases: Sequence[Case], features: frozenset[str]) -> list[SmokeCheck]:
    """For each declared feature the suite knows, the smallest case that uses it and needs
    only declared features (fewest steps, then the first id)."""
    checks = []
    for feature in sorted(features & set(FEATURES)):
        fitting = [c for c in cases if _uses(c, feature) and runnable(c, features)]
        chosen = min(fitting, key=lambda c: (len(c.steps), c.id), default=None)
        checks.append(SmokeCheck(feature, chosen))
    return checks


def _step_name(case: Case, number: int | None) -> str:
    """What step ``number`` of ``case`` asks, in a few words (0 or None: the start).

    >>> from gcv.conformance.vectors import Case, Step
    >>> c = Case("x/y/z", "", (), ("core",), (), "2.0.0", {}, ("a",), (),
    ...          (Step({"cmd": "query", "query": "affected_star", "record": "o1"}, {}),))
    >>> _step_name(c, 1)
    'query affected_star record o1'
    """
    if not number:
        return "start"
    request = case.steps[number - 1].request
    if request["cmd"] == "apply":
        written = ", ".join(
            f"{op['op']} {op.get('id', op.get('target', op.get('atom', '')))}".strip()
            for op in request["operations"]
        )
        return f"apply by {request['speaker']}: {written}"
    asked = [f"{k} {request[k]}" for k in ("record", "agent", "atom", "formula") if k in request]
    return " ".join([f"query {request['query']}", *asked])


def _judged(check: SmokeCheck, result: CaseResult) -> tuple[bool, list[str]]:
    """Whether the check passed, and its lines."""
    case = check.case
    assert case is not None, "only a chosen case is run"
    where = f"{check.feature}: {case.id} ({len(case.steps)} steps)"
    if result.fails("paper"):
        # The step that differed, named by what it asks; then the failure as gcv conform
        # shows it: step, request, answer, expectation, stderr.
        number = result.paper_failed_steps[0] if result.paper_failed_steps else result.step
        failed = f"step {number} ({_step_name(case, number)}) of {case.id}"
        lines = [f"  FAIL  {check.feature}: {failed}"]
        return False, lines + [f"      {line}" for line in result.describe()[1:]]
    if result.status == "fail":
        named = {reading for found in result.blamed().values() for reading in found}
        choices = ", ".join(sorted(named)) or "-"
        return True, [f"  ok    {where}; differs only on the reference's choices: {choices}"]
    if result.status == "skip":
        return True, [f"  skip  {where}: {result.reason}"]
    return True, [f"  ok    {where}"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gcv smoke",
        description="Check the handshake and one case per declared feature: "
        "gcv smoke [OPTIONS] -- COMMAND ...",
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per response")
    parser.add_argument(
        "--start-timeout", type=float, default=30.0, help="seconds for start-up and handshake"
    )
    return parser


def _positive(value: float) -> bool:
    return 0 < value <= 86_400


def main(argv: list[str]) -> int:
    """Run ``gcv smoke``."""
    options, command = (
        (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if ("--" in argv) else (argv, [])
    )
    try:
        args = _parser().parse_args(options)
    except SystemExit as stop:
        return EXIT_OK if stop.code == 0 else EXIT_BAD_INPUT
    if not command:
        print("gcv smoke: give the implementation's command after --", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not (_positive(args.timeout) and _positive(args.start_timeout)):
        print("gcv smoke: a timeout is a number of seconds in (0, 86400]", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        cases = open_suite().cases
    except GcvError as error:  # the shipped suite is not what its manifest lists
        print(f"gcv smoke: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    impl = Implementation(command, timeout=args.timeout, start_timeout=args.start_timeout)
    try:
        return _smoke(impl, cases)
    finally:
        impl.close()


def _smoke(impl: Implementation, cases: Sequence[Case]) -> int:
    try:
        handshake = impl.start()
    except Fault as fault:
        print(f"  FAIL  handshake: {fault.kind}: {fault}")
        stderr = impl.take_stderr(settle=0.05).strip()
        for line in stderr.splitlines()[-20:]:
            print(f"        {line}")
        print("smoke: the implementation could not be used")
        return EXIT_UNUSABLE
    known = sorted(handshake.features & set(FEATURES))
    unknown = sorted(handshake.features - set(FEATURES))
    declared = ", ".join(known) or "no feature of this suite"
    print(f"  ok    handshake: {handshake.name} {handshake.version}, declares {declared}")
    if unknown:
        print(f"        ignored (no feature of this suite): {', '.join(unknown)}")
    checks = smoke_cases(cases, handshake.features)
    failed, ran = 0, 0
    for check in checks:
        if check.case is None:
            print(f"  skip  {check.feature}: no case uses only the declared features")
            continue
        report = run_cases(impl, [check.case])
        passed, lines = _judged(check, report.results[0])
        print(*lines, sep="\n")
        failed += not passed
        ran += 1
    checked = f"{ran + 1} check{'s' if ran else ''} (the handshake and {ran} of the features)"
    if failed:
        print(f"smoke: {failed} of {checked} failed")
        return EXIT_FAILED
    if not ran:
        print(f"smoke: {checked}: nothing but the handshake could be checked")
        return EXIT_INCOMPLETE
    print(f"smoke: {checked} passed")
    return EXIT_OK
