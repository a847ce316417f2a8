"""Hostile inputs for the fuzz harness: mutations of the shipped traces, requests and replies.

Each strategy starts from a well-formed document (a scenario trace, a vector's
requests, an operation reply) and replaces, deletes or deepens a few of its nodes
with values chosen to break a parser: wrong types, lone surrogates, identifiers
ending in a newline, deep nesting, huge numbers.  Mutating real inputs reaches the
code behind the schema far more often than random JSON does.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

from hypothesis import strategies as st

from gcv.conformance.vectors import load_suite

TRICKY_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "a",
        "o1",
        "h1",
        "p",
        "q",
        "a\n",
        "\ud800",
        "x\udfffy",
        "_p",
        "true",
        "~",
        "p &",
        "K[a] p",
        "B[a given p] q",
        "é",
        "\x00",
        "x" * 300,
        "-1",
        "observe",
        "standing",
        "core",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TRICKY_STRINGS
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY_STRINGS, inner, max_size=4),
    max_leaves=8,
)


def _deep(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value, copy.deepcopy(value)] if depth - _ < 3 else [value]
    return value


REPLACEMENTS = JSON_VALUES | st.integers(20, 400).map(_deep)


def _slots(node: Any, out: list[tuple[Any, Any]]) -> None:
    """Every (container, key) of ``node``, depth first."""
    pending = [node]
    while pending:
        current = pending.pop()
        keys = current.keys() if isinstance(current, dict) else range(len(current))
        for key in list(keys):
            out.append((current, key))
            if isinstance(current[key], dict | list):
                pending.append(current[key])


@st.composite
def mutated(draw: st.DrawFn, document: Any, most: int = 3) -> Any:
    """``document`` with 1 to ``most`` nodes replaced, deleted or duplicated."""
    result = copy.deepcopy(document)
    for _ in range(draw(st.integers(1, most))):
        slots: list[tuple[Any, Any]] = []
        _slots(result, slots)
        if not slots:
            return draw(REPLACEMENTS)
        container, key = slots[draw(st.integers(0, len(slots) - 1))]
        action = draw(st.sampled_from(["replace", "replace", "delete", "duplicate"]))
        if action == "replace":
            container[key] = draw(REPLACEMENTS)
        elif action == "delete":
            del container[key]
        elif isinstance(container, list):
            container.insert(key, copy.deepcopy(container[key]))
        else:
            container[draw(TRICKY_STRINGS)] = copy.deepcopy(container[key])
    return result


@cache
def scenario_documents() -> tuple[Any, ...]:
    folder = resources.files("gcv.spec").joinpath("scenarios")
    return tuple(
        json.loads(p.read_text(encoding="utf-8"))
        for p in sorted(folder.iterdir(), key=lambda p: p.name)
        if p.name.endswith(".json")
    )


@cache
def vector_requests() -> tuple[tuple[dict[str, Any], ...], ...]:
    """Each case's requests, in order, from start to its last step (ids numbered)."""
    conversations = []
    for case in load_suite():
        requests = [case.start(), *(dict(step.request) for step in case.steps)]
        conversations.append(tuple({**r, "id": n} for n, r in enumerate(requests)))
    return tuple(conversations)


@cache
def vector_file() -> Any:
    path = resources.files("gcv.spec").joinpath("vectors", "core", "queries.json")
    return json.loads(path.read_text(encoding="utf-8"))


def traces() -> st.SearchStrategy[str]:
    """Mutated scenario traces, as JSON text."""
    return st.sampled_from(scenario_documents()).flatmap(mutated).map(json.dumps)


def conversations() -> st.SearchStrategy[list[Any]]:
    """A vector's requests with a few of them mutated."""
    return st.sampled_from(vector_requests()).flatmap(lambda rs: mutated(list(rs)))


def replies() -> st.SearchStrategy[str]:
    """Mutated interpreter replies built from the scenarios' operations."""
    operations = [
        op for doc in scenario_documents() for turn in doc["turns"] for op in turn["operations"]
    ]
    return (
        st.lists(st.sampled_from(operations), min_size=1, max_size=4)
        .flatmap(lambda ops: mutated({"operations": ops}))
        .map(json.dumps)
    )
