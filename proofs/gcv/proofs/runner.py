"""``gcv prove``: run every obligation and print what it proved.

Exit code 0 when every obligation is proved and every twin refuted (its
counterexample confirmed by the spec), 1 otherwise, 2 on bad arguments.

``gcv prove --code`` instead verifies the walks of ``reference/gcv/reference/closure.py`` as
written, with Nagini run from its own environment (``--setup`` makes it), checks the module-level
bindings that decide which function answers, and runs each one's planted twins
(:mod:`gcv.proofs.code.suite`); the exit code is 0 only when all verify, the bindings hold and every
twin is refuted.
"""

from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import json
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from gcv.options import at_least
from gcv.progress import add_quiet_argument, progress
from gcv.proofs.necessity import necessity_table, render_markdown
from gcv.proofs.registry import Budget, Check, Report, Twin, run
from gcv.proofs.solver import DEFAULT_TIMEOUT_MS, CheckResult
from gcv.proofs.suite import OBLIGATIONS

if TYPE_CHECKING:
    from gcv.proofs.code.suite import CodeReport

__all__ = ["main", "run_suite"]


_Outcomes = tuple[str, tuple[Check, ...], tuple[Twin, ...], float]
"""What a run of one obligation sends back: its bound, checks, twins and wall time."""


def _run_alone(index: int, budget: Budget) -> _Outcomes:
    """Run ``OBLIGATIONS[index]`` and keep what pickles: a solver's model stays behind (a
    twin's was decoded into its replay text, and a check's is never shown)."""
    report = run(OBLIGATIONS[index], budget)

    def detach(result: CheckResult) -> CheckResult:
        return dataclasses.replace(result, model=None)

    checks = tuple(dataclasses.replace(c, result=detach(c.result)) for c in report.checks)
    twins = tuple(dataclasses.replace(t, result=detach(t.result)) for t in report.twins)
    return report.bound, checks, twins, report.seconds


def run_suite(
    budget: Budget, pattern: str = "*", quiet: bool = True, workers: int = 1
) -> list[Report]:
    """Run the obligations whose id matches ``pattern``, globs separated by commas (a bar on
    a terminal unless ``quiet``), on ``workers`` processes.

    Each obligation runs in a fresh process forked from one that has only imported the
    suite: Z3 decides a query differently after other terms were built in its context (a
    twin of definition-2.3-rounds took 0.01 s alone and 60 s once the suite was imported),
    so an obligation's outcome and time do not depend on which others ran before it.
    """
    globs = pattern.split(",")
    chosen = [i for i, o in enumerate(OBLIGATIONS) if any(fnmatch.fnmatch(o.id, g) for g in globs)]
    # Windows has no forkserver: there each process is a fresh interpreter, importing alike.
    forkserver = "forkserver" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if forkserver else "spawn")
    if forkserver:
        context.set_forkserver_preload(["gcv.proofs.suite"])
    with ProcessPoolExecutor(workers, mp_context=context, max_tasks_per_child=1) as pool:
        futures = [pool.submit(_run_alone, i, budget) for i in chosen]
        done = [f.result() for f in progress(futures, "obligations", quiet=quiet)]
    return [Report(OBLIGATIONS[i], *outcomes) for i, outcomes in zip(chosen, done, strict=True)]


def _as_json(reports: list[Report]) -> list[dict[str, object]]:
    return [
        {
            "id": r.obligation.id,
            "statement": r.obligation.statement,
            "bound": r.bound,
            "proved": r.proved,
            "ok": r.ok,
            "seconds": round(r.seconds, 3),
            "checks": [
                {
                    "name": c.name,
                    "outcome": c.result.outcome.value,
                    "seconds": round(c.result.seconds, 3),
                }
                for c in r.checks
            ],
            "twins": [
                {
                    "name": t.name,
                    "outcome": t.result.outcome.value,
                    "confirmed": t.confirmed,
                    "counterexample": t.replay,
                }
                for t in r.twins
            ],
        }
        for r in reports
    ]


