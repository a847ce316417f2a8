"""The vector suite: valid, current, independent of PYTHONHASHSEED, permanent ids, and the
coverage the issue asks for (every operation accepted and rejected, every precondition,
every paper statement, cycles, both scenarios)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from gcv.conformance.cases.oracle import is_epistemic_operation
from gcv.conformance.generate import _check_permanence, _effects, _outcomes
from gcv.conformance.vectors import (
    STATEMENTS,
    Case,
    default_directory,
    file_of,
    load_suite,
    load_vector_file,
)
from gcv.errors import MalformedVectors
from gcv.reference.errors import PreconditionViolation
from gcv.reference.operations import ORDER
from gcv.spec import epistemic as se
from gcv.trace import EPISTEMIC_QUERIES, operation_to_json
from tests.test_operations import REJECTIONS

SUITE = load_suite()
DIRECTORY = Path(str(default_directory()))


@pytest.mark.slow
def test_the_committed_vectors_are_what_the_reference_generates_under_any_hash_seed() -> None:
    """What CI runs (``gcv vectors --check``), under a fixed PYTHONHASHSEED; the in-process
    ``vectors --check --json`` test (tests/test_cli_reports.py) regenerates them under the
    worker's own random seed, so each run checks two seeds with two generations."""
    done = subprocess.run(
        [sys.executable, "-m", "gcv.cli", "vectors", "--check", "--out", str(DIRECTORY)],
        capture_output=True,
        text=True,
        env=os.environ | {"PYTHONHASHSEED": "4242"},
    )
    assert done.returncode == 0, done.stderr
    assert "current" in done.stdout
    manifest = json.loads((DIRECTORY / "manifest.json").read_text())
    checked = {f["path"] for f in manifest["files"]}
    assert {"epistemic/operations.json", "scenarios/phase2-epistemic.json"} <= checked


def test_the_manifest_lists_every_file_and_case_with_its_hash() -> None:
    manifest = json.loads((DIRECTORY / "manifest.json").read_text())
    listed = {f["path"]: f["cases"] for f in manifest["files"]}
    by_file: dict[str, list[str]] = defaultdict(list)
    for case in SUITE:
        by_file[file_of(case.id)].append(case.id)
    assert listed == by_file
    assert manifest["cases"] == len(SUITE)
    assert manifest["steps"] == sum(len(c.steps) for c in SUITE)


def test_ids_are_permanent() -> None:
    _check_permanence(DIRECTORY, SUITE)  # every committed id is still generated
    with pytest.raises(MalformedVectors, match="permanent"):
        _check_permanence(DIRECTORY, SUITE[1:])


def test_a_file_off_the_schema_is_refused_naming_the_place() -> None:
    text = (DIRECTORY / "core" / "queries.json").read_text()
    document = json.loads(text)
    document["cases"][2]["statements"] = ["Lemma 9.9"]
    with pytest.raises(MalformedVectors) as caught:
        load_vector_file(json.dumps(document), "queries.json")
    assert caught.value.field == "cases[2].statements[0]"


def test_every_precondition_row_of_the_operation_tests_has_a_vector() -> None:
    rejected = {
        (json.dumps(op, sort_keys=True), step.expect["rejected"])
        for case in SUITE
        for step in case.steps
        if "rejected" in step.expect
        for op in step.request["operations"]
    }
    for op, _, code, _, _ in REJECTIONS:
        assert (json.dumps(operation_to_json(op), sort_keys=True), code) in rejected, (op, code)


@pytest.mark.slow
def test_every_operation_is_both_accepted_and_rejected() -> None:
    accepted: set[str] = set()
    rejected: set[str] = set()
    for case in SUITE:
        for op, outcome in _outcomes(case):
            (accepted if outcome == "accepted" else rejected).add(op)
    every = {rule.name for rule in ORDER}
    assert every <= accepted and every <= rejected


# The precondition codes of the core table (spec/gcv/spec/normative.md, "Error codes"); the
# epistemic layer's codes come with its vectors.
CORE_PRECONDITION_CODES = {
    "unknown-record",
    "duplicate-record",
    "unknown-agent",
    "wrong-standing",
    "attacked-target",
    "self-reference",
    "already-aware",
}


