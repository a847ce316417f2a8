"""A conversation's history as ``gcv-trace/1``: the header, the turns, and a trace writer.

A session (in memory with :class:`TraceWriter`, on disk with
:mod:`gcv.store`) is a trace's header (its agents with their display
names, Prop_0 and M_0 as the trace declares them) and the turns offered to the
verifier, accepted or rejected, in order.  This module converts between those
and the trace format's JSON objects; it does no I/O.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import icontract

from gcv.errors import MalformedTrace
from gcv.jsoninput import parse_json
from gcv.reference.errors import GcvError, MalformedInput
from gcv.reference.verifier import Turn, TurnReport, Verifier
from gcv.trace import (
    FORMAT,
    MAX_TRACE_BYTES,
    Trace,
    load_trace,
    operation_from_json,
    operation_to_json,
    validate_turn_line,
)

__all__ = [
    "HEADER_FIELDS",
    "LoggedTurn",
    "TraceWriter",
    "header_of",
    "initial_verifier",
    "parse_turn_line",
    "prefix",
    "replays_to",
    "trace_document",
    "turn_from_json",
    "turn_to_json",
]

HEADER_FIELDS = ("name", "description", "source", "agents", "atoms", "model")
"""The members of a trace that describe the conversation before its first turn."""


@dataclass(frozen=True, slots=True)
class LoggedTurn:
    """A turn offered to the verifier: accepted, or rejected with its error.

    ``number`` is the turn's number when accepted, and the number it would
    have taken when rejected (a rejected turn takes none: spec/gcv/spec/normative.md,
    "Atomic turns").
    """

    number: int
    turn: Turn
    rejected: str | None = None
    """The error's code when the turn was rejected."""
    error: str = ""
    """The error's message when the turn was rejected."""


def header_of(document: Mapping[str, Any]) -> dict[str, Any]:
    """The header members of a trace document (:data:`HEADER_FIELDS` that it has)."""
    return {key: document[key] for key in HEADER_FIELDS if key in document}


def _header_trace(header: Mapping[str, Any]) -> Trace:
    return load_trace(json.dumps({"format": FORMAT, **header_of(header), "turns": []}))


def initial_verifier(trace_or_header: Trace | Mapping[str, Any]) -> Verifier:
    """A Verifier at D_0 with the trace's agents, Prop_0 and M_0.

    Raises
    ------
    MalformedTrace
        The header breaks the trace schema or declares an M_0 that cannot be built.

    >>> initial_verifier({"agents": {"a": "Alice"}, "atoms": ["p"]}).state.turn
    0
    """
    trace = (
        trace_or_header if isinstance(trace_or_header, Trace) else _header_trace(trace_or_header)
    )
    return Verifier(list(trace.agents), list(trace.atoms), trace.model)


def turn_to_json(entry: LoggedTurn) -> dict[str, Any]:
    """The ``gcv-trace/1`` turn object of a logged turn (a rejected one names its code).

    >>> from gcv.reference.operations import Revise
    >>> turn_to_json(LoggedTurn(3, Turn("b", (Revise("o1"),))))
    {'turn': 3, 'speaker': 'b', 'operations': [{'op': 'revise', 'target': 'o1'}]}
    """
    data: dict[str, Any] = {"turn": entry.number, "speaker": entry.turn.speaker}
    if entry.turn.text:
        data["text"] = entry.turn.text
    data["operations"] = [operation_to_json(op) for op in entry.turn.operations]
    if entry.rejected is not None:
        data["rejected"] = entry.rejected
        data["why"] = entry.error
    return data


@icontract.ensure(
    lambda data, result: all(
        operation_to_json(op) == {k: v for k, v in written.items() if k != "why"}
        for op, written in zip(result.operations, data["operations"], strict=True)
    ),
    "the operations read back as written",
    enabled=icontract.SLOW,
)
def turn_from_json(data: Mapping[str, Any]) -> Turn:
    """The Turn of a turn object already known to be valid (one the store wrote).

    Input from outside goes through :func:`parse_turn_line`, which validates it.
    """
    operations = tuple(operation_from_json(op) for op in data["operations"])
    return Turn(data["speaker"], operations, data.get("text", ""))


