"""The worklist both queries run, abstracted for the unbounded proofs.

The Verify walk and Affected* are the same algorithm over Dep in opposite
directions: a set of reached records, a set still to expand (popped in any
order, so every visiting order is covered), and for each reached record the
record it was reached from and its depth, which the code keeps as parent
pointers.  Only the step relation differs, so each obligation passes its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from gcv.proofs.encode import REC

__all__ = ["Frame", "Step", "empty", "singleton"]

_y = z3.Const("y", REC)

Step = Callable[[z3.ExprRef, z3.ExprRef], z3.BoolRef]
"""``step(popped, y)``: y is one link away from ``popped`` in the query's direction."""


@dataclass(frozen=True)
class Frame:
    """The worklist's variables: reached, pending, the link back, the depth."""

    reached: z3.ArrayRef
    pending: z3.ArrayRef
    link: z3.ArrayRef
    depth: z3.ArrayRef

    @staticmethod
    def fresh(prefix: str) -> Frame:
        """Unconstrained variables."""
        return Frame(
            z3.Array(f"{prefix}.reached", REC, z3.BoolSort()),
            z3.Array(f"{prefix}.pending", REC, z3.BoolSort()),
            z3.Array(f"{prefix}.link", REC, REC),
            z3.Array(f"{prefix}.depth", REC, z3.IntSort()),
        )

    @staticmethod
    def start(first: z3.ArrayRef, origin: z3.ExprRef) -> Frame:
        """``first`` reached and pending, each linked back to ``origin`` at depth 0."""
        return Frame(first, first, z3.K(REC, origin), z3.K(REC, z3.IntVal(0)))

    def new(self, step: Step, popped: z3.ExprRef) -> z3.ArrayRef:
        """The records expanding ``popped`` reaches for the first time."""
        return z3.Lambda([_y], z3.And(step(popped, _y), z3.Not(self.reached[_y])))

    def expand(self, step: Step, popped: z3.ExprRef) -> Frame:
        """Pop ``popped`` and reach what it links to, one level deeper."""
        new = self.new(step, popped)
        return Frame(
            z3.Lambda([_y], z3.Or(self.reached[_y], new[_y])),
            z3.Lambda([_y], z3.Or(z3.And(self.pending[_y], _y != popped), new[_y])),
            z3.Lambda([_y], z3.If(new[_y], popped, self.link[_y])),
            z3.Lambda([_y], z3.If(new[_y], self.depth[popped] + 1, self.depth[_y])),
        )


def empty(members: z3.ArrayRef) -> z3.BoolRef:
    """No record is a member."""
    return z3.ForAll([_y], z3.Not(members[_y]))


def singleton(record: z3.ExprRef) -> z3.ArrayRef:
    """The set holding only ``record``."""
    return z3.Lambda([_y], _y == record)
