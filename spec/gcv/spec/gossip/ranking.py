"""Theorem 7.1 (conditional ranking termination): a seeded simulation harness.

The theorem: with a rank rho: X -> {0..B}, goal G = rho^-1(0), a progress
call beta(x) that the Guard permits and that strictly lowers the rank, a
candidate policy that proposes beta(X_t) with probability at least epsilon
at every non-goal step, and every other permitted call and every rejected
candidate leaving the rank non-increasing, E[T] <= rho(x0)/epsilon <= B/epsilon.

The harness runs a :class:`RankingProcess` many times from a fixed seed,
monitors the hypotheses along every run (a progress step that fails to lower
the rank, any step that raises it), and estimates E[T] by the sample mean with
its standard error.  Choices where the paper is silent:

* T counts candidate steps (denied candidates included), as X_t is indexed by
  candidate steps in the theorem.
* "The bound holds" means the sample mean is at most rho(x0)/epsilon plus
  three standard errors; "the bound fails" means it exceeds that.  A run cut
  at ``max_steps`` counts as ``max_steps`` (a lower bound on its T), which can
  only make a failure harder to show.
* The gossip instance (:func:`compute_gossip_process`): X is the committed
  history, rho counts missing (agent, secret) pairs (B = n(n - 1), goal E_0),
  beta(x) is the first call in canonical order whose callers' secret sets
  differ, and the Guard (exact, over H_src) permits a call iff its callers'
  sets differ.  With probability epsilon the policy proposes beta(x), else a
  uniformly random call.  Push-pull never loses a secret, so every hypothesis
  holds.  The broken variant adds a rollback candidate that undoes the last
  committed call without the Guard (a compensating action), which can raise
  the rank: the non-increasing-rank hypothesis fails and so does the bound.
* The counter instance (:func:`compute_counter_process`) is the extreme case:
  rho(x) = x, beta lowers it by one, every other candidate is rejected, so
  E[T] = x0/epsilon exactly; it shows the harness's check is not loose.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, Literal, TypeAlias, TypeVar

from gcv.spec.gossip.calls import (
    AgentSet,
    Call,
    History,
    compute_state,
    get_secrets,
)
from gcv.spec.gossip.errors import GossipError
from gcv.spec.gossip.formulas import Formula, Not, Secret, compute_conjunction, compute_iff
from gcv.spec.gossip.guard import compute_source_guard
from gcv.spec.gossip.source import compute_source_calls, require_source_agents

__all__ = [
    "RankingEstimate",
    "RankingProcess",
    "StepKind",
    "compute_counter_process",
    "compute_gossip_process",
    "compute_gossip_rank",
    "compute_hitting_time",
    "compute_ranking_estimate",
    "compute_same_secrets_precondition",
]

State = TypeVar("State")

# What one candidate step did: the progress call, another permitted call, a
# rejected candidate, or (broken variant only) a rollback.
StepKind: TypeAlias = Literal["progress", "other", "rejected", "rollback"]


@dataclass(frozen=True)
class RankingProcess(Generic[State]):
    """Theorem 7.1's setting: x0, rho, B, epsilon and one seeded candidate step."""

    name: str
    initial: State
    rank: Callable[[State], int]
    bound: int
    epsilon: Fraction
    step: Callable[[State, random.Random], tuple[State, StepKind]]


@dataclass(frozen=True)
class RankingEstimate:
    """The outcome of many runs: the estimate of E[T] and the theorem's bounds."""

    name: str
    runs: int
    seed: int
    mean: Fraction
    standard_error: float
    rank_bound: Fraction
    uniform_bound: Fraction
    capped: int
    rank_increases: int
    progress_failures: int

    @property
    def is_within_bound(self) -> bool:
        """The estimate does not exceed rho(x0)/epsilon by more than three standard errors."""
        return float(self.mean) <= float(self.rank_bound) + 3 * self.standard_error

    @property
    def hypotheses_held(self) -> bool:
        """No monitored step violated the theorem's rank hypotheses."""
        return self.rank_increases == 0 and self.progress_failures == 0


def _draw(rng: random.Random, probability: Fraction) -> bool:
    """Return True with exactly ``probability`` (a rational), using integer draws."""
    return rng.randrange(probability.denominator) < probability.numerator


def compute_hitting_time(
    process: RankingProcess[State], rng: random.Random, max_steps: int
) -> tuple[int, int, int, bool]:
    """Theorem 7.1 (T). Run once; return (T, rank increases, progress failures, capped)."""
    state = process.initial
    increases = failures = 0
    for t in range(max_steps):
        rank = process.rank(state)
        if rank == 0:
            return t, increases, failures, False
        state, kind = process.step(state, rng)
        after = process.rank(state)
        # Monitor the hypotheses: beta lowers the rank; nothing else raises it
        if kind == "progress" and not after < rank:
            failures += 1
        if after > rank:
            increases += 1
    return max_steps, increases, failures, process.rank(state) != 0


