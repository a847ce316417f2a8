"""Definition 3.2 (admissible epistemic lottery gossip models), P_a, knowledge as probability one.

A :class:`WeightedStructure` is a finite history domain H with a weight
function for each agent: items 1-3 of Definition 3.2 (H, the valuation V
induced by the gossip state, the view relations R_a restricted to H) plus raw
non-negative weights.  A :class:`LotteryGossipModel` is a structure whose
weights satisfy item 4 (admissible); :func:`compute_model` is the only way to
build one and raises ``InadmissibleLotteryError`` otherwise.  Satisfaction is
defined on structures, so that the lemmas' hypotheses can be shown necessary
(a zero weight breaks Lemma 5.2; see the tests), but the lemmas are stated
for models.

All weights and probabilities are exact rationals (``fractions.Fraction``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from gcv.spec.gossip.calls import (
    Agent,
    AgentSet,
    History,
    is_secret_known,
    require_agent,
    require_history,
)
from gcv.spec.gossip.errors import FragmentError, HistoryError, InadmissibleLotteryError
from gcv.spec.gossip.formulas import (
    And,
    Formula,
    Know,
    Not,
    ProbAtLeast,
    Secret,
    Top,
    check_formula,
    compute_implies,
    compute_text,
    is_in_knowledge_fragment,
)
from gcv.spec.gossip.views import is_view_equivalent

__all__ = [
    "LotteryGossipModel",
    "WeightedStructure",
    "compute_history_key",
    "compute_model",
    "compute_probability",
    "compute_structure",
    "compute_uniform_lotteries",
    "get_class",
    "get_weight",
    "is_admissible",
    "is_lottery_transparent",
    "is_s5_at",
    "is_satisfied",
    "is_satisfied_kripke",
]


def compute_history_key(history: History) -> tuple[int, History]:
    """Return the canonical sort key of a history: by length, then call by call."""
    return (len(history), history)


@dataclass(frozen=True)
class WeightedStructure:
    """A finite history domain H over ``agents`` with one non-negative weight function per agent.

    Build it with :func:`compute_structure`, which checks H and the weights.
    """

    agents: AgentSet
    histories: tuple[History, ...]
    lotteries: Mapping[Agent, Mapping[History, Fraction]]


@dataclass(frozen=True)
class LotteryGossipModel(WeightedStructure):
    """An admissible epistemic lottery gossip model M^G (Definition 3.2); see compute_model."""

    def __post_init__(self) -> None:
        problem = _find_inadmissibility(self)
        if problem is not None:
            raise InadmissibleLotteryError(f"inadmissible lottery: {problem}")


def _read_weight(agent: Agent, history: History, value: object) -> Fraction:
    """Return ``value`` as an exact rational weight, refusing floats and negatives."""
    if isinstance(value, bool) or not isinstance(value, int | Fraction):
        raise InadmissibleLotteryError(
            f"L_{agent} at {_show(history)}: weights are exact rationals (int or Fraction), "
            f"got {type(value).__name__}"
        )
    weight = Fraction(value)
    if weight < 0:
        raise InadmissibleLotteryError(f"L_{agent} at {_show(history)} is negative: {weight}")
    return weight


def _show(history: History) -> str:
    """Write a history as in the paper: calls separated by ``;`` (the empty history is ``e``)."""
    return ";".join(str(call) for call in history) or "e"


def compute_structure(
    agents: AgentSet,
    histories: Iterable[History],
    lotteries: Mapping[Agent, Mapping[History, int | Fraction]],
) -> WeightedStructure:
    """Definition 3.2, items 1-3. Build H with raw weights (zero allowed, negatives refused).

    H must be nonempty and every lottery must be defined exactly on H.
    """
    domain = sorted({require_history(agents, c) for c in histories}, key=compute_history_key)
    # Verify that H is a nonempty set of finite histories (item 1)
    if not domain:
        raise HistoryError("the history domain H must be nonempty (Definition 3.2, item 1)")
    members = set(domain)
    table: dict[Agent, Mapping[History, Fraction]] = {}
    for name in lotteries:
        require_agent(agents, name)
    for agent in agents.names:
        if agent not in lotteries:
            raise InadmissibleLotteryError(f"no lottery L_{agent} for agent {agent!r}")
        given = lotteries[agent]
        for c in given:
            if c not in members:
                raise HistoryError(f"L_{agent} weighs {_show(c)}, which is not in H")
        weights: dict[History, Fraction] = {}
        for c in domain:
            if c not in given:
                raise InadmissibleLotteryError(f"L_{agent} is undefined at {_show(c)} in H")
            weights[c] = _read_weight(agent, c, given[c])
        table[agent] = MappingProxyType(weights)
    return WeightedStructure(agents, tuple(domain), MappingProxyType(table))


def get_weight(structure: WeightedStructure, agent: Agent, history: History) -> Fraction:
    """Return L_a(c)."""
    return structure.lotteries[require_agent(structure.agents, agent)][history]


def get_class(structure: WeightedStructure, agent: Agent, history: History) -> tuple[History, ...]:
    """Definition 3.2, item 3. The class [c]_a = {c' in H : c R_a c'}, in canonical order."""
    _require_member(structure, history)
    return tuple(
        other
        for other in structure.histories
        if is_view_equivalent(structure.agents, agent, history, other)
    )


def _require_member(structure: WeightedStructure, history: History) -> None:
    """Raise ``HistoryError`` unless ``history`` is in the domain H."""
    if history not in structure.histories:
        raise HistoryError(f"the history {_show(history)} is not in the model's domain H")


def is_admissible(structure: WeightedStructure) -> bool:
    """Definition 3.2, item 4. Check every L_a is strictly positive with 0 < class sums < inf."""
    return _find_inadmissibility(structure) is None


def _find_inadmissibility(structure: WeightedStructure) -> str | None:
    """Return why ``structure`` violates item 4 of Definition 3.2, or None if it does not."""
    for agent in structure.agents.names:
        for c in structure.histories:
            # Verify that L_a is strictly positive
            if structure.lotteries[agent][c] <= 0:
                return f"L_{agent}({_show(c)}) = {structure.lotteries[agent][c]} is not positive"
        for c in structure.histories:
            # Verify that the class sum is positive (finite: H is finite, weights rational)
            total = sum(
                (structure.lotteries[agent][d] for d in get_class(structure, agent, c)), Fraction(0)
            )
            if not total > 0:
                return f"the class sum of L_{agent} on [{_show(c)}]_{agent} is {total}, not > 0"
    return None


def compute_model(
    agents: AgentSet,
    histories: Iterable[History],
    lotteries: Mapping[Agent, Mapping[History, int | Fraction]],
) -> LotteryGossipModel:
    """Definition 3.2. Build an admissible ELGM, or raise ``InadmissibleLotteryError``.

    >>> from gcv.spec.gossip.calls import compute_history
    >>> agents = AgentSet(("a", "b", "c"))
    >>> H = [(), compute_history(agents, "bc")]
    >>> compute_model(agents, H, {x: {H[0]: 1, H[1]: 0} for x in "abc"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gcv.spec.gossip.errors.InadmissibleLotteryError: ...: L_a(bc) = 0 is not positive
    """
    structure = compute_structure(agents, histories, lotteries)
    return LotteryGossipModel(structure.agents, structure.histories, structure.lotteries)


def compute_uniform_lotteries(
    agents: AgentSet, histories: Iterable[History]
) -> dict[Agent, dict[History, int | Fraction]]:
    """Return the lotteries giving weight 1 to every history (admissible on a finite H)."""
    domain = list(histories)
    return {agent: {c: 1 for c in domain} for agent in agents.names}


def compute_probability(
    structure: WeightedStructure, agent: Agent, history: History, phi: Formula
) -> Fraction:
    """Definition 3.2 (P_a). The probability a assigns at c to phi: its weight share on [c]_a.

    Raises ``InadmissibleLotteryError`` where the class sum is zero (P_a undefined).
    """
    check_formula(structure.agents, phi)
    _require_member(structure, history)
    require_agent(structure.agents, agent)
    return _probability(structure, agent, history, phi)


def _probability(
    structure: WeightedStructure, agent: Agent, history: History, phi: Formula
) -> Fraction:
    """The quotient of Definition 3.2 on an already checked formula."""
    members = get_class(structure, agent, history)
    total = sum((structure.lotteries[agent][d] for d in members), Fraction(0))
    if total == 0:
        raise InadmissibleLotteryError(
            f"P_{agent} is undefined at {_show(history)}: the class sum of L_{agent} is 0"
        )
    satisfied = sum(
        (structure.lotteries[agent][d] for d in members if _holds(structure, d, phi)),
        Fraction(0),
    )
    return satisfied / total


def is_satisfied(structure: WeightedStructure, history: History, phi: Formula) -> bool:
    """Definition 3.3 (satisfaction). Check M^G, c |= phi, with K_a(phi) iff P_a(phi)(c) = 1.

    Atoms follow V (Definition 3.2, item 2): S_ab holds at c iff b's secret is
    in a's set after c.  ``P_a(phi) >= q`` is evaluated too (EPLS), although it
    lies outside L_K.
    """
    check_formula(structure.agents, phi)
    _require_member(structure, history)
    return _holds(structure, history, phi)


def _holds(structure: WeightedStructure, history: History, phi: Formula) -> bool:
    """The satisfaction clauses of Definitions 3.2 and 3.3 (formula already checked)."""
    if isinstance(phi, Top):
        return True
    if isinstance(phi, Secret):
        return is_secret_known(structure.agents, history, phi.knower, phi.owner)
    if isinstance(phi, Not):
        return not _holds(structure, history, phi.operand)
    if isinstance(phi, And):
        return _holds(structure, history, phi.left) and _holds(structure, history, phi.right)
    if isinstance(phi, Know):
        return _probability(structure, phi.agent, history, phi.operand) == 1
    if isinstance(phi, ProbAtLeast):
        return _probability(structure, phi.agent, history, phi.operand) >= phi.bound
    raise AssertionError(f"unreachable: {type(phi).__name__}")


def is_satisfied_kripke(structure: WeightedStructure, history: History, phi: Formula) -> bool:
    """Section 5 (M_0). Check M_0, c |= phi in the lottery-free Kripke model (H, V, R_a).

    K_a(phi) holds iff phi holds at every c' with c R_a c'.  Defined on L_K only.
    """
    check_formula(structure.agents, phi)
    if not is_in_knowledge_fragment(phi):
        raise FragmentError(
            f"M_0 has no lotteries: {compute_text(phi)} is outside L_K (Definition 3.3)"
        )
    _require_member(structure, history)
    return _holds_kripke(structure, history, phi)


def _holds_kripke(structure: WeightedStructure, history: History, phi: Formula) -> bool:
    """The Kripke clauses (formula already checked to be in L_K)."""
    if isinstance(phi, Top):
        return True
    if isinstance(phi, Secret):
        return is_secret_known(structure.agents, history, phi.knower, phi.owner)
    if isinstance(phi, Not):
        return not _holds_kripke(structure, history, phi.operand)
    if isinstance(phi, And):
        return _holds_kripke(structure, history, phi.left) and _holds_kripke(
            structure, history, phi.right
        )
    if isinstance(phi, Know):
        return all(
            _holds_kripke(structure, other, phi.operand)
            for other in get_class(structure, phi.agent, history)
        )
    raise AssertionError(f"unreachable: {type(phi).__name__}")


def is_s5_at(
    structure: WeightedStructure, history: History, agent: Agent, phi: Formula, psi: Formula
) -> bool:
    """Proposition 4.1 (S5 behaviour of knowledge). Check the K, T, 4 and 5 axioms at c.

    K: K_a(phi -> psi) -> (K_a phi -> K_a psi); T: K_a phi -> phi;
    4: K_a phi -> K_a K_a phi; 5: not K_a phi -> K_a not K_a phi.
    """
    k_phi = Know(agent, phi)
    axioms = (
        compute_implies(
            Know(agent, compute_implies(phi, psi)), compute_implies(k_phi, Know(agent, psi))
        ),
        compute_implies(k_phi, phi),
        compute_implies(k_phi, Know(agent, k_phi)),
        compute_implies(Not(k_phi), Know(agent, Not(k_phi))),
    )
    return all(is_satisfied(structure, history, axiom) for axiom in axioms)


def is_lottery_transparent(model: WeightedStructure, formulas: Iterable[Formula]) -> bool:
    """Lemma 5.2 (lottery transparency). Check M^G, c |= phi iff M_0, c |= phi, all c, phi.

    The lemma asserts this for every admissible model and phi in L_K; the
    function checks it on one structure (admissible or not) and given formulas.
    """
    return all(
        is_satisfied(model, c, phi) == is_satisfied_kripke(model, c, phi)
        for phi in formulas
        for c in model.histories
    )
