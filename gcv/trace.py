"""The trace format ``gcv-trace/1``: parse and validate, from text to typed values.

A trace is JSON checked against ``spec/gcv/spec/trace.schema.json`` and then converted
into :class:`~gcv.reference.verifier.Turn` values and :class:`Expectation`\\ s.
Any defect (not JSON, too large, nested too deep, off the schema, turns out of
sequence, a field an operation rejects) raises
:class:`~gcv.errors.MalformedTrace` naming where it is.  Parsing is
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

from gcv.errors import MalformedTrace
from gcv.jsoninput import SchemaValidator, parse_json
from gcv.reference.epistemic.formula import Formula, parse, show
from gcv.reference.epistemic.model import PlausibilityModel, build_model
from gcv.reference.errors import GcvError, MalformedFormula, MalformedOperation
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import ORDER, Operation
from gcv.reference.records import Kind
from gcv.reference.rules.form import Form, Kinds, field_forms
from gcv.reference.verifier import Turn

__all__ = [
    "EPISTEMIC_QUERIES",
    "FORMAT",
    "MAX_TRACE_BYTES",
    "Expectation",
    "Trace",
    "TraceTurn",
    "load_trace",
    "operation_from_json",
    "operation_to_json",
    "trace_from_document",
    "trace_schema",
    "validate_turn_line",
]

FORMAT = "gcv-trace/1"
MAX_TRACE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Expectation:
    """A query and the answer the trace expects.

    ``subject`` is the record (or, for ``commitments``, ``aware`` and the
    epistemic queries, the agent) queried; ``expected`` is a standing label, a
    bool, a count, or a frozenset compared without order.  The epistemic
    queries carry their ``formula`` (and ``given``), the world ``at`` which it is
    evaluated (``None``: every world), or the ``layers`` of an ordering.
    """

    query: str
    subject: str | None
    expected: object
    atom: str | None = None
    closure: frozenset[str] | None = None
    why: str = ""
    formula: Formula | None = None
    given: Formula | None = None
    at: frozenset[str] | None = None
    layers: tuple[Formula, ...] = ()

    def describe(self) -> str:
        """The query as a reader would write it, e.g. ``knows(a, K[a] m_a at {m_a, m_b})``."""
        parts = [p for p in (self.subject, self.atom) if p is not None]
        if self.formula is not None:
            parts.append(show(self.formula))
        if self.given is not None:
            parts.append(f"given {show(self.given)}")
        if self.layers:
            parts.append(" < ".join(f"[{show(layer)}]" for layer in self.layers))
        if self.at is not None:
            parts.append(f"at {{{', '.join(sorted(self.at))}}}")
        return f"{self.query}({', '.join(parts)})"


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
    model: PlausibilityModel | None = None
    """M_0 when the trace declares one (``model``), else the implicit model over ``atoms``."""


@cache
def trace_schema() -> Mapping[str, Any]:
    """The JSON Schema of ``gcv-trace/1`` (``spec/gcv/spec/trace.schema.json``)."""
    text = resources.files("gcv.spec").joinpath("trace.schema.json").read_text(encoding="utf-8")
    schema: Mapping[str, Any] = json.loads(text)
    return schema


def _location(path: Sequence[object]) -> str:
    where = ""
    for step in path:
        where += f"[{step}]" if isinstance(step, int) else f".{step}"
    return where.lstrip(".") or "(top level)"


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _offset(text: str, path: Sequence[object]) -> int | None:
    """Where in the JSON ``text`` the value at ``path`` starts, or None where ``text`` is
    not the document's own JSON (each member and element before it is decoded to be
    skipped, so the offset is exact)."""
    decoder, at = json.JSONDecoder(), _skip_space(text, 0)
    try:
        for step in path:
            opening, at = text[at], _skip_space(text, at + 1)
            if opening == "[" and isinstance(step, int):
                for _ in range(step):
                    at = _skip_space(text, decoder.raw_decode(text, at)[1])
                    at = _skip_space(text, at + 1)  # the comma
            elif opening == "{":
                while True:
                    key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
                    at = _skip_space(text, _skip_space(text, at) + 1)  # the colon
                    if key == step:
                        break
                    at = _skip_space(text, decoder.raw_decode(text, at)[1])
                    at = _skip_space(text, at + 1)  # the comma
            else:
                return None
    except (ValueError, IndexError):
        return None
    return at


def _allowed(schema: Mapping[str, Any]) -> list[str]:
    return sorted(name for name in schema.get("properties", {}) if name != "op")


def describe_schema_error(
    error: jsonschema.ValidationError,
    document: object,
    text: str | None = None,
    one_turn: bool = False,
) -> tuple[str, str]:
    """(message, field) for a trace that breaks the schema, pointing at the line.

    The message names the JSON line of ``text`` (when given), the turn by its number
    (not for ``one_turn``: a turn line of ``gcv session append``, whose caller names
    its line), the operation by its index and name, and, for a field the operation
    does not have, the fields it allows; ``field`` is the offending field's path.
    """
    path = list(error.absolute_path)
    field, message = _location(path), error.message
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        unknown = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        what = error.instance.get("op", "this object")
        allowed = ", ".join(_allowed(error.schema))
        message = f"unknown field {', '.join(map(repr, unknown))}; {what} allows: {allowed}"
        path, field = [*path, unknown[0]], _location([*path, unknown[0]])
    elif error.validator == "required" and "'" in error.message:
        field = _location([*path, error.message.split("'")[1]])
    where = []
    offset = None if text is None or one_turn else _offset(text, path)
    if offset is not None and text is not None:
        where.append(f"line {text.count(chr(10), 0, offset) + 1}")
    turns = document.get("turns") if isinstance(document, dict) else None
    if path[:1] == ["turns"] and len(path) > 1 and isinstance(turns, list):
        turn = turns[path[1]]
        number = turn.get("turn") if isinstance(turn, dict) else None
        if not one_turn:
            where.append(f"turn {number}" if isinstance(number, int) else f"turns[{path[1]}]")
        field = field.removeprefix(f"turns[{path[1]}].") if one_turn else field
        operations = turn.get("operations") if isinstance(turn, dict) else None
        if path[2:3] == ["operations"] and len(path) > 3 and isinstance(operations, list):
            operation = operations[path[3]]
            name = operation.get("op") if isinstance(operation, dict) else None
            where.append(f"operation {path[3]}" + (f" ({name})" if isinstance(name, str) else ""))
    return (f"{', '.join(where)}: " if where else "") + message, field


def validate_turn_line(document: object) -> None:
    """Validate a trace holding one turn line of ``gcv session append``; an error names
    the operation and the field, not the trace's turn (the caller names the line).

    Raises
    ------
    MalformedTrace
        As :func:`load_trace`.
    """
    _validate(document, one_turn=True)


def _validate(document: object, text: str | None = None, one_turn: bool = False) -> None:
    validator = SchemaValidator(trace_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        message, field = describe_schema_error(error, document, text, one_turn)
        raise MalformedTrace(message, field=field)


def operation_from_json(data: Mapping[str, Any]) -> Operation:
    """Build an operation from its JSON object (``op`` names it; ``why`` is ignored).

    >>> operation_from_json({"op": "revise", "target": "h2", "attackers": ["h4"]})
    Revise(target='h2', attackers=('h4',))
    """
    value = {rule.name: rule.value for rule in ORDER}[data["op"]]
    forms = {f.name: f.form for f in field_forms(value)}
    fields = {k: v for k, v in data.items() if k not in ("op", "why")}
    for name, given in fields.items():
        match forms.get(name):
            case Form.IDENTIFIERS | Form.ATOMS:
                fields[name] = tuple(given)
            case Kinds():
                fields[name] = Kind(given)
            case Form.FORMULA if isinstance(given, str):
                try:
                    fields[name] = parse(given)
                except MalformedFormula as error:
                    raise MalformedOperation(f"{data['op']}: {error.detail}", field=name) from None
    operation: Operation = value(**fields)
    return operation


@icontract.ensure(lambda op, result: operation_from_json(result) == op, "the encoding round-trips")
def operation_to_json(op: Operation) -> dict[str, Any]:
    """The JSON object of an operation, omitting fields at their defaults.

    >>> from gcv.reference.operations import Revise
    >>> operation_to_json(Revise("h2", ("h4",)))
    {'op': 'revise', 'target': 'h2', 'attackers': ['h4']}
    """
    data: dict[str, Any] = {"op": op.name}
    for field in dataclasses.fields(op):
        value = getattr(op, field.name)
        if value == field.default:
            continue
        if isinstance(value, Kind):
            value = value.value
        elif isinstance(value, Formula):
            value = show(value)
        elif isinstance(value, tuple):
            value = list(value)
        data[field.name] = value
    return data


def _formula(text: str, where: str) -> Formula:
    try:
        return parse(text)
    except MalformedFormula as error:
        raise MalformedTrace(f"{where}: {error.detail}", field=where) from None


def _epistemic_expectation(data: Mapping[str, Any], where: str) -> Expectation:
    query, why = data["query"], data.get("why", "")
    at = frozenset(data["at"]) if "at" in data else None
    match query:
        case "worlds":
            if "count" in data:
                return Expectation(query, None, data["count"], why=why)
            return Expectation(
                query, None, frozenset(frozenset(w) for w in data["equals"]), why=why
            )
        case "ordered":
            layers = tuple(
                _formula(text, f"{where}.layers[{k}]") for k, text in enumerate(data["layers"])
            )
            return Expectation(query, data["agent"], data["equals"], layers=layers, why=why)
        case "unexplained":
            return Expectation(query, data["agent"], frozenset(data["equals"]), why=why)
    given = _formula(data["given"], f"{where}.given") if "given" in data else None
    return Expectation(
        query,
        data.get("agent"),
        data["equals"],
        formula=_formula(data["formula"], f"{where}.formula"),
        given=given,
        at=at,
        why=why,
    )


EPISTEMIC_QUERIES = frozenset({"holds", "knows", "believes", "worlds", "ordered", "unexplained"})
"""The expectation kinds that query M_t."""


def _expectation(data: Mapping[str, Any], where: str = "expect") -> Expectation:
    query = data["query"]
    why = data.get("why", "")
    if query in EPISTEMIC_QUERIES:
        return _epistemic_expectation(data, where)
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
        case "arguments":
            return Expectation(query, None, frozenset(data["equals"]), why=why)
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
        expectations=tuple(
            _expectation(e, f"{where}.expect[{k}]") for k, e in enumerate(data.get("expect", ()))
        ),
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
    if not isinstance(text, str | bytes):
        raise MalformedTrace(f"a trace is text or bytes, not {type(text).__name__}", field="text")
    document = parse_json(text, MAX_TRACE_BYTES, MalformedTrace, "a trace")
    _validate(document, text if isinstance(text, str) else text.decode("utf-8", "replace"))
    assert isinstance(document, dict), "the schema requires an object"
    return trace_from_document(document)


def trace_from_document(document: Mapping[str, Any]) -> Trace:
    """The Trace of a ``gcv-trace/1`` document that meets the schema: one a store
    exported from its own log, or one :func:`load_trace` validated.

    Raises
    ------
    MalformedTrace
        Its turns are numbered out of sequence, or an expectation or M_0 is malformed.
    """
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
        expectations=tuple(
            _expectation(e, f"expect[{k}]") for k, e in enumerate(document.get("expect", ()))
        ),
        model=_model(document) if "model" in document else None,
    )


def _model(document: Mapping[str, Any]) -> PlausibilityModel:
    """M_0 from the trace's ``model``: worlds, what each agent observes, ranks, awareness."""
    declared = document["model"]
    ranks = {
        agent: [(entry["world"], entry["rank"]) for entry in entries]
        for agent, entries in declared.get("ranks", {}).items()
    }
    try:
        return build_model(
            list(document["agents"]),
            list(document.get("atoms", ())),
            worlds=declared.get("worlds"),
            observes=declared.get("observes"),
            ranks=ranks or None,
            awareness=declared.get("awareness"),
        )
    except GcvError as error:
        where = f"model.{error.field}" if error.field else "model"
        raise MalformedTrace(f"{where}: {error.detail}", field=where) from None
