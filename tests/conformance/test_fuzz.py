"""``gcv conform --fuzz``: lockstep differential fuzzing finds, shrinks and saves a mismatch,
and finds none against the reference itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reference.conformance.cases import CaseBuilder
from reference.conformance.fuzz import save_finding
from reference.conformance.runner import EXIT_FAILED, EXIT_OK, main
from reference.conformance.vectors import load_vector_file
from reference.operations import Observe
from tests.conformance.helpers import SERVE, conform, fake, statuses


def test_fuzzing_the_reference_against_itself_finds_no_difference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--fuzz", "8", "--seed", "3", "--fuzz-turns", "4", "--", *SERVE]) == EXIT_OK
    out = capsys.readouterr().out
    assert "fuzz: 8 examples (seed 3): no difference from the reference" in out


@pytest.mark.parametrize(
    ("mode", "query", "longest"),
    [("one-step", "affected_star", 3), ("ignore-standing", "verify", 2)],
)
def test_a_mismatch_is_shrunk_printed_with_its_seed_and_saved_as_a_vector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, query: str, longest: int
) -> None:
    saved = tmp_path / "findings" / "fuzz.json"
    argv = ["--fuzz", "200", "--seed", "4", "--fuzz-turns", "5", "--save-vector", str(saved)]
    assert main([*argv, "--", *fake(mode)]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "a difference from the reference (seed 4; rerun with --fuzz 200 --seed 4)" in out
    (case,) = load_vector_file(saved.read_bytes(), "fuzz.json")
    turns = [s for s in case.steps if s.request["cmd"] == "apply"]
    assert case.id == "findings/fuzz/seed-4" and case.origin["against"].startswith(f"fake-{mode}")
    assert 1 <= len(turns) <= longest, "shrunk to a minimal conversation"
    assert case.steps[-1].request["query"] == query
    # The saved vector passes on the reference and catches the fake it was found against.
    code, report = conform(tmp_path, ["--vectors", str(tmp_path)], SERVE)
    assert code == EXIT_OK and statuses(report) == {case.id: "pass"}
    code, report = conform(tmp_path, ["--vectors", str(tmp_path)], fake(mode))
    assert code == EXIT_FAILED and statuses(report) == {case.id: "fail"}


def test_a_second_finding_is_appended_under_a_fresh_id(tmp_path: Path) -> None:
    b = CaseBuilder("findings/fuzz/seed-4", "d", ["Lemma 2.1"], origin={"kind": "fuzz", "seed": 4})
    b.apply("a", Observe("o1", "x"))
    b.query("verify", "o1")
    saved = tmp_path / "fuzz.json"
    assert [save_finding(b.build(), saved) for _ in range(2)] == [
        "findings/fuzz/seed-4",
        "findings/fuzz/seed-4-2",
    ]
    assert [c.id for c in load_vector_file(saved.read_bytes())] == [
        "findings/fuzz/seed-4",
        "findings/fuzz/seed-4-2",
    ]
    assert json.loads(saved.read_text())["format"] == "gcv-vectors/1"
