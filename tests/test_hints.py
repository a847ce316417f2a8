"""A command that needs an extra not installed says which, through one mechanism
(``gcv.hints.extra_missing``): ``gcv``'s entry point and ``gcv paper``."""

from __future__ import annotations

import sys

import pytest

from gcv import paper
from gcv.cli import EXIT_BAD_INPUT, main
from gcv.hints import EXTRA_OF


@pytest.fixture
def without_experiments(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the experiments extra were not installed: its modules cannot be imported."""
    for module in [m for m in sys.modules if m.startswith("gcv.experiments")]:
        monkeypatch.delitem(sys.modules, module)
    for module, extra in EXTRA_OF.items():
        if extra == "experiments":
            monkeypatch.setitem(sys.modules, module, None)  # type: ignore[arg-type]


@pytest.mark.usefixtures("without_experiments")
def test_a_command_needing_an_extra_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiments", "--quick"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "[experiments]" in err and "pip install" in err, err
    assert "Traceback" not in err


@pytest.mark.usefixtures("without_experiments")
def test_its_help_says_what_it_does_and_what_to_install(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["experiments", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("gcv experiments: regenerate docs/experiments.md"), out
    assert "needs bm25s, from the experiments extra: pip install" in out, out


@pytest.mark.usefixtures("without_experiments")
def test_paper_reports_a_claim_needing_an_extra_as_such_not_dangling() -> None:
    assert not any("does not import" in p for p in paper.find_problems())
    needing = paper.needing_extras()
    assert any(line.startswith("core.sec-4.5.tokens: ") for line in needing), needing
    assert all("[experiments]" in line for line in needing)


def test_with_the_extra_nothing_is_reported_as_needing_it() -> None:
    assert paper.needing_extras() == []


def test_evidence_names_a_missing_file_without_errno(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evidence", "docs/no-such-facts.tsv", "Arden"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "no file 'docs/no-such-facts.tsv'" in err and "Errno" not in err, err
