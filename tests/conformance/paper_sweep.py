"""``python -m tests.conformance.paper_sweep [--write]``: every paper-rule engine through
``gcv conform``, over the whole shipped suite, as a third-party engine (``gcv serve`` under
``python -O``, :mod:`.fakes.serve_bug`).

Prints, and with ``--write`` puts in ``docs/conformance.md`` (between its markers), the
table of :data:`.fakes.paper_bugs.PAPER_BUGS`: each engine's exit code in the paper profile,
the paper-profile steps it fails, and the first of them, which
``tests/conformance/test_paper_clauses.py`` runs the engine on alone.  About two minutes
of CPU (the suite once per engine); the test runs one case per engine.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import gcv.spec.transition  # noqa: F401  (importing it declares every clause)
from gcv.conformance.runner import main as conform
from gcv.spec.clauses import CLAUSES, PAPER
from tests.conformance.fakes.paper_bugs import DEFINITIONS, PAPER_BUGS, UNOBSERVABLE

__all__ = ["SERVE_BUG", "TABLE_START", "run", "served", "table"]

ROOT = Path(__file__).parents[2]
SERVE_BUG = Path(__file__).parent / "fakes" / "serve_bug.py"
TABLE_START = "<!-- paper-clause coverage: python -m tests.conformance.paper_sweep --write -->"
PAPER_CLAUSES = sorted(c for c, clause in CLAUSES.items() if clause.source == PAPER)


def served(what: str) -> list[str]:
    """The command serving the engine ``what`` as a third-party engine runs."""
    return [sys.executable, "-O", str(SERVE_BUG), what]


def run(what: str, options: list[str]) -> tuple[int, dict[str, Any]]:
    """``gcv conform OPTIONS`` (paper profile) against the engine ``what``: exit code and
    JSON report."""
    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        report = Path(folder) / "report.json"
        code = conform([*options, "--quiet", "--json", str(report), "--", *served(what)])
        return code, json.loads(report.read_text())


def _failing(report: dict[str, Any]) -> list[str]:
    """The steps failing the paper profile, ``CASE#N``, in the suite's order."""
    found = []
    for result in report["results"]:
        found += [f"{result['id']}#{n}" for n in result["paper_failed_steps"]]
        if result["status"] == "error":
            found.append(f"{result['id']}#{result['step']}")
    return found


def _source(rule: str) -> str:
    return CLAUSES[rule].place if rule in CLAUSES else DEFINITIONS[rule]


def table(found: dict[str, tuple[int, list[str]]]) -> str:
    """The docs' table from each engine's (exit code, failing steps)."""
    rows = [
        "| paper rule | source | engine breaking it (`gcv serve`, `python -O`) | exit | "
        "paper-profile steps it fails | caught by |",
        "|---|---|---|---|---|---|",
    ]
    for what, bug in sorted(PAPER_BUGS.items(), key=lambda item: (item[1].clause, item[0])):
        code, steps = found[what]
        cases = sorted({step.split("#")[0] for step in steps})
        shown = ", ".join(f"`{c}`" for c in cases[:2])
        more = f" and {len(cases) - 2} more cases" if len(cases) > 2 else ""
        counted = f"{len(steps)} step{'' if len(steps) == 1 else 's'}: {shown}{more}"
        first = f"`{steps[0]}`" if steps else "none"
        rows.append(
            f"| `{bug.clause}` | {_source(bug.clause)} | {what} | {code} | {counted} | {first} |"
        )
    for clause, why in sorted(UNOBSERVABLE.items()):
        rows.append(f"| `{clause}` | {CLAUSES[clause].place} | unobservable | - | {why} | - |")
    caught = {bug.clause for what, bug in PAPER_BUGS.items() if found[what][1]}
    clauses = caught & set(PAPER_CLAUSES)
    definitions = caught & set(DEFINITIONS)
    missed = set(PAPER_CLAUSES) - clauses - set(UNOBSERVABLE)
    summary = (
        f"{len(PAPER_CLAUSES)} paper clauses: {len(clauses)} caught by a paper-profile step of "
        f"an engine without our contracts, {len(UNOBSERVABLE)} unobservable, {len(missed)} not "
        f"caught; and {len(definitions)} of the {len(DEFINITIONS)} definitions of Appendix A "
        "the transition reads."
    )
    return "\n".join([*rows, "", summary])


def write(text: str) -> None:
    """Put the table in ``docs/conformance.md``, after its marker, in place of the old."""
    docs = ROOT / "docs" / "conformance.md"
    before, after = docs.read_text().split(TABLE_START, 1)
    rest = after.strip().split("\n\n", 2)[2]
    docs.write_text(f"{before}{TABLE_START}\n{text}\n\n{rest}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance.paper_sweep")
    parser.add_argument("--write", action="store_true", help="update docs/conformance.md")
    args = parser.parse_args(argv)
    found: dict[str, tuple[int, list[str]]] = {}
    for what in sorted(PAPER_BUGS):
        code, report = run(what, [])
        found[what] = (code, _failing(report))
        print(f"{code} {len(found[what][1]):4} {what}", file=sys.stderr, flush=True)
    text = table(found)
    print(text)
    if args.write:
        write(text)
    return 0 if all(code == 1 and steps for code, steps in found.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
