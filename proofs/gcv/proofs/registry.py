"""Obligations, their checks and non-vacuity twins, and what a run reports.

An obligation discharges one paper statement.  Its checks must all be
``proved``; each twin drops one hypothesis or breaks one rule and must come back
with a counterexample that, decoded and replayed through ``spec/``, really
violates the statement (a twin that is proved, unknown, or whose counterexample
the spec does not confirm makes the run fail).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from gcv.proofs.solver import DEFAULT_TIMEOUT_MS, CheckResult, Outcome

__all__ = ["Budget", "Check", "Obligation", "Report", "Twin", "run"]


@dataclass(frozen=True)
class Budget:
    """How hard to try: the deep tier raises the bounds of the bounded checks."""

    deep: bool = False
    timeout_ms: int = DEFAULT_TIMEOUT_MS


@dataclass(frozen=True)
class Check:
    """One proof obligation instance (for example: consecution for Undermine)."""

    name: str
    result: CheckResult


@dataclass(frozen=True)
class Twin:
    """A non-vacuity twin: its check, and the spec's verdict on its counterexample."""

    name: str
    result: CheckResult
    replay: str = ""
    confirmed: bool = False

    @property
    def refuted(self) -> bool:
        """The twin came back with a counterexample the spec confirms."""
        return self.result.outcome is Outcome.COUNTEREXAMPLE and self.confirmed


@dataclass(frozen=True)
class Obligation:
    """A paper statement and how it is discharged."""

    id: str
    statement: str
    bound: Callable[[Budget], str]
    checks: Callable[[Budget], list[Check]]
    twins: Callable[[Budget], list[Twin]]


@dataclass(frozen=True)
class Report:
    """An obligation's run: every check, every twin, and the wall time."""

    obligation: Obligation
    bound: str
    checks: tuple[Check, ...]
    twins: tuple[Twin, ...]
    seconds: float

    @property
    def proved(self) -> bool:
        """Every check came back proved."""
        return all(c.result.outcome is Outcome.PROVED for c in self.checks)

    @property
    def ok(self) -> bool:
        """Proved, and every twin refuted."""
        return self.proved and all(t.refuted for t in self.twins)


def run(obligation: Obligation, budget: Budget) -> Report:
    """Run an obligation's checks and twins under ``budget``."""
    started = time.perf_counter()
    checks = tuple(obligation.checks(budget))
    twins = tuple(obligation.twins(budget))
    return Report(
        obligation, obligation.bound(budget), checks, twins, time.perf_counter() - started
    )
