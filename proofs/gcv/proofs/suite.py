"""The registry: every obligation the prover runs, in paper order (the core paper, then
the lineage module)."""

from __future__ import annotations

from gcv.proofs.obligations import (
    abduction,
    affected,
    bounded,
    closure_loop,
    composition,
    conflict_free,
    lineage_modulus,
    plausibility,
    retraction,
    stabilisation,
    standing,
    table3,
    table_rows,
    termination,
    walk,
    walk_loop,
)
from gcv.proofs.registry import Obligation

__all__ = ["OBLIGATIONS"]

OBLIGATIONS: tuple[Obligation, ...] = (
    table3.OBLIGATION,
    table_rows.ROWS_OBLIGATION,
    table_rows.CHOICES_OBLIGATION,
    walk.OBLIGATION,
    walk_loop.OBLIGATION,
    termination.OBLIGATION,
    bounded.WALK,
    conflict_free.OBLIGATION,
    composition.OBLIGATION,
    standing.NO_RETURN,
    standing.ABANDONED_FINAL,
    retraction.OBLIGATION,
    affected.OBLIGATION,
    bounded.AFFECTED,
    stabilisation.OBLIGATION,
    closure_loop.OBLIGATION,
    plausibility.OBLIGATION,
    abduction.OBLIGATION,
    lineage_modulus.OBLIGATION,
)
