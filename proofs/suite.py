"""The registry: every obligation the prover runs, in paper order (the core paper, then
the lineage module)."""

from __future__ import annotations

from proofs.obligations import (
    affected,
    bounded,
    conflict_free,
    lineage_modulus,
    retraction,
    standing,
    walk,
)
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
    lineage_modulus.OBLIGATION,
)
