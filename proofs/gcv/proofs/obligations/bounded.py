"""Bounded all-maps checks: the concrete walk and the X_k iteration, for every map of
n records, for each n from 1 to N (fast tier N = 7, deep tier N = 8).

Here nothing is abstracted: a map is n x n Boolean Dep variables and n standing bits
(in S_t or not), the walk is unrolled pop by pop with the popped record chosen freely
from the worklist (so every visiting order is covered), and X_0 .. X_n are computed
round by round.  Each n is checked on its own, so "within |Args| pops" is n pops for a
map of n records, not N; by symmetry the candidate (or the withdrawn premise) is
record 0.  "Dep*(c)" is characterised as the least closed set with a fresh witness
vector: the result must be closed, contain c, and lie inside every closed set Q
containing c, for a free Q; a Warshall-style closure is avoided because it is an order
of magnitude slower.

These checks add what the unbounded proofs cannot state: the walk ends within
|Args| pops, and the X_k sequence stabilises within |Args_t| rounds; their twins
show both bounds are tight.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import CheckResult, prove
from gcv.spec import core

__all__ = ["AFFECTED", "WALK", "bound"]

FAST_N, DEEP_N = 7, 8


def bound(budget: Budget) -> int:
    """N for the budget's tier."""
    return DEEP_N if budget.deep else FAST_N


@dataclass(frozen=True)
class Map:
    """N records: Dep as Boolean variables, and whether each record is in S_t."""

    n: int
    dep: list[list[z3.BoolRef]]
    good: list[z3.BoolRef]

    @staticmethod
    def fresh(n: int) -> Map:
        dep = [[z3.Bool(f"dep_{i}_{j}") for j in range(n)] for i in range(n)]
        return Map(n, dep, [z3.Bool(f"good_{i}") for i in range(n)])

    def closed(self, members: list[z3.BoolRef]) -> z3.BoolRef:
        """``members`` contains Dep(i) for each member i."""
        n = self.n
        return z3.And(
            [
                z3.Implies(z3.And(members[i], self.dep[i][j]), members[j])
                for i in range(n)
                for j in range(n)
            ]
        )

    def reverse_closed(self, members: list[z3.BoolRef], beta: int) -> z3.BoolRef:
        """``members`` contains Affected(beta) and every record with a Dep link into it."""
        n = self.n
        direct = [z3.Implies(self.dep[i][beta], members[i]) for i in range(n)]
        step = [
            z3.Implies(z3.And(members[j], self.dep[i][j]), members[i])
            for i in range(n)
            for j in range(n)
        ]
        return z3.And(direct + step)

    def decode(self, model: z3.ModelRef) -> core.DependencyMap:
        """The map in the model, as the spec's value (outside S_t means abandoned)."""

        def holds(term: z3.BoolRef) -> bool:
            return bool(z3.is_true(model.eval(term, model_completion=True)))

        args = [f"r{i}" for i in range(self.n)]
        return core.DependencyMap(
            args=frozenset(args),
            att=frozenset(),
            standing={
                args[i]: core.ACTIVE if holds(self.good[i]) else core.ABANDONED
                for i in range(self.n)
            },
            dep=frozenset(
                (args[i], args[j])
                for i in range(self.n)
                for j in range(self.n)
                if holds(self.dep[i][j])
            ),
        )


def _subset(a: list[z3.BoolRef], b: list[z3.BoolRef]) -> z3.BoolRef:
    return z3.And([z3.Implies(x, y) for x, y in zip(a, b, strict=True)])


def _vector(prefix: str, n: int) -> list[z3.BoolRef]:
    return [z3.Bool(f"{prefix}_{i}") for i in range(n)]


@dataclass(frozen=True)
class Run:
    """The unrolled walk: its defining constraints and its last frame."""

    constraints: list[z3.BoolRef]
    visited: list[z3.BoolRef]
    work: list[z3.BoolRef]
    rejected: z3.BoolRef


