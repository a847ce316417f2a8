"""Untrusted replies in, typed operations or typed problems out.

An interpreter's reply must be the JSON object ``{"operations": [...]}``, each
operation in the encoding of ``spec/gcv/spec/trace.schema.json`` (``$defs/operation``),
the same encoding a trace uses; :func:`gcv.trace.operation_from_json`
builds the typed values.  :func:`read_reply` checks the text and the schema;
:func:`check_turn` asks the engine whether the operations would apply, on a
copy, so that nothing reaches the real state unless the whole turn is sound.
Every defect becomes a :class:`~gcv.reference.errors.GcvError` with its stable code:

========================  ==========================================================
``malformed-reply``       not JSON, not ``{"operations": [...]}``, off the schema
``unknown-operation``     an ``op`` that is not one of the eight operations
``malformed-operation``   a field the operation rejects (a consensual Resolve
                          with premises, say)
``unknown-record``, ...   a precondition of Table 3 fails (the engine's own codes)
========================  ==========================================================
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import icontract
import jsonschema

from gcv.errors import MalformedReply, UnknownOperation
from gcv.jsoninput import SchemaValidator, parse_json
from gcv.reference.errors import GcvError, MalformedOperation
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import ORDER, Operation
from gcv.reference.verifier import Turn, Verifier
from gcv.trace import operation_from_json, trace_schema

__all__ = [
    "MAX_OPERATIONS",
    "MAX_REPLY_CHARS",
    "OPERATION_NAMES",
    "ReadReply",
    "check_turn",
    "operation_branches",
    "operation_variants",
    "read_reply",
    "response_schema",
]

OPERATION_NAMES: tuple[str, ...] = tuple(rule.name for rule in ORDER)
"""The eight operation labels, in application order."""

MAX_REPLY_CHARS = 1_000_000
"""A longer reply is refused before it is parsed."""

MAX_OPERATIONS = 100
"""A reply naming more operations for one utterance is refused."""


def _refs(node: object) -> Iterator[str]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                yield value.removeprefix("#/$defs/")
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


@cache
def operation_branches() -> Mapping[str, Mapping[str, Any]]:
    """Operation label -> the schema its objects must meet (the trace schema's ``then``).

    Read from the ``if op = X then ...`` branches of ``$defs/operation``, so the
    trace schema stays the one place that says what an operation looks like.

    >>> operation_branches()["revise"]
    {'$ref': '#/$defs/revise'}
    """
    branches = trace_schema()["$defs"]["operation"]["allOf"]
    found = {b["if"]["properties"]["op"]["const"]: b["then"] for b in branches}
    if set(found) != set(OPERATION_NAMES):
        raise RuntimeError(f"the trace schema's operations are {sorted(found)}")
    return found


def _is_forbidding(part: Mapping[str, Any]) -> bool:
    return set(part) == {"not"} and set(part["not"]) == {"required"}


def _flat_variant(
    name: str, branch: Mapping[str, Any], defs: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The branch as one closed object schema with ``op`` constant, if it has that shape.

    The shapes: ``{"$ref": D}``, or ``{"allOf": [{"$ref": D}, {"not": {"required": [f]}},
    ...]}``, with D a closed object (``additionalProperties: false``); forbidding a field
    of a closed object is dropping it from the object's properties.  Grammar-constrained
    decoders handle flat objects best.
    """
    parts = branch["allOf"] if set(branch) == {"allOf"} else [branch]
    refs = [p["$ref"] for p in parts if set(p) == {"$ref"}]
    forbidding = [p for p in parts if _is_forbidding(p)]
    if len(refs) != 1 or len(refs) + len(forbidding) != len(parts):
        return None
    variant = copy.deepcopy(dict(defs[refs[0].removeprefix("#/$defs/")]))
    forbidden = {f for p in forbidding for f in p["not"]["required"]}
    if variant.get("additionalProperties") is not False or forbidden & set(
        variant.get("required", ())
    ):
        return None
    properties = {k: v for k, v in variant["properties"].items() if k not in forbidden}
    variant["properties"] = {**properties, "op": {"const": name}}
    return variant


@cache
def operation_variants() -> Mapping[str, Mapping[str, Any]]:
    """Operation label -> a schema met by exactly that operation's valid objects.

    Flat (one closed object, :func:`_flat_variant`) where the trace schema's branch has
    that shape, else the branch conjoined with ``op`` constant; either way an object
    meets the variant of its ``op`` iff it meets the trace schema's ``$defs/operation``.

    >>> operation_variants()["revise"]["properties"]["op"]
    {'const': 'revise'}
    """
    defs = trace_schema()["$defs"]
    variants: dict[str, Mapping[str, Any]] = {}
    for name in OPERATION_NAMES:
        branch = operation_branches()[name]
        flat = _flat_variant(name, branch, defs)
        pinned = {"properties": {"op": {"const": name}}, "required": ["op"]}
        variants[name] = flat if flat is not None else {"allOf": [dict(branch), pinned]}
    return variants


def _closure_of_refs(defs: Mapping[str, Any], roots: list[object]) -> dict[str, Any]:
    needed: dict[str, Any] = {}
    pending = [name for root in roots for name in _refs(root)]
    while pending:
        name = pending.pop()
        if name not in needed:
            needed[name] = defs[name]
            pending.extend(_refs(defs[name]))
    return dict(sorted(needed.items()))


def _op_of(variant: Mapping[str, Any]) -> object:
    pinned = variant if "properties" in variant else variant["allOf"][-1]
    return pinned["properties"]["op"]["const"]


def _names_every_operation(schema: Mapping[str, Any]) -> bool:
    variants = schema["properties"]["operations"]["items"]["anyOf"]
    return [_op_of(v) for v in variants] == list(OPERATION_NAMES)


@icontract.ensure(
    lambda result: _names_every_operation(result), "one variant per operation, in order"
)
def response_schema() -> dict[str, Any]:
    """The JSON Schema of a reply, sent to the endpoint as its structured-output format.

    ``{"operations": [...]}``, each item meeting one of :func:`operation_variants`:
    the trace schema's ``if``/``then`` branches rewritten as an ``anyOf`` over objects
    with ``op`` constant, which grammar-constrained decoders accept.  The reply is
    still validated against the trace schema itself (:func:`read_reply`).
    """
    variants: list[object] = [copy.deepcopy(dict(v)) for v in operation_variants().values()]
    return {
        "type": "object",
        "required": ["operations"],
        "additionalProperties": False,
        "properties": {
            "operations": {
                "type": "array",
                "maxItems": MAX_OPERATIONS,
                "items": {"anyOf": variants},
            }
        },
        "$defs": _closure_of_refs(trace_schema()["$defs"], variants),
    }


@cache
def _operation_validator() -> Any:
    schema = {"$defs": trace_schema()["$defs"], "$ref": "#/$defs/operation"}
    return SchemaValidator(schema)


@dataclass(frozen=True, slots=True)
class ReadReply:
    """A reply read: the labels it names, and its operations or what was wrong.

    ``labels`` are the ``op`` strings the reply names (known or not), so that
    classification can be scored even when extraction failed; ``operations`` is
    ``None`` unless every operation is well formed, and then ``problems`` is empty.
    """

    labels: frozenset[str]
    operations: tuple[Operation, ...] | None
    problems: tuple[GcvError, ...]


def _unwrap_fence(text: str) -> str:
    # Models without structured output often wrap JSON in a Markdown fence.
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and "\n" in stripped:
        return stripped.split("\n", 1)[1].rsplit("```", 1)[0]
    return stripped


def _located(error: GcvError, index: int, op: object) -> GcvError:
    error.operation_index = index
    error.operation = op if isinstance(op, str) else None
    return error


def _check_operation(index: int, item: object) -> Operation | GcvError:
    where = f"operations[{index}]"
    if not isinstance(item, dict):
        return MalformedReply(f"{where} is not a JSON object", field=where)
    op = item.get("op")
    if not isinstance(op, str):
        return _located(
            MalformedReply(f"{where} has no operation name", field=f"{where}.op"), index, op
        )
    if op not in OPERATION_NAMES:
        detail = f"{where}: unknown operation {op!r}; expected one of {list(OPERATION_NAMES)}"
        return _located(UnknownOperation(detail, field=f"{where}.op"), index, op)
    error = jsonschema.exceptions.best_match(_operation_validator().iter_errors(item))
    if error is not None:
        path = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in error.absolute_path)
        return _located(MalformedReply(f"{where}: {error.message}", field=where + path), index, op)
    try:
        return operation_from_json(item)
    except GcvError as caught:
        field = f"{where}.{caught.field}" if caught.field else where
        return _located(MalformedOperation(f"{where}: {caught.detail}", field=field), index, op)


