"""The loop of ``gcv.reference.closure.dependency_walk`` (the Verify walk of Lemma 2.1) and of
the path it returns on rejection, ``_path_to``: loop invariants and decreasing measures,
unbounded.

The code's own state over record numbers, as ``closure-loops`` encodes ``reverse_closure``:
``queue`` (a list read while it grows: ``head`` records read, ``tail`` its length), the
marks, and the inner loop's index ``k`` over ``supports[record]``.  ``mark[r]`` is 0 for
"not marked" (``r not in marks``) and otherwise 1 + the record r was first reached from
(``marks[r] = record + 1``; the start is its own parent).  The two nested loops are one
transition system: read the next record; visit
``supports[record][k]`` (marked already: step on; unmarked and in S_t: mark, append, step
on); end of the supports.  An unmarked support outside S_t is marked and returned at once
with ``_path_to(marks, support)``, whose loop follows the parent marks back to the start.
Ghost variables the code does not keep: each marked record's queue position ``where``, the
index ``via`` of its link in its parent's supports, and a permutation of the n record
numbers whose first ``tail`` entries are the marked records (its inverse ``place``), which
bounds ``tail`` by n without counting.

Dep*(start) is {start} together with ``path``, the records with a non-empty Dep path from
the start (``closure_loop.Input`` over ``supports``: its closure axiom, and its induction
rule for the final marks).

Checks: the start outside S_t is rejected with itself as the witness and the path (start,);
otherwise the invariant holds on entry and is preserved by each step; on the outer loop's
exit the walk accepts with ``queue`` = Dep*(start), start first, each record once, inside
S_t; on rejection the witness is in Dep*(start) and outside S_t, and the marks satisfy the
path loop's hypotheses; that loop's invariant holds on entry, is preserved, and on exit the
path, reversed, is a Dep path from the start to the witness.  Measures: (n + 1 - head,
inner, degree - k) lexicographically for the walk, the position in the queue of the path's
last record for the path loop; each decreases and is bounded below.

The code walks in two phases, marks in the dict ``marks`` and then, once the walk would
reach 1 in ``_FLAT_FROM_ONE_IN`` records, in ``flat`` (``_flat_marks(marks, n)``: one int
per record, ``marks[r]`` where r is marked and 0 elsewhere); both loops take the same steps
and ``_path_to`` reads either.  ``mark`` is both: the dict with 0 for an absent record, then
the flat marks, so the switch changes no state of the encoding, and the first loop's extra
condition only decides which loop takes the next "read" step.  That ``_flat_marks`` keeps
the marks is stated here, not proved; ``tests/test_closure.py`` checks every split of a walk
into the two phases against the spec.

``CODE`` is the code the encoding follows, whole functions from entry to return, and
``tests/test_proofs_walk_loop.py`` checks it is still the code of
``reference/gcv/reference/closure.py``. Each statement outside the loops has its part: ``if not
good[start]: return Walk(False, (), start, (start,))`` is the first check (its hypothesis ``not
good[start]``; the entry check assumes ``good[start]``, the branch not taken); ``marks = {start:
start + 1}; queue = [start]`` is :func:`entry`; ``return Walk(True, tuple(queue))`` is
:func:`accepted` over ``queue[0:tail]``; ``path = [end]`` is the path loop's entry and ``return
tuple(reversed(path))`` its exit, :func:`is_dep_path_back` reading the list backwards.
``Walk.named`` and ``_grounding`` rename numbers to records (the numbering is one-to-one), so what
is proved of the numbers holds of the named answer.  The twins include the three changes a review
planted outside the loops, so the statements tell them apart too.

Whole, at about 790 lines: it is one obligation, the Verify walk's loops as one transition
system, and its invariant, its measure and its checks read the same encoding of the code's
state; split, the invariant would sit away from the transitions it must be preserved by.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import z3

from gcv.proofs.obligations.closure_loop import (
    Input,
    IntArray,
    decreases,
    measure,
    permutation,
    value,
)
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove
from gcv.reference.closure import dependency_walk

__all__ = ["CODE", "OBLIGATION"]

CODE = {
    "dependency_walk": """
