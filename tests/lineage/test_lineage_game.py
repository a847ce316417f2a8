"""Sections 3.2 and 4.3: the judgment game, replication-only deviations and their utilities."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gcv.spec.lineage.errors import IneligibleExtensionError, MalformedProfileError
from gcv.spec.lineage.game import (
    Action,
    ActionKind,
    JudgmentGame,
    compute_outcome,
    compute_utility,
    find_profitable_deviations,
    generate_replication_deviations,
    is_replication_only_deviation,
    make_excerpt_game,
    make_relay_game,
)
from gcv.spec.lineage.model import make_relay
from gcv.spec.lineage.quotient import (
    judge_content_dfquad,
    judge_lineage_dfquad,
    judge_occurrence_dfquad,
    judge_plurality,
)

F = Fraction


@pytest.mark.parametrize("judge", [judge_occurrence_dfquad, judge_plurality])
def test_occurrence_sensitive_judges_reward_a_relay(judge) -> None:  # type: ignore[no-untyped-def]
    game, actions, relay = make_relay_game()
    profitable = find_profitable_deviations(game, judge, actions, "bob", [relay])
    assert profitable, judge.__name__
    deviation = profitable[0]
    assert is_replication_only_deviation(actions, deviation, "bob")
    gain = compute_utility(game, judge, deviation, "bob") - compute_utility(
        game, judge, actions, "bob"
    )
    assert gain == 1 - game.replication_cost


def test_content_quotient_rewards_an_excerpt_split_but_not_a_relay() -> None:
    game, actions, excerpt = make_excerpt_game()
    assert find_profitable_deviations(game, judge_content_dfquad, actions, "bob", [excerpt])
    _, _, relay = make_relay_game()
    assert not find_profitable_deviations(game, judge_content_dfquad, actions, "bob", [relay])


def test_lineage_quotient_is_neutral_to_both() -> None:
    for make in (make_relay_game, make_excerpt_game):
        game, actions, candidate = make()
        assert not find_profitable_deviations(
            game, judge_lineage_dfquad, actions, "bob", [candidate]
        )


@pytest.mark.parametrize("cost", [F(0), F(1, 100), F(1, 20)])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_prop_4_3_deleting_k_replications_gains_k_times_their_cost(cost: Fraction, k: int) -> None:
    base, actions, relay = make_relay_game()
    game = JudgmentGame(base.start, base.prefers_accept, base.fresh_cost, cost)
    replicated = (
        *actions,
        *(Action("bob", ActionKind.REPLICATE, make_relay(relay, f"sock-{i}")) for i in range(k)),
    )
    deviations = generate_replication_deviations(game, replicated, "bob", [])
    assert len(deviations) == 2**k - 1
    before = compute_utility(game, judge_lineage_dfquad, replicated, "bob")
    verdict = judge_lineage_dfquad(compute_outcome(game, replicated))
    for deviation in deviations:
        deleted = len(replicated) - len(deviation)
        assert judge_lineage_dfquad(compute_outcome(game, deviation)) == verdict
        after = compute_utility(game, judge_lineage_dfquad, deviation, "bob")
        assert after - before == deleted * cost
    # positive-cost replication is strictly dominated; at zero cost it is payoff-equivalent
    full_delete = deviations[-1]
    assert (compute_utility(game, judge_lineage_dfquad, full_delete, "bob") > before) == (cost > 0)


def test_admissibility_is_checked() -> None:
    game, actions, relay = make_relay_game()
    wrong_fresh = (*actions, Action("carol", ActionKind.FRESH, relay))
    with pytest.raises(IneligibleExtensionError, match="already represented"):
        compute_outcome(game, wrong_fresh)
    early_replica = (Action("carol", ActionKind.REPLICATE, relay), *actions)
    with pytest.raises(IneligibleExtensionError, match="not a root replica"):
        compute_outcome(game, early_replica)
    with pytest.raises(MalformedProfileError, match="fresh cost"):
        JudgmentGame(game.start, game.prefers_accept, F(1, 100), F(1, 10))
