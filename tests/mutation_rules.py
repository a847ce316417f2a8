"""Mutation testing of the operation table, the rows of ``gcv.reference.operations.ORDER``.

    .venv/bin/python -m tests.mutation_rules [--jobs 2]

mutmut 3 mutates code inside functions only, and Table 3 is module-level data: one
frozen ``Rule`` per operation.  This script makes the table's mutants itself, one field
of one row at a time (a standing label added to or removed from ``target_standing``, a
flag flipped, ``target_becomes`` changed to every other label or to ``None``), and runs
the same engine tests as ``[tool.mutmut]`` under the same Hypothesis settings
(``tests.mutation.MUTATION_PROFILE``) in a fresh process per mutant.  A mutant is
killed when the tests fail.

Only the fields the engine reads are mutated: the four rows with a target
(Support, Undermine, Revise, Resolve).  ``registers`` is read by ``proofs/gcv/proofs/encode.py``
alone, and the target fields of Observe, Hypothesize, Question and Expand-Awareness are
read by nothing, so their mutants are equivalent for the engine by construction.

It doubles as the pytest plugin that installs a mutant: with ``GCV_RULES_MUTANT`` set,
``-p tests.mutation_rules`` replaces the table before the engine's modules import it.
It changes no file, so it may run in the working tree.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("ICONTRACT_SLOW", "1")  # before reference/ imports icontract

ROOT = Path(__file__).resolve().parents[1]
TESTS = [
    "tests/test_operations.py",
    "tests/test_closure.py",
    "tests/test_machine_dependency_map.py",
    "tests/test_machine_epistemic.py",
    "tests/test_scenarios.py",
    "tests/test_depmap.py",
    "tests/test_apply.py",
    "tests/epistemic/test_operations.py",
]


def mutants() -> list[tuple[str, str, object]]:
    """(operation, field, new value) for every mutant of the rows the engine reads."""
    from gcv.reference.operations import ORDER
    from gcv.reference.records import Standing

    found: list[tuple[str, str, object]] = []
    targets = ("support", "undermine", "revise", "resolve")
    rows = {rule.name: rule.row for rule in ORDER}
    for kind in targets:
        row = rows[kind]
        for label in Standing:
            found.append((kind, "target_standing", row.target_standing ^ {label}))
        for flag in ("target_unattacked", "attacks_target", "grounds_in_good_standing"):
            found.append((kind, flag, not getattr(row, flag)))
        for becomes in (None, *Standing):
            if becomes is not row.target_becomes:
                found.append((kind, "target_becomes", becomes))
    return found


def describe(mutant: tuple[str, str, object]) -> str:
    """A mutant as one line: ``RESOLVE.target_unattacked = False``."""
    kind, field, value = mutant
    if isinstance(value, frozenset):
        value = "{" + ", ".join(sorted(s.value for s in value)) + "}"
    elif value is not None and hasattr(value, "value"):
        value = value.value
    return f"{kind.upper()}.{field} = {value}"


def install(index: int) -> None:
    """Replace the engine's order of rules by one whose rule ``index`` names has the mutant
    row (what its checks, its effect and the encoding read)."""
    import gcv.reference.operations

    kind, field, value = mutants()[index]
    gcv.reference.operations.ORDER = tuple(
        dataclasses.replace(rule, row=dataclasses.replace(rule.row, **{field: value}))
        if rule.name == kind
        else rule
        for rule in gcv.reference.operations.ORDER
    )


if "GCV_RULES_MUTANT" in os.environ:  # loaded as a pytest plugin for one mutant
    from tests.mutation import use_mutation_profile

    use_mutation_profile()
    install(int(os.environ["GCV_RULES_MUTANT"]))


def run(index: int) -> int:
    """Run the engine tests against mutant ``index``; return pytest's exit code."""
    env = dict(os.environ, GCV_RULES_MUTANT=str(index), PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
    command += ["-p", "tests.mutation_rules", "-k", "not broken_engine", *TESTS]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, stdin=subprocess.DEVNULL)
    return done.returncode


def main(argv: list[str] | None = None) -> int:
    """Run every table mutant; print each verdict and the score."""
    parser = argparse.ArgumentParser(prog="python -m tests.mutation_rules", description=__doc__)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    table = mutants()
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        codes = list(pool.map(run, range(len(table))))
    killed = 0
    for mutant, code in zip(table, codes, strict=True):
        verdict = {0: "SURVIVED", 1: "killed"}.get(code, f"error (pytest exit {code})")
        killed += code == 1
        print(f"{verdict:>9}  {describe(mutant)}")
    print(
        f"rules.py: {killed}/{len(table)} table mutants killed "
        f"({100 * killed / len(table):.1f}%), {time.perf_counter() - start:.0f} s"
    )
    return 0 if killed == len(table) else 1


if __name__ == "__main__":
    sys.exit(main())
