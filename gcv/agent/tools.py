"""The tools ``gcv mcp`` offers an agent: the loop of Section 3 (Figure 2) as calls.

An agent (or its host) is the Interpreter: it sends each utterance's
operations to ``append_turn``, which applies them atomically to D_t and returns
the Renderer's summary of what changed (the dashed arrow of Figure 2); before
it uses a continuation it asks ``verify`` (Lemma 2.1) and, when a premise is
withdrawn, ``affected`` (Definition 2.3).  Each tool is a row of :data:`TOOLS`:
its name, its input and output JSON Schemas, the error codes it can return and
the function that answers it.  This module knows nothing of MCP (the binding is
:mod:`gcv.agent.server`), so the answers are the ones any transport gives.

Arguments are checked here, whatever the transport: their size and nesting by
the project's one JSON reader (:func:`gcv.jsoninput.parse_json`), then the
tool's input schema, then the trace format for the operations
(:func:`gcv.history.parse_turn_line`).  Every failure is a
:class:`~gcv.reference.errors.GcvError` with its stable code.

Whole, at about 610 lines: it is one table, :data:`TOOLS`, and what its rows are made of:
each tool's schemas (built from the trace format's definitions), its argument check and the
function that answers it. A reader of one tool reads its row and its answer side by side.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import icontract
import jsonschema

from gcv.agent.folder import SESSION_NAME_PATTERN, SessionFolder, scenario_header
from gcv.errors import (
    MalformedTrace,
    OutOfSequence,
    StoreBusy,
    StoreCorrupt,
    StoreError,
    StoreForeign,
    StoreMissing,
    StoreVersion,
    UnknownEntity,
)
from gcv.history import initial_verifier, parse_turn_line
from gcv.jsoninput import SchemaValidator, accepts, parse_json
from gcv.reference.depmap import AttackAdded, RecordAdded, StandingChanged
from gcv.reference.errors import (
    GcvError,
    MalformedFormula,
    MalformedInput,
    MalformedOperation,
    PreconditionViolation,
    UnknownRecord,
    UnknownWorld,
)
from gcv.reference.operations import (
    Hypothesize,
    Observe,
    Operation,
    Question,
    Support,
    Undermine,
    rule_of,
    target_of,
)
from gcv.reference.render import render_grounding, render_state, render_turn
from gcv.reference.verifier import TurnReport, Verifier
from gcv.session_cli import state_json
from gcv.store import StoredSession
from gcv.trace import operation_to_json, trace_schema

__all__ = ["MAX_ARGUMENT_BYTES", "TOOLS", "Tool", "call_tool", "check_arguments", "tool_named"]

MAX_ARGUMENT_BYTES = 1 << 20
"""The largest arguments a call may carry, as JSON (a turn of thousands of operations)."""


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: what it is called, what it takes and returns, how it fails, what answers it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    errors: tuple[str, ...]
    """The error codes (:mod:`gcv.reference.errors`, :mod:`gcv.errors`) a call can fail with."""
    answer: Callable[[SessionFolder, Mapping[str, Any]], dict[str, Any]]


# -- schemas: the trace format's definitions, reused -------------------------------


def _references(schema: object) -> Iterator[str]:
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            yield ref.removeprefix("#/$defs/")
        for value in schema.values():
            yield from _references(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _references(value)


@cache
def _trace_definitions(*roots: str) -> dict[str, Any]:
    """The trace schema's ``$defs`` that ``roots`` need, with everything they refer to."""
    definitions = trace_schema()["$defs"]
    needed, pending = {}, list(roots)
    while pending:
        name = pending.pop()
        if name not in needed:
            needed[name] = definitions[name]
            pending.extend(_references(definitions[name]))
    return needed


def _object(properties: Mapping[str, Any], required: Sequence[str], **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
        **extra,
    }


