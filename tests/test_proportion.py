"""A long module is split where a reader looks for two things, or says why it is whole.

Issue 47's rule of proportion, kept true: every module of the package (the tools and the
three layers) over :data:`LONG` lines has a paragraph of its docstring that begins
``Whole,`` and argues it is one thing (``Whole, at about 900 lines: it is one table ...``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = (
    ROOT / "gcv",
    *(ROOT / layer / "gcv" / layer for layer in ("spec", "reference", "proofs")),
)
LONG = 600
"""Lines above which a module must argue that it is whole (issue 47: "over ~600 lines")."""


def is_argued_whole(text: str) -> bool:
    """Whether a module's docstring has a paragraph that begins ``Whole,``."""
    docstring = ast.get_docstring(ast.parse(text)) or ""
    return any(part.lstrip().startswith("Whole,") for part in docstring.split("\n\n"))


def unargued(paths: Iterable[Path], root: Path = ROOT) -> list[str]:
    """The modules of ``paths`` over :data:`LONG` lines that do not argue they are whole,
    named from ``root``."""
    found = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > LONG and not is_argued_whole(text):
            found.append(f"{path.relative_to(root)}: {text.count(chr(10))} lines")
    return found


def test_every_long_module_argues_it_is_whole() -> None:
    modules = [path for source in SOURCES for path in sorted(source.rglob("*.py"))]
    assert len(modules) > 100, "the package's modules were found"
    assert unargued(modules) == [], "split it where a reader looks for two things, or argue it"


def test_the_check_finds_a_long_module_that_does_not_argue(tmp_path: Path) -> None:
    body = "x = 1\n" * (LONG + 1)
    silent, argued = tmp_path / "silent.py", tmp_path / "argued.py"
    silent.write_text('"""A table."""\n' + body, encoding="utf-8")
    argued.write_text('"""A table.\n\nWhole, at about 600 lines: one table."""\n' + body)
    assert unargued([silent, argued], tmp_path) == [f"silent.py: {LONG + 2} lines"]
    assert not is_argued_whole('"""Whole numbers, counted."""\n')