def dependency_walk(supports: Links, good: Sequence[int], start: int) -> Walk:
    if not good[start]:
        return Walk(False, (), start, (start,))
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
""",
    "_path_to": """
def _path_to(marks: dict[int, int] | array[int], end: int) -> tuple[int, ...]:
    path = [end]
    while marks[path[len(path) - 1]] - 1 != path[len(path) - 1]:
        path.append(marks[path[len(path) - 1]] - 1)
    return tuple(reversed(path))
""",
    "Walk.named": """
def named(self, candidate: RecordId, name: Sequence[RecordId]) -> Grounding:
    if self.grounded:
        return _answer(candidate, True, names_of(self.closure, name), None, ())
    witness = None if self.witness is None else name[self.witness]
    return _answer(candidate, False, (), witness, names_of(self.path, name))
""",
    "_answer": """
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
""",
    "_grounding": """
def _grounding(
    supports: Links, good: Sequence[int], name: Sequence[RecordId], start: int
) -> Grounding:
    return dependency_walk(supports, good, start).named(name[start], name)
""",
}
"""The functions this module encodes, from entry to return (docstrings and contracts left
out), as ``reference/gcv/reference/closure.py`` writes them: Verify's walk, its path, and the answer
it names."""

_i, _j, _x = z3.Ints("i j x")


@dataclass(frozen=True)
class LoopState:
    """The walk's state (``mark``: 0, or 1 + the parent) and its ghost variables."""

    queue: IntArray
    tail: z3.ArithRef
    head: z3.ArithRef
    mark: IntArray
    inner: z3.BoolRef
    k: z3.ArithRef
    where: IntArray
    via: IntArray
    order: IntArray
    place: IntArray

    @staticmethod
    def fresh(prefix: str) -> LoopState:
        ints = z3.IntSort()
        return LoopState(
            z3.Array(f"{prefix}.queue", ints, ints),
            z3.Int(f"{prefix}.tail"),
            z3.Int(f"{prefix}.head"),
            z3.Array(f"{prefix}.mark", ints, ints),
            z3.Bool(f"{prefix}.inner"),
            z3.Int(f"{prefix}.k"),
            z3.Array(f"{prefix}.where", ints, ints),
            z3.Array(f"{prefix}.via", ints, ints),
            z3.Array(f"{prefix}.order", ints, ints),
            z3.Array(f"{prefix}.place", ints, ints),
        )

    def record(self) -> z3.ArithRef:
        """The record the inner loop expands: the last one read."""
        return self.queue[self.head - 1]

    def support(self, a: Input) -> z3.ArithRef:
        """``supports[record][k]``, the support the inner loop looks at."""
        return a.link[self.record()][self.k]

    def marked(self, r: z3.ArithRef) -> z3.BoolRef:
        return self.mark[r] != 0


def dep_star(a: Input, r: z3.ArithRef) -> z3.BoolRef:
    """r in Dep*(start): the start, or a record with a non-empty Dep path from it."""
    return z3.Or(r == a.beta, a.path(r))


def entry(a: Input, order: IntArray, place: IntArray) -> LoopState:
    """``marks = {start: start + 1}; queue = [start]``."""
    ints = z3.IntSort()
    return LoopState(
        z3.K(ints, a.beta),
        z3.IntVal(1),
        z3.IntVal(0),
        z3.Store(z3.K(ints, z3.IntVal(0)), a.beta, a.beta + 1),
        z3.BoolVal(False),
        z3.IntVal(0),
        z3.K(ints, z3.IntVal(0)),
        z3.K(ints, z3.IntVal(0)),
        order,
        place,
    )


def parents(a: Input, mark: IntArray, where: IntArray, via: IntArray) -> z3.BoolRef:
    """The marks are a tree rooted at the start: the start is its own parent, and every other
    marked record's parent is marked, earlier in the queue, and has it among its supports."""
    parent = mark[_x] - 1
    return z3.And(
        mark[a.beta] == a.beta + 1,
        z3.ForAll(
            [_x],
            z3.Implies(
                mark[_x] != 0,
                z3.And(a.record(_x), where[_x] >= 0, dep_star(a, _x)),
            ),
        ),
        z3.ForAll(
            [_x],
            z3.Implies(
                z3.And(mark[_x] != 0, _x != a.beta),
                z3.And(
                    mark[parent] != 0,
                    where[parent] < where[_x],
                    via[_x] >= 0,
                    via[_x] < a.degree[parent],
                    a.link[parent][via[_x]] == _x,
                ),
            ),
        ),
    )


