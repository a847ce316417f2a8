"""The vectors' step profiles: a step is the paper's when no alternative answers it otherwise.

Two kinds of engine are run over the cases, in process, step by step (a mismatch does not
stop the case):

- an engine that makes one of the reference's paper-compatible readings (alone, or every
  first reading at once) must differ only on steps whose recorded alternatives explain its
  answer, and each first reading on at least one (the suite tells it apart);
- an engine with a classic bug must mismatch on some step of the ``paper`` profile (the
  papers alone catch it).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import gcv.reference.verifier
import gcv.spec.transition
from gcv.conformance.alternatives import (
    ALTERNATIVES,
    READINGS,
    all_alternatives,
    remembering,
)
from gcv.conformance.alternatives.patching import rule_changed
from gcv.conformance.compare import check
from gcv.conformance.runner import EXIT_FAILED, EXIT_OK
from gcv.conformance.session import Session
from gcv.conformance.vectors import Case, combination_of, load_suite
from gcv.reference.closure import Grounding, dependency_walk
from gcv.reference.errors import GcvError
from gcv.reference.identifiers import RecordId
from gcv.reference.operations import Resolve, rule_of
from gcv.reference.records import Standing
from gcv.spec.clauses import CLAUSES
from tests import broken_engines
from tests.conformance.helpers import FAKE, conform, fake

SUITE = load_suite()


def _mismatches(case: Case) -> Iterator[tuple[int, dict[str, Any]]]:
    """The steps where a fresh session's answer differs from the case's, with the answer."""
    session = Session()
    assert session.handle({"id": 0, **case.start()})["ok"], case.id
    for k, step in enumerate(case.steps):
        response = session.handle({"id": k + 1, **step.request})
        if check(step.request, step.expect, response) is not None:
            yield k, response


CHOSEN = sorted(c for c, clause in CLAUSES.items() if clause.source == "chosen")


def _showing(reading: str) -> list[Case]:
    """The cases with a step some combination holding ``reading`` answers otherwise."""
    return [
        case
        for case in SUITE
        if any(reading in combination_of(key) for step in case.steps for key in step.alternatives)
    ]


def test_every_chosen_clause_has_its_readings() -> None:
    assert sorted(ALTERNATIVES) == CHOSEN
    assert {reading.clause for reading in READINGS.values()} == set(CHOSEN)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(READINGS))
def test_a_reading_differs_only_where_the_vectors_explain_it(name: str) -> None:
    """Made alone, the reading differs only on steps whose alternatives give its answer,
    in the cases where it shows (a first reading shows somewhere: the suite tells it apart)."""
    shown, unexplained = 0, []
    # Definition A.2's checks remembered by value (the generator's way): the reading that
    # brings each problem's model to Prop_t took 400 s of CPU on the Phase 2 replay without.
    with READINGS[name](), remembering():
        for case in _showing(name):
            for k, response in _mismatches(case):
                shown += 1
                if not case.steps[k].explained_by(response):
                    unexplained.append(f"{case.id} step {k + 1}")
    assert not unexplained, f"answers of {name} no alternative explains"
    assert shown or name not in ALTERNATIVES, f"no step tells {name} apart"


@pytest.mark.slow
def test_all_alternatives_at_once_differ_only_where_the_vectors_explain_it() -> None:
    """An engine making every first reading differs only on steps whose alternatives,
    alone or composed, explain its answer, over the whole suite; some need several."""
    unexplained, combined = [], 0
    with all_alternatives():
        for case in SUITE:
            for k, response in _mismatches(case):
                found = case.steps[k].explained_by(response)
                combined += bool(found) and len(found[0]) > 1
                if not found:
                    unexplained.append(f"{case.id} step {k + 1}")
    assert not unexplained, "answers no alternative explains"
    assert combined > 0


class _OneStepAffectedStar(gcv.reference.verifier.Verifier):
    """Affected* answered with one-step Affected (the closure not iterated)."""

    def affected_star(self, withdrawn: str) -> tuple[str, ...]:
        return self.affected(withdrawn)


class _AbandonedInGoodStanding(gcv.reference.verifier.Verifier):
    """The Verify walk counts abandoned records in S_t (only weakened ones stop it)."""

    def verify(self, candidate: RecordId | None) -> Grounding:
        if candidate is None or candidate not in self.state.records:
            return Grounding(candidate, False)
        n = self.state.numbering
        good = [int(self.state.standing[name] is not Standing.WEAKENED) for name in n.name]
        return dependency_walk(n.supports, good, n.number[candidate]).named(candidate, n.name)


class _StaleReverseIndex(gcv.reference.verifier.Verifier):
    """A rejected turn's Dep links stay in the reverse index that Affected and Affected* walk
    (the index is updated as operations apply and not rolled back)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.stale: dict[RecordId, list[RecordId]] = {}

    def apply_turn(self, turn: gcv.reference.verifier.Turn) -> gcv.reference.verifier.TurnReport:
        try:
            return super().apply_turn(turn)
        except GcvError:
            for op in turn.operations:
                for support in getattr(op, "depends_on", ()):
                    self.stale.setdefault(support, []).append(op.id)
            raise

    def affected(self, withdrawn: RecordId) -> tuple[RecordId, ...]:
        return (*super().affected(withdrawn), *self.stale.get(withdrawn, ()))

    def affected_star(self, withdrawn: RecordId) -> tuple[RecordId, ...]:
        return (*super().affected_star(withdrawn), *self.stale.get(withdrawn, ()))