def _parse(text: str) -> object | GcvError:
    if len(text) > MAX_REPLY_CHARS:
        return MalformedReply(f"the reply has {len(text)} characters; at most {MAX_REPLY_CHARS}")
    body = _unwrap_fence(text)
    if not body:
        return MalformedReply("the reply is empty")
    try:
        return parse_json(body, MAX_REPLY_CHARS, MalformedReply, "the reply")
    except MalformedReply as error:
        return error


def _is_well_read(result: ReadReply) -> bool:
    if result.operations is None:
        return bool(result.problems)
    names = {op.name for op in result.operations}
    return not result.problems and names == result.labels


@icontract.ensure(
    lambda result: _is_well_read(result),
    "operations are returned exactly when nothing was wrong, and then carry the labels",
)
def read_reply(text: str) -> ReadReply:
    """Read an interpreter's reply: parse it and check it against the operation schema.

    Parameters
    ----------
    text:
        The reply, untrusted: ``{"operations": [...]}`` in the trace encoding,
        possibly wrapped in a Markdown code fence.

    Returns
    -------
    ReadReply
        The labels named, and either every operation (typed) or every problem
        found, one per defective operation, each a typed error with its code.

    Examples
    --------
    >>> from gcv.reference.operations import Revise
    >>> read = read_reply('{"operations": [{"op": "revise", "target": "h2"}]}')
    >>> read.operations == (Revise("h2"),), read.labels
    (True, frozenset({'revise'}))
    >>> bad = read_reply('{"operations": [{"op": "conclude"}, {"op": "revise"}]}')
    >>> sorted(bad.labels), [(e.code, e.field) for e in bad.problems]
    (['conclude', 'revise'], [('unknown-operation', 'operations[0].op'), \
('malformed-reply', 'operations[1]')])
    >>> read_reply("Sure! Here you go").problems[0].code
    'malformed-reply'
    """
    document = _parse(text)
    if isinstance(document, GcvError):
        return ReadReply(frozenset(), None, (document,))
    if not isinstance(document, dict) or not isinstance(document.get("operations"), list):
        problem = MalformedReply('the reply is not an object {"operations": [...]}')
        return ReadReply(frozenset(), None, (problem,))
    items: list[object] = document["operations"]
    labels = frozenset(
        item["op"] for item in items if isinstance(item, dict) and isinstance(item.get("op"), str)
    )
    problems: list[GcvError] = []
    extra = sorted(set(document) - {"operations"})
    if extra:
        problems.append(MalformedReply(f"the reply has fields besides operations: {extra}"))
    if len(items) > MAX_OPERATIONS:
        detail = f"the reply names {len(items)} operations; at most {MAX_OPERATIONS}"
        problems.append(MalformedReply(detail, field="operations"))
        return ReadReply(labels, None, tuple(problems))
    operations: list[Operation] = []
    for index, item in enumerate(items):
        checked = _check_operation(index, item)
        if isinstance(checked, GcvError):
            problems.append(checked)
        else:
            operations.append(checked)
    if problems:
        return ReadReply(labels, None, tuple(problems))
    return ReadReply(labels, tuple(operations), ())