def invariant(a: Input, good: IntArray, s: LoopState) -> z3.BoolRef:
    """The walk's loop invariant."""
    expanded = z3.If(s.inner, s.head - 1, s.head)
    return z3.And(
        s.queue[0] == a.beta,
        s.tail >= 1,
        s.tail <= a.n,
        s.head >= 0,
        s.head <= s.tail,
        z3.Implies(s.inner, z3.And(s.head >= 1, s.k >= 0, s.k <= a.degree[s.record()])),
        # the queue is the marked records, each once, all in S_t
        z3.ForAll(
            [_i],
            z3.Implies(
                z3.And(_i >= 0, _i < s.tail),
                z3.And(s.marked(s.queue[_i]), s.where[s.queue[_i]] == _i, good[s.queue[_i]]),
            ),
        ),
        z3.ForAll(
            [_x],
            z3.Implies(
                s.marked(_x),
                z3.And(s.where[_x] < s.tail, s.queue[s.where[_x]] == _x),
            ),
        ),
        parents(a, s.mark, s.where, s.via),
        # every record read and expanded has its supports marked
        z3.ForAll(
            [_i, _j],
            z3.Implies(
                z3.And(_i >= 0, _i < expanded, _j >= 0, _j < a.degree[s.queue[_i]]),
                s.marked(a.link[s.queue[_i]][_j]),
            ),
        ),
        z3.Implies(
            s.inner,
            z3.ForAll(
                [_j],
                z3.Implies(z3.And(_j >= 0, _j < s.k), s.marked(a.link[s.record()][_j])),
            ),
        ),
        # the ghost permutation lists the marked records first
        permutation(a, s.order, s.place),
        z3.ForAll([_x], z3.Implies(a.record(_x), s.marked(_x) == (s.place[_x] < s.tail))),
    )


def read(s: LoopState) -> LoopState:
    """``for record in queue``: read the next record."""
    return replace(s, head=s.head + 1, inner=z3.BoolVal(True), k=z3.IntVal(0))


def visit(a: Input, s: LoopState) -> LoopState:
    """One pass of the inner loop on a support marked already or in S_t: an unmarked one is
    marked with its parent and appended (the ghost permutation swaps it into place)."""
    support = s.support(a)
    new = z3.Not(s.marked(support))
    slot, displaced = s.place[support], s.order[s.tail]
    return LoopState(
        z3.If(new, z3.Store(s.queue, s.tail, support), s.queue),
        z3.If(new, s.tail + 1, s.tail),
        s.head,
        z3.If(new, z3.Store(s.mark, support, s.record() + 1), s.mark),
        s.inner,
        s.k + 1,
        z3.If(new, z3.Store(s.where, support, s.tail), s.where),
        z3.If(new, z3.Store(s.via, support, s.k), s.via),
        z3.If(new, z3.Store(z3.Store(s.order, s.tail, support), slot, displaced), s.order),
        z3.If(new, z3.Store(z3.Store(s.place, displaced, slot), support, s.tail), s.place),
    )


def finish(s: LoopState) -> LoopState:
    """The inner loop is exhausted: back to the outer loop's head."""
    return replace(s, inner=z3.BoolVal(False))


def _steps(
    a: Input, good: IntArray, s: LoopState, *, checks_standing: bool = True
) -> dict[str, tuple[z3.BoolRef, LoopState]]:
    """Each step with its guard; a twin visits a support outside S_t as one in it
    (``checks_standing``)."""
    support = s.support(a)
    kept = z3.Or(s.marked(support), good[support]) if checks_standing else z3.BoolVal(True)
    return {
        "read the next record": (z3.And(z3.Not(s.inner), s.head < s.tail), read(s)),
        "visit a support": (
            z3.And(s.inner, s.k < a.degree[s.record()], kept),
            visit(a, s),
        ),
        "end of the supports": (z3.And(s.inner, s.k >= a.degree[s.record()]), finish(s)),
    }


