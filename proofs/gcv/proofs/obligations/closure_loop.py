"""The loop of ``gcv.reference.closure.reverse_closure`` itself: a loop invariant and a
decreasing measure, unbounded.

Unlike ``definition-2.3``, which abstracts the worklist to a set, this is the code's own
state over record numbers: ``queue`` (a list read while it grows: ``head`` records read,
``tail`` its length), the marks ``seen``, and the inner loop's index ``k`` over
``dependents[record]``.  The two nested loops are one transition system: from the outer
loop's head, read the next record (``inner`` becomes true); in the inner loop, look at
``dependents[record][k]``, mark and append it if unmarked, and step ``k``; at its end,
return to the outer head.  Ghost variables the code does not keep: ``where`` (each marked
record's position in the queue) and a permutation of the n record numbers whose first
``tail - 1`` entries are the marked records (its inverse ``place``), which bounds ``tail``
by n + 1 without counting.

Checks: the invariant holds on entry, is preserved by each of the three steps, and on exit
implies the postcondition (the returned ``queue[1:]`` holds each record with a non-empty
path to beta exactly once, and nothing else); the measure (n + 1 - head, inner, degree -
k), ordered lexicographically, decreases on each step and is bounded below.  Affected* within
S_t (``_affected_star_active``) keeps the returned records in S_t: on exit, exactly the
records of Affected*(beta) in S_t, each once.

The code walks in two phases, marks in the set ``seen`` and then, once the walk would reach
1 in ``_FLAT_FROM_ONE_IN`` records, in ``flags`` (``_flags(seen, n)``: one flag per record,
set exactly for the members of ``seen``); both loops take the same three steps.  The
encoding reads them as one loop over one set of marks (``seen``, then the flagged records):
the switch changes no state of the encoding, and the first loop's extra condition only
decides which loop takes the next "read" step.  That ``_flags`` keeps the marks is stated
here, not proved; ``tests/test_closure.py`` checks every split of a walk into the two
phases against the spec.

``CODE`` is the code the encoding follows, whole functions from entry to return, and
``tests/test_proofs_closure_loop.py`` checks it is still the code of
``reference/gcv/reference/closure.py``. Each statement outside the loop has its part: ``seen =
set(); queue = [withdrawn]`` is
:func:`entry`; ``return tuple(queue[1:])`` is :func:`postcondition` over ``queue[1:tail]``
(``first``); ``in_good_standing``'s loop (``if good[record]: active.append(record)``) is
:func:`kept_in_s_t`.
``_affected_star`` and ``names_of`` rename numbers to records (one-to-one), so what is
proved of the numbers holds of the named answer.  The twins include a return of the whole
queue (beta itself with it), the change a review planted, and the filter left out.

Whole, at about 620 lines: it is one obligation, the loops of ``reverse_closure`` as one
transition system, and its invariant, its measure and its checks read the same encoding of
the code's state; split, the invariant would sit away from the transitions it must be
preserved by.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

import z3

from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove
from gcv.reference.closure import PURE, reverse_closure
from gcv.reference.identifiers import RecordId

__all__ = ["CODE", "OBLIGATION", "Input", "decreases", "measure", "permutation", "value"]

CODE = {
    "reverse_closure": """
def reverse_closure(dependents: Links, withdrawn: int) -> tuple[int, ...]:
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
""",
    "_affected_star": """
def _affected_star(
    dependents: Links, name: Sequence[RecordId], withdrawn: int
) -> tuple[RecordId, ...]:
    return names_of(reverse_closure(dependents, withdrawn), name)
""",
    "_affected_star_active": """
def _affected_star_active(
    dependents: Links, good: Sequence[int], name: Sequence[RecordId], withdrawn: int
) -> tuple[RecordId, ...]:
    return names_of(in_good_standing(reverse_closure(dependents, withdrawn), good), name)
""",
    "in_good_standing": """
def in_good_standing(records: Sequence[int], good: Sequence[int]) -> list[int]:
    active: list[int] = []
    for record in records:
        if good[record]:
            active.append(record)
    return active
""",
    "names_of": """
def names_of(numbers: Sequence[int], name: Sequence[RecordId]) -> tuple[RecordId, ...]:
    if len(numbers) < 2:
        return tuple([name[i] for i in numbers])
    named: tuple[RecordId, ...] = itemgetter(*numbers)(name)
    return named
