"""The registry: every obligation the prover runs, in paper order."""

from __future__ import annotations

from proofs.obligations import affected, bounded, conflict_free, retraction, standing, walk
from proofs.registry import Obligation

__all__ = ["OBLIGATIONS"]

OBLIGATIONS: tuple[Obligation, ...] = (
    walk.OBLIGATION,
    bounded.WALK,
    conflict_free.OBLIGATION,
    standing.NO_RETURN,
    standing.ABANDONED_FINAL,
    retraction.OBLIGATION,
    affected.OBLIGATION,
    bounded.AFFECTED,
)
