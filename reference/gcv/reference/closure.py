"""The two queries of Section 2, as pure functions over record numbers.

``dependency_walk`` is the Verify walk of Lemma 2.1 and ``reverse_closure`` is
Affected* of Definition 2.3.  They read the dependency map's numbering
(:attr:`~gcv.reference.depmap.DependencyMap.numbering`): records numbered 0 .. n-1,
Dep and its reverse index as lists of numbers, and S_t as one flag per record.
They are pure functions over plain lists, so CrossHair searches exactly the code
the engine runs; the Verifier names the numbers back.

Numbers rather than identifiers because the walks then index lists instead of
hashing strings: an order of magnitude faster on maps of 10^6 records, with the
same visiting order (links are kept in the order they were recorded).

References
----------
Grounded Continuation: A Linear-Time Runtime Verifier for LLM Conversations,
Section 2 ("The runtime check", "Retraction queries") and Appendix A.2.
"""

from __future__ import annotations

import importlib
from array import array
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, fields
from itertools import pairwise
from operator import itemgetter
from types import ModuleType
from typing import NamedTuple

import icontract

from gcv.reference.identifiers import RecordId

__all__ = [
    "COMPILED",
    "KERNEL_CHECKED",
    "PURE",
    "QUERIES",
    "WALK",
    "Answering",
    "Grounding",
    "Queries",
    "Walk",
    "dependency_walk",
    "in_good_standing",
    "names_of",
    "one_step_affected",
    "reverse_closure",
    "select_walk",
]


# -- the predicates the queries' contracts read (naive where they recompute a closure) --

Links = Sequence[Sequence[int]]
"""A relation over records 0 .. n-1: ``links[i]`` lists the records i links to."""


def is_relation_over_numbers(links: Links) -> bool:
    """Check that every link stays among the numbered records: a relation over Args_t
    (Definition 2.1)."""
    size = len(links)
    return all(0 <= j < size for targets in links for j in targets)


def is_numbered_relation(links: Links, good: Sequence[int]) -> bool:
    """Check that ``links`` and ``good`` number the same records and every link stays among
    them: Dep_t maps Args_t to subsets of Args_t (Definition 2.1)."""
    return len(links) == len(good) and is_relation_over_numbers(links)


def are_all_good(members: Iterable[int], good: Sequence[int]) -> bool:
    """Check that every member lies in S_t."""
    return all(good[member] for member in members)


def is_closed_under(links: Links, members: Collection[int]) -> bool:
    """Check that ``members`` contains links[i] for each of its members i."""
    inside = set(members)
    return all(j in inside for i in inside for j in links[i])


def is_link_path(links: Links, path: Sequence[int]) -> bool:
    """Check that each step of ``path`` follows a link."""
    return all(later in links[earlier] for earlier, later in pairwise(path))


@icontract.require(lambda links, start: 0 <= start < len(links), "alpha is a numbered record")
@icontract.require(
    lambda links: is_relation_over_numbers(links),
    "links relate numbered records only (Definition 2.1)",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda links, start, members, result: (
        not result or (start in members and is_closed_under(links, members))
    ),
    "Dep*(alpha) contains alpha and is closed under Dep",
    enabled=icontract.SLOW,
)
def is_reached_exactly(links: Links, start: int, members: Collection[int]) -> bool:
    """Check, naively, that ``members`` is exactly Dep*(start) (start included)."""
    return _grown_until_stable(links, {start}) == set(members)


def is_closed_from(links: Links, origin: int, members: Collection[int]) -> bool:
    """Check that ``members`` contains links[origin] and links[x] for each member x.

    With ``links`` the reverse index of Dep, ``members`` is then closed under the step
    X -> X | Affected(X) of Definition 2.3, so it contains Affected*(origin).
    """
    inside = set(members)
    return all(j in inside for j in links[origin]) and is_closed_under(links, inside)


@icontract.require(lambda links, origin: 0 <= origin < len(links), "beta is a numbered record")
@icontract.require(
    lambda links: is_relation_over_numbers(links),
    "links relate numbered records only (Definition 2.1)",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda links, origin, members, result: not result or is_closed_from(links, origin, members),
    "the union of the X_k is closed under the X_k step (Definition 2.3)",
    enabled=icontract.SLOW,
)
def is_least_closed_from(links: Links, origin: int, members: Collection[int]) -> bool:
    """Check, naively, that ``members`` is the union of Definition 2.3's X_k sequence
    (with ``links`` the reverse index of Dep and ``origin`` the withdrawn beta)."""
    return _grown_until_stable(links, set(links[origin])) == set(members)