""",
}
"""The functions this module encodes, from entry to return (docstrings and contracts left
out), as ``reference/gcv/reference/closure.py`` writes them: Affected*, Affected* within S_t, and
the renaming of their answers."""

_i, _j, _x = z3.Ints("i j x")
IntArray: TypeAlias = z3.ArrayRef


@dataclass(frozen=True)
class Input:
    """``dependents`` over n record numbers (``degree[r]`` links, ``link[r][k]``) and beta."""

    n: z3.ArithRef
    beta: z3.ArithRef
    degree: IntArray
    link: IntArray
    path: z3.FuncDeclRef

    @staticmethod
    def fresh() -> Input:
        return Input(
            z3.Int("n"),
            z3.Int("beta"),
            z3.Array("degree", z3.IntSort(), z3.IntSort()),
            z3.Array("link", z3.IntSort(), z3.ArraySort(z3.IntSort(), z3.IntSort())),
            z3.Function("path", z3.IntSort(), z3.BoolSort()),
        )

    def record(self, r: z3.ArithRef) -> z3.BoolRef:
        return z3.And(r >= 0, r < self.n)

    def decoded(self, model: z3.ModelRef) -> list[list[int]]:
        """The lists of links in a counterexample, as the code takes them."""
        n = value(model, self.n)
        return [
            [value(model, self.link[r][j]) for j in range(value(model, self.degree[r]))]
            for r in range(n)
        ]

    def requires(self) -> list[z3.BoolRef]:
        """The contracts' preconditions: beta in Args_t; the index relates records."""
        return [
            self.record(self.beta),
            z3.ForAll(
                [_x, _j],
                z3.Implies(
                    z3.And(self.record(_x), _j >= 0, _j < self.degree[_x]),
                    self.record(self.link[_x][_j]),
                ),
            ),
            z3.ForAll([_x], z3.Implies(self.record(_x), self.degree[_x] >= 0)),
        ]

    def path_closed(self) -> z3.BoolRef:
        """``path``: a dependent of beta, or of a record with a path, has a path."""
        return z3.ForAll(
            [_x, _j],
            z3.Implies(
                z3.And(
                    self.record(_x),
                    z3.Or(_x == self.beta, self.path(_x)),
                    _j >= 0,
                    _j < self.degree[_x],
                ),
                self.path(self.link[_x][_j]),
            ),
        )

    def path_least(self, marked: IntArray) -> z3.BoolRef:
        """The induction rule for ``path``, for the set ``marked``."""
        closed = z3.ForAll(
            [_x, _j],
            z3.Implies(
                z3.And(
                    self.record(_x),
                    z3.Or(_x == self.beta, marked[_x]),
                    _j >= 0,
                    _j < self.degree[_x],
                ),
                marked[self.link[_x][_j]],
            ),
        )
        return z3.Implies(closed, z3.ForAll([_x], z3.Implies(self.path(_x), marked[_x])))


@dataclass(frozen=True)
class Loop:
    """The loops' state and ghost variables."""

    queue: IntArray
    tail: z3.ArithRef
    head: z3.ArithRef
    seen: IntArray
    inner: z3.BoolRef
    k: z3.ArithRef
    where: IntArray
    order: IntArray
    place: IntArray

    @staticmethod
    def fresh(prefix: str) -> Loop:
        ints = z3.IntSort()
        return Loop(
            z3.Array(f"{prefix}.queue", ints, ints),
            z3.Int(f"{prefix}.tail"),
            z3.Int(f"{prefix}.head"),
            z3.Array(f"{prefix}.seen", ints, z3.BoolSort()),
            z3.Bool(f"{prefix}.inner"),
            z3.Int(f"{prefix}.k"),
            z3.Array(f"{prefix}.where", ints, ints),
            z3.Array(f"{prefix}.order", ints, ints),
            z3.Array(f"{prefix}.place", ints, ints),
        )

    def record(self) -> z3.ArithRef:
        """The record the inner loop expands: the last one read."""
        return self.queue[self.head - 1]