def _print_table(reports: list[Report]) -> None:
    rows = [("obligation", "paper statement", "bound", "result", "seconds")]
    for r in reports:
        result = "proved" if r.proved else "NOT PROVED"
        rows.append((r.obligation.id, r.obligation.statement, r.bound, result, f"{r.seconds:.2f}"))
    width = [max(len(row[i]) for row in rows) for i in range(5)]
    for obligation, statement, bound_, result, seconds in rows:
        columns = (obligation.ljust(width[0]), bound_.ljust(width[2]), result.ljust(width[3]))
        print("  ".join(columns), seconds.rjust(width[4]), "", statement)
    for r in reports:
        failed = [c for c in r.checks if c.result.outcome.value != "proved"]
        for c in failed:
            outcome = c.result.outcome.value
            print(f"  {r.obligation.id}: check {c.name!r} came back {outcome} {c.result.reason}")
        for t in r.twins:
            verdict = "refuted" if t.refuted else "NOT REFUTED"
            outcome = t.result.outcome.value
            print(f"  twin of {r.obligation.id}: {t.name}: {verdict}: {outcome}; {t.replay}")


def _code(args: argparse.Namespace) -> int:
    from gcv.proofs.code import nagini, suite  # the source proofs, only when asked for

    env = nagini.environment(args.proofs_env)
    if args.setup:
        nagini.set_up(env)
        return 0
    functions = tuple(args.only.split(",")) if args.only != "*" else None
    say = (lambda _: None) if args.quiet else (lambda text: print(text, file=sys.stderr))
    report = suite.run(env, functions=functions, twins=not args.no_twins, progress=say)
    if args.json:
        print(json.dumps(_code_json(report), indent=2))
        return 0 if report.ok else 1
    print(f"source: {report.source}")
    for v in report.verifications:
        verdict = "verified" if v.verified else "NOT VERIFIED"
        print(f"{v.function:18} {verdict:13} {v.cpu_seconds:7.1f} s CPU")
        if not v.verified:
            print("    " + v.errors.replace("\n", "\n    "))
    print("module-level bindings: " + ("hold" if not report.bindings else "PROBLEMS"))
    for problem in report.bindings:
        print(f"    {problem}")
    for t in report.twins:
        verdict = "refuted" if t.refuted else "NOT REFUTED"
        cost = f" ({t.cpu_seconds:.1f} s CPU)" if t.cpu_seconds else ""
        print(f"twin of {t.planted.function}: {t.planted.what}: {verdict}{cost}")
        if t.detail:
            print("    " + t.detail.splitlines()[0][:160])
    return 0 if report.ok else 1


def _code_json(report: CodeReport) -> dict[str, object]:
    return {
        "source": report.source,
        "ok": report.ok,
        "verifications": [
            {"function": v.function, "verified": v.verified, "cpu_seconds": round(v.cpu_seconds, 1)}
            for v in report.verifications
        ],
        "bindings": list(report.bindings),
        "twins": [
            {
                "function": t.planted.function,
                "change": t.planted.what,
                "refuted": t.refuted,
                "cpu_seconds": round(t.cpu_seconds, 1),
            }
            for t in report.twins
        ],
    }


def main(argv: list[str]) -> int:
    """Run the suite; see ``gcv prove --help``."""
    parser = argparse.ArgumentParser(prog="gcv prove", description=__doc__)
    parser.add_argument("--deep", action="store_true", help="the deep tier: larger bounds")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--only", default="*", metavar="GLOB[,GLOB]", help="obligation ids to run")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_MS, help="per check, ms")
    parser.add_argument(
        "--workers",
        type=at_least(1, 64),
        default=1,
        metavar="K",
        help="obligations run at once, each in a fresh process (default 1)",
    )
    parser.add_argument(
        "--necessity", action="store_true", help="print the precondition-necessity table"
    )
    code = parser.add_argument_group("the source proofs (Nagini)")
    code.add_argument(
        "--code",
        action="store_true",
        help="verify the walks of reference/gcv/reference/closure.py as written, with twins "
        "(--only: functions)",
    )
    code.add_argument(
        "--setup", action="store_true", help="with --code: make the proofs environment first"
    )
    code.add_argument(
        "--proofs-env",
        type=Path,
        help="the proofs environment (default: $GCV_PROOFS_ENV or .venv-proofs)",
    )
    code.add_argument("--no-twins", action="store_true", help="with --code: skip the twins")
    add_quiet_argument(parser)
    args = parser.parse_args(argv)
    if args.code:
        return _code(args)
    if args.necessity:
        print(render_markdown(necessity_table(args.timeout, quiet=args.quiet)))
        return 0
    budget = Budget(deep=args.deep, timeout_ms=args.timeout)
    reports = run_suite(budget, args.only, args.quiet, args.workers)
    if not reports:
        print(f"gcv prove: no obligation matches {args.only!r}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(_as_json(reports), indent=2))
    else:
        _print_table(reports)
    return 0 if all(r.ok for r in reports) else 1