_SESSION = {
    "type": "string",
    "pattern": SESSION_NAME_PATTERN,
    "description": "The session's name: its store is <folder>/<name>.gcv.",
}
_RECORD = {"$ref": "#/$defs/identifier", "description": "A record of Args_t."}
_AT = {
    "type": "integer",
    "minimum": 0,
    "description": "Answer on D_N, the map after the first N accepted turns (default: the last).",
}
_STRINGS = {"type": "array", "items": {"type": "string"}}
_NULLABLE_ID = {"type": ["string", "null"]}
_ON_RECORD = {"at": {"type": "integer"}, "record": {"type": "string"}}
_EVENT = _object(
    {
        "turn": {"type": "integer"},
        "speaker": {"type": "string"},
        "change": {"type": "string"},
        "operation": {"type": "object", "description": "The operation, as a trace writes it."},
    },
    ["turn", "speaker", "change", "operation"],
)

# Codes every tool can return: its arguments, or the session's store.
_COMMON = (
    MalformedInput.code,
    StoreMissing.code,
    StoreForeign.code,
    StoreVersion.code,
    StoreCorrupt.code,
    StoreError.code,
)


def _family(base: type[GcvError]) -> tuple[str, ...]:
    found, pending = [], [base]
    while pending:
        cls = pending.pop()
        found.append(cls.code)
        pending.extend(cls.__subclasses__())
    return tuple(sorted(found))


# -- arguments ------------------------------------------------------------------------


@cache
def _validator(name: str) -> Any:
    """Tool ``name``'s input schema, compiled once: the reference (:data:`SchemaValidator`)."""
    return SchemaValidator(tool_named(name).input_schema)


@cache
def _accepts(name: str) -> Callable[[object], bool]:
    """Whether arguments are valid for tool ``name``, given fast (:func:`accepts`)."""
    return accepts(tool_named(name).input_schema)


@icontract.ensure(lambda result: isinstance(result, dict), "the arguments are an object")
def check_arguments(tool: Tool, arguments: object) -> dict[str, Any]:
    """``arguments`` checked for ``tool``: within the JSON reader's bounds, then its input schema.

    Raises
    ------
    MalformedInput
        Too large, nested too deep, a lone surrogate, or off the schema (naming the field).
    """
    what = f"the arguments of {tool.name}"
    try:
        text = json.dumps({} if arguments is None else arguments)
    except (TypeError, ValueError, RecursionError) as error:
        raise MalformedInput(f"{what} are not JSON: {error}", field="arguments") from None
    document = parse_json(text, MAX_ARGUMENT_BYTES, MalformedInput, what)
    # One pass for the common case; the best of every error only for a refusal.
    problem = None
    if not _accepts(tool.name)(document):
        problem = jsonschema.exceptions.best_match(_validator(tool.name).iter_errors(document))
    if problem is not None:
        where = problem.json_path.removeprefix("$").removeprefix(".") or "(arguments)"
        raise MalformedInput(f"{tool.name}: {where}: {problem.message}", field=where)
    assert isinstance(document, dict), "the schema requires an object"
    return document


# -- answers --------------------------------------------------------------------------


def _state(session: StoredSession, at: int | None) -> Verifier:
    return session.verifier if at is None else session.state_at(at)


def _known(verifier: Verifier, record: str) -> None:
    # A named record must exist: unknown is an error, as on the command line.
    if record not in verifier.state.records:
        raise UnknownRecord(f"record {record!r} is not registered", record=record)


def _open_session(folder: SessionFolder, args: Mapping[str, Any]) -> dict[str, Any]:
    header: dict[str, Any] | None = None
    if "scenario" in args:
        header = scenario_header(args["scenario"])
    elif "agents" in args:
        header = {"name": args["session"], "agents": args["agents"]}
        if "atoms" in args:
            header["atoms"] = args["atoms"]
    session, created = folder.create_or_open(args["session"], header)
    return {
        "session": args["session"],
        "created": created,
        "turn": session.turn,
        "agents": dict(session.header["agents"]),
    }


def _without_trace_place(error: GcvError) -> GcvError:
    # parse_turn_line checks the turn as turn 1 of a trace; the tool's own fields are named.
    place = "turns[0]."
    if error.field is not None and error.field.startswith(place):
        error.field = error.field.removeprefix(place)
    error.detail = error.detail.removeprefix(place)
    return error