def _grown_until_stable(links: Links, first: set[int]) -> set[int]:
    """X_0 = ``first``, X_(k+1) = X_k | links(X_k), until X_k stops growing: the naive
    fixed point both closure checks compare against (Definition 2.3's rounds)."""
    current = first
    while True:
        grown = current | {j for i in current for j in links[i]}
        if grown == current:
            return current
        current = grown


# Marks that cost what the walk visits (Proposition 2.5): a set (a dict for Verify's
# parents) while the walk is small against the map, then one entry per record once it would
# reach 1 in _FLAT_FROM_ONE_IN records (the queue and the next record's links), when
# allocating n entries costs at most _FLAT_FROM_ONE_IN times what the walk has visited and
# the links it is about to follow.  The set's probes land anywhere in a table of tens of MB
# on a walk that jumps about a large map; flat marks are one byte (Affected*) or one C int
# (Verify) per record.  On the 10^6-record fan this took the bare Affected* from 0.69 s to
# 0.26 s of CPU and Verify from 1.00 s to 0.40 s (docs/performance.md, "The walks").  Each
# query allocates its own marks, so queries on one map may run from several threads at once.
_FLAT_FROM_ONE_IN = 16


def _flags(marked: Iterable[int], size: int) -> bytearray:
    """One flag per record 0 .. size-1, set for the ``marked`` ones: Affected*'s flat marks."""
    flags = bytearray(size)
    for record in marked:
        flags[record] = True
    return flags


def _flat_marks(marks: dict[int, int], size: int) -> array[int]:
    """``marks`` as one int per record 0 .. size-1, 0 for the unmarked: Verify's flat marks."""
    flat = array("i", [0]) * size
    for record, mark in marks.items():
        flat[record] = mark
    return flat


def names_of(numbers: Sequence[int], name: Sequence[RecordId]) -> tuple[RecordId, ...]:
    """The records numbered ``numbers``, in order (``name`` as in the map's numbering)."""
    if len(numbers) < 2:  # itemgetter of one index returns the item, not a tuple
        return tuple([name[i] for i in numbers])
    named: tuple[RecordId, ...] = itemgetter(*numbers)(name)  # one C call: the fastest
    return named


class Walk(NamedTuple):
    """The Verify walk's answer over record numbers (see :class:`Grounding`).

    A named tuple rather than a frozen dataclass: it is built on every query, and a
    tuple is built in a third of the time.
    """

    grounded: bool
    closure: tuple[int, ...] = ()
    witness: int | None = None
    path: tuple[int, ...] = ()

    def named(self, candidate: RecordId, name: Sequence[RecordId]) -> Grounding:
        """The same answer with each number replaced by its record."""
        if self.grounded:
            return _answer(candidate, True, names_of(self.closure, name), None, ())
        witness = None if self.witness is None else name[self.witness]
        return _answer(candidate, False, (), witness, names_of(self.path, name))


@dataclass(frozen=True, slots=True)
class Grounding:
    """The answer of the Verify walk for a candidate's associated record alpha_c.

    Attributes
    ----------
    candidate:
        alpha_c, or ``None`` when no record is associated (then ungrounded).
    grounded:
        Whether Dep*(alpha_c) is inside S_t.
    closure:
        On acceptance, exactly Dep*(alpha_c) (alpha_c first, then breadth-first);
        empty on rejection.
    witness:
        On rejection, a record of Dep*(alpha_c) outside S_t (``None`` when there
        is no associated record).
    path:
        On rejection, Dep links from alpha_c to the witness (a shortest such path).
    """

    candidate: RecordId | None
    grounded: bool
    closure: tuple[RecordId, ...] = ()
    witness: RecordId | None = None
    path: tuple[RecordId, ...] = ()


# Every Verify answer is made here as the kernel makes it (reference/gcv/reference/_walk.c):
# object.__new__, then each field stored through its slot.  The frozen dataclass's own __init__
# stores each through object.__setattr__ and took 0.6 us of the pure Verify's 3.4 at 2,000 turns;
# this takes 0.36 (docs/performance.md).  The same fields and values, so the same answer.
_new_grounding = object.__new__
_set_candidate, _set_grounded, _set_closure, _set_witness, _set_path = (
    getattr(Grounding, field.name).__set__ for field in fields(Grounding)
)