_BUGS: dict[str, type[gcv.reference.verifier.Verifier]] = {
    "one-step Affected for Affected*": _OneStepAffectedStar,
    "a walk that ignores standing": broken_engines.WalkIgnoresStanding,
    "abandoned records counted in S_t": _AbandonedInGoodStanding,
    "Affected*(b) leaving out b on a cycle": broken_engines.ReverseClosureMissesCycle,
    "a rejected turn keeping its valid operations": broken_engines.NonAtomicTurn,
    "a stale reverse index after a rejected turn": _StaleReverseIndex,
}


@pytest.mark.slow
@pytest.mark.parametrize("bug", sorted(_BUGS))
def test_a_classic_bug_fails_a_paper_profile_step(
    bug: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("gcv.conformance.session.Verifier", _BUGS[bug])
    caught = next(
        (
            f"{case.id} step {k + 1}"
            for case in SUITE
            for k, _ in _mismatches(case)
            if case.steps[k].profile == "paper"
        ),
        None,
    )
    assert caught, f"no paper-profile step catches {bug}"


# Classic bugs run through the runner, as an implementation's process: name -> fake mode.
_RUNNER_BUGS = {
    "a walk without a visited set": "no-visited-set",
    "Support reviving a weakened record": "support-revives-weakened",
}


@pytest.mark.slow
def test_a_walk_without_a_visited_set_runs_out_of_step_time(tmp_path: Path) -> None:
    """Through the runner, with a per-step timeout: the shared lattice's 2^40 paths."""
    options = ["-k", "core/interactions/*", "--timeout", "2"]
    mode = _RUNNER_BUGS["a walk without a visited set"]
    code, report = conform(tmp_path, options, fake(mode))
    assert code == EXIT_FAILED
    timed_out = {r["id"] for r in report["results"] if r["status"] == "error"}
    # The lattice's 2^40 paths, and the Dep cycle h1 -> e1 -> h1, which it never leaves.
    cycle = "core/interactions/evidence-rests-on-its-target"
    assert timed_out == {"core/interactions/shared-lattice", cycle}, report["results"]


@pytest.mark.slow
def test_support_reviving_a_weakened_record_fails_a_paper_profile_step(tmp_path: Path) -> None:
    """Run without contracts (``python -O``), which would stop the engine at Lemma 2.2."""
    mode = _RUNNER_BUGS["Support reviving a weakened record"]
    code, report = conform(tmp_path, ["-k", "core/*"], [sys.executable, "-O", str(FAKE), mode])
    assert report["profiles"]["paper"]["differing"] > 0, report["profiles"]
    assert code == EXIT_FAILED


@contextmanager
def _resolve_without_the_attack_check() -> Iterator[None]:
    def unchecked(rule: Any) -> Any:
        return dataclasses.replace(rule, row=dataclasses.replace(rule.row, target_unattacked=False))

    with rule_changed("resolve", unchecked)():
        yield


@pytest.mark.slow
def test_resolve_without_the_no_incoming_attack_check_passes_both_profiles() -> None:
    """Lemma 2.2: a record in S_t has no incoming attack, and Resolve checks its target's
    standing first, so its "no incoming attack" check never decides a turn."""
    assert rule_of(Resolve("r")).row.target_unattacked
    with _resolve_without_the_attack_check():
        differing = [f"{case.id} step {k + 1}" for case in SUITE for k, _ in _mismatches(case)]
    assert not differing


def test_every_step_names_chosen_clauses_and_readings_only() -> None:
    named = {c for case in SUITE for step in case.steps for c in step.choices}
    assert named <= {c for c, clause in CLAUSES.items() if clause.source == "chosen"}
    readings = {
        r for case in SUITE for s in case.steps for k in s.alternatives for r in combination_of(k)
    }
    assert readings <= set(READINGS)
    paper = sum(step.profile == "paper" for case in SUITE for step in case.steps)
    assert paper > 0, "the paper profile is not empty"


@pytest.mark.slow
def test_the_runner_passes_every_alternative_at_once_and_names_them(tmp_path: Path) -> None:
    """An implementation making every paper-compatible alternative conforms in the paper
    profile (exit 0): every step it differs on is explained, some by several readings
    together; it is told which readings, and fails the reference profile."""
    code, report = conform(tmp_path, [], fake("paper-alternatives"))
    assert code == EXIT_OK, report["profiles"]
    assert report["profiles"]["paper"]["differing"] == 0
    named = report["profiles"]["differing_choices"]
    assert named and set(named) <= set(ALTERNATIVES), named
    together = [
        step
        for result in report["results"]
        for step, found in result["explanations"]
        if len(found[0]) > 1
    ]
    assert together, "no step needs several alternatives together"
    strict, _ = conform(tmp_path, ["--profile", "reference"], fake("paper-alternatives"))
    assert strict == EXIT_FAILED


@pytest.mark.slow
def test_the_runner_passes_a_paper_faithful_choice_and_names_it(tmp_path: Path) -> None:
    """An implementation that only chooses differently conforms in the paper profile (exit
    0), fails the reference profile, and is told by clause id where it differs."""
    cases = ["-k", "core/operations/*"]
    code, report = conform(tmp_path, cases, fake("hypothesis-commits"))
    assert code == EXIT_OK, report["profiles"]
    assert report["profiles"]["paper"]["differing"] == 0
    # Blame by cause: the one choice made otherwise, not every choice the differing steps
    # depend on (turn.numbering, order.kinds, ...).
    assert list(report["profiles"]["differing_choices"]) == ["T3.hypothesize.no-commitment"]
    differing = [r for r in report["results"] if r["failed_steps"]]
    assert differing and report["profiles"]["only_on_choices"] == len(differing)
    strict, _ = conform(tmp_path, [*cases, "--profile", "reference"], fake("hypothesis-commits"))
    assert strict == EXIT_FAILED


@pytest.mark.slow
def test_an_implementation_with_one_namespace_for_records_and_issues_conforms(
    tmp_path: Path,
) -> None:
    """T3.question.issue-ids-apart read the other way: a Question may not take a record's
    or an earlier Question's id, nor a record a Question's; the paper profile passes."""
    code, report = conform(tmp_path, ["-k", "core/*"], fake("one-namespace"))
    assert code == EXIT_OK, report["profiles"]
    assert list(report["profiles"]["differing_choices"]) == ["T3.question.issue-ids-apart"]


@pytest.mark.slow
def test_the_runner_fails_a_paper_bug_in_the_paper_profile(tmp_path: Path) -> None:
    code, report = conform(tmp_path, ["-k", "core/*"], fake("one-step"))
    assert code == EXIT_FAILED
    assert report["profiles"]["paper"]["differing"] > 0


_MATRIX_START = "<!-- self-test matrix: tests/conformance/test_profiles.py -->"


def _matrix() -> str:
    """The self-test matrix: what each engine above does in each profile."""
    rows = [
        "| engine | `paper` profile | `reference` profile |",
        "|---|---|---|",
        *(
            f"| `{c}` read the other way: {CLAUSES[c].alternative} | passes "
            "| fails, where its answers are recorded |"
            for c in CHOSEN
        ),
        *(f"| {bug} | fails | fails |" for bug in sorted([*_BUGS, *_RUNNER_BUGS])),
        "| Resolve without its no-incoming-attack check | passes | passes |",
    ]
    return "\n".join(rows)


def test_the_docs_show_the_self_test_matrix() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "conformance.md").read_text()
    assert _MATRIX_START in docs
    shown = docs.split(_MATRIX_START, 1)[1].strip().split("\n\n", 1)[0]
    assert shown == _matrix(), f"docs/conformance.md should show:\n{_matrix()}"