def _rejects(a: Input, good: IntArray, s: LoopState) -> z3.BoolRef:
    """The guard of the early return: an unmarked support outside S_t."""
    support = s.support(a)
    return z3.And(
        s.inner,
        s.k < a.degree[s.record()],
        z3.Not(s.marked(support)),
        z3.Not(good[support]),
    )


def _measure(a: Input, s: LoopState) -> tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef]:
    return measure(a, s.head, s.inner, s.record(), s.k)


def accepted(
    a: Input, good: IntArray, s: LoopState, *, returned: z3.ArithRef | None = None
) -> z3.BoolRef:
    """``Walk(True, tuple(queue))``: the ``returned`` first entries of the queue (all
    ``tail`` of them, as ``tuple(queue)`` takes; a twin takes fewer) are Dep*(start), the
    start first, each record once, every one in S_t."""
    end = s.tail if returned is None else returned
    listed = z3.Exists([_i], z3.And(_i >= 0, _i < end, s.queue[_i] == _x))
    return z3.And(
        s.queue[0] == a.beta,
        z3.ForAll([_x], dep_star(a, _x) == listed),
        z3.ForAll([_i], z3.Implies(z3.And(_i >= 0, _i < end), good[s.queue[_i]])),
        z3.ForAll(
            [_i, _j],
            z3.Implies(
                z3.And(_i >= 0, _j >= 0, _i < end, _j < end, s.queue[_i] == s.queue[_j]),
                _i == _j,
            ),
        ),
    )


@dataclass(frozen=True)
class Path:
    """``_path_to(marks, end)``: the list built so far, read from its first element."""

    path: IntArray
    length: z3.ArithRef

    @staticmethod
    def fresh(prefix: str) -> Path:
        ints = z3.IntSort()
        return Path(z3.Array(f"{prefix}.path", ints, ints), z3.Int(f"{prefix}.length"))

    def last(self) -> z3.ArithRef:
        return self.path[self.length - 1]


def path_invariant(a: Input, mark: IntArray, end: z3.ArithRef, p: Path) -> z3.BoolRef:
    """Each element after the first is the parent of the one before, none of which is the
    start; all are marked."""
    return z3.And(
        p.length >= 1,
        p.path[0] == end,
        z3.ForAll([_i], z3.Implies(z3.And(_i >= 0, _i < p.length), mark[p.path[_i]] != 0)),
        z3.ForAll(
            [_i],
            z3.Implies(
                z3.And(_i >= 0, _i < p.length - 1),
                z3.And(p.path[_i] != a.beta, p.path[_i + 1] == mark[p.path[_i]] - 1),
            ),
        ),
    )


def path_step(mark: IntArray, p: Path) -> Path:
    """``path.append(step)``, with ``step = marks[path[-1]] - 1``."""
    return Path(z3.Store(p.path, p.length, mark[p.last()] - 1), p.length + 1)


def path_continues(mark: IntArray, p: Path) -> z3.BoolRef:
    """The ``while`` condition: ``marks[path[-1]] - 1 != path[-1]``."""
    return mark[p.last()] - 1 != p.last()


def is_dep_path_back(a: Input, end: z3.ArithRef, p: Path) -> z3.BoolRef:
    """``tuple(reversed(path))`` is a Dep path from the start to ``end``: it starts at the
    start, ends at ``end``, and each record rests on the next by a Dep link."""
    linked = z3.Exists(
        [_j],
        z3.And(
            _j >= 0,
            _j < a.degree[p.path[_i + 1]],
            a.link[p.path[_i + 1]][_j] == p.path[_i],
        ),
    )
    return z3.And(
        p.last() == a.beta,
        p.path[0] == end,
        z3.ForAll([_i], z3.Implies(z3.And(_i >= 0, _i < p.length - 1), linked)),
    )