def entry(a: Input, order: IntArray, place: IntArray) -> Loop:
    """``seen = set(); queue = [withdrawn]`` (the ghost permutation is
    any permutation of the record numbers)."""
    ints = z3.IntSort()
    return Loop(
        z3.K(ints, a.beta),
        z3.IntVal(1),
        z3.IntVal(0),
        z3.K(ints, z3.BoolVal(False)),
        z3.BoolVal(False),
        z3.IntVal(0),
        z3.K(ints, z3.IntVal(0)),
        order,
        place,
    )


def permutation(a: Input, order: IntArray, place: IntArray) -> z3.BoolRef:
    """``order`` and ``place`` are inverse permutations of 0 .. n-1."""
    return z3.And(
        z3.ForAll(
            [_i],
            z3.Implies(a.record(_i), z3.And(a.record(order[_i]), place[order[_i]] == _i)),
        ),
        z3.ForAll(
            [_x],
            z3.Implies(a.record(_x), z3.And(a.record(place[_x]), order[place[_x]] == _x)),
        ),
    )


def invariant(a: Input, s: Loop) -> z3.BoolRef:
    """The loop invariant."""
    expanded = z3.If(s.inner, s.head - 1, s.head)
    return z3.And(
        s.queue[0] == a.beta,
        s.tail >= 1,
        s.tail <= a.n + 1,
        s.head >= 0,
        s.head <= s.tail,
        z3.Implies(s.inner, z3.And(s.head >= 1, s.k >= 0, s.k <= a.degree[s.record()])),
        z3.ForAll([_i], z3.Implies(z3.And(_i >= 0, _i < s.tail), a.record(s.queue[_i]))),
        # the queue after beta is the marked records, each once
        z3.ForAll(
            [_i],
            z3.Implies(
                z3.And(_i >= 1, _i < s.tail),
                z3.And(s.seen[s.queue[_i]], s.where[s.queue[_i]] == _i),
            ),
        ),
        z3.ForAll(
            [_x],
            z3.Implies(
                s.seen[_x],
                z3.And(
                    a.record(_x),
                    s.where[_x] >= 1,
                    s.where[_x] < s.tail,
                    s.queue[s.where[_x]] == _x,
                ),
            ),
        ),
        # every record read and expanded has its dependents marked
        z3.ForAll(
            [_i, _j],
            z3.Implies(
                z3.And(_i >= 0, _i < expanded, _j >= 0, _j < a.degree[s.queue[_i]]),
                s.seen[a.link[s.queue[_i]][_j]],
            ),
        ),
        z3.Implies(
            s.inner,
            z3.ForAll(
                [_j],
                z3.Implies(z3.And(_j >= 0, _j < s.k), s.seen[a.link[s.record()][_j]]),
            ),
        ),
        # only records with a path to beta are marked
        z3.ForAll([_x], z3.Implies(s.seen[_x], a.path(_x))),
        # the ghost permutation lists the marked records first
        permutation(a, s.order, s.place),
        z3.ForAll([_x], z3.Implies(a.record(_x), s.seen[_x] == (s.place[_x] < s.tail - 1))),
    )


def read(s: Loop) -> Loop:
    """``for record in queue``: read the next record."""
    return Loop(
        s.queue,
        s.tail,
        s.head + 1,
        s.seen,
        z3.BoolVal(True),
        z3.IntVal(0),
        s.where,
        s.order,
        s.place,
    )


def visit(a: Input, s: Loop, *, checks_mark: bool = True) -> Loop:
    """One pass of the inner loop: ``dependent = dependents[record][k]``, marked and
    appended unless already marked (the ghost permutation swaps it into place); a twin
    drops the ``if dependent not in seen`` (``checks_mark``)."""
    dependent = a.link[s.record()][s.k]
    new = z3.Not(s.seen[dependent]) if checks_mark else z3.BoolVal(True)
    slot, displaced = s.place[dependent], s.order[s.tail - 1]
    return Loop(
        z3.If(new, z3.Store(s.queue, s.tail, dependent), s.queue),
        z3.If(new, s.tail + 1, s.tail),
        s.head,
        z3.If(new, z3.Store(s.seen, dependent, True), s.seen),
        s.inner,
        s.k + 1,
        z3.If(new, z3.Store(s.where, dependent, s.tail), s.where),
        z3.If(
            new,
            z3.Store(z3.Store(s.order, s.tail - 1, dependent), slot, displaced),
            s.order,
        ),
        z3.If(
            new,
            z3.Store(z3.Store(s.place, displaced, slot), dependent, s.tail - 1),
            s.place,
        ),
    )


