"""``gcv conform --fuzz``: lockstep differential fuzzing finds, shrinks, saves and reports each
distinct cause once (with its shortest example and a count), judges in the paper profile only
what the papers determine, and finds nothing against the reference itself."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import find
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from gcv.conformance.cases import CaseBuilder
from gcv.conformance.fuzz import EPISTEMIC_PROBES, save_finding, turns_over
from gcv.conformance.runner import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, main
from gcv.conformance.vectors import load_vector_file
from gcv.reference.operations import Observe
from tests.conformance.helpers import SERVE, conform, fake, statuses

pytestmark = pytest.mark.slow


@pytest.mark.slow
def test_fuzzing_the_reference_against_itself_finds_no_difference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--fuzz", "8", "--seed", "3", "--fuzz-turns", "4", "--", *SERVE]) == EXIT_OK
    out = capsys.readouterr().out
    assert "fuzz: 8 examples (seed 3): no difference from the reference" in out


def _fuzz(
    tmp_path: Path, mode: str, examples: int, seed: int, *options: str
) -> tuple[int, dict[str, Any]]:
    # One shard: its rounds are of all the examples (tests/conformance/test_fuzz_campaign.py
    # cuts runs into several).
    argv = ["--fuzz", str(examples), "--seed", str(seed), "--fuzz-turns", "5"]
    argv += ["--shard-examples", str(examples), *options]
    return conform(tmp_path, argv, fake(mode))


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "query", "longest"), [("one-step", "affected_star", 3)])
def test_a_finding_is_shrunk_reported_once_saved_and_fails_on_replay(
    tmp_path: Path, mode: str, query: str, longest: int
) -> None:
    saved = tmp_path / "findings" / "fuzz.json"
    junit = tmp_path / "fuzz.xml"
    options = ["--save-vector", str(saved), "--junit", str(junit)]
    code, report = _fuzz(tmp_path, mode, 40, 2, *options)
    assert code == EXIT_FAILED
    fuzz = report["fuzz"]
    # One bug, one finding, though met again: the round after it finds no new key, and
    # the bug's repeats are counted with it, not reported.
    (finding,) = fuzz["findings"]
    assert fuzz["rounds"] == 2 and finding["keys"][0].startswith(f"{query}: ")
    assert finding["key"].startswith("an answer differs [") and "T3.register.dep" in finding["key"]
    assert fuzz["repeats"] >= 1 and finding["count"] == 1 + fuzz["repeats"]
    assert finding["mismatch"]["paper_failed_steps"], "found in the paper profile"
    (case,) = load_vector_file(saved.read_bytes(), "fuzz.json")
    turns = [s for s in case.steps if s.request["cmd"] == "apply"]
    assert case.id == "findings/fuzz/seed-2" and case.origin["against"].startswith(f"fake-{mode}")
    assert 1 <= len(turns) <= longest, "shrunk to a minimal conversation"
    assert case.steps[-1].request["query"] == query and case.steps[-1].profile == "paper"
    (testcase,) = ET.parse(junit).getroot().iter("testcase")
    failure = testcase.find("failure")
    assert failure is not None and failure.get("message") == finding["key"]
    # The saved vector passes on the reference and catches the fake it was found against.
    code, report = conform(tmp_path, ["--vectors", str(tmp_path)], SERVE)
    assert code == EXIT_OK and statuses(report) == {case.id: "pass"}
    code, report = conform(tmp_path, ["--vectors", str(tmp_path)], fake(mode))
    assert code == EXIT_FAILED and statuses(report) == {case.id: "fail"}


@pytest.mark.slow
def test_a_chosen_alternative_is_no_finding_in_the_paper_profile(tmp_path: Path) -> None:
    choice = "T3.hypothesize.no-commitment"
    code, report = _fuzz(tmp_path, "hypothesis-commits", 30, 2)
    assert code == EXIT_OK and report["fuzz"]["findings"] == []
    assert report["fuzz"]["uncompared"] > 0, "the steps that read the choice were not judged"
    code, report = _fuzz(tmp_path, "hypothesis-commits", 30, 2, "--profile", "reference")
    assert code == EXIT_FAILED
    # Blame by cause, once: every difference the choice makes is one finding, counted.
    (finding,) = report["fuzz"]["findings"]
    assert finding["key"] == f"an answer differs [choices: {choice}]", finding["key"]
    assert finding["count"] > 1
    options = ["--profile", "reference", "--fuzz-ignore", choice]
    code, report = _fuzz(tmp_path, "hypothesis-commits", 30, 2, *options)
    assert code == EXIT_OK and report["fuzz"]["ignored"] == [choice]


@pytest.mark.slow
def test_with_the_epistemic_feature_turns_carry_formulas_and_questions_ask_about_m_t() -> None:
    def formulas(turn: dict[str, Any]) -> set[str]:
        return {op["op"] for op in turn["operations"] if "formula" in op}

    existing = ("n0_0", "n0_1")
    turn = find(turns_over(existing, True), lambda t: formulas(t) >= {"observe", "hypothesize"})
    assert formulas(turn) >= {"observe", "hypothesize"}
    with pytest.raises(NoSuchExample):  # without the feature, no formula is ever drawn
        find(turns_over(existing), lambda t: bool(formulas(t)))
    probes = find(
        st.lists(EPISTEMIC_PROBES, min_size=3), lambda ps: len({p["query"] for p in ps}) >= 3
    )
    assert {p["query"] for p in probes} <= {"knows", "believes", "holds", "unexplained"}


def test_an_unknown_clause_to_ignore_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--fuzz", "1", "--fuzz-ignore", "T9.no-such", "--", *SERVE]) == EXIT_BAD_INPUT
    assert "'T9.no-such' is not a clause id" in capsys.readouterr().err


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