def _one_record(a: Input, good: IntArray, *, loops: bool, in_s_t: bool = True) -> list[z3.BoolRef]:
    """A witness input: one record, the start, in S_t unless not ``in_s_t``, resting on
    itself when ``loops``."""
    ints = z3.IntSort()
    return [
        a.n == 1,
        a.beta == 0,
        a.degree == z3.K(ints, z3.IntVal(1 if loops else 0)),
        a.link == z3.K(ints, z3.K(ints, z3.IntVal(0))),
        z3.ForAll([_x], a.path(_x) == z3.And(z3.BoolVal(loops), _x == 0)),
        good == z3.K(ints, z3.BoolVal(in_s_t)),
    ]


def _two_records(a: Input, good: IntArray) -> list[z3.BoolRef]:
    """A witness input, and the twins' fixed one: the start 0 rests on record 1, outside S_t."""
    ints = z3.IntSort()
    return [
        a.n == 2,
        a.beta == 0,
        a.degree == z3.Store(z3.K(ints, z3.IntVal(0)), 0, 1),
        a.link == z3.K(ints, z3.K(ints, z3.IntVal(1))),
        z3.ForAll([_x], a.path(_x) == (_x == 1)),
        good == z3.Store(z3.K(ints, z3.BoolVal(True)), 1, False),
    ]


_IDENTITY = z3.Lambda([_x], _x)


def _started(s: LoopState, *, inner: bool, head: int) -> list[z3.BoolRef]:
    """A witness state: only the start 0 marked and queued, ``head`` records read."""
    ints = z3.IntSort()
    return [
        s.queue == z3.K(ints, z3.IntVal(0)),
        s.tail == 1,
        s.head == head,
        s.mark == z3.Store(z3.K(ints, z3.IntVal(0)), 0, 1),
        s.inner == inner,
        s.k == 0,
        s.where == z3.K(ints, z3.IntVal(0)),
        s.via == z3.K(ints, z3.IntVal(0)),
        s.order == _IDENTITY,
        s.place == _IDENTITY,
    ]


@dataclass(frozen=True)
class Marks:
    """What ``_path_to`` reads: the marks, the end, and the marks' ghost positions and links."""

    mark: IntArray
    end: z3.ArithRef
    where: IntArray
    via: IntArray

    @staticmethod
    def fresh() -> Marks:
        ints = z3.IntSort()
        return Marks(
            z3.Array("marks", ints, ints),
            z3.Int("end"),
            z3.Array("marks.where", ints, ints),
            z3.Array("marks.via", ints, ints),
        )

    def requires(self, a: Input) -> list[z3.BoolRef]:
        """What the walk leaves at its early return (the ``rejection`` check)."""
        return [parents(a, self.mark, self.where, self.via), self.mark[self.end] != 0]

    def pinned(self, *, records: int) -> list[z3.BoolRef]:
        """A witness: the start 0 marked, and with two ``records`` record 1 marked from it
        and the end; otherwise the end is the start."""
        ints = z3.IntSort()
        start = z3.Store(z3.K(ints, z3.IntVal(0)), 0, 1)
        return [
            self.mark == (start if records == 1 else z3.Store(start, 1, 1)),
            self.where == _IDENTITY,
            self.via == z3.K(ints, z3.IntVal(0)),
            self.end == records - 1,
        ]


