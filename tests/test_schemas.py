"""The schemas' operations are generated from the operation values (``gcv schemas``)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

import gcv.reference.operations
from gcv.reference.rules import form
from gcv.schemas import (
    REQUEST_SCHEMA,
    TRACE_SCHEMA,
    main,
    operation_definitions,
    render_request_schema,
    render_trace_schema,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("path", "render"),
    [(TRACE_SCHEMA, render_trace_schema), (REQUEST_SCHEMA, render_request_schema)],
)
def test_the_committed_schemas_are_current(path: Path, render: object) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert render(json.loads(text)) == text, f"{path} is stale: run `gcv schemas`"  # type: ignore[operator]


def test_the_command_checks_the_checkout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check"]) == 0, capsys.readouterr().out


def test_a_hand_edited_operation_is_stale_and_regenerated() -> None:
    text = (ROOT / TRACE_SCHEMA).read_text(encoding="utf-8")
    edited = json.loads(text)
    edited["$defs"]["revise"]["required"] = ["op"]
    assert render_trace_schema(edited) == text


@dataclass(frozen=True, slots=True)
class _Weighed:
    """An operation value with one more field than Support has."""

    name: ClassVar[str] = "support"
    target: form.Identifier
    evidence: form.Identifier
    weight: form.Flag = False


def test_a_field_declared_on_a_value_is_in_the_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """The definitions are read from the values when generated: a field added to an operation
    value is in its definition, required exactly when it has no default."""
    order = tuple(
        dataclasses.replace(rule, value=_Weighed) if rule.name == "support" else rule
        for rule in gcv.reference.operations.ORDER
    )
    monkeypatch.setattr(gcv.reference.operations, "ORDER", order)
    made = operation_definitions()["support"]
    assert made["properties"]["weight"] == {"type": "boolean"}
    assert made["required"] == ["op", "target", "evidence"]
    assert "evidence_claim" not in made["properties"]
