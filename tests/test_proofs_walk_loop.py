"""The ``walk-loops`` obligation encodes the functions ``reference/gcv/reference/closure.py`` runs
for Verify, from entry to return: ``dependency_walk``, the ``_path_to`` it returns on rejection, and
the naming of its answer, each read from the source as a syntax tree, are the ones the proof module
states; a change to a loop, or at any point outside the loops, in a copy of the source, breaks the
tie."""

from __future__ import annotations

from pathlib import Path

import pytest

import gcv.reference.closure
from gcv.proofs.obligations.walk_loop import CODE
from tests.test_proofs_closure_loop import encoded, functions_of

SOURCE = Path(gcv.reference.closure.__file__).read_text()
ENCODED = encoded(CODE)


def test_the_encoded_functions_are_the_codes() -> None:
    assert functions_of(SOURCE, tuple(CODE)) == ENCODED


PLANTED = [
    # the loops
    ("if support not in marks:", "if True:"),
    ("                marks[support] = record + 1\n", "                marks[support] = 1\n"),
    (
        "                if not good[support]:\n"
        "                    return Walk(False, (), support, _path_to(marks, support))",
        "                if not good[record]:\n"
        "                    return Walk(False, (), support, _path_to(marks, support))",
    ),
    (
        "_path_to(marks, support))\n                queue.append(support)\n",
        "_path_to(marks, support))\n                queue.append(record)\n",
    ),
    ("if flat[support] == 0:", "if True:"),
    ("_path_to(flat, support))", "_path_to(marks, support))"),
    (
        "        path.append(marks[path[len(path) - 1]] - 1)\n",
        "        path.append(marks[path[len(path) - 1]] - 2)\n",
    ),
    (
        "    while marks[path[len(path) - 1]] - 1 != path[len(path) - 1]:",
        "    while marks[path[len(path) - 1]] - 1 != end:",
    ),
    ("        head += 1\n        for support", "        head += 2\n        for support"),
    # outside them: the start check, the early rejection, the entry, the exits, the naming
    ("    if not good[start]:\n        return Walk(False, (), start, (start,))\n", ""),
    ("    if not good[start]:\n", "    if not good[start] and start:\n"),
    (
        "        return Walk(False, (), start, (start,))",
        "        return Walk(False, (), start, ())",
    ),
    (
        "        return Walk(False, (), start, (start,))",
        "        return Walk(True, (), start, (start,))",
    ),
    ("    marks = {start: start + 1}\n", "    marks = {start: start}\n"),
    ("    queue = [start]\n", "    queue = [start, start]\n"),
    (
        "return Walk(False, (), support, _path_to(marks",
        "return Walk(False, (), record, _path_to(marks",
    ),
    ("flat = _flat_marks(marks, len(supports))", "flat = _flat_marks({}, len(supports))"),
    ("    if head < len(queue):\n        flat", "    if head < 0:\n        flat"),
    ("_path_to(marks, support))", "_path_to(marks, record))"),
    (
        "    return Walk(True, tuple(queue), None, ())\n",
        "    return Walk(True, tuple(queue[:-1]), None, ())\n",
    ),
    ("    path = [end]\n", "    path = [end, end]\n"),
    ("    return tuple(reversed(path))\n", "    return tuple(path)\n"),
    (
        "return _answer(candidate, True, names_of(self.closure, name), None, ())",
        "return _answer(candidate, True, names_of(self.path, name), None, ())",
    ),
    (
        "witness = None if self.witness is None else name[self.witness]",
        "witness = None if self.witness is None else name[0]",
    ),
    (
        "return _answer(candidate, False, (), witness, names_of(self.path, name))",
        "return _answer(candidate, False, (), witness, ())",
    ),
    ("    _set_witness(answer, witness)\n", "    _set_witness(answer, None)\n"),
    ("    _set_path(answer, path)\n", "    _set_path(answer, closure)\n"),
    (".named(name[start], name)", ".named(name[0], name)"),
]
"""Changes at every point of the encoded functions: each must break the tie.  The first
outside the loops, the exit dropping its last record and (in the closure-loops table)
``reverse_closure`` returning beta are the three a review planted; the obligations' twins
show the statements reject them as well."""


@pytest.mark.parametrize(("old", "new"), PLANTED)
def test_a_planted_change_breaks_the_tie(old: str, new: str) -> None:
    assert SOURCE.count(old) == 1, old
    assert functions_of(SOURCE.replace(old, new), tuple(CODE)) != ENCODED
