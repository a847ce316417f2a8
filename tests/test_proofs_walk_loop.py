"""The ``walk-loops`` obligation encodes the loops ``reference/closure.py`` runs: the loop of
``dependency_walk`` and the loop of ``_path_to``, read from the source, are the ones the
proof module states, and a mutant of either, in a copy of the source, breaks the tie."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gcv.reference.closure
from gcv.proofs.obligations.walk_loop import LOOPS
from tests.test_proofs_closure_loop import loops_of

SOURCE = Path(gcv.reference.closure.__file__).read_text()


def path_loop_of(source: str) -> list[str]:
    """``_path_to``'s loop."""
    function = next(
        n
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.FunctionDef) and n.name == "_path_to"
    )
    return [ast.dump(n) for n in function.body if isinstance(n, ast.While)]


def encoded_of(source: str) -> list[str]:
    return [*loops_of(source, "dependency_walk"), *path_loop_of(source)]


ENCODED = [ast.dump(ast.parse(text).body[0]) for text in LOOPS]


def test_the_encoded_loops_are_the_codes() -> None:
    assert encoded_of(SOURCE) == ENCODED


@pytest.mark.slow
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("if support not in marks:", "if True:"),
        ("                marks[support] = record + 1\n", "                marks[support] = 1\n"),
        (
            "                if not good[support]:\n"
            "                    return Walk(False, (), support, _path_to(marks, support))",
            "                if not good[record]:\n"
            "                    return Walk(False, (), support, _path_to(marks, support))",
        ),
        ("                queue.append(support)\n", "                queue.append(record)\n"),
        ("        path.append(step)\n", "        path.append(step - 1)\n"),
        ("(step := marks[path[-1]] - 1) != path[-1]", "(step := marks[path[-1]] - 1) != end"),
    ],
)
def test_a_mutant_loop_breaks_the_tie(old: str, new: str) -> None:
    assert SOURCE.count(old) == 1, old
    assert encoded_of(SOURCE.replace(old, new)) != ENCODED
