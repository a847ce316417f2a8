"""The claims registry: no statement unchecked, no dangling reference, the map current."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gcv.claims import CLAIMS, MEANING, NUMBERED, PAPERS, Claim, Status, is_registered
from gcv.paper import MAP, find_problems, find_unregistered, main, render_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_no_statement_is_unchecked_and_no_reference_dangles() -> None:
    assert find_problems() == []


def test_the_committed_paper_map_is_current() -> None:
    assert (ROOT / MAP).read_text(encoding="utf-8") == render_markdown(), (
        "run `gcv paper --markdown`"
    )


def test_dangling_references_are_reported() -> None:
    bogus = Claim(
        "core.bogus",
        "core",
        "Lemma 9.9",
        "nothing",
        Status.PROVED_UNBOUNDED,
        implemented_in=("gcv.reference.closure.no_such_function", "no_such_module.x"),
        tests=("tests/test_closure.py::test_no_such_test", "tests/no_such_file.py::test_x"),
        obligations=("no-such-obligation",),
        vectors=("no-such-vector-*",),
        benchmarks=("tests/benchmarks/no_such_bench.py",),
    )
    problems = find_problems([bogus])
    assert len(problems) == 7, problems  # two imports, two tests, one of each other kind
    assert "core.bogus: registered 2 times" in find_problems([bogus, bogus])


def test_a_statement_with_no_check_is_reported() -> None:
    unchecked = Claim("core.x", "core", "Lemma 9.9", "nothing", Status.CHECKED)
    unproved = Claim(
        "core.y",
        "core",
        "Lemma 9.9",
        "x",
        Status.PROVED_BOUNDED,
        tests=("tests/test_closure.py::test_x_k_stabilises_within_args_rounds",),
    )
    problems = find_problems([unchecked, unproved])
    assert problems == [
        "core.x: no test, obligation, vector or benchmark checks it",
        "core.y: status 'proved to a bound' but no proof obligation",
    ]


def test_every_claim_id_names_its_paper() -> None:
    assert all(c.id.startswith(f"{c.paper}.") for c in CLAIMS)


def test_gcv_paper_exits_clean() -> None:
    assert main(["--check"]) == 0


def test_gcv_paper_check_fails_on_a_claim_without_a_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gcv.paper as paper

    statusless = dataclasses.replace(CLAIMS[0], id="core.statusless", status=None)
    monkeypatch.setattr(paper, "CLAIMS", (*CLAIMS, statusless))
    assert paper.main(["--check"]) == 1
    assert "dangling: core.statusless: no status" in capsys.readouterr().out


def test_a_numbered_item_without_a_claim_is_reported() -> None:
    assert find_unregistered() == []
    numbered = {"core": ("Lemma 2.1", "Lemma 2.9", "(A2)"), "lineage": ("Table 2",)}
    assert find_unregistered(numbered=numbered) == ["core: Lemma 2.9 has no claim"]
    assert not is_registered("Table 2", "Section 7.2"), "a section number is not a table"
    assert is_registered("Definition 3.3", "Definitions 3.3 and 3.5")


def test_the_core_paper_page_names_every_numbered_item_and_cites_by_title() -> None:
    page = (ROOT / "docs" / "core-paper.md").read_text(encoding="utf-8")
    missing = [item for item in NUMBERED["core"] if not is_registered(item, page)]
    assert not missing, missing
    assert PAPERS["core"] in page and "Hoang-Loc Cao" in page and "Arvenaghi" in page
    pages = [
        ROOT / "README.md",
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "spec" / "gcv" / "spec").glob("*.md"),
    ]
    cited = [p.name for p in pages if "seeds/" in p.read_text(encoding="utf-8")]
    assert not cited, f"pages citing a source file outside the repository: {cited}"


def test_each_status_word_has_one_meaning_printed_in_the_map() -> None:
    assert set(MEANING) == set(Status)
    text = render_markdown()
    for status, meaning in MEANING.items():
        assert text.count(f"- **{status.value}**: {meaning}.") == 1, status


@pytest.mark.parametrize(
    "status",
    [Status.TESTED, Status.CHECKED, Status.REPRODUCED, Status.REPRODUCED_ON_GENERATED_DATA],
)
def test_a_benchmark_alone_neither_tests_nor_reproduces(status: Status) -> None:
    # Benchmarks print figures and cannot fail (Proposition 2.5's costs were "reproduced" so).
    claim = Claim(
        "core.bench-only",
        "core",
        "Proposition 2.5",
        "costs",
        status,
        implemented_in=("gcv.spec.core.get_active_set", "gcv.reference.closure.dependency_walk"),
        benchmarks=("tests/benchmarks/bench_queries.py",),
        reason="generated",
    )
    assert find_problems([claim]) == [
        f"core.bench-only: status {status.value!r} but no test or vector checks it"
    ]
    measured = dataclasses.replace(claim, status=Status.MEASURED)
    assert find_problems([measured]) == []
    assert find_problems([dataclasses.replace(measured, benchmarks=(), tests=_A_TEST)]) == [
        "core.bench-only: status 'measured' but no benchmark measures it"
    ]


_A_TEST = ("tests/test_closure.py::test_x_k_stabilises_within_args_rounds",)


def test_tested_names_a_spec_and_a_reference_object() -> None:
    # "tested" means the reference checked against the spec: a spec module alone is "checked".
    alone = Claim(
        "gossip.x",
        "gossip",
        "Definition 3.1",
        "views",
        Status.TESTED,
        implemented_in=("gcv.spec.gossip.views.compute_view",),
        tests=_A_TEST,
    )
    assert find_problems([alone]) == [
        "gossip.x: status 'tested' but it does not name a spec and a reference object"
    ]
    assert find_problems([dataclasses.replace(alone, status=Status.CHECKED)]) == []


def test_a_scenario_reproduction_names_its_encoding() -> None:
    replayed = Claim(
        "core.x",
        "core",
        "Appendix B.1",
        "M0 has 8 worlds",
        Status.REPRODUCED,
        implemented_in=("gcv.replay.replay",),
        tests=_A_TEST,
    )
    assert find_problems([replayed]) == [
        "core.x: reproduced by a scenario, but it names no encoding it rests on"
    ]
    assert find_problems([dataclasses.replace(replayed, encoding="M0 declared")]) == []


def test_a_proof_that_cites_a_theorem_names_it() -> None:
    # The proposition-2.3 obligation cites Dung's Theorem 11 rather than encoding it.
    claim = dataclasses.replace(
        next(c for c in CLAIMS if c.id == "core.prop-2.3"), id="core.x", cites=()
    )
    assert find_problems([claim]) == [
        "core.x: obligation proposition-2.3 cites a result it does not encode; name it in cites"
    ]


def test_a_numbered_item_is_told_from_a_section_and_a_subfigure_is_its_figure() -> None:
    assert not is_registered("Proposition 4", "Section 4.1")
    assert not is_registered("Proposition 4", "Proposition 4.1")
    assert is_registered("Proposition 4", "Proposition 4 (Appendix B.2)")
    assert is_registered("Figure 4", "Section 4.5 (token cost, Figure 4a,b)")
    assert not is_registered("Figure 4", "Figure 45")