def unroll_walk(m: Map, pops: int, *, checks_standing: bool = True) -> Run:
    """The walk from record 0 for ``pops`` pops, each popping any worklist member."""
    n = m.n
    visited = [z3.BoolVal(i == 0) for i in range(n)]
    work = list(visited)
    rejected = z3.Not(m.good[0]) if checks_standing else z3.BoolVal(False)
    constraints: list[z3.BoolRef] = []
    for k in range(pops):
        pick = _vector(f"pick{k}", n)
        idle = z3.Or(rejected, z3.Not(z3.Or(work)))
        constraints.append(z3.If(idle, z3.Not(z3.Or(pick)), z3.PbEq([(p, 1) for p in pick], 1)))
        constraints += [z3.Implies(pick[i], work[i]) for i in range(n)]
        new = [
            z3.And(z3.Or([z3.And(pick[i], m.dep[i][j]) for i in range(n)]), z3.Not(visited[j]))
            for j in range(n)
        ]
        bad = (
            z3.Or([z3.And(new[j], z3.Not(m.good[j])) for j in range(n)])
            if checks_standing
            else z3.BoolVal(False)
        )
        visited = [z3.Or(visited[j], new[j]) for j in range(n)]
        work = [z3.Or(z3.And(work[j], z3.Not(pick[j])), new[j]) for j in range(n)]
        rejected = z3.Or(rejected, bad)
    return Run(constraints, visited, work, rejected)


def _walk_claims(m: Map, run: Run, witness: list[z3.BoolRef]) -> dict[str, z3.BoolRef]:
    v = run.visited
    least = z3.Implies(z3.And(witness[0], m.closed(witness)), _subset(v, witness))
    reaches_bad = z3.Implies(
        z3.And(witness[0], m.closed(witness)),
        z3.Or([z3.And(witness[i], z3.Not(m.good[i])) for i in range(m.n)]),
    )
    return {
        "ends within |Args| pops": z3.Or(run.rejected, z3.Not(z3.Or(run.work))),
        "accepts only inside S_t": z3.Implies(z3.Not(run.rejected), _subset(v, m.good)),
        "accepts with exactly Dep*(c)": z3.Implies(
            z3.Not(run.rejected), z3.And(v[0], m.closed(v), least)
        ),
        "rejects only when Dep*(c) leaves S_t": z3.Implies(run.rejected, reaches_bad),
    }


def _walk_checks(budget: Budget) -> list[Check]:
    out = []
    for n in range(1, bound(budget) + 1):
        m = Map.fresh(n)
        run = unroll_walk(m, n)
        claims = _walk_claims(m, run, _vector("Q", n))
        out += [
            Check(f"N = {n}: {name}", prove(run.constraints, claim, timeout_ms=budget.timeout_ms))
            for name, claim in claims.items()
        ]
    return out


Confirm = Callable[[core.DependencyMap], bool]


def _twin(
    name: str,
    m: Map,
    result: CheckResult,
    confirm: Confirm,
    describe: Callable[[core.DependencyMap], str],
) -> Twin:
    """Decode the counterexample map and let the spec confirm it."""
    if result.model is None:
        return Twin(name, result)
    d = m.decode(result.model)
    return Twin(name, result, describe(d), confirm(d))


def _describe_walk(d: core.DependencyMap) -> str:
    closure = sorted(core.compute_dependency_closure(d, "r0"))
    return f"Dep*(r0) = {closure}, grounded: {core.is_grounded(d, 'r0')}"