def parse_turn_line(line: str | bytes, agents: Mapping[str, str]) -> tuple[Turn, int | None]:
    """Read one JSON line as a turn object of ``gcv-trace/1``; return it with its stated number.

    The ``turn`` member may be left out (the session numbers the turn); when
    present it is returned, for the session to check it is the next number.

    Raises
    ------
    MalformedTrace
        The line is not JSON (bounded, strict: :func:`gcv.jsoninput.parse_json`), or not a
        turn object of the trace schema.

    >>> line = '{"speaker": "a", "operations": [{"op": "observe", "id": "o1", "claim": "401s"}]}'
    >>> turn, number = parse_turn_line(line, {"a": "Alice"})
    >>> turn.operations[0].id, number
    ('o1', None)
    """
    data = parse_json(line, MAX_TRACE_BYTES, MalformedInput, "a turn line")
    if not isinstance(data, dict):
        raise MalformedInput("a turn line is a JSON object", field="turn")
    stated = data.pop("turn", None)
    if stated is not None and (type(stated) is not int or stated < 1):
        raise MalformedInput(f"turn: {stated!r} is not a turn number", field="turn")
    if "rejected" in data:
        raise MalformedInput("a turn to append cannot carry 'rejected'", field="rejected")
    # Validated as the only turn of a trace, so it is numbered 1 there.
    document = {"format": FORMAT, "agents": dict(agents), "turns": [{"turn": 1, **data}]}
    try:
        trace = load_trace(json.dumps(document))
    except MalformedTrace:
        validate_turn_line(document)  # said of the line (its caller names it), not of turn 1
        raise

    return trace.turns[0].turn, stated


@icontract.ensure(
    lambda at, result: sum(t.rejected is None for t in result.turns) == at,
    "the prefix holds the first N accepted turns",
)
def prefix(trace: Trace, at: int) -> Trace:
    """``trace`` cut after its ``at``-th accepted turn (with the rejected turns before it).

    The expectations are dropped: they state what holds after the whole trace
    (the turns' own expectations stay with their turns).

    Raises
    ------
    MalformedInput
        ``at`` is negative or beyond the trace's accepted turns (field ``at``).
    """
    accepted = sum(t.rejected is None for t in trace.turns)
    if not 0 <= at <= accepted:
        raise MalformedInput(f"turn {at} is not in the trace (0 to {accepted})", field="at")
    kept = tuple(t for t in trace.turns if t.number <= at)
    return dataclasses.replace(trace, turns=kept, expectations=())


def trace_document(header: Mapping[str, Any], entries: Iterable[LoggedTurn]) -> dict[str, Any]:
    """The ``gcv-trace/1`` document of a header and the turns offered, in order."""
    return {"format": FORMAT, **header_of(header), "turns": [turn_to_json(e) for e in entries]}


def replays_to(document: Mapping[str, Any], verifier: Verifier) -> bool:
    """Whether ``document``'s accepted turns, replayed from D_0, give ``verifier``'s map."""
    trace = load_trace(json.dumps(document))
    replayed = initial_verifier(trace)
    for trace_turn in trace.turns:
        if trace_turn.rejected is None:
            replayed.apply_turn(trace_turn.turn)
    return replayed.state.digest() == verifier.state.digest()


class TraceWriter:
    """A Verifier that keeps its history and writes it as a ``gcv-trace/1`` trace.

    Examples
    --------
    >>> from gcv.reference.operations import Observe, Revise
    >>> writer = TraceWriter({"agents": {"a": "Alice", "b": "Bob"}})
    >>> _ = writer.apply_turn(Turn("a", (Observe("o1", "401s"),)))
    >>> try:
    ...     writer.apply_turn(Turn("b", (Revise("o2"),)))
    ... except GcvError as error:
    ...     print(error.code)
    unknown-record
    >>> [(t["turn"], t.get("rejected")) for t in writer.document()["turns"]]
    [(1, None), (2, 'unknown-record')]
    """

    def __init__(self, header: Mapping[str, Any]) -> None:
        self.header = header_of(header)
        self.verifier = initial_verifier(self.header)
        self.entries: list[LoggedTurn] = []

    def apply_turn(self, turn: Turn) -> TurnReport:
        """Apply ``turn`` (:meth:`Verifier.apply_turn`) and log it, accepted or rejected.

        Raises
        ------
        GcvError
            The turn was rejected (and is logged with the error's code).
        """
        number = self.verifier.state.turn + 1
        try:
            report = self.verifier.apply_turn(turn)
        except GcvError as error:
            self.entries.append(LoggedTurn(number, turn, error.code, str(error)))
            raise
        self.entries.append(LoggedTurn(number, turn))
        return report

    @icontract.ensure(
        lambda self, result: replays_to(result, self.verifier),
        "the trace replays to the writer's map",
        enabled=icontract.SLOW,
    )
    def document(self) -> dict[str, Any]:
        """The history so far as a ``gcv-trace/1`` document."""
        return trace_document(self.header, self.entries)