def _digest(verifier: Verifier) -> str:
    return verifier.state.digest()


@icontract.snapshot(lambda verifier: _digest(verifier), name="digest", enabled=icontract.SLOW)
@icontract.ensure(
    lambda verifier, OLD: _digest(verifier) == OLD.digest,
    "checking a turn never changes D_t",
    enabled=icontract.SLOW,
)
def check_turn(
    verifier: Verifier, speaker: AgentId, operations: Sequence[Operation]
) -> GcvError | None:
    """Would ``operations``, spoken by ``speaker``, apply to ``verifier``'s D_t as one turn?

    The turn is applied by :meth:`Verifier.apply_turn` itself, to a copy of the
    verifier, so the answer is the engine's own: ``None`` when the turn would
    commit, else the first violated precondition in application order (its
    ``operation_index`` is the position in ``operations``).  O(|D_t|) for the copy.

    >>> from gcv.reference.operations import Observe, Revise
    >>> v = Verifier(["a"])
    >>> check_turn(v, "a", [Observe("o1", "401s")]) is None
    True
    >>> check_turn(v, "a", [Revise("h9")]).code, len(v.state.records)
    ('unknown-record', 0)
    """
    scratch = copy.deepcopy(verifier)
    try:
        scratch.apply_turn(Turn(speaker, tuple(operations)))
    except GcvError as error:
        return error
    return None