def finish(s: Loop) -> Loop:
    """The inner loop is exhausted: back to the outer loop's head."""
    return Loop(s.queue, s.tail, s.head, s.seen, z3.BoolVal(False), s.k, s.where, s.order, s.place)


def _steps(a: Input, s: Loop) -> dict[str, tuple[z3.BoolRef, Loop]]:
    """Each step with its guard."""
    return {
        "read the next record": (z3.And(z3.Not(s.inner), s.head < s.tail), read(s)),
        "visit a dependent": (z3.And(s.inner, s.k < a.degree[s.record()]), visit(a, s)),
        "end of the dependents": (z3.And(s.inner, s.k >= a.degree[s.record()]), finish(s)),
    }


def measure(
    a: Input, head: z3.ArithRef, inner: z3.BoolRef, record: z3.ArithRef, k: z3.ArithRef
) -> tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef]:
    """(n + 1 - head, inner, degree - k): records left to read, then the inner loop's links
    left to look at in ``record``'s list."""
    return (
        a.n + 1 - head,
        z3.If(inner, z3.IntVal(1), z3.IntVal(0)),
        z3.If(inner, a.degree[record] - k, z3.IntVal(0)),
    )


def _measure(a: Input, s: Loop) -> tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef]:
    return measure(a, s.head, s.inner, s.record(), s.k)


def decreases(before: tuple[z3.ArithRef, ...], after: tuple[z3.ArithRef, ...]) -> z3.BoolRef:
    """Lexicographically smaller, every component bounded below by 0."""
    smaller = z3.BoolVal(False)
    for b, c in reversed(list(zip(before, after, strict=True))):
        smaller = z3.Or(c < b, z3.And(c == b, smaller))
    return z3.And(smaller, *(c >= 0 for c in after))


def _returned(s: Loop, x: z3.ArithRef, first: int) -> z3.BoolRef:
    """x is in ``tuple(queue[first:])``."""
    return z3.Exists([_i], z3.And(_i >= first, _i < s.tail, s.queue[_i] == x))


def postcondition(a: Input, s: Loop, *, first: int = 1) -> z3.BoolRef:
    """``tuple(queue[first:])`` (``first`` 1, as ``reverse_closure`` returns it; a twin
    takes 0) holds exactly the records with a non-empty path to beta, each once."""
    return z3.And(
        z3.ForAll([_x], a.path(_x) == _returned(s, _x, first)),
        z3.ForAll(
            [_i, _j],
            z3.Implies(
                z3.And(
                    _i >= first, _j >= first, _i < s.tail, _j < s.tail, s.queue[_i] == s.queue[_j]
                ),
                _i == _j,
            ),
        ),
    )


def kept_in_s_t(a: Input, good: IntArray, s: Loop, *, filtered: bool = True) -> z3.BoolRef:
    """``in_good_standing(tuple(queue[1:]), good)`` (a twin leaves out the ``if``) holds
    exactly the records of Affected*(beta) in S_t: "Their intersection with S_t identifies
    the currently active dependents" (Section 2, "Retraction queries")."""
    kept = z3.And(_returned(s, _x, 1), good[_x]) if filtered else _returned(s, _x, 1)
    return z3.ForAll([_x], kept == z3.And(a.path(_x), good[_x]))


def _one_record(a: Input, s: Loop, *, loops: bool, inner: bool, head: int) -> list[z3.BoolRef]:
    """A witness for the vacuity check: one record, beta = 0, depending on itself when
    ``loops``, and the loop state after ``head`` reads, nothing marked yet."""
    ints = z3.IntSort()
    return [
        a.n == 1,
        a.beta == 0,
        a.degree == z3.K(ints, z3.IntVal(1 if loops else 0)),
        a.link == z3.K(ints, z3.K(ints, z3.IntVal(0))),
        z3.ForAll([_x], a.path(_x) == z3.And(z3.BoolVal(loops), _x == 0)),
        s.queue == z3.K(ints, z3.IntVal(0)),
        s.tail == 1,
        s.head == head,
        s.seen == z3.K(ints, z3.BoolVal(False)),
        s.inner == inner,
        s.k == 0,
        s.order == z3.K(ints, z3.IntVal(0)),
        s.place == z3.K(ints, z3.IntVal(0)),
    ]


