"""The solver frame every obligation runs in: fixed seed, fixed timeout, one outcome.

An obligation ``hypotheses => conclusion`` is proved by finding
``hypotheses and not conclusion`` unsatisfiable.  Before that, the hypotheses
alone must be satisfiable; otherwise the proof would hold vacuously and is
reported as such.  ``unknown`` is never a pass; when the first try ends unknown,
a second one by E-matching alone may still find the query unsatisfiable.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Sequence
from dataclasses import dataclass

import z3

__all__ = ["DEFAULT_SEED", "DEFAULT_TIMEOUT_MS", "CheckResult", "Outcome", "prove"]

DEFAULT_SEED = 0
DEFAULT_TIMEOUT_MS = 60_000


class Outcome(enum.Enum):
    """The four ways a check can end."""

    PROVED = "proved"
    COUNTEREXAMPLE = "counterexample"
    UNKNOWN = "unknown"
    VACUOUS = "vacuous"


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one check, its wall time, and the model when there is a counterexample."""

    outcome: Outcome
    seconds: float
    model: z3.ModelRef | None = None
    reason: str = ""


def _solver(timeout_ms: int, seed: int) -> z3.Solver:
    solver = z3.Solver()
    solver.set(timeout=timeout_ms, random_seed=seed)
    return solver


def prove(
    hypotheses: Sequence[z3.BoolRef],
    conclusion: z3.BoolRef,
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    seed: int = DEFAULT_SEED,
) -> CheckResult:
    """Prove ``And(hypotheses) => conclusion``.

    Returns ``VACUOUS`` when the hypotheses alone are unsatisfiable, ``PROVED``
    when ``hypotheses and not conclusion`` is unsatisfiable, ``COUNTEREXAMPLE``
    with the model when it is satisfiable, and ``UNKNOWN`` otherwise.
    """
    started = time.perf_counter()
    solver = _solver(timeout_ms, seed)
    solver.add(*hypotheses)
    sanity = solver.check()
    if sanity == z3.unsat:
        return CheckResult(Outcome.VACUOUS, time.perf_counter() - started)
    if sanity == z3.unknown:
        return CheckResult(
            Outcome.UNKNOWN, time.perf_counter() - started, reason=solver.reason_unknown()
        )
    solver.add(z3.Not(conclusion))
    answer = solver.check()
    if answer == z3.unknown:
        # Model-based instantiation can give up on a query that E-matching alone refutes
        # (some composition checks): a second try without it, on a fresh solver.  It can
        # only turn unknown into unsat; a model it found would not be trusted.
        retry = _solver(timeout_ms, seed)
        retry.set(mbqi=False)
        retry.add(*hypotheses, z3.Not(conclusion))
        if retry.check() == z3.unsat:
            answer = z3.unsat
    seconds = time.perf_counter() - started
    if answer == z3.unsat:
        return CheckResult(Outcome.PROVED, seconds)
    if answer == z3.sat:
        return CheckResult(Outcome.COUNTEREXAMPLE, seconds, model=solver.model())
    return CheckResult(Outcome.UNKNOWN, seconds, reason=solver.reason_unknown())