def _answer(
    candidate: RecordId,
    grounded: bool,
    closure: tuple[RecordId, ...],
    witness: RecordId | None,
    path: tuple[RecordId, ...],
) -> Grounding:
    answer = _new_grounding(Grounding)
    _set_candidate(answer, candidate)
    _set_grounded(answer, grounded)
    _set_closure(answer, closure)
    _set_witness(answer, witness)
    _set_path(answer, path)
    return answer


def _accepts_within_good_standing(result: Walk, good: Sequence[int]) -> bool:
    return not result.grounded or are_all_good(result.closure, good)


def _accepts_a_closed_set(result: Walk, supports: Links, start: int) -> bool:
    return not result.grounded or (
        result.closure[0] == start and is_closed_under(supports, result.closure)
    )


def _accepts_exactly_dep_star(result: Walk, supports: Links, start: int) -> bool:
    return not result.grounded or is_reached_exactly(supports, start, result.closure)


def _rejects_with_a_witness(result: Walk, supports: Links, good: Sequence[int], start: int) -> bool:
    return result.grounded or (
        result.witness is not None
        and result.path[0] == start
        and result.path[-1] == result.witness
        and not good[result.witness]
        and is_link_path(supports, result.path)
    )


@icontract.require(
    lambda supports, good, start: 0 <= start < len(good) == len(supports),
    "the associated record alpha_c is in Args_t",
)
@icontract.require(
    lambda supports, good: is_numbered_relation(supports, good),
    "Definition 2.1: Dep_t maps Args_t to subsets of Args_t",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda result, good: _accepts_within_good_standing(result, good),
    "Lemma 2.1: the walk accepts only if Dep*(alpha_c) is inside S_t",
)
@icontract.ensure(
    lambda result, supports, start: _accepts_a_closed_set(result, supports, start),
    "Lemma 2.1: on acceptance the returned set contains alpha_c and is closed under Dep",
)
@icontract.ensure(
    lambda result, supports, good, start: _rejects_with_a_witness(result, supports, good, start),
    "Lemma 2.1: on rejection a Dep path leads from alpha_c to a record outside S_t",
)
@icontract.ensure(
    lambda result, supports, start: _accepts_exactly_dep_star(result, supports, start),
    "Lemma 2.1: on acceptance the walk returns exactly Dep*(alpha_c)",
    enabled=icontract.SLOW,
)
def dependency_walk(supports: Links, good: Sequence[int], start: int) -> Walk:
    """Walk Dep from ``start``; accept iff everything it transitively rests on is in S_t.

    Mirrors Lemma 2.1 (``gcv.spec.core.is_grounded``).

    Parameters
    ----------
    supports:
        Dep_t over record numbers: ``supports[i]`` lists Dep(record i).
    good:
        S_t: ``good[i]`` is true when record i is active or resolved.
    start:
        alpha_c, the number of the candidate's associated record.

    Returns
    -------
    Walk
        Accepted with exactly Dep*(start), or rejected with a witness outside S_t
        and a shortest Dep path to it.

    Examples
    --------
    >>> dependency_walk([[1, 2], [], []], [1, 1, 1], 0).closure
    (0, 1, 2)
    >>> dependency_walk([[1], [2], []], [1, 1, 0], 0).path
    (0, 1, 2)

    Notes
    -----
    Breadth-first with marks: each record is checked against S_t on its first
    visit and expanded at most once, so the walk takes
    O(|Dep*(start)| + the Dep links leaving it), within O(|Args| + |Dep|)
    (Proposition 2.5).  Cycles are harmless.  The marks (each the record a record
    was first reached from) are a dict until the walk would reach 1/16 of the
    records, then one int per record (``_flat_marks``): the same answer, with
    allocation kept within the bound.
    """
    if not good[start]:
        return Walk(False, (), start, (start,))
    # marks[r] is 1 + the record r was first reached from (the start from itself), and
    # unmarked records are absent (the dict) or 0 (the flat marks, from _flat_marks).
    # The queue is a list read at ``head`` while it grows: breadth-first with no deque.
    marks = {start: start + 1}
    queue = [start]
    head = 0
    sparse_below = len(supports) // _FLAT_FROM_ONE_IN
    while head < len(queue) and len(queue) + len(supports[queue[head]]) <= sparse_below:
        record = queue[head]
        head += 1
        for support in supports[record]:
            if support not in marks:
                marks[support] = record + 1
                if not good[support]:
                    return Walk(False, (), support, _path_to(marks, support))
                queue.append(support)
    if head < len(queue):
        flat = _flat_marks(marks, len(supports))
        while head < len(queue):
            record = queue[head]
            head += 1
            for support in supports[record]:
                if flat[support] == 0:
                    flat[support] = record + 1
                    if not good[support]:
                        return Walk(False, (), support, _path_to(flat, support))
                    queue.append(support)
    return Walk(True, tuple(queue), None, ())


