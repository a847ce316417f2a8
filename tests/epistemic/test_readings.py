"""B.2 under a family of readings of "explained" (``gcv audit readings``): the search's result
checked from outside it.

The search (``gcv.audits.readings`` over ``gcv.spec.abduction_readings`` on Phase 2, replayed
by the spec and the bit-parallel oracle) is run once per worker.  What is checked: the section of
docs/epistemic.md it generates is current; every quoted word is the paper's; each conflict is
minimal and none is smaller; the family's two engine readings explain what the engine and the
oracle's own queue leave open, after every turn; cells worked out by hand; and the search's
parts on tables small enough to check by eye.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from functools import cache
from itertools import combinations
from pathlib import Path

import pytest

from gcv.audits import readings
from gcv.claims import CLAIMS
from gcv.oracles import epistemic_bits as bits
from gcv.scenarios import load_scenario
from gcv.spec import abduction_readings as ar
from gcv.spec import abduction_statements as b2

ROOT = Path(__file__).resolve().parents[2]
PAPERS = Path(os.environ.get("GCV_PAPERS", ROOT.parent / "shared" / "seeds"))


@cache
def _search() -> readings.Search:
    return readings.search()


pytestmark = pytest.mark.slow  # the search takes a few seconds of CPU, once per worker


def test_the_generated_section_of_docs_epistemic_is_current() -> None:
    text = (ROOT / readings.DOCUMENT).read_text(encoding="utf-8")
    start, end = text.index(readings.BEGIN), text.index(readings.END) + len(readings.END)
    assert text[start:end] + "\n" == readings.render_markdown(_search()), (
        "run `gcv audit readings --markdown`"
    )


def test_each_conflict_is_minimal_and_none_is_smaller() -> None:
    result = _search()
    assert result.conflicts, "B.2's statements are consistent under some reading"
    size = len(result.conflicts[0])
    for conflict in result.conflicts:
        assert len(conflict) == size and b2.is_minimal_conflict(conflict, result.table), conflict
    ids = [s.id for s in b2.STATEMENTS]
    smaller = [c for n in range(1, size) for c in combinations(ids, n)]
    assert all(b2.is_satisfiable(c, result.table) for c in smaller)


def test_the_search_finds_conflicts_on_tables_checked_by_eye() -> None:
    a, b = ar.CHOSEN, ar.LITERAL
    ids = [s.id for s in b2.STATEMENTS]
    every = frozenset(ids)
    assert readings.compute_minimum_conflicts({a: every}) == ()
    # One reading misses x, the other y: {x, y} is the one smallest conflict.
    x, y = ids[0], ids[1]
    table = {a: every - {x}, b: every - {y}}
    assert readings.compute_minimum_conflicts(table) == (frozenset({x, y}),)
    assert b2.is_minimal_conflict({x, y}, table)
    assert not b2.is_minimal_conflict({x, y, ids[2]}, table), "a member can go"
    assert not b2.is_minimal_conflict({x}, table), "a reading keeps x"
    # A statement no reading keeps is a conflict on its own.
    assert readings.compute_minimum_conflicts({a: every - {x}}) == (frozenset({x}),)


def test_gcv_audit_readings_check_fails_on_a_stale_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    found = _search()
    monkeypatch.setattr(readings, "search", lambda: found)
    monkeypatch.setattr(readings, "source_checkout", lambda: tmp_path)
    (tmp_path / "docs").mkdir()
    page = tmp_path / readings.DOCUMENT
    page.write_text(f"before\n{readings.BEGIN}\nold\n{readings.END}\nafter\n", encoding="utf-8")
    assert readings.main(["--check"]) == 1
    assert readings.main(["--markdown"]) == 0
    assert readings.main(["--check"]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("before\n") and text.endswith("after\n") and "\nold\n" not in text
    assert "Result" in capsys.readouterr().out


def test_the_engines_readings_leave_open_what_the_oracles_queue_leaves_open() -> None:
    """Two computations of what is open after every turn of Phase 2, under each of the
    engine's readings: the family's (this search) and the oracle's own queue
    (``bits.process_turn_model``); tests/epistemic/test_phase2.py checks the engine's queue
    against the same oracle."""
    trace = load_scenario(readings.SCENARIO)
    agents = tuple(trace.agents)
    for name, reading in readings.ENGINE_READINGS.items():
        literal = reading.model == "M_t"
        family = _search().engine[name].unexplained
        model = bits.compute_default_model(agents, trace.atoms, dict.fromkeys(agents, trace.atoms))
        queue: tuple[bits.BitProblem, ...] = ()
        for t, (before, after, turn) in enumerate(readings.replay_on_the_spec(trace), start=1):
            model, queue = bits.process_turn_model(
                before, after, turn, model, queue, literal=literal
            )
            oracle = {p.source for p in queue if p.is_open(after.active_set())}
            assert family[t] == oracle, (name, t, family[t], oracle)


def _explanations(reading: ar.Reading) -> ar.Explanations:
    agents, turns = readings.compute_phase2_turns()
    return ar.compute_explanations(reading, agents, turns, readings.BitSemantics())


def test_cells_worked_by_hand() -> None:
    # Literal (M_t): by T3 every observation that posed a problem is known, so B_i chi holds
    # in M_t and after any upgrade; gamma_1 brings the fresh atom h1, so neither it nor its
    # negation is believed: h1 is consistent and non-trivial, closes every problem at T5 and
    # stays in S_t to the end.
    literal = _explanations(ar.LITERAL)
    assert literal.unexplained[4] == {"o1", "o2", "o3", "o5", "o6", "o7", "o8"}
    assert all(literal.unexplained[t] == frozenset() for t in range(5, 14))
    # Default (M_chi^t): p_pay and p_db are free in their problems' models and no gamma
    # mentions them, so o2 and o3 stay open from T1 to the end.
    chosen = _explanations(ar.CHOSEN)
    assert all({"o2", "o3"} <= chosen.unexplained[t] for t in range(1, 14))
    # Dep alone: Dep(h1) = {o7, o8} from T5; nothing rests on o1, o2 or o3.
    by_dep = _explanations(replace(ar.CHOSEN, causal="Dep"))
    assert by_dep.answered["h1"] == {"o7", "o8"}
    assert all({"o1", "o2", "o3"} <= by_dep.unexplained[t] for t in range(1, 14))
    assert {"o7", "o8"}.isdisjoint(by_dep.unexplained[5])
    # Every agent was surprised by o1 at T1 (nobody believed p_auth), Bob by o7 at T3.
    assert chosen.posed["o1"] == (1, frozenset("abc")) and "b" in chosen.posed["o7"][1]


def test_non_triviality_by_b_or_k_is_by_b() -> None:
    # K_i gamma implies B_i gamma in every plausibility model (Definition A.1's Convention).
    table = _search().table
    for reading, kept in table.items():
        if reading.non_triviality == "B or K":
            assert kept == table[replace(reading, non_triviality="B")], reading


# -- the words: each quoted fragment is the paper's -------------------------------------------

_LATEX = {
    r"\times": " x ",
    r"\in": " in ",
    r"\Uparrow": " up-up ",
    r"\uparrow": " up ",
    **{rf"\{letter}": f" {letter} " for letter in ("gamma", "chi", "psi", "phi", "top")},
}
"""The commands whose word our quotes write (the rest, arrows and connectives, have none)."""


def _words(text: str) -> list[str]:
    """The text's words and numbers, lower case, LaTeX commands dropped: what a quote in
    plain text and the paper's LaTeX have in common."""
    for command, plain in _LATEX.items():
        text = re.sub(re.escape(command) + r"(?![A-Za-z])", plain, text)
    text = re.sub(r"\\[A-Za-z]+", " ", text)
    return re.findall(r"[a-z]+|[0-9]+", text.lower())


