"""Each record enters the worklist at most once, with a visit counter (termination of both
queries and Proposition 2.5's bound), unbounded.

The worklist of ``worklist.Frame`` over an arbitrary link relation (so one proof covers the
Verify walk's Dep links and Affected*'s reverse ones), with three ghost variables the code
does not keep: the set of popped records, the number of pops, and the order they were
popped in (``order[k]`` is the k-th popped record, ``rank`` its inverse).  Invariant: the
reached records are the popped ones and the pending ones, no record both; ``order``
is a bijection from [0, pops) onto the popped records; every reached record is in Args_t
(the links relate registered records, Definition 2.1).

Consequences: every pop pops a record never popped before and adds one to the counter, so
the popped records and the counter grow together and ``order`` is injective into Args_t:
in every finite map the loop stops within |Args_t| pops, and, each record being expanded
at most once, it examines each link at most once (O(|Args_t| + |Dep_t|), Proposition
2.5).  The last step, from an injection into Args_t to "at most |Args_t|", is the
pigeonhole principle: this logic has no cardinalities, so it is not a check here (the
bounded obligations check the bound itself on every map of up to N records).
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from gcv.proofs.decode import Decoded, decode_members, decode_record
from gcv.proofs.encode import REC
from gcv.proofs.obligations.worklist import Frame, Step, empty
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove

__all__ = ["OBLIGATION"]

_x, _y = z3.Consts("x y", REC)
_k = z3.Int("k")


@dataclass(frozen=True)
class Counted:
    """A worklist frame with its ghost variables: popped, pops, order, rank."""

    frame: Frame
    popped: z3.ArrayRef
    pops: z3.ArithRef
    order: z3.ArrayRef
    rank: z3.ArrayRef

    @staticmethod
    def fresh(prefix: str) -> Counted:
        return Counted(
            Frame.fresh(prefix),
            z3.Array(f"{prefix}.popped", REC, z3.BoolSort()),
            z3.Int(f"{prefix}.pops"),
            z3.Array(f"{prefix}.order", z3.IntSort(), REC),
            z3.Array(f"{prefix}.rank", REC, z3.IntSort()),
        )

    def pop(self, step: Step, popped: z3.ExprRef, *, expand: Frame | None = None) -> Counted:
        """Pop ``popped``: expand it (``expand``, for a twin, replaces the frame's own
        expansion) and count it."""
        return Counted(
            expand if expand is not None else self.frame.expand(step, popped),
            z3.Store(self.popped, popped, True),
            self.pops + 1,
            z3.Store(self.order, self.pops, popped),
            z3.Store(self.rank, popped, self.pops),
        )


def invariant(c: Counted, args: z3.ArrayRef) -> z3.BoolRef:
    """T: reached is popped plus pending, the two disjoint; order a bijection from
    [0, pops) onto popped; reached inside Args_t."""
    f = c.frame
    return z3.And(
        c.pops >= 0,
        z3.ForAll([_x], z3.Implies(f.pending[_x], z3.And(f.reached[_x], z3.Not(c.popped[_x])))),
        z3.ForAll([_x], f.reached[_x] == z3.Or(c.popped[_x], f.pending[_x])),
        z3.ForAll([_x], z3.Implies(f.reached[_x], args[_x])),
        z3.ForAll(
            [_x],
            z3.Implies(
                c.popped[_x],
                z3.And(c.rank[_x] >= 0, c.rank[_x] < c.pops, c.order[c.rank[_x]] == _x),
            ),
        ),
        z3.ForAll([_k], z3.Implies(z3.And(_k >= 0, _k < c.pops), c.popped[c.order[_k]])),
    )


@dataclass(frozen=True)
class Setting:
    """Args_t, a link relation over it, and the records the worklist starts from."""

    args: z3.ArrayRef
    link: z3.ArrayRef
    first: z3.ArrayRef

    @staticmethod
    def fresh() -> Setting:
        return Setting(
            z3.Array("args", REC, z3.BoolSort()),
            z3.Array("link", REC, REC, z3.BoolSort()),
            z3.Array("first", REC, z3.BoolSort()),
        )

    def axioms(self) -> list[z3.BoolRef]:
        """The links and the first records are in Args_t (Definition 2.1)."""
        return [
            z3.ForAll(
                [_x, _y], z3.Implies(self.link[_x, _y], z3.And(self.args[_x], self.args[_y]))
            ),
            z3.ForAll([_x], z3.Implies(self.first[_x], self.args[_x])),
        ]

    def step(self) -> Step:
        return lambda popped, y: self.link[popped, y]


def _start(w: Setting, origin: z3.ExprRef) -> Counted:
    nothing = z3.K(REC, z3.BoolVal(False))
    return Counted(
        Frame.start(w.first, origin),
        nothing,
        z3.IntVal(0),
        z3.K(z3.IntSort(), origin),
        z3.K(REC, z3.IntVal(0)),
    )


def checks(budget: Budget) -> list[Check]:
    w, c = Setting.fresh(), Counted.fresh("c")
    origin, popped = z3.Consts("origin popped", REC)
    ms = budget.timeout_ms
    hypotheses = [*w.axioms(), invariant(c, w.args), c.frame.pending[popped]]
    after = c.pop(w.step(), popped)
    return [
        Check("initiation", prove(w.axioms(), invariant(_start(w, origin), w.args), timeout_ms=ms)),
        Check(
            "consecution: pop, expand and count",
            prove(hypotheses, invariant(after, w.args), timeout_ms=ms),
        ),
        Check(
            "a pop pops a record of Args_t never popped before",
            prove(hypotheses, z3.And(w.args[popped], z3.Not(c.popped[popped])), timeout_ms=ms),
        ),
        Check(
            "a popped record never enters the worklist again",
            prove(
                hypotheses,
                z3.ForAll([_x], z3.Implies(c.popped[_x], z3.Not(after.frame.pending[_x]))),
                timeout_ms=ms,
            ),
        ),
        Check(
            "the loop stops only when nothing is pending, every pop counted",
            prove(
                [*w.axioms(), invariant(c, w.args), empty(c.frame.pending)],
                z3.ForAll([_x], z3.Implies(c.frame.reached[_x], c.popped[_x])),
                timeout_ms=ms,
            ),
        ),
    ]


def _re_adding_twin(budget: Budget) -> Twin:
    """A worklist that puts every linked record back, reached or not: a popped record is
    pending again, so the counter no longer bounds the loop."""
    w, c = Setting.fresh(), Counted.fresh("c")
    popped = z3.Const("popped", REC)
    f = c.frame
    careless = Frame(
        z3.Lambda([_y], z3.Or(f.reached[_y], w.link[popped, _y])),
        z3.Lambda([_y], z3.Or(z3.And(f.pending[_y], _y != popped), w.link[popped, _y])),
        f.link,
        f.depth,
    )
    after = c.pop(w.step(), popped, expand=careless)
    name = "worklist re-adding reached records"
    result = prove(
        [*w.axioms(), invariant(c, w.args), f.pending[popped]],
        invariant(after, w.args),
        timeout_ms=budget.timeout_ms,
    )
    if result.model is None:
        return Twin(name, result)
    d = Decoded(result.model)
    again = decode_members(d, after.popped) & decode_members(d, after.frame.pending)
    text = f"after popping {decode_record(d, popped)}, popped and pending again: {sorted(again)}"
    return Twin(name, result, text, bool(again))


OBLIGATION = Obligation(
    id="worklist-once",
    statement="Lemma 2.1 / Definition 2.3 / Proposition 2.5: each record enters the worklist "
    "at most once and every pop is counted (termination within |Args_t| pops)",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=lambda budget: [_re_adding_twin(budget)],
)