def _path_to(marks: dict[int, int] | array[int], end: int) -> tuple[int, ...]:
    # Back from ``end`` along the marks to the start, the one record marked from itself.
    path = [end]
    while marks[path[len(path) - 1]] - 1 != path[len(path) - 1]:
        path.append(marks[path[len(path) - 1]] - 1)
    return tuple(reversed(path))


@icontract.require(
    lambda dependents, withdrawn: 0 <= withdrawn < len(dependents), "beta is in Args_t"
)
@icontract.ensure(
    lambda result, dependents, withdrawn: set(result) == set(dependents[withdrawn]),
    "Definition 2.3: Affected(beta) = {alpha : beta in Dep(alpha)}",
)
def one_step_affected(dependents: Links, withdrawn: int) -> tuple[int, ...]:
    """Affected(beta): the records with a direct Dep link to ``withdrawn``.

    Mirrors Definition 2.3 (``gcv.spec.core.compute_affected``).

    >>> one_step_affected([[1], [2], []], 0)
    (1,)
    """
    return tuple(dependents[withdrawn])


@icontract.require(
    lambda dependents, withdrawn: 0 <= withdrawn < len(dependents), "beta is in Args_t"
)
@icontract.require(
    lambda dependents: is_relation_over_numbers(dependents),
    "Definition 2.1: Dep_t's reverse index relates records of Args_t",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda result, dependents, withdrawn: is_closed_from(dependents, withdrawn, result),
    "Definition 2.3: Affected*(beta) contains Affected(beta) and is closed under the X_k step",
)
@icontract.ensure(
    lambda result: len(set(result)) == len(result), "each visited record is output once"
)
@icontract.ensure(
    lambda result, dependents, withdrawn: is_least_closed_from(dependents, withdrawn, result),
    "Definition 2.3: Affected*(beta) is exactly the union of the X_k",
    enabled=icontract.SLOW,
)
def reverse_closure(dependents: Links, withdrawn: int) -> tuple[int, ...]:
    """Affected*(beta): every record with a non-empty Dep path to ``withdrawn``.

    Mirrors Definition 2.3 and Corollary 2.4 (``gcv.spec.core.compute_affected_star``).

    Parameters
    ----------
    dependents:
        The reverse index of Dep_t over record numbers: ``dependents[i]`` lists the
        records resting on record i.
    withdrawn:
        beta, the number of the premise record whose retraction is queried.

    Returns
    -------
    tuple of int
        Affected*(beta), breadth-first from beta, each record once.  Records out of
        standing are included, and ``withdrawn`` itself is included exactly when
        it lies on a dependency cycle.

    Examples
    --------
    >>> sorted(reverse_closure([[1], [2], [3, 1], []], 0))
    [1, 2, 3]
    >>> sorted(reverse_closure([[1], [0]], 0))
    [0, 1]

    Notes
    -----
    Visits {beta} | Affected*(beta) and the reverse links leaving them:
    O(1 + |Affected*(beta)| + m_beta), independent of the history length
    (Proposition 2.5); the marks move from a set to flags as in
    :func:`dependency_walk`.
    """
    # Marked when first reached, so each record enters the queue once (beta may
    # enter twice: as the start and, on a cycle, as a dependent).
    seen: set[int] = set()
    queue = [withdrawn]
    head = 0
    sparse_below = len(dependents) // _FLAT_FROM_ONE_IN
    while head < len(queue) and len(queue) + len(dependents[queue[head]]) <= sparse_below:
        record = queue[head]
        head += 1
        for dependent in dependents[record]:
            if dependent not in seen:
                seen.add(dependent)
                queue.append(dependent)
    if head < len(queue):
        flags = _flags(seen, len(dependents))
        while head < len(queue):
            record = queue[head]
            head += 1
            for dependent in dependents[record]:
                if not flags[dependent]:
                    flags[dependent] = True
                    queue.append(dependent)
    return tuple(queue[1:])


