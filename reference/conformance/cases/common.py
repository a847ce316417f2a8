"""Starting maps shared by several cases."""

from __future__ import annotations

from reference.conformance.cases.builder import CaseBuilder
from reference.operations import Hypothesize, Observe, Resolve, Revise, Undermine

__all__ = ["base"]


def base(b: CaseBuilder) -> None:
    """Two turns: o1, o2 active; h1 active on o1; h2 weakened by o1; h3 abandoned; h4 resolved.

    One record in each standing label, so every standing precondition can be
    broken from here (the same map as ``tests/test_operations.py``'s ``base``).
    """
    b.apply(
        "a",
        Observe("o1", "401s"),
        Observe("o2", "3x traffic"),
        Hypothesize("h1", "token bug", depends_on=("o1",)),
        Hypothesize("h2", "Redis -> auth", depends_on=("o2",)),
        Hypothesize("h3", "DB outage"),
        Hypothesize("h4", "retry storm"),
    )
    b.apply("b", Undermine("h2", "o1"), Revise("h3"), Resolve("h4"))
