"""Every paper clause is caught by the vectors' paper profile, or argued unobservable; so is
every definition of Appendix A the transition reads.

For each clause of ``spec/gcv/spec/transition.py`` marked **paper** (and each of
``fakes/paper_bugs.DEFINITIONS``), ``fakes/paper_bugs.py`` keeps an engine that breaks only
that rule.  Each runs as a third-party engine runs: ``gcv serve`` under ``python -O``, no
contracts of ours to stop it.  ``python -m tests.conformance.paper_sweep --write`` runs each
over the whole suite and writes the table of ``docs/conformance.md``: the engine's exit
code, the paper-profile steps it fails and the first of them.  Here each engine runs on
that step's case alone, and must exit 1 with that step failing the paper profile.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import gcv.spec.transition  # noqa: F401  (fills the clause registry)
from gcv.conformance.runner import EXIT_FAILED
from gcv.spec.clauses import CLAUSES, PAPER
from tests.conformance.fakes.paper_bugs import DEFINITIONS, PAPER_BUGS, UNOBSERVABLE
from tests.conformance.paper_sweep import TABLE_START, run

ROOT = Path(__file__).parents[2]
PAPER_CLAUSES = sorted(c for c, clause in CLAUSES.items() if clause.source == PAPER)

DONE_WHEN = (
    "a turn's simultaneous announcement where the later observations eliminate no worlds",
    "a hard announcement keeping the worlds it should eliminate",
    "Expand-Awareness not splitting worlds",
    "a conservative upgrade done lexicographically",
    "Definition A.2's consistency inverted",
    "Definition A.2's non-triviality dropped whole",
    "Definition A.2's non-triviality without its belief half (M does not satisfy B_i gamma)",
    "belief taken over all of W instead of the agent's own information cell",
)
"""The engines issue 43 names, each of which must exit 1 in the default profile."""


def test_every_paper_rule_has_an_engine_breaking_it_or_an_argument() -> None:
    broken = {bug.clause for bug in PAPER_BUGS.values()}
    assert broken | set(UNOBSERVABLE) == set(PAPER_CLAUSES) | set(DEFINITIONS)
    assert not broken & set(UNOBSERVABLE)
    assert set(DONE_WHEN) <= set(PAPER_BUGS)


def _table() -> dict[str, tuple[str, int, str]]:
    """The docs' table: engine -> (rule, exit code, the step that catches it)."""
    docs = (ROOT / "docs" / "conformance.md").read_text()
    assert TABLE_START in docs
    table = docs.split(TABLE_START, 1)[1].strip().split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        rule, what, code, caught = cells[0].strip("`"), cells[-4], cells[-3], cells[-1]
        if what != "unobservable":
            rows[what] = (rule, int(code), caught.strip("`"))
    return rows


def test_the_docs_table_shows_every_engine_failing_the_paper_profile() -> None:
    table = _table()
    assert set(table) == set(PAPER_BUGS), "run python -m tests.conformance.paper_sweep --write"
    for what, (rule, code, caught) in table.items():
        assert rule == PAPER_BUGS[what].clause, what
        assert code == EXIT_FAILED and re.fullmatch(r"[\w./-]+#\d+", caught), (what, caught)


@pytest.mark.slow
@pytest.mark.parametrize("what", sorted(PAPER_BUGS))
def test_an_engine_breaking_a_paper_rule_fails_the_case_the_table_names(what: str) -> None:
    """The engine, served without contracts, on the one case the table says catches it."""
    case, step = _table()[what][2].split("#")
    code, report = run(what, ["-k", case])
    (result,) = report["results"]
    assert code == EXIT_FAILED, (what, report["profiles"])
    failing = result["paper_failed_steps"] or (
        [result["step"]] if result["status"] == "error" else []
    )
    assert int(step) in failing, (what, result)
