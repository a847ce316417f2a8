"""Definition 5.1 (symbolic guard) and Section 2.2 (Guard feedback).

The Guard permits a call iff it is structurally available (its successor
history is in H) and its precondition, a formula of L_K, holds at the current
history.  A denial carries a diagnostic: the failed condition, the relevant
state facts, and a machine-readable label (Section 2.2 names
``call-permission``, ``truthfulness`` and ``protocol-compliance``).

Labels, a choice where the paper lists names but no mapping: a false
precondition is labelled ``call-permission`` (condition ``precondition``); a
call whose successor history is outside H is labelled ``protocol-compliance``
(condition ``structural-availability``).  ``truthfulness`` concerns Message and
Announce, which have no formal semantics here (Section 2.1).

Two Guards are given: :func:`compute_guard` over a finite admissible model
(probability-one semantics), and :func:`compute_source_guard` over the
infinite source domain H_src, decided exactly (Theorem 5.4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from gcv.spec.gossip.calls import (
    Agent,
    AgentSet,
    Call,
    History,
    compute_all_calls,
    compute_call,
    compute_state,
    get_secrets,
    require_history,
)
from gcv.spec.gossip.decide import is_satisfied_in_source
from gcv.spec.gossip.errors import FragmentError, HistoryError
from gcv.spec.gossip.formulas import (
    Formula,
    Know,
    Not,
    Secret,
    check_formula,
    compute_subformulas,
    compute_text,
    is_in_knowledge_fragment,
    is_source_compatible,
)
from gcv.spec.gossip.lottery import WeightedStructure, is_satisfied
from gcv.spec.gossip.source import require_source_agents

__all__ = [
    "LABEL_CALL_PERMISSION",
    "LABEL_PROTOCOL_COMPLIANCE",
    "Diagnostic",
    "GuardDecision",
    "Preconditions",
    "compute_available_calls",
    "compute_guard",
    "compute_not_yet_known_precondition",
    "compute_source_guard",
]

LABEL_CALL_PERMISSION = "call-permission"
LABEL_PROTOCOL_COMPLIANCE = "protocol-compliance"

# Definition 5.1: each call alpha in C has a precondition pre(alpha) in L_K.
Preconditions: TypeAlias = Callable[[Call], Formula]


@dataclass(frozen=True)
class Diagnostic:
    """Section 2.2 (learning output). Why the Guard denied a call."""

    label: str
    condition: Literal["precondition", "structural-availability"]
    message: str
    facts: tuple[tuple[str, bool], ...]
    caller_secrets: tuple[tuple[Agent, tuple[Agent, ...]], ...]


@dataclass(frozen=True)
class GuardDecision:
    """Definition 5.1 (execution output). The verdict on ``call`` at ``history``."""

    call: Call
    history: History
    verdict: Literal["permit", "deny"]
    diagnostic: Diagnostic | None

    @property
    def permitted(self) -> bool:
        """Whether the verdict is permit."""
        return self.verdict == "permit"


def compute_not_yet_known_precondition(call: Call) -> Formula:
    """Section 2.4 (the guard example's precondition). pre(ab) = not S_ab: a lacks b's secret."""
    return Not(Secret(call.first, call.second))


def compute_available_calls(model: WeightedStructure, history: History) -> tuple[Call, ...]:
    """Section 5 (A_H). The calls ab in C with c.ab in H, in canonical order."""
    require_history(model.agents, history)
    return tuple(
        call for call in compute_all_calls(model.agents) if (*history, call) in model.histories
    )


def _get_facts(
    agents: AgentSet, history: History, pre: Formula, holds: Callable[[Formula], bool]
) -> tuple[tuple[str, bool], ...]:
    """The relevant state facts: each atom and knowledge subformula of ``pre``, with its value."""
    facts: dict[str, bool] = {}
    for node, _ in compute_subformulas(pre):
        if isinstance(node, Secret | Know) and compute_text(node) not in facts:
            facts[compute_text(node)] = holds(node)
    return tuple(facts.items())


def _get_caller_secrets(
    agents: AgentSet, call: Call, history: History
) -> tuple[tuple[Agent, tuple[Agent, ...]], ...]:
    """The callers' secret sets at ``history`` (sorted)."""
    state = compute_state(agents, history)
    return tuple(
        (agent, tuple(sorted(get_secrets(state, agent)))) for agent in (call.first, call.second)
    )


def _decide(
    agents: AgentSet,
    call: Call,
    history: History,
    pre: Formula,
    available: bool,
    holds: Callable[[Formula], bool],
) -> GuardDecision:
    """The case split of Definition 5.1, with the diagnostic of Section 2.2 on deny."""
    shown = ";".join(str(k) for k in history) or "e"
    if not available:
        diagnostic = Diagnostic(
            LABEL_PROTOCOL_COMPLIANCE,
            "structural-availability",
            f"call {call} is not structurally available at {shown}: {shown};{call} is not in H",
            (),
            _get_caller_secrets(agents, call, history),
        )
        return GuardDecision(call, history, "deny", diagnostic)
    if not holds(pre):
        diagnostic = Diagnostic(
            LABEL_CALL_PERMISSION,
            "precondition",
            f"precondition pre({call}) = {compute_text(pre)} is false at {shown}",
            _get_facts(agents, history, pre, holds),
            _get_caller_secrets(agents, call, history),
        )
        return GuardDecision(call, history, "deny", diagnostic)
    return GuardDecision(call, history, "permit", None)


def _read_precondition(agents: AgentSet, preconditions: Preconditions, call: Call) -> Formula:
    """Return pre(call), checked to be a formula of L_K (Definition 5.1)."""
    pre = check_formula(agents, preconditions(call))
    if not is_in_knowledge_fragment(pre):
        raise FragmentError(
            f"pre({call}) = {compute_text(pre)} is outside L_K (Definition 5.1 requires L_K)"
        )
    return pre


def compute_guard(
    model: WeightedStructure, preconditions: Preconditions, call: Call, history: History
) -> GuardDecision:
    """Definition 5.1 (symbolic guard). permit iff call in A_H(c) and M^G, c |= pre(call).

    >>> from gcv.spec.gossip.calls import compute_history
    >>> from gcv.spec.gossip.lottery import compute_model, compute_uniform_lotteries
    >>> agents = AgentSet(("a", "b", "c"))
    >>> H = [(), compute_history(agents, "ab")]
    >>> model = compute_model(agents, H, compute_uniform_lotteries(agents, H))
    >>> ab = compute_call(agents, "a", "b")
    >>> compute_guard(model, compute_not_yet_known_precondition, ab, ()).verdict
    'permit'
    >>> compute_guard(model, compute_not_yet_known_precondition, ab, H[1]).diagnostic.label
    'protocol-compliance'
    """
    call = compute_call(model.agents, call.first, call.second)
    pre = _read_precondition(model.agents, preconditions, call)
    if history not in model.histories:
        shown = ";".join(str(k) for k in history) or "e"
        raise HistoryError(f"the Guard is evaluated at histories of H; {shown} is not in H")
    return _decide(
        model.agents,
        call,
        history,
        pre,
        call in compute_available_calls(model, history),
        lambda phi: is_satisfied(model, history, phi),
    )


def compute_source_guard(
    agents: AgentSet, preconditions: Preconditions, call: Call, history: History
) -> GuardDecision:
    """Theorem 5.4 (Guard decidability). The Guard of an Apt-Wojtczak source instance, decided.

    Every call of C_src is available (H_src holds every finite sequence), and
    pre(call), which must be in L_K,src, is decided exactly by
    :func:`gcv.spec.gossip.decide.is_satisfied_in_source`.  By Lemma 5.2 the
    verdict is the same for every admissible lottery on H_src.
    """
    require_source_agents(agents)
    call = compute_call(agents, call.first, call.second)
    require_history(agents, history)
    pre = _read_precondition(agents, preconditions, call)
    if not is_source_compatible(pre):
        raise FragmentError(
            f"pre({call}) = {compute_text(pre)} is outside L_K,src, where Theorem 5.4 applies"
        )
    return _decide(
        agents, call, history, pre, True, lambda phi: is_satisfied_in_source(agents, history, phi)
    )