def _walk_checks(a: Input, good: IntArray, budget: Budget) -> list[Check]:
    s = LoopState.fresh("s")
    ints = z3.IntSort()
    order, place = z3.Array("order0", ints, ints), z3.Array("place0", ints, ints)
    ms = budget.timeout_ms
    axioms = [*a.requires(), a.path_closed()]
    alone = _one_record(a, good, loops=False)
    out = [
        Check(
            "start outside S_t: rejected, the witness the start, the path (start,)",
            prove(
                [*axioms, z3.Not(good[a.beta])],
                is_dep_path_back(a, a.beta, Path(z3.K(ints, a.beta), z3.IntVal(1))),
                timeout_ms=ms,
            ),
        ),
        Check(
            "entry: the invariant holds",
            prove(
                [*axioms, good[a.beta], permutation(a, order, place), place[a.beta] == 0],
                invariant(a, good, entry(a, order, place)),
                timeout_ms=ms,
                witness=[*alone, order == _IDENTITY, place == _IDENTITY],
            ),
        ),
    ]
    witnesses = {
        "read the next record": [*alone, *_started(s, inner=False, head=0)],
        "visit a support": [
            *_one_record(a, good, loops=True),
            *_started(s, inner=True, head=1),
        ],
        "end of the supports": [*alone, *_started(s, inner=True, head=1)],
    }
    for name, (guard, after) in _steps(a, good, s).items():
        hypotheses = [*axioms, invariant(a, good, s), guard]
        witness = witnesses[name]
        smaller = decreases(_measure(a, s), _measure(a, after))
        out += [
            Check(
                f"{name}: keeps the invariant",
                prove(hypotheses, invariant(a, good, after), timeout_ms=ms, witness=witness),
            ),
            Check(
                f"{name}: the measure decreases, bounded below",
                prove(hypotheses, smaller, timeout_ms=ms, witness=witness),
            ),
        ]
    done = z3.And(z3.Not(s.inner), s.head >= s.tail)
    marked = z3.Lambda([_x], s.marked(_x))
    out.append(
        Check(
            "exit: accepts with exactly Dep*(start), each record once, inside S_t",
            prove(
                [*axioms, invariant(a, good, s), done, a.path_least(marked)],
                accepted(a, good, s),
                timeout_ms=ms,
                witness=[*alone, *_started(s, inner=False, head=1)],
            ),
        )
    )
    support = s.support(a)
    marks = z3.Store(s.mark, support, s.record() + 1)
    left = Marks(marks, support, z3.Store(s.where, support, s.tail), z3.Store(s.via, support, s.k))
    out.append(
        Check(
            "early return: the witness is in Dep*(start), outside S_t, its marks a tree",
            prove(
                [*axioms, invariant(a, good, s), _rejects(a, good, s)],
                z3.And(dep_star(a, support), z3.Not(good[support]), *left.requires(a)),
                timeout_ms=ms,
                witness=[*_two_records(a, good), *_started(s, inner=True, head=1)],
            ),
        )
    )
    return out


def _path_checks(a: Input, budget: Budget) -> list[Check]:
    m, p = Marks.fresh(), Path.fresh("p")
    ints = z3.IntSort()
    ms = budget.timeout_ms
    good = z3.Array("good", ints, z3.BoolSort())
    axioms = [*a.requires(), a.path_closed(), *m.requires(a)]
    pair = [*_two_records(a, good), *m.pinned(records=2), p.path == z3.K(ints, z3.IntVal(1))]
    start = [*_one_record(a, good, loops=False), *m.pinned(records=1)]
    start.append(p.path == z3.K(ints, z3.IntVal(0)))
    hypotheses = [*axioms, path_invariant(a, m.mark, m.end, p)]
    stepped = path_step(m.mark, p)
    going = [*hypotheses, path_continues(m.mark, p)]
    lower = z3.And(m.where[stepped.last()] < m.where[p.last()], m.where[stepped.last()] >= 0)
    first = Path(z3.K(ints, m.end), z3.IntVal(1))
    return [
        Check(
            "path entry: the invariant holds",
            prove(axioms, path_invariant(a, m.mark, m.end, first), timeout_ms=ms, witness=start),
        ),
        Check(
            "path step: keeps the invariant",
            prove(
                going,
                path_invariant(a, m.mark, m.end, stepped),
                timeout_ms=ms,
                witness=[*pair, p.length == 1],
            ),
        ),
        Check(
            "path step: the queue position of the last record decreases, bounded below",
            prove(going, lower, timeout_ms=ms, witness=[*pair, p.length == 1]),
        ),
        Check(
            "path exit: reversed, a Dep path from the start to the witness",
            prove(
                [*hypotheses, z3.Not(path_continues(m.mark, p))],
                is_dep_path_back(a, m.end, p),
                timeout_ms=ms,
                witness=[*start, p.length == 1],
            ),
        ),
    ]