def _walk_twins(budget: Budget) -> list[Twin]:
    n = bound(budget)
    m, witness = Map.fresh(n), _vector("Q", n)
    short = unroll_walk(m, n - 1)
    claim = _walk_claims(m, short, witness)["ends within |Args| pops"]
    needs_every_pop: Confirm = lambda d: (  # noqa: E731
        len(core.compute_dependency_closure(d, "r0")) == n and core.is_grounded(d, "r0")
    )
    blind = unroll_walk(m, n, checks_standing=False)
    blind_claim = _walk_claims(m, blind, witness)["accepts only inside S_t"]
    return [
        _twin(
            "walk with one pop too few",
            m,
            prove(short.constraints, claim, timeout_ms=budget.timeout_ms),
            needs_every_pop,
            _describe_walk,
        ),
        _twin(
            "walk without the S_t check",
            m,
            prove(blind.constraints, blind_claim, timeout_ms=budget.timeout_ms),
            lambda d: not core.is_grounded(d, "r0"),
            _describe_walk,
        ),
    ]


def iterate_affected(m: Map, rounds: int) -> list[list[z3.BoolRef]]:
    """Definition 2.3's X_0 .. X_rounds for beta = record 0."""
    n = m.n
    sequence = [[m.dep[i][0] for i in range(n)]]
    for _ in range(rounds):
        x = sequence[-1]
        sequence.append(
            [z3.Or(x[i], z3.Or([z3.And(m.dep[i][j], x[j]) for j in range(n)])) for i in range(n)]
        )
    return sequence


def _equal(a: list[z3.BoolRef], b: list[z3.BoolRef]) -> z3.BoolRef:
    return z3.And([x == y for x, y in zip(a, b, strict=True)])


def _affected_checks(budget: Budget) -> list[Check]:
    out = []
    ms = budget.timeout_ms
    for n in range(1, bound(budget) + 1):
        m, witness = Map.fresh(n), _vector("Q", n)
        x = iterate_affected(m, n)
        final = x[n - 1]
        least = z3.Implies(m.reverse_closed(witness, 0), _subset(final, witness))
        out += [
            Check(
                f"N = {n}: X_k stabilises within |Args| rounds",
                prove([], _equal(x[n - 1], x[n]), timeout_ms=ms),
            ),
            Check(
                f"N = {n}: the limit is the least set containing Affected(beta) closed under "
                "the step",
                prove([], z3.And(m.reverse_closed(final, 0), least), timeout_ms=ms),
            ),
        ]
    return out


def _describe_iteration(d: core.DependencyMap) -> str:
    sizes = [len(x) for x in core.compute_affected_iteration(d, "r0")]
    return f"|X_k| = {sizes}"


def _affected_twins(budget: Budget) -> list[Twin]:
    n = bound(budget)
    m = Map.fresh(n)
    x = iterate_affected(m, n)
    ms = budget.timeout_ms

    def grows_late(d: core.DependencyMap) -> bool:
        sequence = core.compute_affected_iteration(d, "r0")
        return len(sequence) > n - 1 and sequence[n - 2] != sequence[n - 1]

    return [
        _twin(
            "Affected* stopped one round early",
            m,
            prove([], _equal(x[n - 2], x[n - 1]), timeout_ms=ms),
            grows_late,
            _describe_iteration,
        ),
        _twin(
            "one-step Affected in place of Affected*",
            m,
            prove([], m.reverse_closed(x[0], 0), timeout_ms=ms),
            lambda d: core.compute_affected(d, "r0") != core.compute_affected_star(d, "r0"),
            _describe_iteration,
        ),
    ]


WALK = Obligation(
    id="lemma-2.1-bounded",
    statement="Lemma 2.1, concrete walk: ends within |Args| pops, accepts iff Dep*(alpha_c) "
    "is inside S_t, returns exactly Dep*(alpha_c)",
    bound=lambda budget: f"each N <= {bound(budget)}",
    checks=_walk_checks,
    twins=_walk_twins,
)

AFFECTED = Obligation(
    id="definition-2.3-bounded",
    statement="Definition 2.3: X_k stabilises within |Args_t| rounds at Affected*(beta), "
    "the least set containing Affected(beta) closed under the step",
    bound=lambda budget: f"each N <= {bound(budget)}",
    checks=_affected_checks,
    twins=_affected_twins,
)
