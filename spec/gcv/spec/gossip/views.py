"""Definition 3.1 (views and source-style accessibility) and Example 4.2.

An agent's view of a history is the sequence of its local observations: calls
it is not part of are invisible to it; a call it is part of appends the call
together with the agent's resulting local gossip state (its secret set after
the call).  Two histories are ``R_a``-related iff ``a``'s views are equal.
"""

from __future__ import annotations

from typing import TypeAlias

from gcv.spec.gossip.calls import (
    Agent,
    AgentSet,
    Call,
    History,
    compute_history,
    compute_push_pull,
    compute_root_state,
    get_secrets,
    is_involved,
    require_agent,
    require_history,
)

__all__ = [
    "View",
    "compute_call_subsequence",
    "compute_example_4_2",
    "compute_view",
    "is_view_equivalent",
]

# A view: for each call the agent took part in, the call and the agent's secrets after it.
View: TypeAlias = tuple[tuple[Call, frozenset[Agent]], ...]


def compute_view(agents: AgentSet, agent: Agent, history: History) -> View:
    """Definition 3.1 (view). Return ``view_a(c)``, agent ``a``'s local observations of ``c``.

    Calls not involving ``a`` are skipped; a call involving ``a`` contributes the
    call and ``a``'s secret set right after it.  The root is common knowledge
    (Definition 3.4), so the view need not record it.

    >>> agents = AgentSet(("a", "b", "c"))
    >>> view = compute_view(agents, "a", compute_history(agents, "bc;ac"))
    >>> [(str(call), sorted(secrets)) for call, secrets in view]
    [('ac', ['a', 'b', 'c'])]
    >>> compute_view(agents, "a", compute_history(agents, "bc"))
    ()
    """
    require_agent(agents, agent)
    state = compute_root_state(agents)
    observations: list[tuple[Call, frozenset[Agent]]] = []
    for call in require_history(agents, history):
        state = compute_push_pull(state, call)
        if is_involved(agent, call):
            observations.append((call, get_secrets(state, agent)))
    return tuple(observations)


def is_view_equivalent(agents: AgentSet, agent: Agent, left: History, right: History) -> bool:
    """Definition 3.1 (accessibility). Check ``c R_a c'``, i.e. ``view_a(c) = view_a(c')``."""
    return compute_view(agents, agent, left) == compute_view(agents, agent, right)


def compute_call_subsequence(agents: AgentSet, agent: Agent, history: History) -> History:
    """Section 3. The subsequence of calls involving ``agent`` (not enough for R_a; Example 4.2)."""
    require_agent(agents, agent)
    return tuple(call for call in require_history(agents, history) if is_involved(agent, call))


def compute_example_4_2() -> tuple[View, View]:
    """Example 4.2 (a view distinction). Return ``view_a(ac)`` and ``view_a(bc;ac)``.

    Both histories have the same a-calls (``ac``), but in ``bc;ac`` agent ``c``
    has first learned ``b``'s secret, so ``a`` ends with more secrets and the
    views differ.
    """
    agents = AgentSet(("a", "b", "c"))
    return (
        compute_view(agents, "a", compute_history(agents, "ac")),
        compute_view(agents, "a", compute_history(agents, "bc;ac")),
    )
