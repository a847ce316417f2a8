"""Lemma 2.1 (the Verify walk is exact), unbounded.

The walk of ``gcv.reference.closure.dependency_walk`` with its worklist abstracted to
a set popped in any order (so every visiting order is covered): visited set V,
worklist W, and the breadth-first parent pointers and depths that the code keeps
to return its witness path.  Dep*(c) is an uninterpreted predicate ``reach``
with reflexivity and step axioms; the least-fixed-point induction rule is
instantiated for the one predicate the acceptance proof needs, the final V.

The inductive invariant J: c in V; V inside Dep*(c); V inside S_t; W inside V;
every visited record outside W has all its Dep links inside V; and every
visited record other than c has a visited parent one Dep link away at a
smaller depth (which makes V's members reachable in any finite model, so the
twins' counterexamples decode to real maps).  Termination is not stated here
(no cardinalities in this logic): the bounded walk obligation checks that the
walk ends within |Args| pops.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from gcv.proofs.decode import Decoded, decode_map, decode_members, decode_record
from gcv.proofs.encode import LABEL, REC, EncodedState, good
from gcv.proofs.obligations.worklist import Frame, Step, empty, singleton
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove
from gcv.spec import core

__all__ = ["OBLIGATION"]

_x, _y = z3.Consts("x y", REC)


@dataclass(frozen=True)
class EncodedWalk:
    """The Verify walk of Lemma 2.1 in Z3: the fixed map, the candidate, Dep*, and the walk's
    variables (the engine's answer of the walk is ``closure.Walk``)."""

    dep: z3.ArrayRef
    st: z3.ArrayRef
    c: z3.ExprRef
    reach: z3.FuncDeclRef

    @staticmethod
    def fresh() -> EncodedWalk:
        return EncodedWalk(
            z3.Array("dep", REC, REC, z3.BoolSort()),
            z3.Array("st", REC, LABEL),
            z3.Const("c", REC),
            z3.Function("reach", REC, z3.BoolSort()),
        )

    def axioms(self) -> list[z3.BoolRef]:
        """Dep*(c): reflexive, and closed under Dep links."""
        return [
            self.reach(self.c),
            z3.ForAll(
                [_x, _y], z3.Implies(z3.And(self.reach(_x), self.dep[_x, _y]), self.reach(_y))
            ),
        ]

    def induction(self, p: z3.ArrayRef) -> z3.BoolRef:
        """The least-fixed-point rule for ``p``: a set containing c and closed under Dep
        contains Dep*(c)."""
        closed = z3.ForAll([_x, _y], z3.Implies(z3.And(p[_x], self.dep[_x, _y]), p[_y]))
        return z3.Implies(
            z3.And(p[self.c], closed), z3.ForAll([_x], z3.Implies(self.reach(_x), p[_x]))
        )

    def as_state(self) -> EncodedState:
        """The map as an encoded state whose every record is registered."""
        no_attacks = z3.Lambda([_x, _y], z3.BoolVal(False))
        return EncodedState(z3.K(REC, z3.BoolVal(True)), self.st, no_attacks, self.dep)


def invariant(w: EncodedWalk, f: Frame, *, checks_standing: bool = True) -> z3.BoolRef:
    """J, the walk's inductive invariant."""
    v, work, parent, depth = f.reached, f.pending, f.link, f.depth
    clauses = [
        v[w.c],
        depth[w.c] == 0,
        z3.ForAll([_x], z3.Implies(v[_x], z3.And(w.reach(_x), depth[_x] >= 0))),
        z3.ForAll([_x], z3.Implies(work[_x], v[_x])),
        z3.ForAll([_x, _y], z3.Implies(z3.And(v[_x], z3.Not(work[_x]), w.dep[_x, _y]), v[_y])),
        z3.ForAll(
            [_x],
            z3.Implies(
                z3.And(v[_x], _x != w.c),
                z3.And(v[parent[_x]], w.dep[parent[_x], _x], depth[parent[_x]] < depth[_x]),
            ),
        ),
    ]
    if checks_standing:
        clauses.append(z3.ForAll([_x], z3.Implies(v[_x], good(w.st[_x]))))
    return z3.And(clauses)


def _start(w: EncodedWalk) -> Frame:
    return Frame.start(singleton(w.c), w.c)


def _forward(w: EncodedWalk) -> Step:
    return lambda popped, y: w.dep[popped, y]


def _new_all_good(w: EncodedWalk, f: Frame, popped: z3.ExprRef) -> z3.BoolRef:
    new = f.new(_forward(w), popped)
    return z3.ForAll([_y], z3.Implies(new[_y], good(w.st[_y])))


def checks(budget: Budget) -> list[Check]:
    w, f = EncodedWalk.fresh(), Frame.fresh("f")
    popped, found = z3.Consts("popped found", REC)
    axioms = w.axioms()
    ms = budget.timeout_ms
    return [
        Check(
            "initiation", prove([*axioms, good(w.st[w.c])], invariant(w, _start(w)), timeout_ms=ms)
        ),
        Check(
            "rejection at the candidate: Dep*(c) leaves S_t",
            prove(
                [*axioms, z3.Not(good(w.st[w.c]))],
                z3.And(w.reach(w.c), z3.Not(good(w.st[w.c]))),
                timeout_ms=ms,
            ),
        ),
        Check(
            "consecution: pop and expand",
            prove(
                [*axioms, invariant(w, f), f.pending[popped], _new_all_good(w, f, popped)],
                invariant(w, f.expand(_forward(w), popped)),
                timeout_ms=ms,
            ),
        ),
        Check(
            "rejection: the witness is in Dep*(c) and outside S_t",
            prove(
                [
                    *axioms,
                    invariant(w, f),
                    f.pending[popped],
                    w.dep[popped, found],
                    z3.Not(f.reached[found]),
                    z3.Not(good(w.st[found])),
                ],
                z3.And(w.reach(found), z3.Not(good(w.st[found]))),
                timeout_ms=ms,
            ),
        ),
        Check(
            "acceptance: V is exactly Dep*(c), inside S_t",
            prove(
                [*axioms, invariant(w, f), empty(f.pending), w.induction(f.reached)],
                z3.And(
                    z3.ForAll([_x], w.reach(_x) == f.reached[_x]),
                    z3.ForAll([_x], z3.Implies(w.reach(_x), good(w.st[_x]))),
                ),
                timeout_ms=ms,
            ),
        ),
    ]


def _no_standing_check(budget: Budget) -> Twin:
    """The walk without the S_t check accepts a candidate resting on a withdrawn record."""
    w, f = EncodedWalk.fresh(), Frame.fresh("f")
    result = prove(
        [*w.axioms(), invariant(w, f, checks_standing=False), empty(f.pending)],
        z3.ForAll([_x], z3.Implies(f.reached[_x], good(w.st[_x]))),
        timeout_ms=budget.timeout_ms,
    )
    if result.model is None:
        return Twin("walk without the S_t check", result)
    d = Decoded(result.model)
    m, c = decode_map(d, w.as_state()), decode_record(d, w.c)
    closure = sorted(core.compute_dependency_closure(m, c))
    text = f"accepts {c}, which the spec finds ungrounded: Dep*({c}) = {closure}"
    grounded = core.is_grounded(m, c)
    return Twin("walk without the S_t check", result, text, not grounded)


def _one_pop_short(budget: Budget) -> Twin:
    """Stopping with one record left on the worklist misses part of Dep*(c)."""
    w, f = EncodedWalk.fresh(), Frame.fresh("f")
    last = z3.Const("last", REC)
    only_last = z3.ForAll([_x], f.pending[_x] == (_x == last))
    result = prove(
        [*w.axioms(), invariant(w, f), only_last, w.induction(f.reached)],
        z3.ForAll([_x, _y], z3.Implies(z3.And(f.reached[_x], w.dep[_x, _y]), f.reached[_y])),
        timeout_ms=budget.timeout_ms,
    )
    if result.model is None:
        return Twin("walk with one pop too few", result)
    d = Decoded(result.model)
    m, c = decode_map(d, w.as_state()), decode_record(d, w.c)
    visited, closure = decode_members(d, f.reached), core.compute_dependency_closure(m, c)
    text = f"returns {sorted(visited)} for {c}; the spec's Dep*({c}) = {sorted(closure)}"
    return Twin("walk with one pop too few", result, text, visited != closure)


OBLIGATION = Obligation(
    id="lemma-2.1",
    statement="Lemma 2.1: the walk accepts iff Dep*(alpha_c) is inside S_t, "
    "and on acceptance returns exactly Dep*(alpha_c)",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=lambda budget: [_no_standing_check(budget), _one_pop_short(budget)],
)
