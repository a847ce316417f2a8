"""The Interpreter's interface (Section 3): utterance, speaker, rendered state -> operations.

An interpreter answers a :class:`Request` with a :class:`Reply`: the text of a
JSON object ``{"operations": [...]}`` in the trace format's operation encoding
(``spec/gcv/spec/trace.schema.json``).  Every reply, whoever produced it, is untrusted
input: :mod:`gcv.interpret.validate` checks it before anything reaches the
engine.  Two implementations: :class:`~gcv.interpret.native.NativeInterpreter`
reads the operations a trace records (the paper's "Verifier (native)" arm), and
:class:`~gcv.interpret.llm.LLMInterpreter` asks a chat-completions endpoint
(the "Verifier (end-to-end)" arm).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from gcv.reference.identifiers import AgentId

__all__ = ["Condition", "Interpreter", "Reply", "Request"]


class Condition(enum.Enum):
    """The three prompt conditions of Table 2 (Section 4.3, "Prompt ablation")."""

    MINIMAL = "minimal"
    """The operation names only."""
    DEFINITIONS = "definitions"
    """Full definitions of the operations, with examples."""
    STATE_AUGMENTED = "state-augmented"
    """The definitions plus the renderer's summary of D_t at checkpoints."""


@dataclass(frozen=True, slots=True)
class Request:
    """One utterance to interpret, with what an interpreter may read besides it.

    Attributes
    ----------
    position:
        The utterance's 0-based position in the conversation.
    speaker:
        Its speaker, an agent of Ags.
    utterance:
        Its text, u_t.
    agents:
        Ags: identifier -> display name.
    history:
        The earlier utterances as (speaker, text), oldest first.
    state:
        The renderer's summary of D_t before this turn, when this turn is a
        checkpoint; ``None`` otherwise.
    """

    position: int
    speaker: AgentId
    utterance: str
    agents: Mapping[AgentId, str] = field(default_factory=dict)
    history: tuple[tuple[AgentId, str], ...] = ()
    state: str | None = None

    @property
    def number(self) -> int:
        """T_n as the paper counts turns: the 1-based position."""
        return self.position + 1


@dataclass(frozen=True, slots=True)
class Reply:
    """An interpreter's raw answer and how it was obtained.

    ``text`` is untrusted: it is meant to be ``{"operations": [...]}`` but may
    be anything.  ``attempts`` counts the requests made (1 for a native reply).
    """

    text: str
    attempts: int = 1
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class Interpreter(Protocol):
    """Maps an utterance (with its speaker and the rendered state) to operations."""

    def describe(self) -> dict[str, str]:
        """What produced the replies (kind, model, condition, prompt version), for reports."""
        ...

    def interpret(self, request: Request) -> Reply:
        """Interpret ``request``'s utterance; the reply is validated by the caller."""
        ...
