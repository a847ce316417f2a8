"""The conformance protocol ``gcv-conform/1``: its version, features and message schemas.

The messages are JSON lines; their schemas are ``spec/gcv/spec/protocol/request.schema.json``
and ``spec/gcv/spec/protocol/response.schema.json``, which reuse the trace format's
operation encoding (``spec/gcv/spec/trace.schema.json``).  This module loads them into
one registry, names the features an implementation can declare, and says which
features a request needs.  ``spec/gcv/spec/protocol/protocol.md`` is the prose.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import icontract

from gcv import jsoninput
from gcv.jsoninput import accepts

if TYPE_CHECKING:
    from referencing import Registry

__all__ = [
    "CASE_FEATURES",
    "FEATURES",
    "PROTOCOL",
    "QUERIES",
    "RECORD_QUERIES",
    "RECORD_SET_QUERIES",
    "RESERVED_FEATURES",
    "SET_QUERIES",
    "feature_of",
    "request_problem",
    "response_problem",
    "schema",
    "schema_problem",
]

PROTOCOL = "gcv-conform/1"

QUERIES: tuple[str, ...] = (
    "verify",
    "affected",
    "affected_star",
    "affected_star_active",
    "standing",
    "dependencies",
    "attackers",
    "dissenters",
    "commitments",
    "aware",
    "state",
    "holds",
    "knows",
    "believes",
    "worlds",
    "ordered",
    "unexplained",
)
"""Every query of ``gcv-conform/1``, in the order protocol.md lists them."""

RECORD_QUERIES: tuple[str, ...] = (
    "standing",
    "verify",
    "affected",
    "affected_star",
    "affected_star_active",
    "dependencies",
    "attackers",
    "dissenters",
)
"""The queries about one record of D_t (Definitions 2.1-2.3), in the order a survey of
every record asks them."""

RECORD_SET_QUERIES = frozenset(RECORD_QUERIES) - {"standing", "verify"}
"""Set queries that name a record (clause ``query.record-registered``)."""
SET_QUERIES = RECORD_SET_QUERIES | {"commitments", "unexplained"}
"""Queries whose answer is a set of identifiers, compared without order."""

FEATURES: Mapping[str, str] = {
    "core": "start, apply with the eight operations of Table 3 (atomic turns, the fixed order, "
    "the normative error codes)",
    "epistemic": "the epistemic layer M_t: a declared M_0 at start, formula fields on "
    "operations and their DEL effects, the epistemic error codes",
    **{f"query:{q}": f"the {q} query" for q in QUERIES},
}
"""The features a vector of the suite can require, with what each means."""

CASE_FEATURES = frozenset({"core", "epistemic"})
"""Features a whole case needs (a case is skipped without them); the others are per query."""

RESERVED_FEATURES: Mapping[str, str] = {}
"""Names kept for later features; none at present (the epistemic ones are in use since suite
1.1.0)."""

_SCHEMAS = {
    "urn:gcv:trace:1": ("gcv.spec", "trace.schema.json"),
    "urn:gcv:conform:1:request": ("gcv.spec", "protocol/request.schema.json"),
    "urn:gcv:conform:1:response": ("gcv.spec", "protocol/response.schema.json"),
    "urn:gcv:vectors:1": ("gcv.spec", "vectors/vectors.schema.json"),
}


@cache
def schema(uri: str) -> Mapping[str, Any]:
    """The schema whose ``$id`` is ``uri`` (one of the four the protocol uses)."""
    package, path = _SCHEMAS[uri]
    text = resources.files(package).joinpath(path).read_text(encoding="utf-8")
    loaded: Mapping[str, Any] = json.loads(text)
    return loaded


@cache
def _registry() -> Registry[Any]:
    from referencing import Registry, Resource  # with jsonschema: for a refusal only

    resources_ = [(uri, Resource.from_contents(schema(uri))) for uri in _SCHEMAS]
    return Registry().with_resources(resources_)


@cache
def _validator(uri: str, pointer: str) -> Any:
    target = schema(uri) if not pointer else {"$ref": f"{uri}#{pointer}"}
    return jsoninput.SchemaValidator(target, registry=_registry())


def _resolve(uri: str, pointer: str) -> Any:
    node: Any = schema(uri)
    for part in pointer.strip("/").split("/") if pointer else ():
        node = node[part]
    return node


def _inline(node: Any, base: str) -> Any:
    """``node`` with every ``$ref`` replaced by what it names (the schemas have no cycles)."""
    if isinstance(node, list):
        return [_inline(item, base) for item in node]
    if not isinstance(node, dict):
        return node
    rest = {k: _inline(v, base) for k, v in node.items() if k not in ("$ref", "$id", "$defs")}
    if "$ref" not in node:
        return rest
    uri, _, pointer = node["$ref"].partition("#")
    target = _inline(_resolve(uri or base, pointer), uri or base)
    return {"allOf": [target], **rest} if rest else target


@cache
def _accepts(uri: str, pointer: str) -> Callable[[object], bool]:
    # The same schema with references inlined: no registry look-ups, and self-contained
    # for the native check (gcv.jsoninput.accepts).
    return accepts(_inline(_resolve(uri, pointer), uri))


_REQUEST = "urn:gcv:conform:1:request"
_QUERY_DEFS = {
    "verify": "query-verify",
    "commitments": "query-agent",
    "aware": "query-aware",
    "state": "query-state",
    "holds": "query-holds",
    "knows": "query-attitude",
    "believes": "query-attitude",
    "worlds": "query-worlds",
    "ordered": "query-ordered",
    "unexplained": "query-unexplained",
}


def _is_request_by_dispatch(request: object) -> bool:
    """Whether ``request`` conforms, checked the way the schema's if/then branches dispatch
    (on cmd, then on query or on each operation's op), each branch with references inlined.

    ``True`` only when the request schema accepts; ``False`` means "ask the schema".
    """
    # The shape first: a list or an object as cmd must not reach a set look-up.
    if not isinstance(request, dict) or not isinstance(request.get("cmd"), str):
        return False
    if request["cmd"] not in _COMMANDS:
        return False
    request_id = request.get("id")
    if not isinstance(request_id, int) or isinstance(request_id, bool) or request_id < 0:
        return False
    cmd = request["cmd"]
    if cmd == "query":
        query = request.get("query")
        if query not in QUERIES:
            return False
        definition = _QUERY_DEFS.get(query, "query-record")
        return _accepts(_REQUEST, f"/$defs/{definition}")(request)
    if cmd != "apply":
        return _accepts(_REQUEST, f"/$defs/{cmd}")(request)
    operations = request.get("operations")
    envelope = {k: v for k, v in request.items() if k != "operations"} | {"operations": []}
    if not isinstance(operations, list):
        return False
    if not _accepts(_REQUEST, "/$defs/apply")(envelope):
        return False
    for op in operations:
        name = op.get("op") if isinstance(op, dict) else None
        if not isinstance(name, str) or name not in _OPERATIONS:
            return False
        if not _accepts("urn:gcv:trace:1", f"/$defs/{name}")(op):
            return False
    return True


_COMMANDS = frozenset(schema(_REQUEST)["properties"]["cmd"]["enum"])
_OPERATIONS = frozenset(schema("urn:gcv:trace:1")["$defs"]["operation"]["properties"]["op"]["enum"])


def _location(path: Any, prefix: str) -> str:
    where = prefix
    for step in path:
        where += f"[{step}]" if isinstance(step, int) else f".{step}"
    return where.lstrip(".") or "(top level)"


def schema_problem(uri: str, pointer: str, document: object, prefix: str = "") -> str | None:
    """The most relevant schema violation of ``document``, or ``None`` when it conforms."""
    if _accepts(uri, pointer)(document):  # the common case
        return None
    import jsonschema  # only for a refusal: what is valid never loads it

    error = jsonschema.exceptions.best_match(_validator(uri, pointer).iter_errors(document))
    if error is None:
        return None
    return f"{_location(error.absolute_path, prefix)}: {error.message}"


@icontract.ensure(lambda result: result is None or result != "", "a problem is named")
def request_problem(request: object) -> str | None:
    """What makes ``request`` not a ``gcv-conform/1`` request, or ``None``.

    >>> request_problem({"id": 1, "cmd": "query", "query": "standing", "record": "o1"}) is None
    True
    >>> request_problem({"id": 1, "cmd": "query", "query": "standing"})
    "(top level): 'record' is a required property"
    """
    if _is_request_by_dispatch(request):
        return None
    return schema_problem(_REQUEST, "", request)


def _result_kind(request: Mapping[str, Any]) -> str:
    return str(request["query"]) if request["cmd"] == "query" else str(request["cmd"])


@icontract.ensure(lambda result: result is None or result != "", "a problem is named")
def response_problem(request: Mapping[str, Any], response: object) -> str | None:
    """What makes ``response`` not a valid answer to ``request``, or ``None``.

    The envelope must match the response schema and echo the request's id; a
    successful answer's ``result`` must match the definition for the request's
    kind, and handshakes and queries must carry one.

    >>> request = {"id": 7, "cmd": "query", "query": "aware", "agent": "a", "atom": "p"}
    >>> response_problem(request, {"id": 7, "ok": True, "result": False}) is None
    True
    >>> response_problem(request, {"id": 8, "ok": True, "result": False})
    'the response echoes id 8, not the request id 7'
    >>> response_problem(request, {"id": 7, "ok": True, "result": "no"})
    "result: 'no' is not of type 'boolean'"
    """
    found = schema_problem("urn:gcv:conform:1:response", "", response)
    if found is not None:
        return found
    assert isinstance(response, Mapping), "the schema requires an object"
    if response["id"] != request.get("id"):
        return f"the response echoes id {response['id']}, not the request id {request.get('id')}"
    if not response["ok"]:
        return None
    kind = _result_kind(request)
    if "result" not in response:
        if request["cmd"] in ("handshake", "query"):
            return f"a successful {kind} response carries a result"
        return None
    pointer = f"/$defs/result-{kind}"
    return schema_problem("urn:gcv:conform:1:response", pointer, response["result"], "result")


@icontract.ensure(lambda result: result in FEATURES, "a feature of gcv-conform/1")
def feature_of(request: Mapping[str, Any]) -> str:
    """The feature a step's request needs: ``core`` for a turn, ``query:NAME`` for a query.

    >>> feature_of({"cmd": "query", "query": "verify", "record": None})
    'query:verify'
    """
    if request["cmd"] == "query":
        return f"query:{request['query']}"
    return "core"
