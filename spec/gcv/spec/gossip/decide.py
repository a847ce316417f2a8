"""Theorem 5.4 (Guard decidability for the source-compatible fragment), made executable.

The source domain H_src holds every finite call sequence, so it is infinite;
yet K_a(theta), for factual theta, is decided exactly by a finite search.

**The search.**  Let ``view_a(c) = ((k_1, S_1), ..., (k_m, S_m))``.  A history
``d`` has the same view iff it splits uniquely as
``u_0 k_1 u_1 ... k_m u_m`` where no call of any ``u_i`` involves ``a`` and
a's secret set right after ``k_i`` is ``S_i``.  So the gossip states of the
histories a cannot tell from ``c`` are exactly the states reached, in the
layered graph below, at layer ``m``:

* nodes are pairs (layer i, gossip state), starting from (0, root);
* a call ``xy`` with ``a`` not in it leads from (i, s) to (i, s.xy);
* the call ``k_{i+1}`` leads from (i, s) to (i + 1, s.k_{i+1}) provided a's
  secret set in the new state is ``S_{i+1}``.

Paths from (0, root) are in one-to-one correspondence with the histories that
have a's view, and a path ends in the state its history reaches.  There are at
most (m + 1) * |states| nodes, and the secret-set lattice is finite (each agent
holds a subset of the n secrets), so a breadth-first search visits them all and
stops; it also yields, for each state, a shortest history reaching it.

**Why it is exact.**  theta is factual, so its truth at ``d`` depends only on
the gossip state after ``d`` (Definition 3.4: S_ab holds iff p_b is in d(root)_a).
Hence K_a(theta) holds at ``c`` in the lottery-free model iff theta holds in
every state of layer ``m``; by Lemma 5.2 the lottery does not matter.  A
failing state comes with its witness history, which any reader can check by
recomputing its view.

The brute-force side enumerates H_{<=n}, all histories up to a length bound,
and compares views directly.  It can only miss witnesses longer than ``n``,
never invent one, so agreement is checked as set equality of the reachable
states at a bound large enough to hold every shortest witness (reported).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from gcv.spec.gossip.calls import (
    Agent,
    AgentSet,
    GossipState,
    History,
    compute_push_pull,
    compute_root_state,
    compute_state,
    get_secrets,
    is_involved,
    is_secret_known,
    require_agent,
    require_history,
)
from gcv.spec.gossip.errors import FragmentError
from gcv.spec.gossip.formulas import (
    And,
    Formula,
    Know,
    Not,
    Secret,
    Top,
    check_formula,
    compute_text,
    is_factual,
    is_source_compatible,
)
from gcv.spec.gossip.source import compute_source_calls, require_source_agents
from gcv.spec.gossip.views import View, compute_view

__all__ = [
    "Agreement",
    "compute_agreement",
    "compute_bounded_histories",
    "compute_brute_force_states",
    "compute_compatible_states",
    "compute_counterexample",
    "is_factual_true_at_history",
    "is_factual_true_at_state",
    "is_known_brute_force",
    "is_known_in_source",
    "is_satisfied_in_source",
]


def is_factual_true_at_state(state: GossipState, theta: Formula) -> bool:
    """Definition 3.4 (valuation). Check the factual formula ``theta`` in a gossip state.

    ``theta`` must already be checked (bounded depth, factual).
    """
    if isinstance(theta, Top):
        return True
    if isinstance(theta, Secret):
        return theta.owner in get_secrets(state, theta.knower)
    if isinstance(theta, Not):
        return not is_factual_true_at_state(state, theta.operand)
    if isinstance(theta, And):
        return is_factual_true_at_state(state, theta.left) and is_factual_true_at_state(
            state, theta.right
        )
    raise FragmentError(f"not a factual formula: {compute_text(theta)}")


def compute_compatible_states(
    agents: AgentSet, agent: Agent, history: History
) -> dict[GossipState, History]:
    """Theorem 5.4 (the finite search). Map every state a cannot tell from ``c`` to a witness.

    Returns {state of d : d in H_src, view_a(d) = view_a(c)}, each state with a
    shortest such d (the breadth-first search of the module docstring), in
    order of discovery.
    """
    require_source_agents(agents)
    require_agent(agents, agent)
    view = compute_view(agents, agent, require_history(agents, history))
    silent_calls = [call for call in compute_source_calls(agents) if not is_involved(agent, call)]
    start = (0, compute_root_state(agents))
    witness: dict[tuple[int, GossipState], History] = {start: ()}
    queue = deque([start])
    while queue:
        layer, state = queue.popleft()
        successors = [((layer, compute_push_pull(state, call)), call) for call in silent_calls]
        if layer < len(view):
            call, secrets = view[layer]
            after = compute_push_pull(state, call)
            # Only the observation a actually made may follow: a's secrets after the call
            if get_secrets(after, agent) == secrets:
                successors.append(((layer + 1, after), call))
        for node, call in successors:
            if node not in witness:
                witness[node] = (*witness[(layer, state)], call)
                queue.append(node)
    return {state: path for (layer, state), path in witness.items() if layer == len(view)}


def is_known_in_source(agents: AgentSet, agent: Agent, history: History, theta: Formula) -> bool:
    """Theorem 5.4. Decide K_a(theta) at ``c`` over the infinite domain H_src, exactly.

    >>> from gcv.spec.gossip.calls import compute_history
    >>> agents = AgentSet(("a", "b", "c"))
    >>> is_known_in_source(agents, "a", compute_history(agents, "bc;ac"), Secret("c", "b"))
    True
    >>> is_known_in_source(agents, "a", compute_history(agents, "ac"), Not(Secret("c", "b")))
    False
    """
    return compute_counterexample(agents, agent, history, theta) is None


def compute_counterexample(
    agents: AgentSet, agent: Agent, history: History, theta: Formula
) -> History | None:
    """Theorem 5.4. Return a shortest d with view_a(d) = view_a(c) where theta fails, or None."""
    check_formula(agents, theta)
    if not is_factual(theta):
        raise FragmentError(
            f"the decision procedure takes factual theta (Definition 3.5), not "
            f"{compute_text(theta)}"
        )
    states = compute_compatible_states(agents, agent, history)
    failing = [path for state, path in states.items() if not is_factual_true_at_state(state, theta)]
    return min(failing, key=lambda path: (len(path), path)) if failing else None


def is_satisfied_in_source(agents: AgentSet, history: History, phi: Formula) -> bool:
    """Theorem 5.4 / Lemma 5.3. Check M^G, c |= phi for phi in L_K,src over H_src, exactly.

    Boolean structure is evaluated at ``c``; each K_a(theta) by the search.
    """
    require_source_agents(agents)
    check_formula(agents, phi)
    if not is_source_compatible(phi):
        raise FragmentError(
            f"exact source checking covers L_K,src (Definition 3.5), not {compute_text(phi)}"
        )
    require_history(agents, history)
    return _holds_source(agents, history, phi)


def _holds_source(agents: AgentSet, history: History, phi: Formula) -> bool:
    """The L_K,src clauses (formula already checked)."""
    if isinstance(phi, Top):
        return True
    if isinstance(phi, Secret):
        return is_secret_known(agents, history, phi.knower, phi.owner)
    if isinstance(phi, Not):
        return not _holds_source(agents, history, phi.operand)
    if isinstance(phi, And):
        return _holds_source(agents, history, phi.left) and _holds_source(
            agents, history, phi.right
        )
    if isinstance(phi, Know):
        return is_known_in_source(agents, phi.agent, history, phi.operand)
    raise AssertionError(f"unreachable: {type(phi).__name__} is outside L_K,src")


def compute_bounded_histories(agents: AgentSet, bound: int) -> tuple[History, ...]:
    """Return H_{<=n}: every sequence of source calls of length at most ``bound``, shortest first.

    >>> len(compute_bounded_histories(AgentSet(("a", "b", "c")), 2))
    13
    """
    calls = compute_source_calls(agents)
    return tuple(
        word for length in range(bound + 1) for word in itertools.product(calls, repeat=length)
    )


def compute_brute_force_states(
    agents: AgentSet, agent: Agent, history: History, bound: int
) -> set[GossipState]:
    """Brute force. The states of every d in H_{<=n} whose view equals view_a(c)."""
    view = compute_view(agents, agent, history)
    return {
        compute_state(agents, other)
        for other in compute_bounded_histories(agents, bound)
        if compute_view(agents, agent, other) == view
    }


def is_known_brute_force(
    agents: AgentSet, agent: Agent, history: History, theta: Formula, bound: int
) -> bool:
    """Brute force. Check theta at every d in H_{<=n} with view_a(d) = view_a(c) (Definition 3.1).

    Over-approximates K_a(theta) over H_src: it can only miss counterexamples
    longer than ``bound``.
    """
    check_formula(agents, theta)
    if not is_factual(theta):
        raise FragmentError(f"brute force takes factual theta; got {compute_text(theta)}")
    view = compute_view(agents, agent, history)
    return all(
        is_factual_true_at_history(agents, other, theta)
        for other in compute_bounded_histories(agents, bound)
        if compute_view(agents, agent, other) == view
    )


def is_factual_true_at_history(agents: AgentSet, history: History, theta: Formula) -> bool:
    """Evaluate a checked factual ``theta`` at a history through the atoms' valuation V."""
    if isinstance(theta, Top):
        return True
    if isinstance(theta, Secret):
        return is_secret_known(agents, history, theta.knower, theta.owner)
    if isinstance(theta, Not):
        return not is_factual_true_at_history(agents, history, theta.operand)
    if isinstance(theta, And):
        return is_factual_true_at_history(
            agents, history, theta.left
        ) and is_factual_true_at_history(agents, history, theta.right)
    raise FragmentError(f"not a factual formula: {compute_text(theta)}")