def checks(budget: Budget) -> list[Check]:
    a = Input.fresh()
    good = z3.Array("good", z3.IntSort(), z3.BoolSort())
    return [*_walk_checks(a, good, budget), *_path_checks(a, budget)]


def _walked(model: z3.ModelRef, a: Input, good: IntArray) -> tuple[list[list[int]], list[int]]:
    """The decoded input: ``supports`` and ``good`` as ``dependency_walk`` takes them."""
    supports = a.decoded(model)
    flags = [
        int(z3.is_true(model.eval(good[r], model_completion=True))) for r in range(len(supports))
    ]
    return supports, flags


# The twins fix the input and the state (a twin refuted on one state is refuted), and pass
# the same pins as the witness so that the query for a counterexample runs on a fresh solver:
# incrementally, after the vacuity check, Z3 spends up to its whole timeout on it.


def _outside_twin(budget: Budget) -> Twin:
    """Visiting an unmarked support outside S_t as one inside it: it is appended, and
    ``dependency_walk`` on the decoded map rejects with it as the witness."""
    a, s = Input.fresh(), LoopState.fresh("s")
    good = z3.Array("good", z3.IntSort(), z3.BoolSort())
    guard, after = _steps(a, good, s, checks_standing=False)["visit a support"]
    hypotheses = [*a.requires(), a.path_closed(), invariant(a, good, s), guard]
    name = "the inner loop appending a support outside S_t"
    pins = [*_two_records(a, good), *_started(s, inner=True, head=1)]
    result = prove(
        [*hypotheses, *pins], invariant(a, good, after), timeout_ms=budget.timeout_ms, witness=pins
    )
    if result.model is None:
        return Twin(name, result)
    m = result.model
    supports, flags = _walked(m, a, good)
    appended = value(m, s.support(a))
    walk = dependency_walk(supports, flags, value(m, a.beta))
    text = f"supports {supports}, good {flags}: appends {appended}; dependency_walk {walk}"
    return Twin(name, result, text, not walk.grounded and walk.witness == appended)


def _unread_twin(budget: Budget) -> Twin:
    """Leaving the outer loop with one record unread: the returned queue is not Dep*(start),
    and ``dependency_walk`` on the decoded map returns another set."""
    a, s = Input.fresh(), LoopState.fresh("s")
    good = z3.Array("good", z3.IntSort(), z3.BoolSort())
    ints = z3.IntSort()
    chain = [
        a.n == 2,
        a.beta == 0,
        a.degree == z3.K(ints, z3.IntVal(1)),
        a.link == z3.K(ints, z3.K(ints, z3.IntVal(1))),
        good == z3.K(ints, z3.BoolVal(True)),
        z3.ForAll([_x], a.path(_x) == (_x == 1)),
        *_started(s, inner=False, head=0),
    ]
    early = z3.And(z3.Not(s.inner), s.head == s.tail - 1)
    marked = z3.Lambda([_x], s.marked(_x))
    hypotheses = [*a.requires(), a.path_closed(), invariant(a, good, s), early, *chain]
    name = "the loops left with one record unread"
    result = prove(
        [*hypotheses, a.path_least(marked)],
        accepted(a, good, s),
        timeout_ms=budget.timeout_ms,
        witness=chain,
    )
    if result.model is None:
        return Twin(name, result)
    m = result.model
    supports, flags = _walked(m, a, good)
    returned = [value(m, s.queue[i]) for i in range(value(m, s.tail))]
    walk = dependency_walk(supports, flags, value(m, a.beta))
    text = f"supports {supports}: returns {returned}, dependency_walk {list(walk.closure)}"
    return Twin(name, result, text, walk.grounded and set(walk.closure) != set(returned))


