"""The ``closure-loops`` obligation encodes the loops ``reference/closure.py`` runs: the
loops of ``reverse_closure``, read from the source, are the ones the proof module states,
and a mutant of either loop, in a copy of the source, breaks the tie."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gcv.reference.closure
from gcv.proofs.obligations.closure_loop import LOOPS

SOURCE = Path(gcv.reference.closure.__file__).read_text()


def _is_phase_switch(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.If) and any(isinstance(s, ast.Break) for s in statement.body)


def loops_of(source: str, name: str = "reverse_closure") -> list[str]:
    """The two loops of the function ``name``, without the phase switch and the exit."""
    tree = ast.parse(source)
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    loops = [n for n in function.body if isinstance(n, ast.For)]
    return [
        ast.dump(
            ast.For(
                target=loop.target,
                iter=loop.iter,
                body=[s for s in loop.body if not _is_phase_switch(s)],
                orelse=[],
            )
        )
        for loop in loops
    ]


ENCODED = [ast.dump(ast.parse(text).body[0]) for text in LOOPS]


def test_the_encoded_loops_are_the_codes() -> None:
    assert loops_of(SOURCE) == ENCODED


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("if dependent not in seen:", "if True:"),
        ("if not flat[dependent]:", "if flat[dependent] == 0 or True:"),
        ("                seen[dependent] = 1\n", "                pass\n"),
        ("                flat[dependent] = 1\n", "                flat[record] = 1\n"),
    ],
)
def test_a_mutant_loop_breaks_the_tie(old: str, new: str) -> None:
    assert SOURCE.count(old) == 1, old
    assert loops_of(SOURCE.replace(old, new)) != ENCODED
