"""Theorem 7.1 (conditional ranking termination): the seeded simulation harness."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from gcv.spec.gossip import (
    AgentSet,
    GossipError,
    RankingProcess,
    compute_counter_process,
    compute_gossip_process,
    compute_history,
    compute_ranking_estimate,
)
from gcv.spec.gossip.ranking import compute_gossip_rank, compute_hitting_time

ABC = AgentSet(("a", "b", "c"))


def test_gossip_rank_counts_missing_secrets():
    assert compute_gossip_rank(ABC, ()) == 6
    assert compute_gossip_rank(ABC, compute_history(ABC, "ab")) == 4
    assert compute_gossip_rank(ABC, compute_history(ABC, "ab;bc")) == 1
    assert compute_gossip_rank(ABC, compute_history(ABC, "ab;bc;ac")) == 0


@pytest.mark.slow
def test_bound_holds_for_the_guarded_gossip_process():
    process = compute_gossip_process(ABC, Fraction(1, 4))
    estimate = compute_ranking_estimate(process, runs=400, seed=11)
    assert estimate.rank_bound == Fraction(6) / Fraction(1, 4) == estimate.uniform_bound
    assert estimate.hypotheses_held
    assert estimate.capped == 0
    assert estimate.is_within_bound
    assert estimate.mean < estimate.rank_bound / 2  # the gossip process is far from tight


@pytest.mark.slow
def test_bound_holds_for_four_agents():
    agents = AgentSet(("a", "b", "c", "d"))
    estimate = compute_ranking_estimate(compute_gossip_process(agents, Fraction(1, 5)), 150, 12)
    assert estimate.hypotheses_held and estimate.is_within_bound
    assert estimate.rank_bound == 12 * 5


def test_counter_process_attains_the_bound():
    """E[T] = x0/epsilon exactly here, so the estimate sits on the bound, within noise."""
    estimate = compute_ranking_estimate(compute_counter_process(6, Fraction(1, 4)), 3000, 13)
    assert estimate.hypotheses_held and estimate.is_within_bound
    assert abs(float(estimate.mean) - 24) <= 4 * estimate.standard_error


def test_overstated_epsilon_is_detected():
    """A process that proposes beta with 1/4 but claims 1/2 breaks the bound rho/epsilon = 12."""
    honest = compute_counter_process(6, Fraction(1, 4))
    claimed = RankingProcess("counter claiming 1/2", 6, honest.rank, 6, Fraction(1, 2), honest.step)
    estimate = compute_ranking_estimate(claimed, 2000, 14)
    assert not estimate.is_within_bound


@pytest.mark.slow
def test_bound_fails_when_rank_can_increase():
    """Rollbacks undo committed calls: the non-increasing-rank hypothesis and the bound fail."""
    process = compute_gossip_process(ABC, Fraction(1, 4), rollback=Fraction(3, 4))
    estimate = compute_ranking_estimate(process, runs=150, seed=15)
    assert estimate.rank_increases > 0
    assert not estimate.hypotheses_held
    assert not estimate.is_within_bound
    assert estimate.mean > 2 * estimate.rank_bound


def test_estimates_are_reproducible_from_the_seed():
    process = compute_gossip_process(ABC, Fraction(1, 3))
    assert compute_ranking_estimate(process, 50, 99) == compute_ranking_estimate(process, 50, 99)


def test_hitting_time_is_zero_at_the_goal_and_capped_runs_are_reported():
    done = RankingProcess("done", 0, lambda x: x, 3, Fraction(1, 2), lambda x, rng: (x, "rejected"))
    assert compute_hitting_time(done, random.Random(0), 10) == (0, 0, 0, False)
    stuck = RankingProcess(
        "stuck", 2, lambda x: x, 3, Fraction(1, 2), lambda x, rng: (x, "progress")
    )
    t, increases, failures, capped = compute_hitting_time(stuck, random.Random(0), 10)
    assert (t, increases, failures, capped) == (10, 0, 10, True)


def test_bad_parameters_are_refused():
    with pytest.raises(GossipError):
        compute_gossip_process(ABC, Fraction(0))
    with pytest.raises(GossipError):
        compute_gossip_process(ABC, Fraction(1, 2), rollback=Fraction(3, 4))
    with pytest.raises(GossipError):
        compute_ranking_estimate(compute_counter_process(2, Fraction(1, 2)), 1, 0)
