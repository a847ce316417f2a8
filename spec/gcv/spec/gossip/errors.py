"""Typed errors of the epistemic gossip spec module.

Every error raised on bad input is a :class:`GossipError` (a ``ValueError``).
Each subclass has a stable, machine-readable ``code`` and a message that names
what was wrong (the agent, the call, the history, the formula, the version).
A function that raises leaves every state it was given unchanged.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "AgentSetError",
    "FormulaTooDeepError",
    "FragmentError",
    "GossipError",
    "HistoryError",
    "InadmissibleLotteryError",
    "ReweightingError",
    "SelfCallError",
    "StaleVersionError",
    "UnknownAgentError",
]


class GossipError(ValueError):
    """Base class of every error the gossip spec module raises on bad input."""

    code: ClassVar[str] = "gossip-error"


class AgentSetError(GossipError):
    """The agent set is malformed: empty names, duplicates, or too few agents."""

    code: ClassVar[str] = "agent-set"


class UnknownAgentError(GossipError):
    """A call, formula or query names an agent outside the agent set."""

    code: ClassVar[str] = "unknown-agent"


class SelfCallError(GossipError):
    """A call ``aa``: the call alphabet C contains only pairs of distinct agents (Section 3)."""

    code: ClassVar[str] = "self-call"


class HistoryError(GossipError):
    """A history is not in the model's domain H, or is not a word over the call alphabet."""

    code: ClassVar[str] = "history"


class InadmissibleLotteryError(GossipError):
    """A lottery violates Definition 3.2 (a weight that is not strictly positive, say)."""

    code: ClassVar[str] = "inadmissible-lottery"


class ReweightingError(InadmissibleLotteryError):
    """The factors or the normaliser of Definition 6.1 violate its conditions."""

    code: ClassVar[str] = "reweighting"


class FragmentError(GossipError):
    """A formula lies outside the fragment an operation is defined on (L_K, L_K,src, factual)."""

    code: ClassVar[str] = "fragment"


class FormulaTooDeepError(GossipError):
    """A formula is nested deeper than ``MAX_FORMULA_DEPTH``; it is refused, not recursed into."""

    code: ClassVar[str] = "formula-too-deep"


class StaleVersionError(GossipError):
    """A permit was checked on a state version that no longer holds and fails revalidation.

    ``diagnostic`` carries the revalidating Guard's denial diagnostic, if any.
    """

    code: ClassVar[str] = "stale-version"

    def __init__(self, message: str, diagnostic: object = None) -> None:
        super().__init__(message)
        self.diagnostic = diagnostic