@dataclass
class Agreement:
    """The outcome of comparing the decision procedure with brute force on one agent set."""

    agents: int
    query_bound: int
    history_bound: int
    domain_size: int
    queries: int = 0
    state_sets_compared: int = 0
    formulas_checked: int = 0
    known_true: int = 0
    longest_witness: int = 0
    disagreements: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        """Whether every comparison agreed."""
        return not self.disagreements


def compute_agreement(
    agents: AgentSet, query_bound: int, history_bound: int, formulas: Sequence[Formula]
) -> Agreement:
    """Theorem 5.4 against brute force: every c in H_{<=k}, every agent, every factual theta.

    For each (a, c) it compares the set of states the search finds with the
    set brute force finds in H_{<=n}, and for each theta the two verdicts on
    K_a(theta).  One pass over H_{<=n} groups its histories by (agent, view).
    """
    require_source_agents(agents)
    for theta in formulas:
        check_formula(agents, theta)
        if not is_factual(theta):
            raise FragmentError(f"agreement is checked on factual theta; got {compute_text(theta)}")
    domain = compute_bounded_histories(agents, history_bound)
    by_view: dict[tuple[Agent, View], dict[GossipState, History]] = {}
    for other in domain:
        state = compute_state(agents, other)
        for agent in agents.names:
            by_view.setdefault((agent, compute_view(agents, agent, other)), {}).setdefault(
                state, other
            )
    report = Agreement(len(agents), query_bound, history_bound, len(domain))
    for history in compute_bounded_histories(agents, query_bound):
        for agent in agents.names:
            report.queries += 1
            decided = compute_compatible_states(agents, agent, history)
            brute = by_view.get((agent, compute_view(agents, agent, history)), {})
            report.state_sets_compared += 1
            report.longest_witness = max(
                [report.longest_witness, *(len(path) for path in decided.values())]
            )
            if set(decided) != set(brute):
                report.disagreements.append(
                    f"agent {agent}, history {_show(history)}: the search finds "
                    f"{len(decided)} states, brute force (n={history_bound}) {len(brute)}"
                )
            for theta in formulas:
                report.formulas_checked += 1
                exact = all(is_factual_true_at_state(state, theta) for state in decided)
                bounded = all(is_factual_true_at_history(agents, d, theta) for d in brute.values())
                report.known_true += exact
                if exact != bounded:
                    report.disagreements.append(
                        f"K_{agent}({compute_text(theta)}) at {_show(history)}: "
                        f"search {exact}, brute force {bounded}"
                    )
    return report


def _show(history: History) -> str:
    """Write a history as in the paper (the empty history is ``e``)."""
    return ";".join(str(call) for call in history) or "e"
