"""The trace format ``gcv-trace/1``: parse and validate, from text to typed values.

A trace is JSON checked against ``spec/trace.schema.json`` and then converted
into :class:`~reference.verifier.Turn` values and :class:`Expectation`\\ s.
Any defect (not JSON, too large, nested too deep, off the schema, turns out of
sequence, a field an operation rejects) raises
:class:`~reference.errors.MalformedTrace` naming where it is.  Parsing is
pure: reading files is the command line's business.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import icontract
import jsonschema

from reference.errors import GcvError, MalformedTrace
from reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    OperationKind,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from reference.records import AgentId, Kind
from reference.verifier import Turn

__all__ = [
    "FORMAT",
    "MAX_TRACE_BYTES",
    "Expectation",
    "Trace",
    "TraceTurn",
    "load_trace",
    "operation_from_json",
    "operation_to_json",
    "trace_schema",
]

FORMAT = "gcv-trace/1"
MAX_TRACE_BYTES = 64 * 1024 * 1024

_CLASSES: Mapping[OperationKind, type[Operation]] = {
    OperationKind.OBSERVE: Observe,
    OperationKind.HYPOTHESIZE: Hypothesize,
    OperationKind.SUPPORT: Support,
    OperationKind.UNDERMINE: Undermine,
    OperationKind.REVISE: Revise,
    OperationKind.EXPAND_AWARENESS: ExpandAwareness,
    OperationKind.RESOLVE: Resolve,
    OperationKind.QUESTION: Question,
}

_SEQUENCE_FIELDS = frozenset(
    {
        "depends_on",
        "evidence_depends_on",
        "attackers",
        "subsumes",
        "premises",
        "dissenters",
        "agents",
    }
)


@dataclass(frozen=True, slots=True)
class Expectation:
    """A query and the answer the trace expects.

    ``subject`` is the record (or, for ``commitments`` and ``aware``, the agent)
    queried; ``expected`` is a standing label, a bool, or a frozenset of
    identifiers compared without order.
    """

    query: str
    subject: str | None
    expected: object
    atom: str | None = None
    closure: frozenset[str] | None = None
    why: str = ""


@dataclass(frozen=True, slots=True)
class TraceTurn:
    """A turn as the trace states it, with what must hold after it."""

    number: int
    turn: Turn
    expectations: tuple[Expectation, ...] = ()
    rejected: str | None = None
    why: str = ""


@dataclass(frozen=True, slots=True)
class Trace:
    """A whole trace: its agents and atoms, its turns, and the final expectations."""

    name: str
    description: str
    source: str
    agents: Mapping[AgentId, str]
    atoms: tuple[str, ...]
    turns: tuple[TraceTurn, ...]
    expectations: tuple[Expectation, ...]


@cache
def trace_schema() -> Mapping[str, Any]:
    """The JSON Schema of ``gcv-trace/1`` (``spec/trace.schema.json``)."""
    text = resources.files("spec").joinpath("trace.schema.json").read_text(encoding="utf-8")
    schema: Mapping[str, Any] = json.loads(text)
    return schema


def _location(path: Sequence[object]) -> str:
    where = ""
    for step in path:
        where += f"[{step}]" if isinstance(step, int) else f".{step}"
    return where.lstrip(".") or "(top level)"


def _parse_json(text: str | bytes) -> object:
    if len(text) > MAX_TRACE_BYTES:
        raise MalformedTrace(f"a trace is at most {MAX_TRACE_BYTES} bytes; this one is {len(text)}")
    try:
        return json.loads(text)
    except RecursionError:
        raise MalformedTrace("the JSON is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise MalformedTrace(f"not valid JSON: {error}") from None


def _validate(document: object) -> None:
    validator = jsonschema.Draft202012Validator(trace_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        where = _location(error.absolute_path)
        raise MalformedTrace(f"{where}: {error.message}", field=where)


def operation_from_json(data: Mapping[str, Any]) -> Operation:
    """Build an operation from its JSON object (``op`` names it; ``why`` is ignored).

    >>> operation_from_json({"op": "revise", "target": "h2", "attackers": ["h4"]})
    Revise(target='h2', attackers=('h4',))
    """
    fields = {k: v for k, v in data.items() if k not in ("op", "why")}
    for name in _SEQUENCE_FIELDS & fields.keys():
        fields[name] = tuple(fields[name])
    if "kind" in fields:
        fields["kind"] = Kind(fields["kind"])
    return _CLASSES[OperationKind(data["op"])](**fields)


@icontract.ensure(lambda op, result: operation_from_json(result) == op, "the encoding round-trips")
def operation_to_json(op: Operation) -> dict[str, Any]:
    """The JSON object of an operation, omitting fields at their defaults.

    >>> operation_to_json(Revise("h2", ("h4",)))
    {'op': 'revise', 'target': 'h2', 'attackers': ['h4']}
    """
    data: dict[str, Any] = {"op": op.operation.value}
    for field in dataclasses.fields(op):
        value = getattr(op, field.name)
        if value == field.default:
            continue
        if isinstance(value, Kind):
            value = value.value
        elif isinstance(value, tuple):
            value = list(value)
        data[field.name] = value
    return data


def _expectation(data: Mapping[str, Any]) -> Expectation:
    query = data["query"]
    why = data.get("why", "")
    match query:
        case "verify":
            closure = data.get("closure")
            return Expectation(
                query,
                data["record"],
                data["grounded"],
                closure=None if closure is None else frozenset(closure),
                why=why,
            )
        case "commitments":
            return Expectation(query, data["agent"], frozenset(data["equals"]), why=why)
        case "aware":
            return Expectation(query, data["agent"], data["equals"], atom=data["atom"], why=why)
        case "standing":
            return Expectation(query, data["record"], data["equals"], why=why)
    return Expectation(query, data["record"], frozenset(data["equals"]), why=why)


def _turn(data: Mapping[str, Any], where: str) -> TraceTurn:
    operations = []
    for index, op in enumerate(data["operations"]):
        try:
            operations.append(operation_from_json(op))
        except GcvError as error:
            raise MalformedTrace(
                f"{where}.operations[{index}]: {error.detail}",
                field=f"{where}.operations[{index}].{error.field}",
            ) from None
    return TraceTurn(
        number=data["turn"],
        turn=Turn(data["speaker"], tuple(operations), data.get("text", "")),
        expectations=tuple(_expectation(e) for e in data.get("expect", ())),
        rejected=data.get("rejected"),
        why=data.get("why", ""),
    )


def load_trace(text: str | bytes) -> Trace:
    """Parse and validate a ``gcv-trace/1`` document.

    Raises
    ------
    MalformedTrace
        Naming the defect and where it is.

    Examples
    --------
    >>> doc = '{"format": "gcv-trace/1", "agents": {"a": "Alice"}, "turns": []}'
    >>> load_trace(doc).agents
    {'a': 'Alice'}
    >>> try:
    ...     load_trace('{"format": "gcv-trace/1", "agents": {}, "turns": []}')
    ... except MalformedTrace as error:
    ...     print(error.code, error.field)
    malformed-trace agents
    """
    document = _parse_json(text)
    _validate(document)
    assert isinstance(document, dict), "the schema requires an object"
    turns = []
    following = 1
    for index, data in enumerate(document["turns"]):
        where = f"turns[{index}]"
        if data["turn"] != following:
            raise MalformedTrace(
                f"{where}: turn {data['turn']} is out of sequence; expected turn {following}",
                field=f"{where}.turn",
            )
        turns.append(_turn(data, where))
        if "rejected" not in data:
            following += 1
    return Trace(
        name=document.get("name", ""),
        description=document.get("description", ""),
        source=document.get("source", ""),
        agents=dict(document["agents"]),
        atoms=tuple(document.get("atoms", ())),
        turns=tuple(turns),
        expectations=tuple(_expectation(e) for e in document.get("expect", ())),
    )
