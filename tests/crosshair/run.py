"""Run CrossHair over the icontract contracts of reference/'s pure functions.

    .venv/bin/python -m tests.crosshair.run [--per-condition-timeout SECONDS] [--jobs N]

CrossHair calls each function with symbolic inputs and looks for one that meets the
preconditions and breaks a postcondition (or raises).  It proves nothing: exit 0
means no counterexample was found within the budget.  Each target gets its own
``crosshair check`` process, ``--jobs`` at a time; the costly contracts are switched
on (``ICONTRACT_SLOW=1``) so the searched postconditions are the strongest ones.
Which contracts are searched, which are not, and why: docs/verification.md.

Exit status: 0 no counterexample, 1 a counterexample (printed as
``file:line: error: ...``), 2 CrossHair itself failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from gcv.progress import add_quiet_argument, progress

ROOT = Path(__file__).resolve().parents[2]

TARGETS = (
    # dependency_walk, one_step_affected, reverse_closure, and the naive-closure
    # predicates their contracts read, with the predicates' own lemmas
    "gcv.reference.closure",
    "gcv.reference.apply.find_violation",
    "gcv.reference.operations.in_application_order",
    "gcv.trace.operation_to_json",
)
"""What the run searches, largest first so that the two jobs finish together; by module
name, since a path under reference/ would name a module ``reference.…``."""


@dataclass(frozen=True)
class Outcome:
    """One target's ``crosshair check``: its exit code, what it printed, how long it took."""

    target: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float


# CrossHair's symbolic evaluation of the naive fixed point in reference/gcv/reference/closure.py
# (a loop over symbolic sets) nests deeper than CPython's default limit of 1000 frames
# on some paths: the search then reports the RecursionError raised inside its own
# comparison as a counterexample to reverse_closure's postcondition, although the same
# input evaluates concretely without error (tests/crosshair/test_crosshair.py keeps it).
# The CrossHair processes get a deeper limit; the code searched is unchanged.
_CROSSHAIR_WITH_DEEPER_STACK = (
    "import runpy, sys; sys.setrecursionlimit(20_000); "
    "runpy.run_module('crosshair', run_name='__main__', alter_sys=True)"
)


def command(target: str, per_condition_timeout: float) -> list[str]:
    """``crosshair check`` of one target with the icontract analysis, and a deeper stack."""
    return [
        sys.executable,
        "-c",
        _CROSSHAIR_WITH_DEEPER_STACK,
        "check",
        "--analysis_kind=icontract",
        f"--per_condition_timeout={per_condition_timeout}",
        target,
    ]


def environment() -> dict[str, str]:
    """The searched code's slow contracts switched on, and the checkout importable."""
    return dict(os.environ, ICONTRACT_SLOW="1", PYTHONPATH=str(ROOT))


def check(target: str, per_condition_timeout: float) -> Outcome:
    """Run ``crosshair check`` on one target."""
    start = time.perf_counter()
    done = subprocess.run(
        command(target, per_condition_timeout),
        cwd=ROOT,
        env=environment(),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    return Outcome(target, done.returncode, done.stdout, done.stderr, time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    """Search every target; print the counterexamples and one line per target."""
    parser = argparse.ArgumentParser(prog="python -m tests.crosshair.run", description=__doc__)
    parser.add_argument("--per-condition-timeout", type=float, default=15.0, metavar="SECONDS")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("targets", nargs="*", default=list(TARGETS))
    add_quiet_argument(parser)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        searched = pool.map(lambda t: check(t, args.per_condition_timeout), args.targets)
        total = len(args.targets)
        outcomes = list(progress(searched, "targets", total=total, quiet=args.quiet))
    worst = 0
    for outcome in outcomes:
        verdict = {0: "no counterexample", 1: "COUNTEREXAMPLE"}.get(outcome.returncode, "ERROR")
        print(f"crosshair: {outcome.target}: {verdict} ({outcome.seconds:.0f} s)")
        sys.stdout.write(outcome.stdout)
        if outcome.returncode not in (0, 1) or (outcome.returncode == 0 and outcome.stderr):
            sys.stdout.write(outcome.stderr)
        worst = max(worst, outcome.returncode if outcome.returncode in (0, 1) else 2)
    print(
        f"crosshair: {len(outcomes)} targets, "
        f"{sum(o.returncode == 1 for o in outcomes)} with counterexamples, "
        f"{time.perf_counter() - start:.0f} s wall"
    )
    return worst


if __name__ == "__main__":
    sys.exit(main())