@icontract.require(
    lambda records, good: all(0 <= record < len(good) for record in records),
    "the records are numbered records of the map, S_t marked for each (Definition 2.1)",
)
@icontract.ensure(lambda result, good: are_all_good(result, good), "every record kept is in S_t")
def in_good_standing(records: Sequence[int], good: Sequence[int]) -> list[int]:
    """The members of ``records`` in S_t, in order: Affected*(beta) within S_t, "the
    currently active dependents" (Section 2), is ``in_good_standing(reverse_closure(...))``.

    >>> in_good_standing((2, 0, 1), [1, 0, 1])  # record 1 is out of S_t
    [2, 0]
    """
    # A loop, not a filtering comprehension: the form the source proof reads (Nagini).
    active: list[int] = []
    for record in records:
        if good[record]:
            active.append(record)
    return active


# -- the queries by name, as the Verifier asks them: compiled when the kernel is built ----


def _grounding(
    supports: Links, good: Sequence[int], name: Sequence[RecordId], start: int
) -> Grounding:
    return dependency_walk(supports, good, start).named(name[start], name)


def _affected_star(
    dependents: Links, name: Sequence[RecordId], withdrawn: int
) -> tuple[RecordId, ...]:
    return names_of(reverse_closure(dependents, withdrawn), name)


def _affected_star_active(
    dependents: Links, good: Sequence[int], name: Sequence[RecordId], withdrawn: int
) -> tuple[RecordId, ...]:
    return names_of(in_good_standing(reverse_closure(dependents, withdrawn), good), name)


class Queries(NamedTuple):
    """Verify's walk, Affected* and Affected* within S_t over the map's numbering, answering
    with records (``name`` as in :class:`~gcv.reference.depmap.Numbering`), and which walk
    answers them.  The contracts are on the :class:`~gcv.reference.verifier.Verifier`'s
    queries, which call these, so a run with contracts checks either walk's answers."""

    walk: str
    grounding: Callable[[Links, Sequence[int], Sequence[RecordId], int], Grounding]
    affected_star: Callable[[Links, Sequence[RecordId], int], tuple[RecordId, ...]]
    affected_star_active: Callable[
        [Links, Sequence[int], Sequence[RecordId], int], tuple[RecordId, ...]
    ]


PURE = Queries("pure Python", _grounding, _affected_star, _affected_star_active)
"""The definition: the walks above, named (and the fallback)."""


def _kernel() -> ModuleType | None:
    # Absent when the install had no C compiler: then the pure walk answers.
    try:
        return importlib.import_module("gcv.reference._walk")
    except ImportError:
        return None


def _checked_build() -> str | None:
    # setup.py writes this module beside the kernel only when the build it names passed
    # gcv.reference.walk_check (equal to the pure walk on every small map and long ones).
    try:
        checked = importlib.import_module("gcv.reference._walk_checked")
    except ImportError:
        return None
    build: str | None = checked.BUILD
    return build


class Answering(NamedTuple):
    """Which walk answers the Verifier's queries, and why."""

    compiled: Queries | None
    queries: Queries
    why: str


def select_walk(kernel: ModuleType | None, checked_build: str | None) -> Answering:
    """The kernel's queries answer only when it is built, ``GCV_PURE_WALK`` does not ask for
    the pure walk, and ``checked_build`` (what setup.py recorded) names this very build."""
    if kernel is None:
        return Answering(None, PURE, f"{PURE.walk} (the kernel is not built)")
    if kernel.PURE_FORCED:
        return Answering(None, PURE, f"{PURE.walk} (GCV_PURE_WALK is set)")
    compiled = Queries(
        "compiled (C)", kernel.walk, kernel.affected_star, kernel.affected_star_active
    )
    if kernel.BUILD is None or checked_build != kernel.BUILD:
        return Answering(compiled, PURE, f"{PURE.walk} (this build of the kernel is unchecked)")
    return Answering(compiled, compiled, f"{compiled.walk}, checked against the pure walk")


_ANSWERING = select_walk(_kernel(), _checked_build())

COMPILED = _ANSWERING.compiled
"""The same queries compiled from ``reference/gcv/reference/_walk.c``, or ``None`` when it is not
built or ``GCV_PURE_WALK`` asks for the pure walk (set to anything but "" or "0")."""

QUERIES = _ANSWERING.queries
"""The queries the Verifier asks: the kernel's only when this build of it was checked."""

KERNEL_CHECKED = QUERIES is COMPILED
"""Whether the kernel answers: this build of it passed the check against the pure walk."""

WALK = _ANSWERING.why
"""Which walk answers, and why (``gcv --version``)."""