def checks(budget: Budget) -> list[Check]:
    a, s = Input.fresh(), Loop.fresh("s")
    ints = z3.IntSort()
    order, place = z3.Array("order0", ints, ints), z3.Array("place0", ints, ints)
    ms = budget.timeout_ms
    axioms = [*a.requires(), a.path_closed()]
    at_entry = [*_one_record(a, s, loops=False, inner=False, head=0)]
    out = [
        Check(
            "entry: the invariant holds",
            prove(
                [*axioms, permutation(a, order, place)],
                invariant(a, entry(a, order, place)),
                timeout_ms=ms,
                witness=[*at_entry, order == z3.K(ints, z3.IntVal(0)), place == order],
            ),
        )
    ]
    witnesses = {
        "read the next record": at_entry,
        "visit a dependent": _one_record(a, s, loops=True, inner=True, head=1),
        "end of the dependents": _one_record(a, s, loops=False, inner=True, head=1),
    }
    for name, (guard, after) in _steps(a, s).items():
        hypotheses = [*axioms, invariant(a, s), guard]
        witness = witnesses[name]
        kept = prove(hypotheses, invariant(a, after), timeout_ms=ms, witness=witness)
        smaller = decreases(_measure(a, s), _measure(a, after))
        out += [
            Check(f"{name}: keeps the invariant", kept),
            Check(
                f"{name}: the measure decreases, bounded below",
                prove(hypotheses, smaller, timeout_ms=ms, witness=witness),
            ),
        ]
    done = z3.And(z3.Not(s.inner), s.head >= s.tail)
    exit_witness = _one_record(a, s, loops=False, inner=False, head=1)
    good = z3.Array("good", ints, z3.BoolSort())
    out += [
        Check(
            "exit: the postcondition",
            prove(
                [*axioms, invariant(a, s), done, a.path_least(s.seen)],
                postcondition(a, s),
                timeout_ms=ms,
                witness=exit_witness,
            ),
        ),
        Check(
            "Affected* within S_t: the records of Affected*(beta) in S_t, no other",
            prove(
                [*a.requires(), postcondition(a, s)],
                kept_in_s_t(a, good, s),
                timeout_ms=ms,
                witness=[*exit_witness, good == z3.K(ints, z3.BoolVal(True))],
            ),
        ),
    ]
    return out


def value(model: z3.ModelRef, term: z3.ExprRef) -> int:
    return int(model.eval(term, model_completion=True).as_long())


def _chain(a: Input) -> list[z3.BoolRef]:
    """The twins' input, fixed so that the solver only has to find a loop state: two
    records, record 1 resting on beta = 0 and on itself (a twin refuted on one input is
    refuted)."""
    ints = z3.IntSort()
    return [
        a.n == 2,
        a.beta == 0,
        a.degree == z3.K(ints, z3.IntVal(1)),
        a.link == z3.K(ints, z3.K(ints, z3.IntVal(1))),
    ]


def _early_exit_twin(budget: Budget) -> Twin:
    """Leaving the outer loop with one record still unread: the postcondition fails, and
    ``gcv.reference.closure.reverse_closure`` on the decoded index returns another set."""
    a, s = Input.fresh(), Loop.fresh("s")
    early = z3.And(z3.Not(s.inner), s.head == s.tail - 1)
    hypotheses = [*a.requires(), a.path_closed(), invariant(a, s), early, *_chain(a)]
    name = "the loops left with one record unread"
    result = prove(
        [*hypotheses, a.path_least(s.seen)],
        postcondition(a, s),
        timeout_ms=budget.timeout_ms,
    )
    if result.model is None:
        return Twin(name, result)
    m = result.model
    n, beta = value(m, a.n), value(m, a.beta)
    dependents = a.decoded(m)
    returned = {r for r in range(n) if z3.is_true(m.eval(s.seen[r], model_completion=True))}
    exact = set(reverse_closure(dependents, beta))
    text = f"dependents {dependents}, beta {beta}: returns {sorted(returned)}, "
    text += f"reverse_closure {sorted(exact)}"
    return Twin(name, result, text, returned != exact)


