"""The documents name only what exists and quote their figures from the files that hold
them (tests/docs_check.py); the check fails on a planted stale name and figure."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.conformance.generate import main as vectors_main
from tests.docs_check import (
    ROOT,
    bundle_problems,
    documents,
    problems,
    rewrite_figures,
    stale_figures,
    stale_names,
)


def test_every_document_names_what_exists_and_quotes_its_files() -> None:
    assert len(documents()) > 15
    assert problems() == [], "run python -m tests.docs_check --write, or fix the names"


@pytest.mark.slow
def test_the_bundles_documents_name_what_the_bundle_holds(tmp_path: Path) -> None:
    assert vectors_main(["--export", str(tmp_path / "bundle"), "--quiet"]) == 0
    assert bundle_problems(tmp_path / "bundle") == []


@pytest.mark.parametrize(
    ("planted", "said"),
    [
        ("the walk is in `reference/walks.py`.", "reference/walks.py: no such file"),
        ("see [the walk](../reference/walks.py)", "link ../reference/walks.py: no such file"),
        ("the registry, `gcv.paper_registry`", "gcv.paper_registry: does not import"),
        ("the class `gcv.reference.verifier.Verifer`", "Verifer: does not import"),
        ("run `gcv sesion show --db S`", "gcv sesion: no such command"),
        ("run `gcv session shwo --db S`", "gcv session shwo: no such command"),
        ("run `python -m tests.benchmarks.bench_nothing`", "bench_nothing: no such module"),
    ],
)
def test_a_planted_stale_name_is_caught(planted: str, said: str) -> None:
    found = stale_names(f"Some prose; {planted}\n", ROOT / "docs")
    assert len(found) == 1 and said in found[0], found


def test_names_that_exist_pass_and_a_struck_name_is_not_followed() -> None:
    text = (
        "`gcv/trace.py`, `closure.py`, `core/queries.json`, [layout](layout.md), "
        "`gcv.reference.verifier.Verifier`, `gcv session show --db S`, "
        "`python -m tests.docs_check`, ~~`predicates.py`~~\n"
    )
    assert stale_names(text, ROOT / "docs") == []


def test_a_changelog_may_name_what_moved_away_but_not_what_it_moved_to() -> None:
    moved = "- `gcv.spec.claims` is gone; the registry moved from `gcv.spec.oldclaims` to "
    assert stale_names(moved + "`gcv.claims`.\n", ROOT, changelog=True) == []
    found = stale_names(moved + "`gcv.newclaims`.\n", ROOT, changelog=True)
    assert found == ["gcv.newclaims: does not import"], found


def test_a_planted_stale_figure_is_caught_and_rewritten_from_its_file() -> None:
    cases = "<!-- fig spec/gcv/spec/vectors/manifest.json#/cases -->{}<!-- /fig --> cases"
    steps = "<!-- fig spec/gcv/spec/vectors/manifest.json#/steps :, -->{}<!-- /fig --> steps"
    text = f"The suite has {cases.format(1)} and {steps.format('12')}.\n"
    found = stale_figures(text)
    assert len(found) == 2 and "quoted 1, file " in found[0], found
    fresh = rewrite_figures(text)
    assert stale_figures(fresh) == [] and fresh != text
    assert stale_figures(text.replace("#/cases", "#/no-such-field")) != []
