"""Mutations of JSON documents, for checks that two validators judge alike.

A mutation replaces a value inside a document, removes it, or gives an object a new member,
with values drawn from small JSON (:func:`json_values`) over a schema's own words, so that
many mutants sit near the schema's edges (a known property name with the wrong type, a
bound's neighbour)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from hypothesis import strategies as st

__all__ = ["json_values", "mutated", "places", "schema_words"]


def places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value inside ``value``, its own (the empty path) first."""
    yield path
    if isinstance(value, dict | list):
        for key, inner in value.items() if isinstance(value, dict) else enumerate(value):
            yield from places(inner, (*path, key))


def schema_words(*schemas: object) -> list[str]:
    """Every lower-case word quoted in the schemas' JSON text: names, enum values."""
    return sorted({w for s in schemas for w in re.findall(r'"([a-z_]+)"', json.dumps(s))})


def json_values(words: Sequence[str]) -> st.SearchStrategy[Any]:
    """Small JSON values: leaves near the usual bounds, lists and objects keyed by ``words``."""
    leaves = (
        st.none()
        | st.booleans()
        | st.integers(min_value=-2, max_value=3)
        | st.integers(min_value=-(10**20), max_value=10**20)
        | st.sampled_from(["x" * n for n in (63, 64, 65, 127, 128, 129)])  # the bounds' edges
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.sampled_from(list(words))
        | st.text(alphabet="ab01_-.:' \n\u0661\u00e9", max_size=9)
    )
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(list(words)), inner, max_size=3)
        ),
        max_leaves=6,
    )


def mutated(data: st.DataObject, document: Any, words: Sequence[str]) -> Any:
    """A copy of ``document`` with one value replaced, removed, or given a new member."""
    document = copy.deepcopy(document)
    path = data.draw(st.sampled_from(list(places(document))))
    value = data.draw(json_values(words))
    change = data.draw(st.sampled_from(["replace", "remove", "add"]))
    target = document
    for key in path:
        target = target[key]
    if change == "add" and isinstance(target, dict):
        target[data.draw(st.sampled_from(list(words)))] = value
        return document
    if not path:
        return value
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    if change == "remove":
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return document
