"""Section 3 (preliminaries): agents, unordered calls, finite call histories, push-pull.

Agents are named by strings and linearly ordered by string order (the order
Definition 3.4 asks for).  Agent ``b``'s secret ``p_b`` is identified with the
name ``b``, so a local gossip state is the set of names whose secrets an agent
knows.  A call ``ab`` is an unordered pair of distinct agents, stored in
canonical order (``first < second``); a history is a tuple of calls.

Bad input (an unknown agent, a self-call, a malformed agent set) raises a typed
error from :mod:`gcv.spec.gossip.errors`; nothing here mutates its arguments.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeAlias

from gcv.spec.gossip.errors import AgentSetError, HistoryError, SelfCallError, UnknownAgentError

__all__ = [
    "Agent",
    "AgentSet",
    "Call",
    "GossipState",
    "History",
    "compute_all_calls",
    "compute_call",
    "compute_history",
    "compute_push_pull",
    "compute_root_state",
    "compute_state",
    "compute_state_key",
    "get_secrets",
    "is_involved",
    "is_secret_known",
    "require_agent",
    "require_history",
]

# An agent's name; agent b's secret p_b is identified with b.
Agent: TypeAlias = str


@dataclass(frozen=True)
class AgentSet:
    """The finite, linearly ordered agent set Ag (Section 3; Definition 3.4 orders it)."""

    names: tuple[Agent, ...]

    def __post_init__(self) -> None:
        for name in self.names:
            if not isinstance(name, str) or not name or name != name.strip():
                raise AgentSetError(f"agent names must be non-empty strings, got {name!r}")
        if len(set(self.names)) != len(self.names):
            raise AgentSetError(f"agent names must be distinct, got {self.names!r}")
        if len(self.names) < 2:
            raise AgentSetError(f"a call needs two agents; got the agent set {self.names!r}")
        # Canonical order: the linear order of Definition 3.4 is string order.
        object.__setattr__(self, "names", tuple(sorted(self.names)))

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, name: object) -> bool:
        return name in self.names


@dataclass(frozen=True, order=True)
class Call:
    """A call ``ab`` of the alphabet C: an unordered pair of distinct agents (Section 3)."""

    first: Agent
    second: Agent

    def __post_init__(self) -> None:
        if not isinstance(self.first, str) or not isinstance(self.second, str):
            raise UnknownAgentError(f"call endpoints must be agent names, got {self!r}")
        if self.first == self.second:
            raise SelfCallError(f"self-call {self.first}{self.second}: a call needs two agents")
        # An unordered pair: store it canonically so that Call(b, a) == Call(a, b).
        if self.first > self.second:
            first, second = self.second, self.first
            object.__setattr__(self, "first", first)
            object.__setattr__(self, "second", second)

    def __str__(self) -> str:
        if len(self.first) == 1 and len(self.second) == 1:
            return f"{self.first}{self.second}"
        return f"{self.first}-{self.second}"


# A finite call history c in C^{<omega}.
History: TypeAlias = tuple[Call, ...]


@dataclass(frozen=True)
class GossipState:
    """The factual gossip state: for each agent (in order), the secrets it knows."""

    holdings: tuple[tuple[Agent, frozenset[Agent]], ...]


def require_agent(agents: AgentSet, name: object) -> Agent:
    """Return ``name`` if it is an agent of ``agents``; raise ``UnknownAgentError`` otherwise."""
    if not isinstance(name, str) or name not in agents.names:
        raise UnknownAgentError(f"unknown agent {name!r}; the agents are {list(agents.names)}")
    return name


def compute_call(agents: AgentSet, x: object, y: object) -> Call:
    """Section 3 (call alphabet C). Return the call ``xy``, checking both agents are known.

    >>> str(compute_call(AgentSet(("a", "b", "c")), "b", "a"))
    'ab'
    """
    return Call(require_agent(agents, x), require_agent(agents, y))


def compute_all_calls(agents: AgentSet) -> tuple[Call, ...]:
    """Section 3. The call alphabet C = {ab : a, b in Ag, a != b}, in canonical order.

    >>> [str(call) for call in compute_all_calls(AgentSet(("a", "b", "c")))]
    ['ab', 'ac', 'bc']
    """
    names = agents.names
    return tuple(Call(x, y) for i, x in enumerate(names) for y in names[i + 1 :])


def require_history(agents: AgentSet, history: object) -> History:
    """Return ``history`` if it is a tuple of calls between agents of ``agents``."""
    if not isinstance(history, tuple):
        raise HistoryError(f"a history is a tuple of calls, got {type(history).__name__}")
    for position, call in enumerate(history):
        if not isinstance(call, Call):
            raise HistoryError(f"position {position} of the history is not a call: {call!r}")
        require_agent(agents, call.first)
        require_agent(agents, call.second)
    return history


def compute_history(agents: AgentSet, calls: str | Iterable[Call | tuple[str, str]]) -> History:
    """Section 3. Build a history from ``"bc;ac"`` (one-letter names) or from pairs.

    Written as in the paper: ``;`` separates calls, each call is two agent names.

    >>> [str(call) for call in compute_history(AgentSet(("a", "b", "c")), "bc;ca")]
    ['bc', 'ac']
    >>> compute_history(AgentSet(("a", "b", "c")), "")
    ()
    """
    result: list[Call] = []
    if isinstance(calls, str):
        for token in (part.strip() for part in calls.split(";")):
            if not token:
                continue
            if "-" in token:
                x, _, y = token.partition("-")
            elif len(token) == 2:
                x, y = token[0], token[1]
            else:
                raise HistoryError(f"cannot read the call {token!r}: write 'ab' or 'ann-bob'")
            result.append(compute_call(agents, x, y))
    else:
        for item in calls:
            if isinstance(item, Call):
                result.append(compute_call(agents, item.first, item.second))
            else:
                x, y = item
                result.append(compute_call(agents, x, y))
    return tuple(result)


def is_involved(agent: Agent, call: Call) -> bool:
    """Check if ``agent`` is one of the two callers of ``call``."""
    return agent in (call.first, call.second)


def compute_root_state(agents: AgentSet) -> GossipState:
    """Section 3 (secret-only root). Each agent knows exactly its own secret."""
    return GossipState(tuple((name, frozenset({name})) for name in agents.names))


def get_secrets(state: GossipState, agent: Agent) -> frozenset[Agent]:
    """Return the set of secrets ``agent`` knows in ``state``."""
    for name, secrets in state.holdings:
        if name == agent:
            return secrets
    raise UnknownAgentError(f"unknown agent {agent!r} in the gossip state")


def compute_push_pull(state: GossipState, call: Call) -> GossipState:
    """Section 2.4 and Section 3 (push-pull). Both callers get the union of their secrets.

    >>> agents = AgentSet(("a", "b", "c"))
    >>> after = compute_push_pull(compute_root_state(agents), Call("a", "b"))
    >>> sorted(get_secrets(after, "b")), sorted(get_secrets(after, "c"))
    (['a', 'b'], ['c'])
    """
    union = get_secrets(state, call.first) | get_secrets(state, call.second)
    return GossipState(
        tuple(
            (name, union if is_involved(name, call) else secrets)
            for name, secrets in state.holdings
        )
    )


def compute_state(agents: AgentSet, history: History) -> GossipState:
    """Section 3. The gossip state c(root) reached by executing ``history`` from the root."""
    state = compute_root_state(agents)
    for call in require_history(agents, history):
        state = compute_push_pull(state, call)
    return state


def is_secret_known(agents: AgentSet, history: History, knower: Agent, owner: Agent) -> bool:
    """Section 3 (atom S_ab). Check if ``knower`` knows ``owner``'s secret after ``history``."""
    require_agent(agents, knower)
    require_agent(agents, owner)
    return owner in get_secrets(compute_state(agents, history), knower)


def compute_state_key(state: GossipState) -> tuple[tuple[Agent, tuple[Agent, ...]], ...]:
    """Return a sort key for ``state`` that does not depend on hash order."""
    return tuple((name, tuple(sorted(secrets))) for name, secrets in state.holdings)
