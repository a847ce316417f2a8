"""Sections 3.2 and 4.3: the minimal judgment game and its replication-only deviations.

Agents act by acquiring fresh roots (costly) or by replicating represented
roots (cheap): relaying, paraphrasing, resubmitting under an alias, splitting
excerpts.  An agent's utility is the value of the verdict to it (1 when the
verdict is the one it prefers, 0 otherwise) minus the cost of its own
actions.  A replication-only deviation adds or removes some of one agent's
replication actions and leaves every other action in place (p. 4).

Section 4.3: under RRI a replication-only deviation cannot change the
verdict, so deleting k replication actions raises utility by exactly k times
the replication cost (positive-cost replication is strictly dominated); the
occurrence DF-QuAD judge and the plurality vote can reward a relay, and the
content-keyed quotient an excerpt split.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

from gcv.spec.lineage.dfquad import Real, Sign
from gcv.spec.lineage.errors import IneligibleExtensionError, MalformedProfileError
from gcv.spec.lineage.model import (
    Occurrence,
    Profile,
    compute_extension,
    is_fresh,
    is_root_replica,
    make_direct_profile,
)
from gcv.spec.lineage.quotient import VERDICT_THRESHOLD, Judge, compute_verdict

__all__ = [
    "Action",
    "ActionKind",
    "JudgmentGame",
    "compute_outcome",
    "compute_utility",
    "find_profitable_deviations",
    "generate_replication_deviations",
    "is_replication_only_deviation",
    "make_excerpt_game",
    "make_relay_game",
]


class ActionKind(enum.Enum):
    """Section 3.2. What an action does: acquire a fresh root, or replicate a represented one."""

    FRESH = "fresh"
    REPLICATE = "replicate"


@dataclass(frozen=True)
class Action:
    """Section 3.2 (action). One agent submits one occurrence, fresh or replicated."""

    agent: str
    kind: ActionKind
    occurrence: Occurrence


@dataclass(frozen=True)
class JudgmentGame:
    """Section 3.2 (minimal judgment game). Start profile, verdict preferences, action costs."""

    start: Profile
    prefers_accept: dict[str, bool] = field(default_factory=dict)
    fresh_cost: Real = Fraction(1, 10)
    replication_cost: Real = Fraction(1, 100)
    threshold: Real = VERDICT_THRESHOLD

    def __post_init__(self) -> None:
        # Verify that costs are non-negative and fresh acquisition costs more than replication
        if not 0 <= self.replication_cost < self.fresh_cost:
            raise MalformedProfileError(
                f"the game needs 0 <= replication cost < fresh cost, got "
                f"{self.replication_cost} and {self.fresh_cost}"
            )


def compute_outcome(game: JudgmentGame, actions: Sequence[Action]) -> Profile:
    """Section 3.2. Apply the actions in order; raise if one is not admissible.

    A fresh action must open a root the profile does not represent yet; a
    replication action must be a root replica (no new unit, no new strength)
    of the profile built so far (Appendix A.4).
    """
    profile = game.start
    for action in actions:
        if action.kind is ActionKind.FRESH and not is_fresh(profile, action.occurrence):
            raise IneligibleExtensionError(
                f"{action.agent}'s fresh action renders root {action.occurrence.root!r}, which "
                f"is already represented"
            )
        if action.kind is ActionKind.REPLICATE and not is_root_replica(profile, action.occurrence):
            raise IneligibleExtensionError(
                f"{action.agent}'s replication action on root {action.occurrence.root!r} is not "
                f"a root replica"
            )
        profile = compute_extension(profile, action.occurrence)
    return profile


def compute_utility(
    game: JudgmentGame, judge: Judge, actions: Sequence[Action], agent: str
) -> Real:
    """Section 3.2 (utility). Verdict value to ``agent`` minus the cost of its actions."""
    # Verify that the agent has a verdict preference
    if agent not in game.prefers_accept:
        raise MalformedProfileError(f"agent {agent!r} has no verdict preference in the game")
    verdict = compute_verdict(judge(compute_outcome(game, actions)), game.threshold)
    value = 1 if verdict == game.prefers_accept[agent] else 0
    cost = sum(
        (
            game.fresh_cost if a.kind is ActionKind.FRESH else game.replication_cost
            for a in actions
            if a.agent == agent
        ),
        start=Fraction(0),
    )
    return value - cost


def is_replication_only_deviation(
    actions: Sequence[Action], deviation: Sequence[Action], agent: str
) -> bool:
    """Section 3.2. Check ``deviation`` only adds or removes ``agent``'s replication actions."""

    def others(seq: Sequence[Action]) -> list[Action]:
        return [a for a in seq if not (a.agent == agent and a.kind is ActionKind.REPLICATE)]

    return others(actions) == others(deviation)


