"""Which single-cell mutants of the operation table the proof suite rejects, and by which
obligations.

    .venv/bin/python -m tests.table_mutants [--jobs 2] [--deep] [--only GLOBS] [--markdown]

Every mutant of ``tests.mutation_rules`` (one field of one of the four rows with a target:
44 in all) is installed in memory, on a copy of the rows of
``gcv.reference.operations.ORDER`` (the file is not touched), before ``proofs`` is imported,
so the encoding is built from the mutated table; then ``gcv prove``'s suite runs on it, one
fresh interpreter per mutant.  By default only the obligations built from the encoded
transition run (:data:`TABLE_READERS`): the others (the walks, the closure, the epistemic
updates, the lineage module) encode no row, so no table mutant can change them.  Each
mutant gets one verdict:

- ``rejected``: a proof check is not proved (the mutated table breaks a statement); every
  obligation with an unproved check is listed;
- ``twin``: every check is proved but a non-vacuity twin is not refuted;
- ``crash``: building an obligation raised (the last line of the traceback is shown);
- ``passes``: the suite is green on the mutant.

The score is how many mutants a proof check rejects, and how many an obligation other than
``table-3`` (the comparison with a second statement of the table) rejects.  It prints one
line per mutant (``--markdown``: a table, as docs/proofs.md shows it) and the totals, and
exits 0: it measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.mutation_rules import describe, mutants

ROOT = Path(__file__).resolve().parents[1]

TABLE_READERS = "table-3*,lemma-2.2,composition,no-return,abandoned-final"
"""The obligations whose checks are built from the encoded transition, so from the table."""

# Importing tests.mutation_rules with GCV_RULES_MUTANT set installs the mutant.
_PROVE = (
    "import sys, tests.mutation_rules; from gcv.proofs.runner import main; "
    "sys.exit(main(['--json', '--quiet'] + sys.argv[1:]))"
)


def verdict(index: int | None, deep: bool, only: str = TABLE_READERS) -> str:
    """Run the suite on mutant ``index`` (``None``: the table as it is); one verdict."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if index is not None:
        env["GCV_RULES_MUTANT"] = str(index)
    command = [sys.executable, "-c", _PROVE, "--only", only, *(["--deep"] if deep else [])]
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    try:
        reports = json.loads(done.stdout)
    except json.JSONDecodeError:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"crash ({last[:70]})"
    unproved = [r["id"] for r in reports if not r["proved"]]
    if unproved:
        return "rejected by " + ", ".join(unproved)
    failing_twins = [r["id"] for r in reports if not r["ok"]]
    return "twin of " + ", ".join(failing_twins) if failing_twins else "passes"


def main(argv: list[str] | None = None) -> int:
    """Run the suite on every table mutant; print each verdict and the totals."""
    parser = argparse.ArgumentParser(prog="python -m tests.table_mutants", description=__doc__)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--deep", action="store_true", help="the deep tier")
    parser.add_argument("--only", default=TABLE_READERS, help="obligation ids (globs, commas)")
    parser.add_argument("--markdown", action="store_true", help="one table row a mutant")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    print(f"unmutated table: {verdict(None, args.deep, args.only)}")
    table = mutants()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        verdicts = list(pool.map(lambda i: verdict(i, args.deep, args.only), range(len(table))))
    counts: Counter[str] = Counter()
    if args.markdown:
        print("| mutant | rejected by |\n|---|---|")
    for mutant, result in zip(table, verdicts, strict=True):
        counts[result.split(" ")[0]] += 1
        rejecting = result.removeprefix("rejected by ").split(", ")
        counts["beyond"] += result.startswith("rejected") and rejecting != ["table-3"]
        if args.markdown:
            print(f"| `{describe(mutant)}` | {result} |")
        else:
            print(f"{describe(mutant):<58}  {result}")
    summary = ", ".join(f"{w} {n}" for w, n in sorted(counts.items()) if w != "beyond")
    print(
        f"{counts['rejected']}/{len(table)} table mutants rejected by a proof check "
        f"({summary}), {counts['beyond']} by an obligation other than table-3, "
        f"{time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
