"""The conformance protocol ``gcv-conform/1``: its version, features and message schemas.

The messages are JSON lines; their schemas are ``spec/protocol/request.schema.json``
and ``spec/protocol/response.schema.json``, which reuse the trace format's
operation encoding (``spec/trace.schema.json``).  This module loads them into
one registry, names the features an implementation can declare, and says which
features a request needs.  ``spec/protocol/protocol.md`` is the prose.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

import icontract
import jsonschema
from referencing import Registry, Resource

__all__ = [
    "FEATURES",
    "PROTOCOL",
    "QUERIES",
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
)
"""Every query of ``gcv-conform/1``, in the order protocol.md lists them."""

SET_QUERIES = frozenset(
    {
        "affected",
        "affected_star",
        "affected_star_active",
        "dependencies",
        "attackers",
        "dissenters",
        "commitments",
    }
)
"""Queries whose answer is a set of identifiers, compared without order."""

FEATURES: Mapping[str, str] = {
    "core": "start, apply with the eight operations of Table 3 (atomic turns, the fixed order, "
    "the normative error codes)",
    **{f"query:{q}": f"the {q} query" for q in QUERIES},
}
"""The features a vector of suite 1 can require, with what each means."""

RESERVED_FEATURES: Mapping[str, str] = {
    "epistemic": "the epistemic layer M_t: formula fields on operations and their DEL effects",
    "query:knows": "K_i phi at the actual world",
    "query:believes": "B_i phi (and conditional belief) at the actual world",
    "query:worlds": "the world set and each agent's plausibility order",
    "query:unexplained": "the open abductive problems (Question's queue)",
}
"""Names kept for the epistemic layer's vectors; no vector of suite 1 uses them."""

_SCHEMAS = {
    "urn:gcv:trace:1": ("spec", "trace.schema.json"),
    "urn:gcv:conform:1:request": ("spec", "protocol/request.schema.json"),
    "urn:gcv:conform:1:response": ("spec", "protocol/response.schema.json"),
    "urn:gcv:vectors:1": ("spec", "vectors/vectors.schema.json"),
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
    resources_ = [(uri, Resource.from_contents(schema(uri))) for uri in _SCHEMAS]
    return Registry().with_resources(resources_)


@cache
def _validator(uri: str, pointer: str) -> Any:
    target = schema(uri) if not pointer else {"$ref": f"{uri}#{pointer}"}
    return jsonschema.Draft202012Validator(target, registry=_registry())


def _location(path: Any, prefix: str) -> str:
    where = prefix
    for step in path:
        where += f"[{step}]" if isinstance(step, int) else f".{step}"
    return where.lstrip(".") or "(top level)"


def schema_problem(uri: str, pointer: str, document: object, prefix: str = "") -> str | None:
    """The most relevant schema violation of ``document``, or ``None`` when it conforms."""
    validator = _validator(uri, pointer)
    if validator.is_valid(document):  # the common case, and much cheaper than collecting errors
        return None
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
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
    return schema_problem("urn:gcv:conform:1:request", "", request)


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


def feature_of(request: Mapping[str, Any]) -> str:
    """The feature a step's request needs: ``core`` for a turn, ``query:NAME`` for a query.

    >>> feature_of({"cmd": "query", "query": "verify", "record": None})
    'query:verify'
    """
    if request["cmd"] == "query":
        return f"query:{request['query']}"
    return "core"