def compute_ranking_estimate(
    process: RankingProcess[State], runs: int, seed: int, max_steps: int = 10_000
) -> RankingEstimate:
    """Theorem 7.1. Estimate E[T] over ``runs`` seeded runs and compare with rho(x0)/epsilon."""
    if runs < 2:
        raise GossipError(f"an estimate with a standard error needs at least 2 runs, got {runs}")
    if not 0 < process.epsilon <= 1:
        raise GossipError(f"epsilon must lie in (0, 1], got {process.epsilon}")
    rng = random.Random(seed)
    times: list[int] = []
    capped = increases = failures = 0
    for _ in range(runs):
        t, up, bad, cut = compute_hitting_time(process, rng, max_steps)
        times.append(t)
        capped += cut
        increases += up
        failures += bad
    mean = Fraction(sum(times), runs)
    variance = sum((Fraction(t) - mean) ** 2 for t in times) / (runs - 1)
    return RankingEstimate(
        process.name,
        runs,
        seed,
        mean,
        math.sqrt(variance / runs),
        process.rank(process.initial) / process.epsilon,
        process.bound / process.epsilon,
        capped,
        increases,
        failures,
    )


def compute_gossip_rank(agents: AgentSet, history: History) -> int:
    """Theorem 7.1 (rho for gossip). The number of (agent, secret) pairs not yet known."""
    state = compute_state(agents, history)
    return sum(len(agents) - len(get_secrets(state, agent)) for agent in agents.names)


def compute_same_secrets_precondition(agents: AgentSet) -> Callable[[Call], Formula]:
    """The ranking protocol's precondition: pre(xy) = not (x and y know the same secrets)."""

    def precondition(call: Call) -> Formula:
        same = compute_conjunction(
            [compute_iff(Secret(call.first, z), Secret(call.second, z)) for z in agents.names]
        )
        return Not(same)

    return precondition


def compute_gossip_process(
    agents: AgentSet, epsilon: Fraction, rollback: Fraction = Fraction(0)
) -> RankingProcess[History]:
    """Theorem 7.1 (gossip instance). The guarded gossip process of the module docstring.

    With ``rollback`` > 0, that share of candidates undoes the last committed
    call (breaking the non-increasing-rank hypothesis).
    """
    require_source_agents(agents)
    if not 0 < epsilon <= 1 or not 0 <= rollback <= 1 - epsilon:
        raise GossipError(
            f"need 0 < epsilon <= 1 and 0 <= rollback <= 1 - epsilon; got {epsilon}, {rollback}"
        )
    calls = compute_source_calls(agents)
    precondition = compute_same_secrets_precondition(agents)

    def progress_call(history: History) -> Call:
        state = compute_state(agents, history)
        for call in calls:
            if get_secrets(state, call.first) != get_secrets(state, call.second):
                return call
        raise AssertionError("beta is only called at non-goal states")

    def step(history: History, rng: random.Random) -> tuple[History, StepKind]:
        kind: StepKind
        if _draw(rng, epsilon):
            candidate, kind = progress_call(history), "progress"
        elif rollback > 0 and _draw(rng, rollback / (1 - epsilon)):
            return history[:-1], "rollback"
        else:
            candidate, kind = rng.choice(calls), "other"
        decision = compute_source_guard(agents, precondition, candidate, history)
        if not decision.permitted:
            return history, "rejected"
        return (*history, candidate), kind

    name = f"gossip n={len(agents)} epsilon={epsilon}" + (
        f" rollback={rollback}" if rollback else ""
    )
    return RankingProcess(
        name,
        (),
        lambda history: compute_gossip_rank(agents, history),
        len(agents) * (len(agents) - 1),
        epsilon,
        step,
    )


def compute_counter_process(start: int, epsilon: Fraction) -> RankingProcess[int]:
    """Theorem 7.1 (tight instance). rho(x) = x; beta lowers x by 1; all else is rejected."""
    if start < 0 or not 0 < epsilon <= 1:
        raise GossipError(f"need start >= 0 and 0 < epsilon <= 1; got {start}, {epsilon}")

    def step(x: int, rng: random.Random) -> tuple[int, StepKind]:
        return (x - 1, "progress") if _draw(rng, epsilon) else (x, "rejected")

    return RankingProcess(
        f"counter x0={start} epsilon={epsilon}", start, lambda x: x, start, epsilon, step
    )
