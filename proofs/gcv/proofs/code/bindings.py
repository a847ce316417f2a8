"""The module-level bindings of ``reference/gcv/reference/closure.py`` that decide which function
answers.

Nagini proves the walks over record numbers; what turns them into the Verifier's answers
is bound at module level, outside any proved function: ``PURE`` (which functions answer by
name), the field setters ``_answer`` stores a ``Grounding`` through, ``select_walk`` and
the ``COMPILED`` / ``QUERIES`` / ``WALK`` it yields.  These are checked on the module as
loaded (the source file, or a planted copy of it):

- each setter stores its own field (an answer built by ``_answer`` reads back the values
  it was given);
- ``PURE`` is ``Queries("pure Python", _grounding, _affected_star, _affected_star_active)``;
- ``PURE``'s three queries, on every map of up to ``records`` records (each Dep relation,
  each S_t, each start record), answer as ``gcv.spec.core`` defines: Verify accepts iff
  Dep*(alpha_c) is inside S_t, with Dep*(alpha_c) from alpha_c, or rejects with a witness
  outside S_t and a Dep path to it; Affected* is ``compute_affected_star``, each record
  once; Affected* within S_t is its members in S_t, in its order;
- ``select_walk`` lets a kernel answer only when it is built, not refused by
  ``GCV_PURE_WALK``, and its build is the one recorded as checked, and the module's
  ``COMPILED``, ``QUERIES`` and ``WALK`` are what it selected.

This is a check over a small scope, not a proof; the proofs are Nagini's (the walks) and
the Z3 obligations (the lemmas about every map).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from gcv.spec import core

__all__ = ["RECORDS", "binding_problems", "load_module", "load_planted"]

_PLANTED = "gcv.reference.closure_under_check"

RECORDS = 3
"""The small scope: every map of up to this many records."""


_KERNEL, _RECORD = "gcv.reference._walk", "gcv.reference._walk_checked"


def _fake_kernel(build: str | None, forced: bool = False) -> ModuleType:
    kernel = ModuleType(_KERNEL)
    kernel.__dict__.update(
        BUILD=build,
        PURE_FORCED=forced,
        walk="kernel walk",
        affected_star="kernel affected_star",
        affected_star_active="kernel affected_star_active",
    )
    return kernel


def _recorded(build: str) -> ModuleType:
    record = ModuleType(_RECORD)
    record.__dict__.update(BUILD=build)
    return record


def load_module(source: str, path: str, name: str) -> ModuleType:
    """``source`` (a copy of an engine module, planted or not) as a module of its own."""
    module = ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module  # dataclasses read their module while they are made
    try:
        exec(compile(source, path, "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


def load_planted(
    source: str,
    path: str,
    kernel: ModuleType | None = None,
    record: ModuleType | None = None,
    *,
    isolated: bool = False,
) -> ModuleType:
    """``source`` (a copy of ``reference/gcv/reference/closure.py``) as a module of its own; with
    ``isolated``, it finds ``kernel`` as the compiled walk and ``record`` as setup.py's
    record of the checked build (``None``: not there)."""
    module = ModuleType(_PLANTED)
    module.__file__ = path
    saved = {name: sys.modules.get(name) for name in (_PLANTED, _KERNEL, _RECORD)}
    sys.modules[_PLANTED] = module  # dataclasses read their module while they are made
    if isolated:  # None in sys.modules makes the import fail, as when the file is absent
        sys.modules[_KERNEL], sys.modules[_RECORD] = kernel, record  # type: ignore[assignment]
    try:
        exec(compile(source, path, "exec"), module.__dict__)
    finally:
        for name, value in saved.items():
            if value is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = value
    return module


def _setters(closure: ModuleType) -> list[str]:
    values = ("candidate", True, ("in closure",), "witness", ("on path",))
    answer = closure._answer(*values)
    fields = ("candidate", "grounded", "closure", "witness", "path")
    return [
        f"_answer stores {value!r} as another field than {field}"
        for field, value in zip(fields, values, strict=True)
        if getattr(answer, field) != value
    ]


def _pure(closure: ModuleType) -> list[str]:
    expected = closure.Queries(
        "pure Python", closure._grounding, closure._affected_star, closure._affected_star_active
    )
    return [] if expected == closure.PURE else [f"PURE is {closure.PURE}, not {expected}"]


def _maps(records: int) -> Iterator[tuple[list[list[int]], list[int]]]:
    for n in range(1, records + 1):
        for bits in range(1 << (n * n)):
            links = [[j for j in range(n) if bits >> (i * n + j) & 1] for i in range(n)]
            for flags in itertools.product((0, 1), repeat=n):
                yield links, list(flags)


def _answers(closure: ModuleType, records: int) -> list[str]:
    """Where ``PURE`` answers otherwise than gcv.spec.core defines (the first only)."""
    for links, good in _maps(records):
        n = len(links)
        name = [f"r{i}" for i in range(n)]
        d = core.DependencyMap(
            frozenset(name),
            frozenset(),
            {name[i]: core.ACTIVE if good[i] else core.WEAKENED for i in range(n)},
            frozenset((name[i], name[j]) for i in range(n) for j in links[i]),
        )
        dependents: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            for j in links[i]:
                dependents[j].append(i)
        for start in range(n):
            where = f"links {links}, S_t flags {good}, record {start}"
            problem = _grounding_problem(closure.PURE.grounding(links, good, name, start), d, start)
            if problem:
                return [f"Verify on {where}: {problem}"]
            star = closure.PURE.affected_star(dependents, name, start)
            if set(star) != core.compute_affected_star(d, name[start]) or len(set(star)) != len(
                star
            ):
                return [f"Affected* on {where}: {star}"]
            active = closure.PURE.affected_star_active(dependents, good, name, start)
            if list(active) != [r for r in star if good[name.index(r)]]:
                return [f"Affected* within S_t on {where}: {active}, Affected* {star}"]
    return []


def _grounding_problem(answer: Any, d: core.DependencyMap, start: int) -> str:
    alpha = f"r{start}"
    star = core.compute_dependency_closure(d, alpha)
    if answer.candidate != alpha or answer.grounded != core.is_grounded(d, alpha):
        return f"answered {answer}"
    if answer.grounded:
        if set(answer.closure) != star or answer.closure[0] != alpha or answer.path != ():
            return f"accepted with {answer}, Dep* {sorted(star)}"
        return ""
    path = answer.path
    linked = all((a, b) in d.dep for a, b in itertools.pairwise(path))
    if (
        answer.closure != ()
        or not path
        or path[0] != alpha
        or path[-1] != answer.witness
        or d.standing[answer.witness] in core.GOOD_STANDING
        or not linked
    ):
        return f"rejected with {answer}"
    return ""


_SITUATIONS = {
    "no kernel": (None, None, False),
    "GCV_PURE_WALK set": (_fake_kernel("b1", forced=True), _recorded("b1"), False),
    "no build recorded": (_fake_kernel("b1"), None, False),
    "another build recorded": (_fake_kernel("b1"), _recorded("b2"), False),
    "a build made outside setup.py": (_fake_kernel(None), None, False),
    "this build recorded": (_fake_kernel("b1"), _recorded("b1"), True),
}
"""What the module may find at import, and whether the kernel should then answer."""


def _selection(source: str, path: str) -> list[str]:
    """The module loaded in each situation answers with the kernel exactly when it should."""
    problems = []
    for situation, (kernel, record, kernel_answers) in _SITUATIONS.items():
        closure = load_planted(source, path, kernel, record, isolated=True)
        answers = closure.QUERIES.grounding == "kernel walk"
        built = kernel is not None and not kernel.PURE_FORCED
        if (
            answers != kernel_answers
            or (closure.QUERIES is closure.PURE) == kernel_answers
            or (closure.COMPILED is not None) != built
            or kernel_answers != closure.KERNEL_CHECKED
            or not closure.WALK.startswith(closure.QUERIES.walk)
        ):
            problems.append(f"with {situation}: {closure.WALK} ({closure.QUERIES.walk} answers)")
    return problems


def binding_problems(source: str, path: str, records: int = RECORDS) -> list[str]:
    """Every problem found with the module-level bindings of ``source``, a copy of
    ``reference/gcv/reference/closure.py`` (none: they hold)."""
    problems = []
    try:
        problems += _selection(source, path)
        closure = load_planted(source, path)
    except Exception as error:  # a binding to the wrong function may fail any way
        return [*problems, f"{type(error).__name__}: {error}"]
    for check in (_setters, _pure, lambda m: _answers(m, records)):
        try:
            problems += check(closure)
        except Exception as error:  # as above
            problems.append(f"{type(error).__name__}: {error}")
    return problems
