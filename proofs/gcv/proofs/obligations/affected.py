"""Definition 2.3 and Corollary 2.4 (Affected* is exact reverse reachability), unbounded.

``gcv.reference.closure.reverse_closure`` with its pending list abstracted to a set
popped in any order: discovered set V, pending set W, and for each discovered
record the next record on a Dep path towards beta, at a smaller depth.  "x has
a non-empty Dep path to beta" is an uninterpreted predicate ``path`` with the
two axioms of its inductive definition; the least-fixed-point rule is
instantiated for the final V.  Since ``path(beta)`` holds exactly when beta lies
on a dependency cycle, the statement covers Definition 2.3's letter: beta is in
Affected*(beta) exactly on a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from gcv.proofs.decode import Decoded, decode_map, decode_members, decode_record
from gcv.proofs.encode import LABELS, REC, EncodedState
from gcv.proofs.obligations.worklist import Frame, Step, empty
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove
from gcv.reference.records import Standing
from gcv.spec import core

__all__ = ["OBLIGATION"]

_x, _y = z3.Consts("x y", REC)


@dataclass(frozen=True)
class Retraction:
    """The fixed Dep relation, the withdrawn beta, and the path predicate."""

    dep: z3.ArrayRef
    beta: z3.ExprRef
    path: z3.FuncDeclRef

    @staticmethod
    def fresh() -> Retraction:
        return Retraction(
            z3.Array("dep", REC, REC, z3.BoolSort()),
            z3.Const("beta", REC),
            z3.Function("path", REC, z3.BoolSort()),
        )

    def axioms(self) -> list[z3.BoolRef]:
        """A Dep link into beta is a path; a Dep link into a record with a path is one."""
        return [
            z3.ForAll([_y], z3.Implies(self.dep[_y, self.beta], self.path(_y))),
            z3.ForAll([_x, _y], z3.Implies(z3.And(self.dep[_y, _x], self.path(_x)), self.path(_y))),
        ]

    def induction(self, p: z3.ArrayRef) -> z3.BoolRef:
        """The least-fixed-point rule for ``p``."""
        closed = z3.And(
            z3.ForAll([_y], z3.Implies(self.dep[_y, self.beta], p[_y])),
            z3.ForAll([_x, _y], z3.Implies(z3.And(self.dep[_y, _x], p[_x]), p[_y])),
        )
        return z3.Implies(closed, z3.ForAll([_y], z3.Implies(self.path(_y), p[_y])))

    def as_state(self) -> EncodedState:
        """The Dep relation as an encoded state (every record registered and active)."""
        return EncodedState(
            z3.K(REC, z3.BoolVal(True)),
            z3.K(REC, LABELS[Standing.ACTIVE]),
            z3.Lambda([_x, _y], z3.BoolVal(False)),
            self.dep,
        )


def invariant(r: Retraction, f: Frame) -> z3.BoolRef:
    """K: Affected(beta) inside V; V inside the path predicate; W inside V; the reverse
    links into every expanded record inside V; each member one Dep link from beta or from
    a member at a smaller depth."""
    v, w = f.reached, f.pending
    return z3.And(
        z3.ForAll([_y], z3.Implies(r.dep[_y, r.beta], v[_y])),
        z3.ForAll([_y], z3.Implies(v[_y], z3.And(r.path(_y), f.depth[_y] >= 0))),
        z3.ForAll([_y], z3.Implies(w[_y], v[_y])),
        z3.ForAll([_x, _y], z3.Implies(z3.And(v[_x], z3.Not(w[_x]), r.dep[_y, _x]), v[_y])),
        z3.ForAll(
            [_y],
            z3.Implies(
                v[_y],
                z3.Or(
                    r.dep[_y, r.beta],
                    z3.And(
                        v[f.link[_y]],
                        r.dep[_y, f.link[_y]],
                        f.depth[f.link[_y]] < f.depth[_y],
                    ),
                ),
            ),
        ),
    )


def _start(r: Retraction) -> Frame:
    return Frame.start(z3.Lambda([_y], r.dep[_y, r.beta]), r.beta)


def _backward(r: Retraction) -> Step:
    return lambda popped, y: r.dep[y, popped]


def _closed(r: Retraction, v: z3.ArrayRef) -> z3.BoolRef:
    return z3.ForAll([_x, _y], z3.Implies(z3.And(v[_x], r.dep[_y, _x]), v[_y]))


def checks(budget: Budget) -> list[Check]:
    r, f = Retraction.fresh(), Frame.fresh("f")
    popped = z3.Const("popped", REC)
    ms = budget.timeout_ms
    nothing_pending = empty(f.pending)
    return [
        Check("initiation", prove(r.axioms(), invariant(r, _start(r)), timeout_ms=ms)),
        Check(
            "consecution: pop and expand",
            prove(
                [*r.axioms(), invariant(r, f), f.pending[popped]],
                invariant(r, f.expand(_backward(r), popped)),
                timeout_ms=ms,
            ),
        ),
        Check(
            "result: exactly the records with a non-empty Dep path to beta",
            prove(
                [*r.axioms(), invariant(r, f), nothing_pending, r.induction(f.reached)],
                z3.ForAll([_y], r.path(_y) == f.reached[_y]),
                timeout_ms=ms,
            ),
        ),
    ]


def _twin(name: str, hypotheses: list[z3.BoolRef], r: Retraction, f: Frame, budget: Budget) -> Twin:
    """Confirmed when the decoded result differs from the spec's Affected*(beta)."""
    result = prove(hypotheses, _closed(r, f.reached), timeout_ms=budget.timeout_ms)
    if result.model is None:
        return Twin(name, result)
    d = Decoded(result.model)
    m, beta = decode_map(d, r.as_state()), decode_record(d, r.beta)
    found, star = decode_members(d, f.reached), core.compute_affected_star(m, beta)
    text = f"returns {sorted(found)} for {beta}; the spec's Affected*({beta}) = {sorted(star)}"
    return Twin(name, result, text, found != star)


def twins(budget: Budget) -> list[Twin]:
    r, f = Retraction.fresh(), Frame.fresh("f")
    last = z3.Const("last", REC)
    one_step = _twin("one-step Affected in place of Affected*", r.axioms(), r, _start(r), budget)
    only_last = z3.ForAll([_x], f.pending[_x] == (_x == last))
    early = _twin(
        "Affected* stopped with one record pending",
        [*r.axioms(), invariant(r, f), only_last, r.induction(f.reached)],
        r,
        f,
        budget,
    )
    return [one_step, early]


OBLIGATION = Obligation(
    id="definition-2.3",
    statement="Definition 2.3 / Corollary 2.4: Affected*(beta) is exactly the set of "
    "records with a non-empty recorded Dep path to beta (beta itself exactly on a cycle)",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=twins,
)
