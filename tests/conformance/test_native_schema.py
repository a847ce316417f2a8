"""The native schema check (jsonschema-rs, :func:`gcv.jsoninput.accepts`) says what the
reference validator says, on the documents the conformance kit checks: the shipped vector
files, their cases, the requests of the protocol, and mutations of each."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema_rs
from hypothesis import given
from hypothesis import strategies as st

from gcv.conformance import protocol
from gcv.conformance.vectors import default_directory
from gcv.jsoninput import SchemaValidator
from tests.json_mutations import mutated, schema_words

VECTORS = "urn:gcv:vectors:1"
REQUEST = "urn:gcv:conform:1:request"


@cache
def _files() -> list[Any]:
    root = default_directory()
    return [
        json.loads(path.read_text("utf-8"))
        for folder in root.iterdir()
        if folder.is_dir()
        for path in folder.iterdir()
        if path.name.endswith(".json")
    ]


@cache
def _cases() -> list[Any]:
    return [case for document in _files() for case in document["cases"]]


@cache
def _requests() -> list[Any]:
    """Requests of the cases' steps, numbered as the runner numbers them."""
    found = []
    for case in _cases()[::7]:
        for step in case.get("steps", []):
            request = step.get("request")
            if isinstance(request, dict):
                found.append({"id": len(found), **request})
    return found


@cache
def _pair(uri: str, pointer: str) -> tuple[Any, Any]:
    """The reference validator of the schema at ``uri#pointer`` and its native twin."""
    inlined = protocol._inline(protocol._resolve(uri, pointer), uri)
    return SchemaValidator(inlined), jsonschema_rs.Draft202012Validator(inlined)


def _agree(uri: str, pointer: str, document: Any) -> None:
    reference, native = _pair(uri, pointer)
    assert native.is_valid(document) == reference.is_valid(document), (uri, pointer, document)


def test_the_shipped_vector_files_and_requests_are_judged_alike() -> None:
    assert len(_files()) > 10 and _requests()
    for document in _files():
        _agree(VECTORS, "", document)
    for request in _requests():
        assert SchemaValidator(protocol.schema(REQUEST), registry=protocol._registry()).is_valid(
            request
        ), request
        _agree(REQUEST, "", request)


@given(st.data())
def test_mutated_cases_are_judged_alike(data: st.DataObject) -> None:
    words = schema_words(protocol.schema(VECTORS))
    case = mutated(data, data.draw(st.sampled_from(_cases())), words)
    _agree(VECTORS, "/$defs/case", case)


@given(st.data())
def test_mutated_requests_are_judged_alike(data: st.DataObject) -> None:
    words = schema_words(protocol.schema(REQUEST), protocol.schema("urn:gcv:trace:1"))
    request = mutated(data, data.draw(st.sampled_from(_requests())), words)
    _agree(REQUEST, "", request)
