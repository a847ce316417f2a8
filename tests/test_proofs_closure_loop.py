"""The ``closure-loops`` obligation encodes the functions ``reference/gcv/reference/closure.py``
runs for Affected* and Affected* within S_t, from entry to return: each, read from the source as a
syntax tree (its docstring and contracts left out), is the one the proof module states; a change to
the loop, or at any point outside it, in a copy of the source, breaks the tie."""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import pytest

import gcv.reference.closure
from gcv.proofs.obligations.closure_loop import CODE

SOURCE = Path(gcv.reference.closure.__file__).read_text()


def _bare(function: ast.FunctionDef) -> str:
    """The function without its contracts and its docstring, as a syntax tree."""
    bare = copy.copy(function)
    bare.decorator_list = []
    if ast.get_docstring(function) is not None:
        bare.body = function.body[1:]
    return ast.dump(bare)


def functions_of(source: str, names: tuple[str, ...]) -> dict[str, str]:
    """The functions ``names`` of ``source`` (``Class.method`` for a method), bare."""
    tree = ast.parse(source).body
    pairs = [(node.name, node) for node in tree if isinstance(node, ast.FunctionDef)]
    pairs += [
        (f"{node.name}.{method.name}", method)
        for node in tree
        if isinstance(node, ast.ClassDef)
        for method in node.body
        if isinstance(method, ast.FunctionDef)
    ]
    return {name: _bare(function) for name, function in pairs if name in names}


def encoded(code: dict[str, str]) -> dict[str, str]:
    """The functions a proof module states, bare."""
    functions = {name: ast.parse(text).body[0] for name, text in code.items()}
    assert all(isinstance(f, ast.FunctionDef) for f in functions.values()), code
    return {name: _bare(f) for name, f in functions.items() if isinstance(f, ast.FunctionDef)}


ENCODED = encoded(CODE)


def test_the_encoded_functions_are_the_codes() -> None:
    assert functions_of(SOURCE, tuple(CODE)) == ENCODED


PLANTED = [
    # the loop
    ("if dependent not in seen:", "if True:"),
    ("                seen.add(dependent)\n", "                pass\n"),
    (
        "seen.add(dependent)\n                queue.append(dependent)\n",
        "seen.add(dependent)\n                queue.append(record)\n",
    ),
    ("if not flags[dependent]:", "if True:"),
    ("        head += 1\n        for dependent", "        head += 2\n        for dependent"),
    # outside it: the entry, the return, the filter, the renaming
    ("    seen: set[int] = set()\n", "    seen: set[int] = {withdrawn}\n"),
    ("flags = _flags(seen, len(dependents))", "flags = _flags(set(), len(dependents))"),
    ("    if head < len(queue):\n        flags", "    if head < 0:\n        flags"),
    ("    queue = [withdrawn]\n", "    queue = [withdrawn, withdrawn]\n"),
    ("    return tuple(queue[1:])\n", "    return tuple(queue)\n"),
    (
        "names_of(reverse_closure(dependents, withdrawn), name)",
        "names_of(reverse_closure(dependents, withdrawn)[1:], name)",
    ),
    (
        "in_good_standing(reverse_closure(dependents, withdrawn), good)",
        "reverse_closure(dependents, withdrawn)",
    ),
    (
        "        if good[record]:\n            active.append",
        "        if True:\n            active.append",
    ),
    ("    if len(numbers) < 2:", "    if len(numbers) < 1:"),
    ("        return tuple([name[i] for i in numbers])", "        return tuple(numbers)"),
    ("itemgetter(*numbers)(name)  # one", "itemgetter(*numbers[1:])(name)  # one"),
]
"""Changes at every point of the encoded functions: each must break the tie."""


@pytest.mark.parametrize(("old", "new"), PLANTED)
def test_a_planted_change_breaks_the_tie(old: str, new: str) -> None:
    assert SOURCE.count(old) == 1, old
    assert functions_of(SOURCE.replace(old, new), tuple(CODE)) != ENCODED
