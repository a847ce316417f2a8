"""spec/gcv/spec/normative.md's clause entries are generated from the clause table
(spec/gcv/spec/clauses.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.normative import PAGE, UnplacedClause, main, render_clauses, render_page
from gcv.spec.clauses import CHOSEN, CLAUSES, Clause

ROOT = Path(__file__).resolve().parents[1]


def test_the_committed_normative_page_is_current() -> None:
    page = (ROOT / PAGE).read_text(encoding="utf-8")
    assert render_page(page, CLAUSES.values()) == page, (
        f"{PAGE} is stale: run `gcv normative` (its clause entries are made from "
        "spec/gcv/spec/clauses.py)"
    )


def test_the_command_checks_the_checkout_page(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check"]) == 0, capsys.readouterr().out


def test_a_hand_edited_entry_is_stale_and_regenerated() -> None:
    page = (ROOT / PAGE).read_text(encoding="utf-8")
    edited = page.replace("the turn's speaker is an agent of Ags", "the speaker may be anyone", 1)
    assert edited != page
    assert render_page(edited, CLAUSES.values()) != edited, "a hand edit went unnoticed"
    assert render_page(edited, CLAUSES.values()) == page


def test_every_clause_says_where_it_comes_from_and_what_it_rules() -> None:
    for c in CLAUSES.values():
        assert c.place.strip() and c.rule.strip(), c.id
        assert (c.alternative is None) or c.source == CHOSEN, c.id


def test_a_clause_no_heading_takes_is_refused() -> None:
    stray = Clause("protocol.empty-turn", CHOSEN, "why", "what")
    with pytest.raises(UnplacedClause, match=r"protocol\.empty-turn"):
        render_clauses([*CLAUSES.values(), stray])


def test_a_page_without_markers_is_refused() -> None:
    with pytest.raises(UnplacedClause, match="lacks the line"):
        render_page("# Normative notes\n", CLAUSES.values())
