"""docs/figures stays what ``gcv draw`` makes (``gcv figures --check``), and staleness is caught."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gcv.cli import main
from gcv.figures import FOLDER


@pytest.mark.slow
def test_the_committed_figures_are_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["figures", "--check"]) == 0, capsys.readouterr().out


@pytest.mark.slow
def test_a_changed_or_missing_figure_is_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "figures"
    shutil.copytree(FOLDER, copy)
    dot = copy / "phase2-T13-affected-o5.dot"
    dot.write_text(dot.read_text("utf-8").replace("h3", "h9"), "utf-8")
    (copy / "muddy-M2.svg").unlink()
    assert main(["figures", "--check", "--folder", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "phase2-T13-affected-o5.dot is stale" in out and "muddy-M2.svg is stale" in out
    assert "muddy-M1" not in out


def test_the_pictures_page_shows_every_figure() -> None:
    page = (FOLDER.parent / "pictures.md").read_text("utf-8")
    for svg in sorted(FOLDER.glob("*.svg")):
        assert f"(figures/{svg.name})" in page, svg.name
