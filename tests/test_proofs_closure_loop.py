"""The ``closure-loops`` obligation encodes the loop ``reference/closure.py`` runs: the
loop of ``reverse_closure``, read from the source, is the one the proof module states,
and a mutant of it, in a copy of the source, breaks the tie."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gcv.reference.closure
from gcv.proofs.obligations.closure_loop import LOOPS

SOURCE = Path(gcv.reference.closure.__file__).read_text()


def loops_of(source: str, name: str = "reverse_closure") -> list[str]:
    """The loops at the top level of the function ``name``."""
    tree = ast.parse(source)
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    return [ast.dump(n) for n in function.body if isinstance(n, ast.For)]


ENCODED = [ast.dump(ast.parse(text).body[0]) for text in LOOPS]


def test_the_encoded_loops_are_the_codes() -> None:
    assert loops_of(SOURCE) == ENCODED


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("if dependent not in seen:", "if True:"),
        ("                seen.add(dependent)\n", "                pass\n"),
        ("                queue.append(dependent)\n", "                queue.append(record)\n"),
        (
            "    for record in queue:\n        for dependent",
            "    for record in queue[:1]:\n        for dependent",
        ),
    ],
)
def test_a_mutant_loop_breaks_the_tie(old: str, new: str) -> None:
    assert SOURCE.count(old) == 1, old
    assert loops_of(SOURCE.replace(old, new)) != ENCODED
