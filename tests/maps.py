"""A starting conversation shared by the test modules of the engine."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import gcv.reference.verifier
from gcv.reference.closure import Queries
from gcv.reference.operations import Hypothesize, Observe, Operation
from gcv.reference.verifier import Turn, Verifier

__all__ = ["OPENING", "answered_by", "four_active"]

OPENING: tuple[Operation, ...] = (
    Observe("o1", "401 errors"),
    Observe("o2", "3x traffic"),
    Hypothesize("h1", "token bug", depends_on=("o1",)),
    Hypothesize("h2", "retry loop"),
)
"""Turn 1, said by a: the observations o1 and o2, h1 resting on o1, h2 on nothing."""


def four_active() -> Verifier:
    """Agents a, b, c and the atom p after :data:`OPENING`: four records, all active."""
    v = Verifier(["a", "b", "c"], ["p"])
    v.apply_turn(Turn("a", OPENING))
    return v


@contextmanager
def answered_by(queries: Queries) -> Iterator[None]:
    """Make the Verifier ask ``queries`` (:data:`gcv.reference.closure.PURE` or
    ``COMPILED``) instead of the walk chosen at import."""
    saved = gcv.reference.verifier.QUERIES
    gcv.reference.verifier.QUERIES = queries
    try:
        yield
    finally:
        gcv.reference.verifier.QUERIES = saved
