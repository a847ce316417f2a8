"""The ``definition-a.2`` obligation is about what runs: its definitions of knowledge, belief
and Definition A.2's check, evaluated on Python truth values, decide as
``gcv.reference.epistemic.abduction`` does on every model of one and two worlds (two
agents, every pair of A.1 relations: 17 models) for every truth set of chi and gamma, under
both readings; and the engine with knowledge in place of belief, in the consistency check
or in the problem it queues, is caught."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import gcv.reference.epistemic.abduction as engine_abduction
from gcv.proofs.code.bindings import load_module
from gcv.proofs.obligations import abduction as enc
from gcv.proofs.obligations import plausibility
from gcv.reference.epistemic import updates
from gcv.reference.epistemic.formula import TOP, Formula
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import members, truth_set
from tests.test_proofs_plausibility import _frame, small_models, truth_sets

SOURCE = Path(engine_abduction.__file__).read_text()
AGENT = "a"


def _models() -> Iterator[PlausibilityModel]:
    return (m for m in small_models() if m.size <= 2)


def _holds(m: PlausibilityModel, formula: Formula) -> Callable[[int], bool]:
    flags = members(truth_set(m, formula), m.size)
    return lambda w: flags[w] == "1"


def _restricted(frame: plausibility.Frame[int, bool], chi: Callable[[int], bool]) -> Any:
    return plausibility.announce(frame, chi, None)


def disagreements(abduction: ModuleType, limit: int = 3) -> list[str]:
    """Where ``abduction`` (the engine's module, or a planted copy) and the encoding differ."""
    found: list[str] = []
    for m in _models():
        frame = _frame(m)
        sets = truth_sets(m.size)
        for chi_text, chi in sets.items():
            chi_at = _holds(m, chi)
            surprised = enc.surprising(frame, AGENT, chi_at)
            if abduction.is_surprising(m, AGENT, chi) != surprised:
                found.append(f"is_surprising {m.cells('a')} {m.ranks('a')} {chi_text}")
            queued = abduction.queue_question((), m, chi, "q", {})
            expected = [i for i in m.agents if enc.surprising(frame, i, chi_at)]
            if [p.agent for p in queued] != expected:
                found.append(f"queue_question {m.cells('a')} {m.ranks('a')} {chi_text}")
            if not any(chi_at(w) for w in range(m.size)):
                continue  # chi announced: it holds somewhere
            current, posed = updates.announce(m, chi), m
            current_frame = _restricted(frame, chi_at)
            problem = abduction.Problem(AGENT, chi, "o", posed)
            for gamma_text, gamma in (*sets.items(), ("true", TOP)):
                gamma_at = _holds(m, gamma)
                for literal in (False, True):
                    explained_in = current_frame if literal else frame
                    expected_verdict = enc.check(
                        current_frame,
                        explained_in,
                        AGENT,
                        chi_at,
                        gamma_at,
                        gamma_is_chi=gamma == chi,
                        gamma_is_top=gamma == TOP,
                    )
                    verdict = abduction.check_solution(current, problem, gamma, literal=literal)
                    got = (verdict.consistent, verdict.explanatory, verdict.non_trivial)
                    if got != expected_verdict:
                        found.append(
                            f"check_solution literal={literal} {m.cells('a')} {m.ranks('a')} "
                            f"chi {chi_text} gamma {gamma_text}: {got} {expected_verdict}"
                        )
            if len(found) >= limit:
                return found
    return found


def test_the_encoded_check_is_the_engines() -> None:
    assert disagreements(engine_abduction) == []


PLANTED = {
    "consistency by knowledge": (
        "consistent = not holds_everywhere(current, Believes(agent, Not(gamma)))",
        "consistent = not holds_everywhere(current, Knows(agent, Not(gamma)))",
    ),
    "problems queued by knowledge": (
        "return not holds_everywhere(model, Believes(agent, chi))",
        "return not holds_everywhere(model, Knows(agent, chi))",
    ),
    "non-triviality by knowledge": (
        "gamma != chi and gamma != TOP and not holds_everywhere(current, Believes(agent, gamma))",
        "gamma != chi and gamma != TOP and not holds_everywhere(current, Knows(agent, gamma))",
    ),
    "the explanation in M_t whatever the reading": (
        "explained_in = current if literal else _problem_model(current, problem)",
        "explained_in = current",
    ),
}
"""Changes to the engine's check the tie must catch: knowledge where A.2 says belief."""


@pytest.mark.parametrize("change", PLANTED)
def test_a_planted_change_to_the_check_is_caught(change: str) -> None:
    old, new = PLANTED[change]
    assert SOURCE.count(old) == 1, old
    planted = SOURCE.replace(old, new).replace(
        "import TOP, Believes, Formula, Not,", "import TOP, Believes, Formula, Knows, Not,"
    )
    module = load_module(planted, engine_abduction.__file__, "gcv.reference.epistemic.planted")
    assert disagreements(module, limit=1), change
