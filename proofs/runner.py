"""``gcv prove``: run every obligation and print what it proved.

Exit code 0 when every obligation is proved and every twin refuted (its
counterexample confirmed by the spec), 1 otherwise, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys

from gcv.progress import add_quiet_argument, progress
from gcv.proofs.necessity import necessity_table, render_markdown
from gcv.proofs.registry import Budget, Report, run
from gcv.proofs.solver import DEFAULT_TIMEOUT_MS
from gcv.proofs.suite import OBLIGATIONS

__all__ = ["main", "run_suite"]


def run_suite(budget: Budget, pattern: str = "*", quiet: bool = True) -> list[Report]:
    """Run the obligations whose id matches ``pattern``, globs separated by commas (a bar on
    a terminal unless ``quiet``)."""
    globs = pattern.split(",")
    chosen = [o for o in OBLIGATIONS if any(fnmatch.fnmatch(o.id, g) for g in globs)]
    return [run(o, budget) for o in progress(chosen, "obligations", quiet=quiet)]


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


def main(argv: list[str]) -> int:
    """Run the suite; see ``gcv prove --help``."""
    parser = argparse.ArgumentParser(prog="gcv prove", description=__doc__)
    parser.add_argument("--deep", action="store_true", help="the deep tier: larger bounds")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--only", default="*", metavar="GLOB[,GLOB]", help="obligation ids to run")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_MS, help="per check, ms")
    parser.add_argument(
        "--necessity", action="store_true", help="print the precondition-necessity table"
    )
    add_quiet_argument(parser)
    args = parser.parse_args(argv)
    if args.necessity:
        print(render_markdown(necessity_table(args.timeout, quiet=args.quiet)))
        return 0
    reports = run_suite(Budget(deep=args.deep, timeout_ms=args.timeout), args.only, args.quiet)
    if not reports:
        print(f"gcv prove: no obligation matches {args.only!r}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(_as_json(reports), indent=2))
    else:
        _print_table(reports)
    return 0 if all(r.ok for r in reports) else 1
