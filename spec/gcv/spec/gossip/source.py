"""Definition 3.4 (Apt-Wojtczak source instance) and Lemma 5.3 (source correspondence).

The source instance fixes |A| >= 3, the canonical calls ``ab`` with ``a < b``,
the full domain H_src of all finite call sequences (infinite), the
secret-only root and the push-pull update.  Its accessibility relation is
Apt and Wojtczak's ``~AW_a``, which Definition 3.4 identifies with equality of
views.  Here ``~AW_a`` is implemented from its inductive definition, as we
read Apt and Wojtczak (2017, Section 2): the least relation with

* the empty sequence related to itself;
* if ``c ~ d`` and ``a`` is not in the call ``k``, then ``c.k ~ d`` and ``c ~ d.k``;
* if ``c ~ d``, ``a`` is in ``k`` and a's secret sets after ``c.k`` and ``d.k``
  agree, then ``c.k ~ d.k``.

Its coincidence with :func:`gcv.spec.gossip.views.is_view_equivalent` is checked
by the tests on every pair of short histories, not assumed.

Because H_src is infinite, a lottery on it must have summable weights
(Section 3 after Definition 3.3); :func:`compute_length_decay_weight` is one.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from gcv.spec.gossip.calls import (
    Agent,
    AgentSet,
    Call,
    History,
    compute_all_calls,
    compute_push_pull,
    compute_root_state,
    get_secrets,
    is_involved,
    is_secret_known,
    require_agent,
    require_history,
)
from gcv.spec.gossip.errors import AgentSetError
from gcv.spec.gossip.formulas import (
    MAX_FORMULA_DEPTH,
    AwAnd,
    AwFamiliar,
    AwFormula,
    AwKnow,
    AwNot,
    AwOr,
    Formula,
    compute_depth,
    compute_translation,
)
from gcv.spec.gossip.lottery import WeightedStructure, is_satisfied

__all__ = [
    "compute_length_decay_lotteries",
    "compute_length_decay_weight",
    "compute_source_calls",
    "is_satisfied_aw",
    "is_source_corresponding",
    "is_source_equivalent",
    "require_source_agents",
]


def require_source_agents(agents: AgentSet) -> AgentSet:
    """Definition 3.4. Return ``agents`` if it has the |A| >= 3 agents a source instance needs."""
    if len(agents) < 3:
        raise AgentSetError(
            f"an Apt-Wojtczak source instance needs at least 3 agents, got {list(agents.names)}"
        )
    return agents


def compute_source_calls(agents: AgentSet) -> tuple[Call, ...]:
    """Definition 3.4 (C_src). The canonically written calls ab with a < b."""
    return compute_all_calls(require_source_agents(agents))


def is_source_equivalent(agents: AgentSet, agent: Agent, left: History, right: History) -> bool:
    """Definition 3.4 (~AW_a). Check ``left ~AW_a right`` by the least-relation rules above.

    Every derivation of ``c ~ d`` only relates prefixes of ``c`` and ``d``, so a
    table over prefix pairs, filled in order of length, decides the relation.

    >>> from gcv.spec.gossip.calls import compute_history
    >>> agents = AgentSet(("a", "b", "c"))
    >>> def h(text): return compute_history(agents, text)
    >>> is_source_equivalent(agents, "a", h("bc;ab"), h("ab"))
    False
    >>> is_source_equivalent(agents, "a", h("ab;bc"), h("ab"))
    True
    """
    require_agent(agents, agent)
    require_history(agents, left)
    require_history(agents, right)
    left_states = [compute_root_state(agents)]
    for call in left:
        left_states.append(compute_push_pull(left_states[-1], call))
    right_states = [compute_root_state(agents)]
    for call in right:
        right_states.append(compute_push_pull(right_states[-1], call))
    related = [[False] * (len(right) + 1) for _ in range(len(left) + 1)]
    related[0][0] = True
    for i in range(len(left) + 1):
        for j in range(len(right) + 1):
            if i == 0 and j == 0:
                continue
            # Rule: a call without a extends the left sequence
            if i > 0 and not is_involved(agent, left[i - 1]) and related[i - 1][j]:
                related[i][j] = True
            # Rule: a call without a extends the right sequence
            if j > 0 and not is_involved(agent, right[j - 1]) and related[i][j - 1]:
                related[i][j] = True
            # Rule: the same call with a extends both, and a's secrets agree after it
            if (
                i > 0
                and j > 0
                and left[i - 1] == right[j - 1]
                and is_involved(agent, left[i - 1])
                and related[i - 1][j - 1]
                and get_secrets(left_states[i], agent) == get_secrets(right_states[j], agent)
            ):
                related[i][j] = True
    return related[len(left)][len(right)]


def compute_length_decay_weight(agents: AgentSet, history: History) -> Fraction:
    """Definition 3.4 (an admissible lottery on H_src). L(c) = (2 |C_src|)^(-|c|).

    There are |C_src|^n histories of length n, so the total weight over H_src
    is sum_n 2^(-n) = 2: every R_a-class sum is finite and (weights being
    positive) positive.  The paper requires such a summable prior; it names none.

    >>> from gcv.spec.gossip.calls import compute_history
    >>> agents = AgentSet(("a", "b", "c"))
    >>> compute_length_decay_weight(agents, compute_history(agents, "ab;bc"))
    Fraction(1, 36)
    """
    calls = compute_source_calls(agents)
    require_history(agents, history)
    return Fraction(1, 2 * len(calls)) ** len(history)


def compute_length_decay_lotteries(
    agents: AgentSet, histories: Iterable[History]
) -> dict[Agent, dict[History, int | Fraction]]:
    """Return the length-decay lottery of every agent, restricted to ``histories``."""
    domain = list(histories)
    return {
        agent: {c: compute_length_decay_weight(agents, c) for c in domain} for agent in agents.names
    }


def is_satisfied_aw(
    agents: AgentSet, domain: Iterable[History], history: History, psi: AwFormula
) -> bool:
    """Lemma 5.3 (M_AW side). Check (M_AW, c) |= psi with K_a over ~AW_a restricted to ``domain``.

    The source model quantifies over all of H_src; the tests use a bounded
    domain on both sides of Lemma 5.3, and the exact H_src question is
    :mod:`gcv.spec.gossip.decide`'s.
    """
    compute_depth(psi, MAX_FORMULA_DEPTH + 3)
    return _holds_aw(agents, tuple(domain), history, psi)


def _holds_aw(
    agents: AgentSet, domain: tuple[History, ...], history: History, psi: AwFormula
) -> bool:
    """The Apt-Wojtczak satisfaction clauses (depth already bounded)."""
    if isinstance(psi, AwFamiliar):
        return is_secret_known(agents, history, psi.agent, psi.owner)
    if isinstance(psi, AwNot):
        return not _holds_aw(agents, domain, history, psi.operand)
    if isinstance(psi, AwAnd):
        return _holds_aw(agents, domain, history, psi.left) and _holds_aw(
            agents, domain, history, psi.right
        )
    if isinstance(psi, AwOr):
        return _holds_aw(agents, domain, history, psi.left) or _holds_aw(
            agents, domain, history, psi.right
        )
    if isinstance(psi, AwKnow):
        return all(
            _holds_aw(agents, domain, other, psi.operand)
            for other in domain
            if is_source_equivalent(agents, psi.agent, history, other)
        )
    raise AssertionError(f"unreachable: {type(psi).__name__}")


def is_source_corresponding(model: WeightedStructure, formulas: Iterable[Formula]) -> bool:
    """Lemma 5.3 (source correspondence). Check M^G, c |= phi iff (M_AW, c) |= tau(phi).

    Checked at every history of the model's (finite) domain, with the M_AW
    side quantifying over the same domain through ~AW_a.
    """
    agents = require_source_agents(model.agents)
    checked = [(phi, compute_translation(agents, phi)) for phi in formulas]
    return all(
        is_satisfied(model, c, phi) == is_satisfied_aw(agents, model.histories, c, psi)
        for phi, psi in checked
        for c in model.histories
    )