def test_every_error_a_core_turn_can_raise_is_expected_somewhere() -> None:
    """attacked-target is the exception: Lemma 2.2 makes it unreachable from D_0."""
    codes = {
        step.expect.get("rejected") or step.expect.get("error")
        for case in SUITE
        for step in case.steps
    }
    assert {c.code for c in PreconditionViolation.__subclasses__()} >= CORE_PRECONDITION_CODES
    assert CORE_PRECONDITION_CODES - codes == {"attacked-target"}
    assert "malformed-operation" in codes


def test_every_paper_statement_has_cases_and_the_scenarios_and_cycles_are_covered() -> None:
    named = {s for case in SUITE for s in case.statements}
    assert named == set(STATEMENTS)
    assert {c.origin.get("scenario") for c in SUITE} >= {
        "spec/scenarios/phase1-muddy-children.json",
        "spec/scenarios/phase2-debugging.json",
        "spec/scenarios/phase2-epistemic.json",
        "spec/scenarios/phase3-deliberation.json",
    }
    assert sum("cycle" in c.tags for c in SUITE) >= 3


def _uses_the_epistemic_layer(case: Case) -> bool:
    """A declared M_0, an epistemic field in a turn, or a query on M_t."""
    return (
        case.model is not None
        or any(
            is_epistemic_operation(op)
            for s in case.steps
            if s.request["cmd"] == "apply"
            for op in s.request["operations"]
        )
        or any(s.request.get("query") in EPISTEMIC_QUERIES for s in case.steps)
    )


def test_every_case_declares_the_features_its_steps_use() -> None:
    for case in SUITE:
        used = {"core"} | {
            f"query:{s.request['query']}" for s in case.steps if s.request["cmd"] == "query"
        }
        used |= {"epistemic"} if _uses_the_epistemic_layer(case) else set()
        assert set(case.features) == used, case.id


# Every code an epistemic precondition or query can raise (spec/gcv/spec/normative.md, "Error
# codes"). model-too-large is the exception: a resource bound of the reference, not semantics.
EPISTEMIC_CODES = {
    "malformed-formula",
    "unknown-atom",
    "duplicate-atom",
    "no-surviving-world",
    "unknown-world",
}


def test_every_epistemic_error_is_expected_somewhere_and_model_too_large_nowhere() -> None:
    codes = {
        step.expect.get("rejected") or step.expect.get("error")
        for case in SUITE
        for step in case.steps
    }
    assert codes >= EPISTEMIC_CODES
    assert "model-too-large" not in codes
    in_formulas = {
        (step.expect["rejected"], step.note)
        for case in SUITE
        if "epistemic" in case.features
        for step in case.steps
        if "rejected" in step.expect
    }
    for code in ("unknown-agent", "malformed-operation"):
        assert any(c == code and "field formula" in note for c, note in in_formulas), code


@pytest.mark.slow
def test_every_del_realisation_of_the_table_is_applied_by_some_vector() -> None:
    """Section 2's table, each row's default and alternative reading (spec.epistemic's
    DEL_REALISATIONS), and Definition A.2's queue growing and shrinking."""
    effects = {effect for case in SUITE for effect in _effects(case)}
    for kind in (rule.name for rule in ORDER):
        default, alternative = se.DEL_REALISATIONS[kind]
        readings = [default] + ([alternative] if alternative is not None else [])
        applied = {reading for op, reading in effects if op == kind}
        assert len(applied) >= len(readings), (kind, applied)
    assert {
        ("abduction", "problem posed by observation"),
        ("abduction", "problem posed by question"),
        ("abduction", "problem closed by a hypothesis"),
        ("hypothesize", "introduces atoms, W split"),
        ("expand-awareness", "awareness only"),
        ("observe", "[!psi], simultaneous"),
    } <= effects


def test_the_coverage_table_names_every_statement() -> None:
    table = (DIRECTORY / "COVERAGE.md").read_text()
    for statement in STATEMENTS:
        assert f"| {statement} | " in table
