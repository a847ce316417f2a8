"""Definition 2.3: the sequence X_k stabilises within |Args_t| rounds, for maps of every size.

The proof of Corollary 2.4 says "the increasing sequence is bounded by finite Args_t and
stabilises within |Args_t| rounds".  Here Args_t is numbered [0, n) (any finite set is, by an
injection into the integers), Dep_t is an arbitrary relation on it, beta is any record, and
X_0 = Affected(beta), X_k+1 = X_k plus every argument with a Dep link into X_k, as
``spec.core.compute_affected_iteration`` computes it.  The checks, each proved for every n:

1. every X_k lies in Args_t = [0, n); the sequence grows, and the step is monotone;
2. a repeat is final: X_k = X_k+1 gives X_k+1 = X_k+2;
3. the counting argument: if X_k differs from X_k+1, some injection e maps [0, k+1) into
   X_k+1 (initiation at k = 0; consecution: a record new in X_k+2 extends e, and by 2 the
   sequence was still growing at round k);
4. the pigeonhole principle, by induction on n: an injection of [0, c) into [0, 0) has c = 0,
   and an injection f of [0, c) into [0, n+1) gives one of [0, c-1) into [0, n) (the record
   that f maps to n takes f(c-1)'s place).

So while the sequence grows at round k, k + 1 <= n; it is stable from round |Args_t| on:
X_n = X_n+1.  The two inductions (on k and on n) are the obligation's initiation and
consecution pairs; each step is a Z3 check over arrays of every size.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import CheckResult, prove

__all__ = ["OBLIGATION"]

_a, _d, _i, _j = z3.Ints("a d i j")
_MOST = 64
"""Counterexamples are decoded only over index ranges up to this size."""


def _below(x: z3.ArithRef, n: z3.ArithRef) -> z3.BoolRef:
    return z3.And(x >= 0, x < n)


def _injects(e: z3.ArrayRef, c: z3.ArithRef, into: z3.ArrayRef) -> z3.BoolRef:
    """``e`` maps [0, c) injectively into the set ``into``."""
    return z3.And(
        z3.ForAll([_i], z3.Implies(_below(_i, c), into[e[_i]])),
        z3.ForAll(
            [_i, _j],
            z3.Implies(z3.And(_below(_i, c), _below(_j, c), e[_i] == e[_j]), _i == _j),
        ),
    )


def _range(n: z3.ArithRef) -> z3.ArrayRef:
    return z3.Lambda([_a], _below(_a, n))


@dataclass(frozen=True)
class Sequence:
    """Args_t = [0, n), Dep_t over it, and beta."""

    n: z3.ArithRef
    dep: z3.ArrayRef
    beta: z3.ArithRef

    @staticmethod
    def fresh() -> Sequence:
        return Sequence(
            z3.Int("n"), z3.Array("dep", z3.IntSort(), z3.IntSort(), z3.BoolSort()), z3.Int("beta")
        )

    def axioms(self) -> list[z3.BoolRef]:
        """Dep relates registered records (Definition 2.1); beta is one."""
        return [
            _below(self.beta, self.n),
            z3.ForAll(
                [_a, _d],
                z3.Implies(self.dep[_a, _d], z3.And(_below(_a, self.n), _below(_d, self.n))),
            ),
        ]

    def first(self) -> z3.ArrayRef:
        """X_0 = Affected(beta)."""
        return z3.Lambda([_a], self.dep[_a, self.beta])

    def step(self, x: z3.ArrayRef) -> z3.ArrayRef:
        """X_k+1: X_k and every argument with a Dep link into X_k."""
        return z3.Lambda([_a], z3.Or(x[_a], z3.Exists([_d], z3.And(self.dep[_a, _d], x[_d]))))


def _subset(x: z3.ArrayRef, y: z3.ArrayRef) -> z3.BoolRef:
    return z3.ForAll([_a], z3.Implies(x[_a], y[_a]))


def _equal(x: z3.ArrayRef, y: z3.ArrayRef) -> z3.BoolRef:
    return z3.ForAll([_a], x[_a] == y[_a])


def _sequence_checks(s: Sequence, ms: int) -> list[Check]:
    x, y = z3.Array("x", z3.IntSort(), z3.BoolSort()), z3.Array("y", z3.IntSort(), z3.BoolSort())
    args = _range(s.n)
    return [
        Check("X_0 lies in Args_t", prove(s.axioms(), _subset(s.first(), args), timeout_ms=ms)),
        Check(
            "a step keeps X_k inside Args_t",
            prove([*s.axioms(), _subset(x, args)], _subset(s.step(x), args), timeout_ms=ms),
        ),
        Check("the sequence grows", prove(s.axioms(), _subset(x, s.step(x)), timeout_ms=ms)),
        Check(
            "the step is monotone",
            prove([*s.axioms(), _subset(x, y)], _subset(s.step(x), s.step(y)), timeout_ms=ms),
        ),
        Check(
            "a repeat is final",
            prove(
                [*s.axioms(), _equal(x, s.step(x))],
                _equal(s.step(x), s.step(s.step(x))),
                timeout_ms=ms,
            ),
        ),
    ]


def _extended(e: z3.ArrayRef, k: z3.ArithRef, z: z3.ArithRef) -> z3.ArrayRef:
    return z3.Store(e, k + 1, z)


def _counting_checks(s: Sequence, ms: int) -> list[Check]:
    x = z3.Array("x", z3.IntSort(), z3.BoolSort())
    e = z3.Array("e", z3.IntSort(), z3.IntSort())
    k, z = z3.Ints("k z")
    x0, x1 = s.first(), s.step(s.first())
    grows = [*s.axioms(), k >= 0, _injects(e, k + 1, s.step(x)), s.step(s.step(x))[z]]
    return [
        Check(
            "counting, initiation: X_0 differs from X_1, so [0, 1) injects into X_1",
            prove(
                [*s.axioms(), x1[z], z3.Not(x0[z])],
                _injects(z3.K(z3.IntSort(), z), z3.IntVal(1), x1),
                timeout_ms=ms,
            ),
        ),
        Check(
            "counting, consecution: a record new in X_k+2 extends the injection",
            prove(
                [*grows, z3.Not(s.step(x)[z])],
                _injects(_extended(e, k, z), k + 2, s.step(s.step(x))),
                timeout_ms=ms,
            ),
        ),
    ]


def _swapped(f: z3.ArrayRef, c: z3.ArithRef, n: z3.ArithRef) -> z3.ArrayRef:
    """f without its last place: the record f maps to n takes f(c-1)."""
    return z3.Lambda([_i], z3.If(f[_i] == n, f[c - 1], f[_i]))


def _pigeonhole_step(
    f: z3.ArrayRef, c: z3.ArithRef, n: z3.ArithRef, g: z3.ArrayRef, ms: int, *pins: z3.BoolRef
) -> CheckResult:
    return prove(
        [n >= 0, c >= 1, *pins, _injects(f, c, _range(n + 1))],
        _injects(g, c - 1, _range(n)),
        timeout_ms=ms,
    )


def _pigeonhole_checks(ms: int) -> list[Check]:
    f = z3.Array("f", z3.IntSort(), z3.IntSort())
    c, n = z3.Ints("c n")
    return [
        Check(
            "pigeonhole, n = 0: nothing injects into [0, 0) but [0, 0)",
            prove([c >= 0, _injects(f, c, _range(z3.IntVal(0)))], c == 0, timeout_ms=ms),
        ),
        Check(
            "pigeonhole, n to n + 1: [0, c) into [0, n+1) gives [0, c-1) into [0, n)",
            _pigeonhole_step(f, c, n, _swapped(f, c, n), ms),
        ),
    ]


def checks(budget: Budget) -> list[Check]:
    s, ms = Sequence.fresh(), budget.timeout_ms
    return [*_sequence_checks(s, ms), *_counting_checks(s, ms), *_pigeonhole_checks(ms)]


def _values(model: z3.ModelRef, array: z3.ArrayRef, count: int) -> list[int]:
    return [model.eval(array[i], model_completion=True).as_long() for i in range(count)]


def _counting_twin(budget: Budget) -> Twin:
    """The consecution without "new in X_k+2": a record already counted is counted again.

    The search is pinned to round k = 1: a counterexample there refutes the step without the
    hypothesis just as well, and over every k Z3's model search took from 0.01 s to past a
    60 s limit, depending only on which terms the process had built before."""
    s = Sequence.fresh()
    x = z3.Array("x", z3.IntSort(), z3.BoolSort())
    e = z3.Array("e", z3.IntSort(), z3.IntSort())
    k, z = z3.Ints("k z")
    name = "counting a record of X_k+1 again"
    result = prove(
        [*s.axioms(), k == 1, _injects(e, k + 1, s.step(x)), s.step(s.step(x))[z]],
        _injects(_extended(e, k, z), k + 2, s.step(s.step(x))),
        timeout_ms=budget.timeout_ms,
    )
    if result.model is None:
        return Twin(name, result)
    places = result.model.eval(k, model_completion=True).as_long() + 2
    if places > _MOST:
        return Twin(name, result, f"{places} places: too many to replay")
    values = _values(result.model, _extended(e, k, z), places)
    text = f"the extended map over [0, {places}): {values}"
    return Twin(name, result, text, len(set(values)) < len(values))


def _pigeonhole_twin(budget: Budget) -> Twin:
    """The pigeonhole step without the swap: f restricted to [0, c-1) may still reach n.

    Pinned to c = 2 as the counting twin is to k = 1 (unpinned, 0.05 s to 13 s)."""
    f = z3.Array("f", z3.IntSort(), z3.IntSort())
    c, n = z3.Ints("c n")
    name = "pigeonhole step without the swap"
    result = _pigeonhole_step(f, c, n, f, budget.timeout_ms, c == 2)
    if result.model is None:
        return Twin(name, result)
    m = result.model
    places, top = m.eval(c, model_completion=True).as_long() - 1, m.eval(n).as_long()
    if places > _MOST:
        return Twin(name, result, f"{places} places: too many to replay")
    values = _values(m, f, places)
    text = f"f over [0, {places}) = {values}, n = {top}"
    return Twin(name, result, text, any(not 0 <= v < top for v in values))


OBLIGATION = Obligation(
    id="definition-2.3-rounds",
    statement="Definition 2.3: the sequence X_k stabilises within |Args_t| rounds, for maps of "
    "every size (the counting argument, and the pigeonhole principle by induction on n)",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=lambda budget: [_counting_twin(budget), _pigeonhole_twin(budget)],
)
