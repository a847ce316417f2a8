"""Undermine(target, evidence): attack (evidence, target), target weakened; a downgrade.

Mirrors ``process_undermine`` of ``spec/transition.py``: its row of Table 3, its
preconditions in clause order, its argumentation effect and its DEL realisation.
"""

from __future__ import annotations

import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.errors import PreconditionViolation
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import Undermine
from gcv.reference.records import Standing
from gcv.reference.rules.row import Registration, Rule

__all__ = ["ROW", "apply", "find_violation", "realisation"]

# Lemma 2.2's proof: "Undermine, whose precondition requires an active or weakened
# target, adds (alpha_e, alpha_gamma) and leaves st = weakened".
ROW = Rule(
    registers=Registration.EVIDENCE,
    # T3.undermine.target-standing
    target_standing=frozenset({Standing.ACTIVE, Standing.WEAKENED}),
    # T3.undermine.attack-weakened
    target_becomes=Standing.WEAKENED,
    attacks_target=True,
    # T3.evidence.existing-in-good-standing
    grounds_in_good_standing=True,
)


def find_violation(op: Undermine, view: StateView, row: Rule) -> PreconditionViolation | None:
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


def apply(dmap: DependencyMap, op: Undermine, speaker: AgentId, row: Rule) -> None:
    """The evidence (registered when it carries a claim) attacks the target, which is
    weakened, and its speaker commits to it; then gamma's downgrade."""
    shared.register_evidence(dmap, op, speaker)
    # T3.undermine.attack-weakened
    shared.apply_row(dmap, op.target, row, (op.evidence,))
    shared.update_target(dmap, op, realisation(op))
