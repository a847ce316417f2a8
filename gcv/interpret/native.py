"""The native interpreter: the operations a trace records, as the paper's "Verifier (native)".

It answers each utterance with the trace's own operations for that position,
encoded exactly as the trace encodes them (:func:`gcv.trace.operation_to_json`),
so its replies pass through the same validation as a model's.  Scored against
the same trace it reproduces the gold labels exactly, by construction.
"""

from __future__ import annotations

import json

import icontract

from gcv.interpret.protocol import Reply, Request
from gcv.trace import Trace, operation_to_json

__all__ = ["NativeInterpreter"]


def _in_trace(trace: Trace, position: int) -> bool:
    return 0 <= position < len(trace.turns)


class NativeInterpreter:
    """Reads each turn's operations from ``trace``.

    Examples
    --------
    >>> from gcv.trace import load_trace
    >>> doc = {"format": "gcv-trace/1", "agents": {"a": "Alice"}, "turns": [
    ...     {"turn": 1, "speaker": "a", "text": "401s",
    ...      "operations": [{"op": "observe", "id": "o1", "claim": "401s"}]}]}
    >>> native = NativeInterpreter(load_trace(json.dumps(doc)))
    >>> native.interpret(Request(0, "a", "401s")).text
    '{"operations": [{"op": "observe", "id": "o1", "claim": "401s"}]}'
    """

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    def describe(self) -> dict[str, str]:
        """Name the arm and the trace it reads."""
        return {"interpreter": "native", "trace": self.trace.name}

    @icontract.require(
        lambda self, request: _in_trace(self.trace, request.position),
        "the request is a turn of the trace",
    )
    def interpret(self, request: Request) -> Reply:
        """The operations the trace records at ``request.position``, as reply text."""
        turn = self.trace.turns[request.position].turn
        operations = [operation_to_json(op) for op in turn.operations]
        return Reply(json.dumps({"operations": operations}))
