"""Closure against one-step retraction on generated case files (Sections 4.4 and E.1).

A case file is a reasoning skeleton: evidence items, then reasoning steps, each
resting on one to three earlier items, often on an earlier step, so that steps
share sub-derivations (one intermediate conclusion feeding several later ones).
Each file carries four counterfactual retractions of evidence items ("if this
evidence were withdrawn, which steps would lose support?").  The gold answer is
the generator's own ground truth: while it writes each step it records everything
the step's derivation rests on, the union of its premises and of what they rest
on; the steps whose derivation rests on the withdrawn item are the gold set.
Neither the engine nor its reverse index is consulted for it.

The file is fed to the verifier (an Observe per evidence item, a Hypothesize per
step with its premises as Dep), and each retraction is asked of the one-step query
Affected(beta) and of Affected*(beta) (Definition 2.3), without changing standing.

References
----------
Grounded Continuation, Section 4.4 ("Over 64 counterfactual scenarios from 16 RECON
case files, the one-step query is exact on 13 and Affected* on all 64, recovering
198 dependent steps with no false positives") and Corollary 2.4; spec/gcv/spec/normative.md,
"Generated case files".
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

import icontract

from gcv.reference.identifiers import RecordId
from gcv.reference.operations import Hypothesize, Observe
from gcv.reference.verifier import Turn, Verifier

__all__ = [
    "CaseFile",
    "Scenario",
    "generate_case_file",
    "retraction_study",
]

RETRACTIONS_PER_FILE = 4
EVIDENCE_ITEMS = (5, 8)
REASONING_STEPS = (8, 14)
PREMISES_PER_STEP = (1, 3)
# The chance that a step rests on an earlier step (a chain) rather than on
# evidence alone; steps chosen this way are shared between later steps.
BUILDS_ON_A_STEP = 0.7
_INVESTIGATOR = "investigator"


@dataclass(frozen=True, slots=True)
class CaseFile:
    """A generated case file: its evidence, its steps with premises, its derivations.

    ``derivation`` maps each step to every item its derivation rests on; it is
    the generator's ground truth.
    """

    name: str
    evidence: tuple[RecordId, ...]
    steps: tuple[tuple[RecordId, tuple[RecordId, ...]], ...]
    derivation: Mapping[RecordId, frozenset[RecordId]]
    retractions: tuple[RecordId, ...]

    def gold_affected(self, withdrawn: RecordId) -> frozenset[RecordId]:
        """The steps whose derivation rests on ``withdrawn``: they lose support."""
        return frozenset(s for s, rests_on in self.derivation.items() if withdrawn in rests_on)


@dataclass(frozen=True, slots=True)
class Scenario:
    """One counterfactual retraction: the gold set and what each query returned."""

    case: str
    withdrawn: RecordId
    gold: frozenset[RecordId]
    one_step: frozenset[RecordId]
    closure: frozenset[RecordId]


def _is_derivation_of(case: CaseFile) -> bool:
    premises = dict(case.steps)
    return all(
        rests_on == set(premises[s]).union(*(case.derivation.get(p, set()) for p in premises[s]))
        for s, rests_on in case.derivation.items()
    )


@icontract.ensure(
    lambda result: _is_derivation_of(result),
    "a step's derivation is its premises and everything they rest on",
)
@icontract.ensure(
    lambda result: (
        len(set(result.retractions)) == RETRACTIONS_PER_FILE
        and set(result.retractions) <= set(result.evidence)
    ),
    "four distinct evidence items are withdrawn",
)
def generate_case_file(seed: int, index: int) -> CaseFile:
    """The ``index``-th case file of the seeded series ``seed``."""
    rng = random.Random(f"{seed}:{index}")
    name = f"case{index + 1:02d}"
    evidence = tuple(f"{name}.e{n}" for n in range(1, rng.randint(*EVIDENCE_ITEMS) + 1))
    unused = list(evidence)
    steps: list[tuple[RecordId, tuple[RecordId, ...]]] = []
    derivation: dict[RecordId, frozenset[RecordId]] = {}
    for n in range(1, rng.randint(*REASONING_STEPS) + 1):
        step = f"{name}.s{n}"
        premises: list[RecordId] = []
        if steps and rng.random() < BUILDS_ON_A_STEP:
            # Recent steps are likelier premises: reasoning builds on what it just found.
            back = min(len(steps), 1 + int(rng.expovariate(0.5)))
            premises.append(steps[-back][0])
        wanted = rng.randint(*PREMISES_PER_STEP)
        while len(premises) < wanted:
            # Every evidence item is used before any is reused.
            pool = unused or list(evidence)
            choice = rng.choice(pool)
            if choice not in premises:
                premises.append(choice)
                if choice in unused:
                    unused.remove(choice)
        steps.append((step, tuple(premises)))
        derivation[step] = frozenset(premises).union(*(derivation.get(p, ()) for p in premises))
    withdrawn = tuple(rng.sample(evidence, RETRACTIONS_PER_FILE))
    return CaseFile(name, evidence, tuple(steps), derivation, withdrawn)


def _verifier_for(case: CaseFile) -> Verifier:
    verifier = Verifier([_INVESTIGATOR])
    observed = tuple(Observe(e, f"evidence {e}") for e in case.evidence)
    reasoned = tuple(Hypothesize(s, f"step {s}", depends_on=premises) for s, premises in case.steps)
    verifier.apply_turn(Turn(_INVESTIGATOR, observed))
    for step in reasoned:
        verifier.apply_turn(Turn(_INVESTIGATOR, (step,)))
    return verifier


@icontract.ensure(
    lambda cases, result: len(result) == RETRACTIONS_PER_FILE * len(cases),
    "one scenario per counterfactual retraction",
)
def retraction_study(cases: tuple[CaseFile, ...]) -> tuple[Scenario, ...]:
    """Ask every case file's retractions of Affected and Affected* (Definition 2.3)."""
    scenarios: list[Scenario] = []
    for case in cases:
        verifier = _verifier_for(case)
        for withdrawn in case.retractions:
            scenarios.append(
                Scenario(
                    case=case.name,
                    withdrawn=withdrawn,
                    gold=case.gold_affected(withdrawn),
                    one_step=frozenset(verifier.affected(withdrawn)),
                    closure=frozenset(verifier.affected_star(withdrawn)),
                )
            )
    return tuple(scenarios)
