"""Every paper clause is caught by the vectors' paper profile, or argued unobservable.

For each clause of ``spec/transition.py`` marked **paper**, ``fakes/paper_bugs.py`` keeps an
engine that breaks only that clause; each must answer otherwise than the shipped vectors
on at least one paper-profile step (an implementation making only the reference's choices
differently never does: ``test_profiles.py``).  ``docs/conformance.md`` shows the table
this file computes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

import gcv.spec.transition  # noqa: F401  (fills the clause registry)
from gcv.conformance.runner import EXIT_FAILED
from gcv.spec.clauses import CLAUSES, PAPER
from tests.conformance.fakes.paper_bugs import (
    PAPER_BUGS,
    UNCAUGHT,
    UNOBSERVABLE,
)
from tests.conformance.helpers import FAKE, conform

ROOT = Path(__file__).parents[2]
MODULE = "tests.conformance.fakes.paper_bugs"
PAPER_CLAUSES = sorted(c for c, clause in CLAUSES.items() if clause.source == PAPER)


def test_every_paper_clause_has_an_engine_breaking_it_or_an_argument() -> None:
    broken = {bug.clause for bug in PAPER_BUGS.values()}
    assert broken | set(UNOBSERVABLE) == set(PAPER_CLAUSES), "paper clauses without an engine"
    assert not broken & set(UNOBSERVABLE)
    assert set(UNCAUGHT) <= broken, "an uncaught clause still has its engine"


@cache
def _caught_by_all() -> dict[str, tuple[str, ...]]:
    """Engine -> the paper-profile steps it fails.  Run in two processes with the
    contracts as a user runs them (the test session's costly ones off): one with them on,
    one without (``python -O``) for the engines they would stop."""
    found: dict[str, tuple[str, ...]] = {}
    environment = {k: v for k, v in os.environ.items() if k != "ICONTRACT_SLOW"}
    for optimised in (False, True):
        names = [what for what, bug in PAPER_BUGS.items() if bug.contracts == optimised]
        command = [sys.executable, *(["-O"] if optimised else []), "-m", MODULE, *names]
        run = subprocess.run(
            command, cwd=ROOT, env=environment, capture_output=True, text=True, check=True
        )
        found |= {what: tuple(steps) for what, steps in json.loads(run.stdout).items()}
    return found


def _caught(what: str) -> tuple[str, ...]:
    return _caught_by_all()[what]


@pytest.mark.slow
@pytest.mark.parametrize("what", sorted(PAPER_BUGS))
def test_an_engine_breaking_a_paper_clause_fails_a_paper_profile_step(what: str) -> None:
    clause = PAPER_BUGS[what].clause
    if clause in UNCAUGHT:
        assert not _caught(what), f"{clause} is caught now: take it off UNCAUGHT"
    else:
        assert _caught(what), f"no paper-profile step catches {what} ({clause})"


# The two engines the paper profile once let through, run as an implementation's process.
_THROUGH_THE_RUNNER = (
    "a turn's operations applied in the order written",
    "Support recording no Dep link",
)


@pytest.mark.slow
@pytest.mark.parametrize("what", _THROUGH_THE_RUNNER)
def test_the_runner_fails_the_engine_in_the_paper_profile(what: str, tmp_path: Path) -> None:
    command = [sys.executable, str(FAKE), "paper-bug", what]
    code, report = conform(tmp_path, ["-k", "core/*"], command)
    assert code == EXIT_FAILED, report["profiles"]
    assert report["profiles"]["paper"]["differing"] > 0


_TABLE_START = "<!-- paper-clause coverage: tests/conformance/test_paper_clauses.py -->"


def _shown(steps: tuple[str, ...]) -> str:
    cases = sorted({step.split("#")[0] for step in steps})
    named = ", ".join(f"`{c}`" for c in cases[:2])
    more = f" and {len(cases) - 2} more cases" if len(cases) > 2 else ""
    return f"{len(steps)} step{'' if len(steps) == 1 else 's'}: {named}{more}"


def _table() -> str:
    rows = ["| paper clause | source | engine breaking it | paper-profile steps it fails |"]
    rows.append("|---|---|---|---|")
    for what, bug in sorted(PAPER_BUGS.items(), key=lambda item: (item[1].clause, item[0])):
        steps = _caught(what)
        found = _shown(steps) if steps else f"none: {UNCAUGHT[bug.clause]}"
        rows.append(f"| `{bug.clause}` | {CLAUSES[bug.clause].place} | {what} | {found} |")
    for clause, why in sorted(UNOBSERVABLE.items()):
        rows.append(f"| `{clause}` | {CLAUSES[clause].place} | unobservable | {why} |")
    caught = {bug.clause for what, bug in PAPER_BUGS.items() if _caught(what)}
    summary = (
        f"{len(PAPER_CLAUSES)} paper clauses: {len(caught)} caught by a paper-profile step, "
        f"{len(UNOBSERVABLE)} unobservable, {len(set(PAPER_CLAUSES) - caught - set(UNOBSERVABLE))} "
        "not caught yet."
    )
    return "\n".join([*rows, "", summary])


@pytest.mark.slow
def test_the_docs_show_the_paper_clause_table() -> None:
    docs = (ROOT / "docs" / "conformance.md").read_text()
    assert _TABLE_START in docs
    shown = docs.split(_TABLE_START, 1)[1].strip().split("\n\n", 2)
    assert "\n\n".join(shown[:2]) == _table(), f"docs/conformance.md should show:\n{_table()}"