def _append_turn(folder: SessionFolder, args: Mapping[str, Any]) -> dict[str, Any]:
    session = folder.session(args["session"])
    written = {k: args[k] for k in ("speaker", "text", "operations") if k in args}
    try:
        turn, _ = parse_turn_line(json.dumps(written), session.header["agents"])
    except GcvError as error:
        raise _without_trace_place(error) from None
    report = session.append(turn, args.get("expect_turn"))
    return {
        "session": args["session"],
        "turn": report.turn,
        "speaker": report.speaker,
        "summary": render_turn(report, session.verifier.state, session.header["agents"]),
    }


def _verify(folder: SessionFolder, args: Mapping[str, Any]) -> dict[str, Any]:
    session = folder.session(args["session"])
    verifier = _state(session, args.get("at"))
    if args["record"] is not None:  # null: a candidate with no associated record
        _known(verifier, args["record"])
    grounding = verifier.verify(args["record"])
    return {
        "session": args["session"],
        "at": verifier.state.turn,
        "record": args["record"],
        "grounded": grounding.grounded,
        "closure": sorted(grounding.closure),
        "witness": grounding.witness,
        "path": list(grounding.path),
        "message": render_grounding(grounding, verifier.state),
    }


def _affected(folder: SessionFolder, args: Mapping[str, Any]) -> dict[str, Any]:
    session = folder.session(args["session"])
    verifier = _state(session, args.get("at"))
    record = args["record"]
    return {
        "session": args["session"],
        "at": verifier.state.turn,
        "record": record,
        "affected": sorted(verifier.affected(record)),
        "affected_star": sorted(verifier.affected_star(record)),
        "affected_star_active": sorted(verifier.affected_star_active(record)),
    }


def _state_at(folder: SessionFolder, args: Mapping[str, Any]) -> dict[str, Any]:
    session = folder.session(args["session"])
    verifier = _state(session, args.get("at"))
    return {
        "session": args["session"],
        "at": verifier.state.turn,
        "last_turn": session.turn,
        "state": state_json(verifier),
        "summary": render_state(verifier.state, session.header["agents"]),
    }


def _cause(report: TurnReport, record: str, change: object) -> Operation:
    """The operation of ``report``'s turn that made ``change`` to ``record``.

    A standing label and an attack on a record come only from the operation that
    targets it (Table 3's rows, :data:`~gcv.reference.operations.ORDER`); a new record
    from the operation that registers it, or the Support or Undermine whose
    evidence it is.
    """
    for op in report.applied:
        row = rule_of(op).row
        match change:
            case StandingChanged(after=after) if target_of(op) == record:
                if row.target_becomes is after:
                    return op
            case AttackAdded() if target_of(op) == record and row.attacks_target:
                return op
            case RecordAdded() if _registers(op, record):
                return op
    raise AssertionError(f"no operation of turn {report.turn} made {change} to {record}")


def _registers(op: Operation, record: str) -> bool:
    """Whether ``op`` registers ``record``: as its own, or as its evidence (Table 3)."""
    match op:
        case Observe() | Hypothesize() | Question():
            return op.id == record
        case Support() | Undermine():
            return op.evidence == record
    return False


def _history(session: StoredSession, record: str, until: int) -> list[dict[str, Any]]:
    """Every change the accepted turns up to ``until`` made to ``record``, with its cause."""
    replayed = initial_verifier(session.header)
    events = []
    for entry in session.log():
        if entry.rejected is not None or entry.number > until:
            continue
        report = replayed.apply_turn(entry.turn)
        for change in report.changes:
            match change:
                case RecordAdded(added) if added.id == record:
                    said = f"registered as {added.kind.value}"
                case StandingChanged(changed, before, after) if changed == record:
                    said = f"standing {before.value} -> {after.value}"
                case AttackAdded(attacker, target) if target == record:
                    said = f"attacked by {attacker}"
                case _:
                    continue
            events.append(
                {
                    "turn": report.turn,
                    "speaker": report.speaker,
                    "change": said,
                    "operation": operation_to_json(_cause(report, record, change)),
                }
            )
    return events


