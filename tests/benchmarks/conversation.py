"""A seeded generator of conversations with the operation mix of Phases 2 and 3.

Each turn is one utterance: mostly observations and hypotheses resting on 1-4 recent
records, with supports, undermines, revisions, and resolutions that subsume earlier
hypotheses (making dependency cycles).  Every generated turn satisfies Table 3's
preconditions, because the generator reads the live map it is building.
"""

from __future__ import annotations

import random

from reference.operations import Hypothesize, Observe, Operation, Resolve, Revise, Support, Undermine
from reference.records import Kind, Standing
from reference.verifier import Turn, Verifier

__all__ = ["AGENTS", "generate"]

AGENTS = ("a", "b", "c")


def _turn(v: Verifier, rng: random.Random, n: int) -> Turn:
    records = list(v.state.records)
    hypotheses = [r for r in records if v.state.records[r].kind is Kind.HYPOTHESIS]
    speaker = rng.choice(AGENTS)
    roll = rng.random()
    ops: tuple[Operation, ...]
    if not records or roll < 0.35 or (roll >= 0.65 and not hypotheses):
        ops = (Observe(f"o{n}", f"observation {n}"),)
    elif roll < 0.65:
        recent = records[-30:]
        deps = tuple(rng.sample(recent, min(len(recent), rng.randint(1, 4))))
        ops = (Hypothesize(f"h{n}", f"hypothesis {n}", depends_on=deps),)
    else:
        target = rng.choice(hypotheses[-30:])
        label = v.standing(target)
        if roll < 0.78 and label is not Standing.ABANDONED:
            ops = (Support(target, f"e{n}", f"evidence {n}"),)
        elif roll < 0.86 and label in (Standing.ACTIVE, Standing.WEAKENED):
            ops = (Undermine(target, f"e{n}", f"counter-evidence {n}"),)
        elif roll < 0.92:
            ops = (Revise(target),)
        elif label is Standing.ACTIVE and not v.attackers(target):
            others = [h for h in hypotheses[-30:] if h != target]
            subsumed = tuple(rng.sample(others, min(len(others), rng.randint(0, 2))))
            ops = (Resolve(target, subsumes=subsumed),)
        else:
            ops = (Observe(f"o{n}", f"observation {n}"),)
    return Turn(speaker, ops)


def generate(turns: int, seed: int = 0) -> Verifier:
    """A verifier after ``turns`` generated turns (seeded: the same map every run)."""
    rng = random.Random(seed)
    v = Verifier(list(AGENTS))
    for n in range(1, turns + 1):
        v.apply_turn(_turn(v, rng, n))
    return v
