"""The vectors' step profiles: each step lists the chosen clauses its outcome depends on.

Two kinds of engine are run over every case, in process, step by step (a mismatch does
not stop the case):

- an engine that makes a choice's paper-compatible alternative must mismatch only on
  steps that list that choice, and on at least one (the tag is sound, and the suite can
  tell the alternative apart);
- an engine with a classic bug must mismatch on some step of the ``paper`` profile (the
  papers alone catch it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

import reference.apply
import reference.conformance.session
import reference.verifier
import spec.transition  # noqa: F401  (declares the clauses)
from reference.conformance.compare import check
from reference.conformance.runner import EXIT_FAILED, EXIT_OK
from reference.conformance.session import Session
from reference.conformance.vectors import Case, load_suite
from reference.depmap import DependencyMap
from reference.operations import Hypothesize, Operation, Resolve, Support, Undermine
from reference.records import AgentId
from spec.clauses import CLAUSES
from tests import broken_engines
from tests.conformance.helpers import conform, fake

SUITE = load_suite()


def _mismatches(case: Case) -> Iterator[int]:
    """The positions of the steps where a fresh session's answer differs from the case's."""
    session = Session()
    assert session.handle({"id": 0, **case.start()})["ok"], case.id
    for k, step in enumerate(case.steps):
        response = session.handle({"id": k + 1, **step.request})
        if check(step.request, step.expect, response) is not None:
            yield k


def _apply_then(extra: Callable[[DependencyMap, Operation, AgentId], None]) -> Any:
    original = reference.apply.apply_operation

    def patched(dmap: DependencyMap, op: Operation, speaker: AgentId, **kw: Any) -> None:
        original(dmap, op, speaker, **kw)
        extra(dmap, op, speaker)

    return patched


@contextmanager
def _patched(target: object, name: str, value: object) -> Iterator[None]:
    saved = getattr(target, name)
    setattr(target, name, value)
    try:
        yield
    finally:
        setattr(target, name, saved)


def _hypothesis_commits_speaker(dmap: DependencyMap, op: Operation, speaker: AgentId) -> None:
    if isinstance(op, Hypothesize):
        dmap.commit(speaker, op.id)


def _existing_evidence_commits_nobody(dmap: DependencyMap, op: Operation, speaker: AgentId) -> None:
    if isinstance(op, Support | Undermine) and op.evidence_claim is None:
        dmap.retract(speaker, op.evidence)


def _consensus_commits_only_the_speaker(
    dmap: DependencyMap, op: Operation, speaker: AgentId
) -> None:
    if isinstance(op, Resolve) and not op.authoritative:
        for agent in dmap.agents:
            if agent != speaker:
                dmap.retract(agent, op.target)


# Each alternative: the clause it departs from, and how the engine makes it.
_ALTERNATIVES: dict[str, Callable[[], AbstractContextManager[None]]] = {
    "T3.hypothesize.no-commitment": lambda: _patched(
        reference.verifier, "apply_operation", _apply_then(_hypothesis_commits_speaker)
    ),
    "T3.evidence.existing-commits-speaker": lambda: _patched(
        reference.verifier, "apply_operation", _apply_then(_existing_evidence_commits_nobody)
    ),
    "T3.resolve.commitments": lambda: _patched(
        reference.verifier, "apply_operation", _apply_then(_consensus_commits_only_the_speaker)
    ),
    "T3.revise.retracts-commitment": lambda: _patched(
        DependencyMap, "retract", lambda self, agent, record: None
    ),
    # Support of any standing (it changes no label, so Lemma 2.2 holds either way).
    "T3.support.target-standing": lambda: _patched(
        reference.conformance.session, "Verifier", broken_engines.SupportRevivesAbandoned
    ),
}


@pytest.mark.parametrize("choice", sorted(_ALTERNATIVES))
def test_an_alternative_choice_shows_only_on_steps_that_name_it(choice: str) -> None:
    assert CLAUSES[choice].source == "chosen"
    shown, untagged = 0, []
    with _ALTERNATIVES[choice]():
        for case in SUITE:
            for k in _mismatches(case):
                shown += 1
                if choice not in case.steps[k].choices:
                    untagged.append(f"{case.id} step {k + 1}")
    assert not untagged, f"steps that differ under the alternative but do not name {choice}"
    assert shown, f"no step tells the alternative to {choice} apart"


class _OneStepAffectedStar(reference.verifier.Verifier):
    """Affected* answered with one-step Affected (the closure not iterated)."""

    def affected_star(self, withdrawn: str) -> tuple[str, ...]:
        return self.affected(withdrawn)


_BUGS: dict[str, type[reference.verifier.Verifier]] = {
    "one-step Affected for Affected*": _OneStepAffectedStar,
    "a walk that ignores standing": broken_engines.WalkIgnoresStanding,
    "Affected*(b) leaving out b on a cycle": broken_engines.ReverseClosureMissesCycle,
    "a rejected turn keeping its valid operations": broken_engines.NonAtomicTurn,
}


@pytest.mark.parametrize("bug", sorted(_BUGS))
def test_a_classic_bug_fails_a_paper_profile_step(
    bug: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("reference.conformance.session.Verifier", _BUGS[bug])
    caught = [
        f"{case.id} step {k + 1}"
        for case in SUITE
        for k in _mismatches(case)
        if case.steps[k].profile == "paper"
    ]
    assert caught, f"no paper-profile step catches {bug}"


def test_every_step_names_chosen_clauses_only() -> None:
    named = {c for case in SUITE for step in case.steps for c in step.choices}
    assert named <= {c for c, clause in CLAUSES.items() if clause.source == "chosen"}
    paper = sum(step.profile == "paper" for case in SUITE for step in case.steps)
    assert paper > 0, "the paper profile is not empty"


def test_the_runner_passes_a_paper_faithful_choice_and_names_it(tmp_path: Path) -> None:
    """An implementation that only chooses differently conforms in the paper profile (exit
    0), fails the reference profile, and is told by clause id where it differs."""
    cases = ["-k", "core/operations/*"]
    code, report = conform(tmp_path, cases, fake("hypothesis-commits"))
    assert code == EXIT_OK, report["profiles"]
    assert report["profiles"]["paper"]["differing"] == 0
    assert "T3.hypothesize.no-commitment" in report["profiles"]["differing_choices"]
    strict, _ = conform(tmp_path, [*cases, "--profile", "reference"], fake("hypothesis-commits"))
    assert strict == EXIT_FAILED


def test_the_runner_fails_a_paper_bug_in_the_paper_profile(tmp_path: Path) -> None:
    code, report = conform(tmp_path, ["-k", "core/*"], fake("one-step"))
    assert code == EXIT_FAILED
    assert report["profiles"]["paper"]["differing"] > 0
