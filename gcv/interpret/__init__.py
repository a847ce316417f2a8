"""The Interpreter of Section 3: structured operations from raw turns, validated, and measured.

``Interpreter`` (utterance, speaker, rendered state -> reply) has two
implementations: :class:`NativeInterpreter` reads a trace's own operations (the
paper's "Verifier (native)" arm) and :class:`LLMInterpreter` asks any
OpenAI-compatible chat-completions endpoint (the end-to-end arm) under one of
Table 2's prompt conditions.  Replies are untrusted: :func:`read_reply` and
:func:`check_turn` (or :func:`interpret_turn`, which applies them atomically)
turn every defect into a typed error.  :func:`evaluate` scores an interpreter
against a trace's gold operations (multi-label F1 and exact match, overall and
on key shifts).  See ``docs/interpreter.md``.
"""

from gcv.interpret.client import ChatClient, ClientConfig, ResponseFormat, config_from
from gcv.interpret.evaluate import Evaluation, StateSource, TurnResult, evaluate
from gcv.interpret.llm import LLMInterpreter
from gcv.interpret.metrics import Scores, score
from gcv.interpret.native import NativeInterpreter
from gcv.interpret.protocol import Condition, Interpreter, Reply, Request
from gcv.interpret.turn import Interpretation, interpret_turn
from gcv.interpret.validate import check_turn, read_reply, response_schema

__all__ = [
    "ChatClient",
    "ClientConfig",
    "Condition",
    "Evaluation",
    "Interpretation",
    "Interpreter",
    "LLMInterpreter",
    "NativeInterpreter",
    "Reply",
    "Request",
    "ResponseFormat",
    "Scores",
    "StateSource",
    "TurnResult",
    "check_turn",
    "config_from",
    "evaluate",
    "interpret_turn",
    "read_reply",
    "response_schema",
    "score",
]
