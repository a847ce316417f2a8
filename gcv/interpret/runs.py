"""Repeated runs of the classification experiment: each cell's mean and spread.

The paper reports Table 2 (Phase 2 under three prompt conditions) and Table 4
(Phase 3 under the Definitions condition) over five runs per cell.  An
interpreter sampled from a hosted model need not answer the same way twice, so a
cell is the mean of its runs with their sample standard deviation and range, and
each run keeps its own token usage.

References
----------
Grounded Continuation, Section 4.3 ("Prompt ablation"), Tables 2 and 4;
spec/gcv/spec/normative.md, "Interpreter evaluation".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import mean, stdev

import icontract

from gcv.interpret.evaluate import ROWS, Evaluation, StateSource, evaluate
from gcv.interpret.protocol import Interpreter
from gcv.trace import Trace

__all__ = ["METRICS", "PAPER_RUNS", "Repeated", "Spread", "repeat", "spread"]

PAPER_RUNS = 5
METRICS = ("f1", "exact_match")


@dataclass(frozen=True, slots=True)
class Spread:
    """A cell over its runs: mean, sample standard deviation (0 for one run), range."""

    mean: float
    sd: float
    low: float
    high: float


@icontract.require(lambda values: len(values) >= 1, "at least one run")
@icontract.ensure(
    lambda result: result.low <= result.mean <= result.high and result.sd >= 0,
    "the mean lies in the range; a deviation is non-negative",
)
def spread(values: Sequence[float]) -> Spread:
    """The mean, sample standard deviation and range of ``values``."""
    return Spread(
        mean=mean(values),
        sd=stdev(values) if len(values) > 1 else 0.0,
        low=min(values),
        high=max(values),
    )


@dataclass(frozen=True, slots=True)
class Repeated:
    """The runs of one cell's experiment, in order."""

    evaluations: tuple[Evaluation, ...]

    @icontract.require(lambda row: row in ROWS, "a row of Table 2")
    @icontract.require(lambda metric: metric in METRICS, "F1 or exact match")
    def cell(self, row: str, metric: str, *, key_shifts_only: bool = False) -> Spread | None:
        """The spread of ``metric`` for ``row`` over the runs; None if a run has no turns."""
        values = [
            getattr(e.scores(row, key_shifts_only=key_shifts_only), metric)
            for e in self.evaluations
        ]
        return None if any(v is None for v in values) else spread(values)

    def as_dict(self) -> dict[str, object]:
        """Every run (as :meth:`Evaluation.as_dict`) and every cell's spread."""

        def plain(s: Spread | None) -> dict[str, float] | None:
            return None if s is None else {"mean": s.mean, "sd": s.sd, "low": s.low, "high": s.high}

        return {
            "runs": len(self.evaluations),
            "cells": {
                row: {
                    subset: {
                        metric: plain(
                            self.cell(row, metric, key_shifts_only=subset == "key_shifts")
                        )
                        for metric in METRICS
                    }
                    for subset in ("overall", "key_shifts")
                }
                for row in ROWS
            },
            "evaluations": [e.as_dict() for e in self.evaluations],
        }


@icontract.require(lambda runs: runs >= 1, "at least one run")
@icontract.ensure(lambda runs, result: len(result.evaluations) == runs, "one evaluation per run")
def repeat(
    trace: Trace,
    interpreter_for: Callable[[int], Interpreter],
    runs: int,
    *,
    state: StateSource = StateSource.GOLD,
    checkpoint_every: int = 1,
    keep_going: bool = False,
    quiet: bool = True,
) -> Repeated:
    """Evaluate ``interpreter_for(run)`` on ``trace`` for run = 1 .. ``runs``.

    Each run starts from the first turn with the interpreter made for it (the
    command varies the sampling seed per run).  Unless ``quiet``, each run draws
    its bar of utterances on a terminal's stderr (:func:`gcv.progress.progress`).

    Raises
    ------
    EndpointError
        The endpoint failed and ``keep_going`` is false.
    """
    evaluations = []
    for run in range(1, runs + 1):
        evaluations.append(
            evaluate(
                trace,
                interpreter_for(run),
                state=state,
                checkpoint_every=checkpoint_every,
                keep_going=keep_going,
                quiet=quiet,
            )
        )
    return Repeated(tuple(evaluations))
