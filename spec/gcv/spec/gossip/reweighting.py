"""Definition 6.1 (three-source lottery reweighting) and Lemma 6.2 (guards survive it).

A reweighting changes one agent's lottery and leaves H, V and every R_a as
they are.  Definition 6.1 multiplies the prior by an occurrence factor and an
observation factor and divides by a normaliser Z_a summed over all of H (not
per class; a common positive factor does not change any P_a).  Its conditions
are checked, not assumed: each factor must be an exact rational, strictly
positive at every history of H (hence bounded, H being finite), and Z_a must be
finite and nonzero.  A violation raises ``ReweightingError`` naming the history.

The event ``e`` and the observation ``o_a`` are labels (strings); the paper
gives them no structure beyond the factors' dependence on them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from types import MappingProxyType

from gcv.spec.gossip.calls import Agent, History, compute_all_calls, require_agent
from gcv.spec.gossip.errors import HistoryError, ReweightingError
from gcv.spec.gossip.formulas import Formula
from gcv.spec.gossip.guard import Preconditions, compute_guard
from gcv.spec.gossip.lottery import (
    LotteryGossipModel,
    WeightedStructure,
    compute_model,
    is_satisfied,
)

__all__ = [
    "compute_reweighting",
    "compute_scaled_structure",
    "is_guard_invariant",
    "is_reweighting_invariant",
]


def _show(history: History) -> str:
    """Write a history as in the paper (the empty history is ``e``)."""
    return ";".join(str(call) for call in history) or "e"


def _read_factor(name: str, history: History, value: object) -> Fraction:
    """Return a likelihood factor as an exact rational, refusing non-positive or inexact ones."""
    if isinstance(value, bool) or not isinstance(value, int | Fraction):
        raise ReweightingError(
            f"{name} at {_show(history)} must be an exact rational, got {type(value).__name__}"
        )
    factor = Fraction(value)
    # Verify that the factor is strictly positive (Definition 6.1: P > 0)
    if factor <= 0:
        raise ReweightingError(f"{name} at {_show(history)} is {factor}; it must be > 0")
    return factor


def compute_reweighting(
    model: LotteryGossipModel,
    agent: Agent,
    event: str,
    observation: str,
    occurrence: Callable[[str, History], int | Fraction],
    likelihood: Callable[[str, str, History], int | Fraction],
) -> LotteryGossipModel:
    """Definition 6.1 (three-source lottery reweighting). L'_a = L_a P_occ P_obs / Z_a.

    ``occurrence(e, c)`` is P_occ(e | c) and ``likelihood(o, e, c)`` is
    P_obs(o_a | e, c).  The result is checked admissible again (Definition 3.2).

    >>> from gcv.spec.gossip.calls import AgentSet, compute_history
    >>> from gcv.spec.gossip.lottery import compute_uniform_lotteries
    >>> agents = AgentSet(("a", "b", "c"))
    >>> H = [(), compute_history(agents, "bc")]
    >>> model = compute_model(agents, H, compute_uniform_lotteries(agents, H))
    >>> new = compute_reweighting(model, "a", "e", "o", lambda e, c: 1 + len(c), lambda o, e, c: 1)
    >>> new.lotteries["a"][H[0]], new.lotteries["a"][H[1]]
    (Fraction(1, 3), Fraction(2, 3))
    """
    require_agent(model.agents, agent)
    products: dict[History, Fraction] = {}
    for c in model.histories:
        p_occ = _read_factor(f"P_occ({event} | c)", c, occurrence(event, c))
        p_obs = _read_factor(
            f"P_obs({observation} | {event}, c)", c, likelihood(observation, event, c)
        )
        products[c] = model.lotteries[agent][c] * p_occ * p_obs
    normaliser = sum(products.values(), Fraction(0))
    # Verify that Z_a is finite and nonzero (an assumption of Definition 6.1)
    if normaliser == 0:
        raise ReweightingError(f"the normaliser Z_{agent} is 0")
    lotteries: dict[Agent, Mapping[History, int | Fraction]] = {
        name: dict(model.lotteries[name]) for name in model.agents.names
    }
    lotteries[agent] = {c: products[c] / normaliser for c in model.histories}
    return compute_model(model.agents, model.histories, lotteries)


def compute_scaled_structure(
    structure: WeightedStructure, agent: Agent, factors: Mapping[History, int | Fraction]
) -> WeightedStructure:
    """Lemma 6.2 (the reweighting form). L'_a(c) = L_a(c) k_a(c), other lotteries unchanged.

    Unchecked on purpose: a zero factor is accepted, so that the tests can show
    the lemma's hypothesis 0 < k_a(c) is needed.  Negative factors are refused.
    """
    require_agent(structure.agents, agent)
    scaled: dict[History, Fraction] = {}
    for c in structure.histories:
        if c not in factors:
            raise HistoryError(f"the factor k_{agent} is undefined at {_show(c)}")
        factor = Fraction(factors[c])
        if factor < 0:
            raise ReweightingError(f"k_{agent}({_show(c)}) = {factor} is negative")
        scaled[c] = structure.lotteries[agent][c] * factor
    table = dict(structure.lotteries)
    table[agent] = MappingProxyType(scaled)
    return WeightedStructure(structure.agents, structure.histories, MappingProxyType(table))


def is_reweighting_invariant(
    before: WeightedStructure, after: WeightedStructure, formulas: Iterable[Formula]
) -> bool:
    """Lemma 6.2 (positive reweightings preserve guards). Same truth value before and after.

    Checked at every history for every given formula; H must be the same.
    """
    if before.agents != after.agents or before.histories != after.histories:
        raise HistoryError("Lemma 6.2 compares models with the same agents and the same H")
    return all(
        is_satisfied(before, c, phi) == is_satisfied(after, c, phi)
        for phi in formulas
        for c in before.histories
    )


def is_guard_invariant(
    before: WeightedStructure, after: WeightedStructure, preconditions: Preconditions
) -> bool:
    """Lemma 6.2, last sentence. Every Guard of Definition 5.1 has the same verdict."""
    if before.agents != after.agents or before.histories != after.histories:
        raise HistoryError("Lemma 6.2 compares models with the same agents and the same H")
    return all(
        compute_guard(before, preconditions, call, c).verdict
        == compute_guard(after, preconditions, call, c).verdict
        for call in compute_all_calls(before.agents)
        for c in before.histories
    )