def _short_path_twin(budget: Budget) -> Twin:
    """``_path_to`` left before the ``while`` condition fails: the path does not reach back to
    the start, and differs from ``dependency_walk``'s on the decoded map."""
    a, m, p = Input.fresh(), Marks.fresh(), Path.fresh("p")
    good = z3.Array("good", z3.IntSort(), z3.BoolSort())
    hypotheses = [*a.requires(), a.path_closed(), *m.requires(a)]
    pins = [*_two_records(a, good), *m.pinned(records=2)]
    pins.append(p.path == z3.K(z3.IntSort(), z3.IntVal(1)))
    hypotheses += [path_invariant(a, m.mark, m.end, p), *pins]
    name = "the path loop stopping before the start"
    result = prove(
        hypotheses, is_dep_path_back(a, m.end, p), timeout_ms=budget.timeout_ms, witness=pins
    )
    if result.model is None:
        return Twin(name, result)
    model = result.model
    supports, flags = _walked(model, a, good)
    built = [value(model, p.path[i]) for i in range(value(model, p.length))][::-1]
    walk = dependency_walk(supports, flags, value(model, a.beta))
    text = f"supports {supports}, good {flags}: path {built}, dependency_walk {list(walk.path)}"
    return Twin(name, result, text, list(walk.path) != built and built[0] != walk.path[0])


def _unchecked_start_twin(budget: Budget) -> Twin:
    """The walk without ``if not good[start]``: entered with the start outside S_t, the
    invariant fails at once, and ``dependency_walk`` on the decoded map rejects the start."""
    a = Input.fresh()
    ints = z3.IntSort()
    good = z3.Array("good", ints, z3.BoolSort())
    order, place = z3.Array("order0", ints, ints), z3.Array("place0", ints, ints)
    pins = [
        *_one_record(a, good, loops=False, in_s_t=False),
        order == _IDENTITY,
        place == _IDENTITY,
    ]
    hypotheses = [*a.requires(), a.path_closed(), permutation(a, order, place), *pins]
    name = "the walk entered without its check that the start is in S_t"
    result = prove(
        hypotheses,
        invariant(a, good, entry(a, order, place)),
        timeout_ms=budget.timeout_ms,
        witness=pins,
    )
    if result.model is None:
        return Twin(name, result)
    supports, flags = _walked(result.model, a, good)
    start = value(result.model, a.beta)
    walk = dependency_walk(supports, flags, start)
    text = f"supports {supports}, good {flags}: the walk enters; dependency_walk {walk}"
    return Twin(name, result, text, not walk.grounded and walk.witness == start)


def _short_exit_twin(budget: Budget) -> Twin:
    """The exit returning ``tuple(queue[:-1])``: the last record dropped, the answer is not
    Dep*(start), and ``dependency_walk`` on the decoded map returns one more record."""
    a, s = Input.fresh(), LoopState.fresh("s")
    good = z3.Array("good", z3.IntSort(), z3.BoolSort())
    pins = [*_one_record(a, good, loops=False), *_started(s, inner=False, head=1)]
    done = z3.And(z3.Not(s.inner), s.head >= s.tail)
    marked = z3.Lambda([_x], s.marked(_x))
    hypotheses = [*a.requires(), a.path_closed(), invariant(a, good, s), done, *pins]
    name = "the exit dropping the last record of the queue"
    result = prove(
        [*hypotheses, a.path_least(marked)],
        accepted(a, good, s, returned=s.tail - 1),
        timeout_ms=budget.timeout_ms,
        witness=pins,
    )
    if result.model is None:
        return Twin(name, result)
    m = result.model
    supports, flags = _walked(m, a, good)
    returned = [value(m, s.queue[i]) for i in range(value(m, s.tail) - 1)]
    walk = dependency_walk(supports, flags, value(m, a.beta))
    text = f"supports {supports}: returns {returned}, dependency_walk {list(walk.closure)}"
    return Twin(name, result, text, walk.grounded and len(walk.closure) == len(returned) + 1)


def twins(budget: Budget) -> list[Twin]:
    return [
        _outside_twin(budget),
        _unread_twin(budget),
        _short_path_twin(budget),
        _unchecked_start_twin(budget),
        _short_exit_twin(budget),
    ]


OBLIGATION = Obligation(
    id="walk-loops",
    statement="Lemma 2.1 and Proposition 2.5, the code: dependency_walk, entry to return, accepts "
    "iff Dep*(start) is inside S_t, returning exactly Dep*(start) with each record once, or "
    "rejects with a witness outside S_t and a Dep path to it; it and _path_to terminate",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=twins,
)
