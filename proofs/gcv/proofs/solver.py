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


def _solver(timeout_ms: int, seed: int, context: z3.Context) -> z3.Solver:
    solver = z3.Solver(ctx=context)
    solver.set(timeout=timeout_ms, random_seed=seed)
    return solver


_RETRIES: tuple[dict[str, int | bool], ...] = ({"seed": 1}, {"seed": 2}, {"mbqi": False})
"""Where a query ends unknown: other seeds, then E-matching alone.  Model-based quantifier
instantiation gives up on some queries, depending only on term order (the satisfiable
hypotheses or the unsatisfiable proof query of a composition check), where another seed
or plain E-matching decides them.  Any decided answer is sound: sat comes with a model,
unsat is unsat."""


def _decide(
    constraints: Sequence[z3.BoolRef], timeout_ms: int, seed: int
) -> tuple[z3.Solver, z3.CheckSatResult]:
    """A fresh solver on ``constraints`` and its answer: the first retry that decides
    them, or the last one tried."""
    context = constraints[0].ctx
    solver, answer = _solver(timeout_ms, seed, context), z3.unknown
    for retry in _RETRIES:
        solver = _solver(timeout_ms, seed + int(retry.get("seed", 0)), context)
        if "mbqi" in retry:
            solver.set(mbqi=retry["mbqi"])
        solver.add(*constraints)
        answer = solver.check()
        if answer != z3.unknown:
            break
    return solver, answer


def prove(
    hypotheses: Sequence[z3.BoolRef],
    conclusion: z3.BoolRef,
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    seed: int = DEFAULT_SEED,
    witness: Sequence[z3.BoolRef] = (),
) -> CheckResult:
    """Prove ``And(hypotheses) => conclusion``.

    ``witness`` pins some variables to values that satisfy the hypotheses, for the
    vacuity check only: where the solver cannot build a model of the hypotheses on its
    own, one that satisfies them together with the witness shows them satisfiable.

    Returns ``VACUOUS`` when the hypotheses alone are unsatisfiable, ``PROVED``
    when ``hypotheses and not conclusion`` is unsatisfiable, ``COUNTEREXAMPLE``
    with the model when it is satisfiable, and ``UNKNOWN`` otherwise (after the
    retries of ``_RETRIES``).
    """
    started = time.perf_counter()
    # The solver lives in the terms' own context: an obligation built in a fresh
    # z3.Context is decided the same way whatever else the process has built.
    context = conclusion.ctx
    solver = _solver(timeout_ms, seed, context)
    solver.add(*hypotheses, *witness)
    sanity = solver.check()
    if sanity == z3.unknown:
        solver, sanity = _decide([*hypotheses, *witness], timeout_ms, seed)
    if sanity == z3.unsat and not witness:
        return CheckResult(Outcome.VACUOUS, time.perf_counter() - started)
    if sanity != z3.sat:
        reason = "the witness does not satisfy the hypotheses" if witness else ""
        return CheckResult(
            Outcome.UNKNOWN, time.perf_counter() - started, reason=reason or solver.reason_unknown()
        )
    if witness:  # the proof is about the hypotheses alone
        solver = _solver(timeout_ms, seed, context)
        solver.add(*hypotheses)
    solver.add(z3.Not(conclusion))
    answer = solver.check()
    if answer == z3.unknown:
        solver, answer = _decide([*hypotheses, z3.Not(conclusion)], timeout_ms, seed)
    seconds = time.perf_counter() - started
    if answer == z3.unsat:
        return CheckResult(Outcome.PROVED, seconds)
    if answer == z3.sat:
        return CheckResult(Outcome.COUNTEREXAMPLE, seconds, model=solver.model())
    return CheckResult(Outcome.UNKNOWN, seconds, reason=solver.reason_unknown())