def _explain(folder: SessionFolder, args: Mapping[str, Any]) -> dict[str, Any]:
    session = folder.session(args["session"])
    verifier = _state(session, args.get("at"))
    record = args["record"]
    _known(verifier, record)
    data = verifier.state.records[record]
    grounding = verifier.verify(record)
    witness = grounding.witness
    turn = verifier.state.turn
    return {
        "session": args["session"],
        "at": turn,
        "record": record,
        "kind": data.kind.value,
        "claim": data.claim,
        "speaker": data.speaker,
        "turn": data.turn,
        "standing": verifier.standing(record).value,
        "history": _history(session, record, turn),
        "grounded": grounding.grounded,
        "witness": witness,
        "path": list(grounding.path),
        "witness_history": (
            _history(session, witness, turn) if witness not in (None, record) else []
        ),
        "message": render_grounding(grounding, verifier.state),
    }


# -- the table ------------------------------------------------------------------------

# Every precondition an operation can fail; a world and an entity are named only by queries.
_ENGINE_REJECTIONS = tuple(
    sorted(
        {
            *(set(_family(PreconditionViolation)) - {UnknownWorld.code, UnknownEntity.code}),
            MalformedTrace.code,
            MalformedOperation.code,
            MalformedFormula.code,
            OutOfSequence.code,
            StoreBusy.code,
        }
    )
)


def _tool(
    name: str,
    description: str,
    inputs: Mapping[str, Any],
    required: Sequence[str],
    outputs: Mapping[str, Any],
    errors: Sequence[str],
    answer: Callable[[SessionFolder, Mapping[str, Any]], dict[str, Any]],
    definitions: Sequence[str] = ("identifier",),
    constraints: Mapping[str, Any] | None = None,
) -> Tool:
    codes = tuple(sorted({*_COMMON, *errors}))
    input_schema = _object(
        {"session": _SESSION, **inputs},
        ["session", *required],
        **(constraints or {}),
        **{"$defs": _trace_definitions(*definitions)},
    )
    output_schema = _object(
        {"session": _SESSION, **outputs}, ["session", *outputs], additionalProperties=True
    )
    return Tool(
        name,
        f"{description}\nErrors (the error object's code): {', '.join(codes)}.",
        input_schema,
        output_schema,
        codes,
        answer,
    )