def _unmarked_append_twin(budget: Budget) -> Twin:
    """Appending every dependent, marked or not: a record enters the queue twice."""
    a, s = Input.fresh(), Loop.fresh("s")
    guard, _ = _steps(a, s)["visit a dependent"]
    dependent = a.link[s.record()][s.k]
    careless = visit(a, s, checks_mark=False)
    name = "the inner loop appending a marked dependent"
    result = prove(
        [*a.requires(), a.path_closed(), invariant(a, s), guard, *_chain(a)],
        invariant(a, careless),
        timeout_ms=budget.timeout_ms,
    )
    if result.model is None:
        return Twin(name, result)
    m = result.model
    again = z3.is_true(m.eval(s.seen[dependent], model_completion=True))
    text = f"appends record {value(m, dependent)}, marked already: {again}"
    return Twin(name, result, text, again)


def _whole_queue_twin(budget: Budget) -> Twin:
    """``return tuple(queue)``: beta itself is returned, and ``reverse_closure`` on the
    decoded index, beta on no cycle, leaves it out."""
    a, s = Input.fresh(), Loop.fresh("s")
    pins = _one_record(a, s, loops=False, inner=False, head=1)
    done = z3.And(z3.Not(s.inner), s.head >= s.tail)
    hypotheses = [*a.requires(), a.path_closed(), invariant(a, s), done, *pins]
    name = "the exit returning the whole queue, beta with it"
    result = prove(
        [*hypotheses, a.path_least(s.seen)],
        postcondition(a, s, first=0),
        timeout_ms=budget.timeout_ms,
        witness=pins,
    )
    if result.model is None:
        return Twin(name, result)
    m = result.model
    beta, dependents = value(m, a.beta), a.decoded(m)
    returned = [value(m, s.queue[i]) for i in range(value(m, s.tail))]
    exact = reverse_closure(dependents, beta)
    text = f"dependents {dependents}, beta {beta}: returns {returned}, reverse_closure {exact}"
    return Twin(name, result, text, beta in returned and beta not in exact)


def _unfiltered_twin(budget: Budget) -> Twin:
    """Affected* within S_t without ``if good[record]``: a record outside S_t is returned, and
    the pure query on the decoded index leaves it out."""
    a, s = Input.fresh(), Loop.fresh("s")
    ints = z3.IntSort()
    good = z3.Array("good", ints, z3.BoolSort())
    pins = [
        *_chain(a),
        z3.ForAll([_x], a.path(_x) == (_x == 1)),
        good == z3.Store(z3.K(ints, z3.BoolVal(True)), 1, False),
        s.queue == z3.Store(z3.K(ints, z3.IntVal(0)), 1, 1),
        s.tail == 2,
    ]
    name = "Affected* within S_t keeping records outside S_t"
    result = prove(
        [*a.requires(), postcondition(a, s), *pins],
        kept_in_s_t(a, good, s, filtered=False),
        timeout_ms=budget.timeout_ms,
        witness=pins,
    )
    if result.model is None:
        return Twin(name, result)
    m = result.model
    beta, dependents = value(m, a.beta), a.decoded(m)
    flags = [
        int(z3.is_true(m.eval(good[r], model_completion=True))) for r in range(len(dependents))
    ]
    names = [RecordId(str(r)) for r in range(len(dependents))]
    active = PURE.affected_star_active(dependents, flags, names, beta)
    outside = [names[r] for r in reverse_closure(dependents, beta) if not flags[r]]
    text = f"dependents {dependents}, good {flags}: outside S_t {outside}, the query {active}"
    return Twin(name, result, text, bool(outside) and not set(outside) & set(active))


def twins(budget: Budget) -> list[Twin]:
    return [
        _early_exit_twin(budget),
        _unmarked_append_twin(budget),
        _whole_queue_twin(budget),
        _unfiltered_twin(budget),
    ]


OBLIGATION = Obligation(
    id="closure-loops",
    statement="Definition 2.3 / Proposition 2.5, the code: reverse_closure, entry to "
    "return, returns exactly Affected*(beta), each record once, and terminates; Affected* "
    "within S_t returns exactly its records in S_t",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=twins,
)
