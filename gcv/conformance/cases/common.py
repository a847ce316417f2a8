"""Starting maps shared by several cases."""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.reference.operations import Hypothesize, Observe, Resolve, Revise, Undermine

__all__ = ["base"]


def base(b: CaseBuilder) -> None:
    """Three turns: o1, o2 active; h1 active on o1; h2 weakened by the evidence e0; h3
    abandoned; h4 resolved.

    One record in each standing label, so every standing precondition can be
    broken from here.  Each turn depends on no choice of the reference (no
    operation of one turn rests on another of a different kind; the evidence is
    registered, B.3), so a case built on it is in the ``paper`` profile until a
    step of its own makes a choice.
    """
    b.apply("a", Observe("o1", "401s"), Observe("o2", "3x traffic"))
    b.apply(
        "a",
        Hypothesize("h1", "token bug", depends_on=("o1",)),
        Hypothesize("h2", "Redis -> auth", depends_on=("o2",)),
        Hypothesize("h3", "DB outage"),
        Hypothesize("h4", "retry storm"),
    )
    b.apply("b", Undermine("h2", "e0", "counter-evidence"), Revise("h3"), Resolve("h4"))