TOOLS: tuple[Tool, ...] = (
    _tool(
        "open_session",
        "Open the session of this name, or create it: with `agents` (identifier -> display "
        "name, and optionally `atoms`, Prop_0) or with a built-in `scenario`'s agents, atoms "
        "and M_0. Returns how many turns it has accepted.",
        {
            "agents": {
                "type": "object",
                "minProperties": 1,
                "propertyNames": {"$ref": "#/$defs/identifier"},
                "additionalProperties": {"type": "string"},
            },
            "atoms": {"type": "array", "items": {"$ref": "#/$defs/identifier"}},
            "scenario": {"type": "string", "description": "A built-in scenario's name."},
        },
        [],
        {"created": {"type": "boolean"}, "turn": {"type": "integer"}, "agents": {"type": "object"}},
        [MalformedTrace.code],
        _open_session,
        constraints={
            "dependentRequired": {"atoms": ["agents"]},
            "not": {"required": ["agents", "scenario"]},
        },
    ),
    _tool(
        "append_turn",
        "Apply one turn: the speaker's operations (gcv-trace/1 operation objects), checked "
        "and applied all or none, in the fixed order (Algorithm 1). Returns the Renderer's "
        "summary of what changed (Section 3). A rejected turn changes nothing in D_t; it is "
        "logged, as in a trace. `expect_turn`: the number the turn must take, so a retried "
        "call cannot apply a turn twice.",
        {
            "speaker": {"$ref": "#/$defs/identifier"},
            "text": {"type": "string", "description": "The utterance."},
            "operations": {"type": "array", "items": {"$ref": "#/$defs/operation"}},
            "expect_turn": {"type": "integer", "minimum": 1},
        },
        ["speaker", "operations"],
        {"turn": {"type": "integer"}, "speaker": {"type": "string"}, "summary": _STRINGS},
        _ENGINE_REJECTIONS,
        _append_turn,
        definitions=("identifier", "operation"),
    ),
    _tool(
        "verify",
        "Verify a candidate continuation by its associated record (Lemma 2.1): grounded iff "
        "everything it transitively rests on is in good standing. On acceptance `closure` is "
        "Dep*(record); on rejection `witness` is the first record out of good standing and "
        "`path` the Dep path to it. `message` is the Renderer's flag. A candidate with no "
        "associated record (`record`: null) is ungrounded.",
        {"record": {"anyOf": [_RECORD, {"type": "null"}]}, "at": _AT},
        ["record"],
        {
            "at": {"type": "integer"},
            "record": _NULLABLE_ID,
            "grounded": {"type": "boolean"},
            "closure": _STRINGS,
            "witness": _NULLABLE_ID,
            "path": _STRINGS,
            "message": {"type": "string"},
        },
        [UnknownRecord.code],
        _verify,
    ),
    _tool(
        "affected",
        "What a withdrawn premise touches (Definition 2.3): `affected`, the records with a "
        "direct Dep link to it; `affected_star`, those with a Dep path to it; "
        "`affected_star_active`, those of them still in good standing (in S_t).",
        {"record": _RECORD, "at": _AT},
        ["record"],
        {
            **_ON_RECORD,
            "affected": _STRINGS,
            "affected_star": _STRINGS,
            "affected_star_active": _STRINGS,
        },
        [UnknownRecord.code],
        _affected,
    ),
    _tool(
        "state_at",
        "D_N, the map after the first N accepted turns (default: the last): every record "
        "with its standing, Dep, attacks, commitments, awareness and the open abductive "
        "problems, as JSON (`state`) and as the Renderer writes it (`summary`).",
        {"at": _AT},
        [],
        {
            "at": {"type": "integer"},
            "last_turn": {"type": "integer"},
            "state": {"type": "object"},
            "summary": _STRINGS,
        },
        [],
        _state_at,
    ),
    _tool(
        "explain",
        "Why a record stands as it does: its kind, claim, speaker and turn, its standing, and "
        "each change the turns made to it with the operation, turn and speaker that made it "
        "(the attack, the revision); when it is not grounded, the same for the witness its "
        "Verify walk reached (the premise that was withdrawn).",
        {"record": _RECORD, "at": _AT},
        ["record"],
        {
            **_ON_RECORD,
            "kind": {"type": "string"},
            "claim": {"type": "string"},
            "speaker": {"type": "string"},
            "turn": {"type": "integer"},
            "standing": {"type": "string"},
            "history": {"type": "array", "items": _EVENT},
            "grounded": {"type": "boolean"},
            "witness": _NULLABLE_ID,
            "path": _STRINGS,
            "witness_history": {"type": "array", "items": _EVENT},
            "message": {"type": "string"},
        },
        [UnknownRecord.code],
        _explain,
    ),
)


_BY_NAME = {tool.name: tool for tool in TOOLS}


def tool_named(name: str) -> Tool:
    """The tool called ``name``.

    Raises
    ------
    MalformedInput
        No tool has that name (field ``name``).
    """
    found = _BY_NAME.get(name)
    if found is not None:
        return found
    known = ", ".join(t.name for t in TOOLS)
    raise MalformedInput(f"no tool {name[:40]!r}; the tools are {known}", field="name")


@icontract.ensure(
    lambda name, result: set(result) >= set(tool_named(name).output_schema["required"]),
    "the answer has every member the output schema requires",
)
def call_tool(folder: SessionFolder, name: str, arguments: object) -> dict[str, Any]:
    """Answer a call of tool ``name`` with ``arguments``, or raise the typed error.

    Raises
    ------
    GcvError
        One of the tool's :attr:`Tool.errors` codes; the session is as before the
        call (a turn the engine rejects is logged as rejected, D_t unchanged).
    """
    tool = tool_named(name)
    try:
        return tool.answer(folder, check_arguments(tool, arguments))
    except StoreError as error:
        if error.field == "db":  # the store is named by its session here
            error.field = "session"
        raise
