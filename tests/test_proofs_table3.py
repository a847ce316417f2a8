"""The table-3 obligation catches the divergences between the engine's table, its encoding
and Table 3 as the spec states it: a changed row (a narrower Revise precondition,
Undermine ignoring its target's standing) and an encoding that forgets a link (Resolve
without its subsumes link, in a patched copy of ``proofs/gcv/proofs/encode.py``)."""

from __future__ import annotations

import dataclasses
import sys
import types
from pathlib import Path

import pytest

import gcv.proofs.encode
from gcv.proofs.encode import OPERATIONS, EncodedState, Params, rows
from gcv.proofs.obligations.table3 import _same_effect, _same_precondition
from gcv.proofs.solver import Outcome
from gcv.proofs.table3 import stated
from gcv.reference.records import Standing

ROWS = rows()
"""The engine's rows of Table 3, by operation."""

TIMEOUT_MS = 60_000


def _with_row(kind: str, **change: object) -> dict[str, object]:
    table = dict(ROWS)
    table[kind] = dataclasses.replace(ROWS[kind], **change)  # type: ignore[arg-type]
    return table


def _patched_encoding(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> types.ModuleType:
    """A copy of proofs/gcv/proofs/encode.py with ``old`` replaced by ``new`` (the sorts are shared
    with the original, since Z3 declares an enumeration sort once)."""
    source = Path(gcv.proofs.encode.__file__).read_text()
    assert source.count(old) == 1, old
    labels = 'LABEL, _LABEL_CONSTANTS = z3.EnumSort("Label", [s.value for s in Standing])'
    source = source.replace(labels, "from gcv.proofs.encode import LABEL, _LABEL_CONSTANTS")
    module = types.ModuleType("encode_mutant")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # dataclasses look it up
    exec(compile(source.replace(old, new), "encode_mutant", "exec"), module.__dict__)
    return module


def test_the_unchanged_table_is_table_3() -> None:
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    for kind in OPERATIONS:
        table, statement = gcv.proofs.encode.transition(kind, s, p), stated(kind, s, p)
        assert _same_precondition(table, statement, TIMEOUT_MS).outcome is Outcome.PROVED
        assert _same_effect(table, statement, TIMEOUT_MS).outcome is Outcome.PROVED


def test_a_narrower_revise_precondition_is_rejected() -> None:
    s, p, kind = EncodedState.fresh("s"), Params.fresh("p"), "revise"
    narrower = _with_row(kind, target_standing=frozenset(Standing) - {Standing.ABANDONED})
    table = gcv.proofs.encode.transition(kind, s, p, narrower)  # type: ignore[arg-type]
    result = _same_precondition(table, stated(kind, s, p), TIMEOUT_MS)
    assert result.outcome is Outcome.COUNTEREXAMPLE


def test_undermine_ignoring_its_targets_standing_is_rejected() -> None:
    s, p, kind = EncodedState.fresh("s"), Params.fresh("p"), "undermine"
    any_label = _with_row(kind, target_standing=frozenset(Standing))
    table = gcv.proofs.encode.transition(kind, s, p, any_label)  # type: ignore[arg-type]
    result = _same_precondition(table, stated(kind, s, p), TIMEOUT_MS)
    assert result.outcome is Outcome.COUNTEREXAMPLE


def test_resolve_forgetting_its_subsumes_link_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    s, p, kind = EncodedState.fresh("s"), Params.fresh("p"), "resolve"
    forgetful = _patched_encoding(monkeypatch, "z3.And(p.subsumes[a], b == t)", "z3.BoolVal(False)")
    table = forgetful.transition(kind, s, p)
    assert _same_precondition(table, stated(kind, s, p), TIMEOUT_MS).outcome is Outcome.PROVED
    result = _same_effect(table, stated(kind, s, p), TIMEOUT_MS)
    assert result.outcome is Outcome.COUNTEREXAMPLE