def _fragments(quote: str) -> list[list[str]]:
    """A quote's fragments: our bracketed words left out (a bracket after a space: M[up-up
    gamma] is the paper's), cut at each '...'."""
    plain = re.sub(r"(?<!\S)\[[^\]]*\]", " ", quote)
    return [w for part in plain.split("...") if (w := _words(part))]


def _appear_in_order(fragments: list[list[str]], words: list[str]) -> bool:
    at = 0
    for fragment in fragments:
        n = len(fragment)
        found = next((i for i in range(at, len(words) - n + 1) if words[i : i + n] == fragment), -1)
        if found < 0:
            return False
        at = found + n
    return True


def _paper() -> str:
    found = sorted(PAPERS.glob("000_*.txt"))
    if not found:
        pytest.skip(f"the papers' text is not at {PAPERS} (set GCV_PAPERS)")
    return found[0].read_text(encoding="utf-8")


def test_each_statement_is_b2s_words() -> None:
    text = _paper()
    section = _words(text[text.index("B.2 Phase 2: System Debugging") : text.index("B.3 Phase 3")])
    wrong = [s.id for s in b2.STATEMENTS if not _appear_in_order(_fragments(s.words), section)]
    assert not wrong, wrong


def test_each_value_quotes_the_paper() -> None:
    words = _words(_paper())
    quoted = [
        (d.name, v.key, q)
        for d in ar.DIMENSIONS
        for v in d.values
        for q in re.findall(r'"([^"]+)"', v.grounds)
    ]
    assert len(quoted) >= 20
    wrong = [(d, k, q) for d, k, q in quoted if not _appear_in_order(_fragments(q), words)]
    assert not wrong, wrong


def test_the_quote_check_catches_words_the_paper_does_not_have() -> None:
    words = _words(r"Observations explained by $h_1\wedge h_2$: $o_1$ (auth failures)")
    assert _appear_in_order(_fragments("Observations explained by h1 & h2: o1 (auth"), words)
    assert not _appear_in_order(_fragments("Observations explained by h1 & h3"), words)
    assert not _appear_in_order(_fragments("auth failures ... Observations"), words)


def test_the_registry_states_the_searchs_figures() -> None:
    result = _search()
    claims = {c.id: c for c in CLAIMS}
    kept = f"keeps 23 of {len(b2.STATEMENTS)}".replace("23", str(len(result.table[ar.CHOSEN])))
    explained, abduction = claims["core.phase-2.explained"], claims["core.phase-2.abduction"]
    assert f"{len(result.table):,} readings" in explained.reason
    assert f"{len(result.conflicts)} pairs" in explained.reason
    assert len({len(c) for c in result.conflicts}) == 1 and len(result.conflicts[0]) == 2
    assert f"all of B.2's {len(b2.STATEMENTS)} statements" in explained.statement
    assert kept in abduction.reason
    assert f"literal reading (M_t, literal_abduction) keeps {len(result.table[ar.LITERAL])}" in (
        abduction.reason
    )
