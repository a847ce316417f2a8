"""Undermine(target, evidence): attack (evidence, target), target weakened; a downgrade.

Mirrors ``process_undermine`` of ``spec/gcv/spec/transition.py``: its row of Table 3, its
preconditions in clause order, its argumentation effect and its DEL realisation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

import gcv.reference.rules.form as form
import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.errors import PreconditionViolation
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.records import Standing
from gcv.reference.rules.rule import Registration, Row, Rule

__all__ = ["DOWNGRADES", "UNDERMINE", "Undermine", "realisation"]

DOWNGRADES = ("lexicographic", "conservative")
"""Undermine's downgrade family: [up-up ~gamma] (the default, B.2 T7) or [up ~gamma]."""


@dataclass(frozen=True, slots=True, repr=False)
class Undermine(shared.Citing):
    """Undermine: add the attack (alpha_e, target) and label the target weakened.

    DEL: a plausibility downgrade of gamma (``formula``, else the target's
    formula), from the family ``downgrade``: ``lexicographic`` [up-up ~gamma]
    (B.2, T7) or ``conservative`` [up ~gamma].  The evidence is registered or
    reused exactly as for Support.
    """

    name: ClassVar[str] = "undermine"
    downgrade: Annotated[
        str,
        form.Choice(*DOWNGRADES),
        form.Described("[up-up ~gamma] (lexicographic) or [up ~gamma]."),
    ] = "lexicographic"


def preconditions(
    op: Undermine, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``, or ``None``."""
    return shared.first(
        # T3.cite.registered, T3.undermine.target-standing
        shared.target(view, op, row),
        # T3.evidence.not-target, then the existing or new evidence's clauses
        shared.evidence(view, op, row),
    )


def realisation(op: Undermine) -> shared.Realisation:
    """del.undermine: [up-up ~gamma] (B.2 T7); del.undermine.conservative: [up ~gamma]."""
    if op.downgrade == "conservative":
        return shared.Realisation(shared.Update.CONSERVATIVE_UPGRADE, negated=True)
    return shared.Realisation(shared.Update.LEXICOGRAPHIC_UPGRADE, negated=True)


def attackers(op: Undermine) -> tuple[RecordId, ...]:
    """What attacks the target: the evidence."""
    return (op.evidence,)


def effect(op: Undermine, dmap: DependencyMap, speaker: AgentId, row: Row) -> None:
    """The evidence (registered when it carries a claim) attacks the target, which is
    weakened, and its speaker commits to it; then gamma's downgrade."""
    shared.register_evidence(dmap, op, speaker)
    # T3.undermine.attack-weakened
    shared.apply_row(dmap, op.target, row, attackers(op))
    shared.update_target(dmap, op, realisation(op))


# Lemma 2.2's proof: "Undermine, whose precondition requires an active or weakened
# target, adds (alpha_e, alpha_gamma) and leaves st = weakened".
UNDERMINE = Rule(
    value=Undermine,
    row=Row(
        registers=Registration.EVIDENCE,
        # T3.undermine.target-standing
        target_standing=frozenset({Standing.ACTIVE, Standing.WEAKENED}),
        # T3.undermine.attack-weakened
        target_becomes=Standing.WEAKENED,
        attacks_target=True,
        # T3.evidence.existing-in-good-standing
        grounds_in_good_standing=True,
    ),
    preconditions=preconditions,
    effect=effect,
    attackers=attackers,
    realisation=realisation,
)
