"""The layout program (gcv/layout.py): Graphviz's dot first, graphviz-pure without it, and
without either a one-line answer naming what to install (exit 2, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv import layout
from gcv.cli import EXIT_BAD_INPUT, main
from gcv.figures import FIGURES, FOLDER, svg_signature

_INSTALL = "Graphviz's dot (Debian: apt-get install graphviz) or graphviz-pure"


@pytest.fixture
def no_layout_program(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layout, "LAYOUT_PROGRAMS", ("gcv-no-such-layout-program",))


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["figures", "--out", "{tmp}"], "gcv figures: needs a layout program: "),
        (["explore", "phase2-debugging", "-o", "{tmp}/page.html"], "gcv explore: the page's map"),
        (["draw", "phase2-debugging", "--format", "svg"], "SVG needs a layout program: "),
        (["draw", "phase2-debugging", "--format", "png"], "PNG needs a layout program: "),
    ],
)
@pytest.mark.usefixtures("no_layout_program")
def test_without_a_layout_program_a_picture_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], words: list[str], said: str
) -> None:
    assert main([w.replace("{tmp}", str(tmp_path)) for w in words]) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert said in err and _INSTALL in err and "[pictures]" in err, err
    assert list(tmp_path.iterdir()) == [], "nothing half-written"


def test_dot_and_mermaid_need_no_layout_program(
    no_layout_program: None, capsys: pytest.CaptureFixture[str]
) -> None:
    for form in ("dot", "mermaid"):
        assert main(["draw", "phase2-debugging", "--format", form]) == 0
    assert capsys.readouterr().err == ""


def test_graphviz_pure_draws_what_graphviz_drew(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """graphviz-pure, forced even where dot is installed, shows the records, links,
    classes and labels of the committed figures, which Graphviz's dot laid out."""
    monkeypatch.setattr(layout, "LAYOUT_PROGRAMS", ("graphviz-pure",))
    assert layout.find_layout_program() is not None, "graphviz-pure is in the test extra"
    assert FOLDER is not None
    for name in FIGURES:
        drawn = tmp_path / f"{name}.svg"
        source = (FOLDER / f"{name}.dot").read_text("utf-8")
        drawn.write_bytes(layout.lay_out(source, "svg"))
        committed = FOLDER / f"{name}.svg"
        assert svg_signature(drawn, texts=True) == svg_signature(committed, texts=True), name


def test_a_picture_the_program_refuses_names_the_program() -> None:
    with pytest.raises(layout.Unsupported, match=r"could not lay out the picture: .*syntax"):
        layout.lay_out("digraph { a -> }", "svg")