def generate_replication_deviations(
    game: JudgmentGame, actions: Sequence[Action], agent: str, candidates: Sequence[Occurrence]
) -> list[tuple[Action, ...]]:
    """Section 3.2. All admissible replication-only deviations of ``agent``.

    Delete any non-empty set of the agent's replication actions, or append
    one replication of a ``candidates`` occurrence.  Inadmissible ones (for
    example a deletion that leaves a later replica without its root) are
    dropped.
    """
    own = [i for i, a in enumerate(actions) if a.agent == agent and a.kind is ActionKind.REPLICATE]
    deviations: list[tuple[Action, ...]] = []
    for size in range(1, len(own) + 1):
        for dropped in combinations(own, size):
            deviations.append(tuple(a for i, a in enumerate(actions) if i not in dropped))
    for occurrence in candidates:
        deviations.append((*actions, Action(agent, ActionKind.REPLICATE, occurrence)))
    admissible = []
    for deviation in deviations:
        try:
            compute_outcome(game, deviation)
        except IneligibleExtensionError:
            continue
        admissible.append(deviation)
    return admissible


def find_profitable_deviations(
    game: JudgmentGame,
    judge: Judge,
    actions: Sequence[Action],
    agent: str,
    candidates: Sequence[Occurrence],
) -> list[tuple[Action, ...]]:
    """Section 4.3. The replication-only deviations that raise ``agent``'s utility."""
    current = compute_utility(game, judge, actions, agent)
    return [
        deviation
        for deviation in generate_replication_deviations(game, actions, agent, candidates)
        if compute_utility(game, judge, deviation, agent) > current
    ]


def _debate_start() -> tuple[Profile, Occurrence, Occurrence]:
    fifth = Fraction(1, 5)
    support = Occurrence(
        "alice",
        "The trial found an effect.",
        "trial-effect",
        "root-trial",
        "topic",
        Sign.SUPPORT,
        fifth,
    )
    attack = Occurrence(
        "bob",
        "The trial was underpowered.",
        "trial-underpowered",
        "root-power",
        "topic",
        Sign.ATTACK,
        fifth,
    )
    return make_direct_profile(Fraction(1, 2), []), support, attack


def make_relay_game() -> tuple[JudgmentGame, tuple[Action, ...], Occurrence]:
    """Section 4.3. The balanced debate, and a relay of Bob's attack that Bob may add.

    Alice (wants acceptance) and Bob (wants rejection) each acquire one root
    of strength .2; the score sits at .5 (accepted).  Returns the game, the
    actions, and the relay (by "carol") that a replication-only deviation of
    Bob's can add.
    """
    start, support, attack = _debate_start()
    game = JudgmentGame(start, {"alice": True, "bob": False})
    actions = (Action("alice", ActionKind.FRESH, support), Action("bob", ActionKind.FRESH, attack))
    relay = Occurrence(
        "carol",
        attack.surface,
        attack.content,
        attack.root,
        attack.target,
        attack.sign,
        attack.strength,
    )
    return game, actions, relay


def make_excerpt_game() -> tuple[JudgmentGame, tuple[Action, ...], Occurrence]:
    """Section 4.3. The balanced debate, and an excerpt of Bob's report with a new content key."""
    start, support, attack = _debate_start()
    game = JudgmentGame(start, {"alice": True, "bob": False})
    actions = (Action("alice", ActionKind.FRESH, support), Action("bob", ActionKind.FRESH, attack))
    excerpt = Occurrence(
        "bob",
        "Only 40 patients enrolled.",
        "trial-small-sample",
        attack.root,
        attack.target,
        attack.sign,
        attack.strength,
    )
    return game, actions, excerpt
