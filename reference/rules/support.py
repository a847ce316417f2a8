"""Support(target, evidence): the evidence joins Dep(target); [up gamma] or [up-up gamma].

Mirrors ``process_support`` of ``spec/transition.py``: its row of Table 3, its
preconditions in clause order, its argumentation effect and its DEL realisation.
"""

from __future__ import annotations

import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.errors import PreconditionViolation
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import Support
from gcv.reference.records import Standing
from gcv.reference.rules.row import Registration, Rule

__all__ = ["ROW", "apply", "find_violation", "realisation"]

ROW = Rule(
    registers=Registration.EVIDENCE,
    # T3.support.target-standing: Support changes no label, so it may target any record
    # not abandoned.
    target_standing=frozenset({Standing.ACTIVE, Standing.WEAKENED, Standing.RESOLVED}),
    # T3.evidence.existing-in-good-standing
    grounds_in_good_standing=True,
)


def find_violation(op: Support, view: StateView, row: Rule) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``, or ``None``."""
    return shared.first(
        # T3.cite.registered, T3.support.target-standing
        shared.target(view, op, row),
        # T3.evidence.not-target, then the existing or new evidence's clauses
        shared.evidence(view, op, row),
    )


def realisation(op: Support) -> shared.Realisation:
    """del.support: "[up gamma], or [up-up gamma] if gamma-specific evidence"."""
    if op.specific:
        return shared.Realisation(shared.Update.LEXICOGRAPHIC_UPGRADE)
    return shared.Realisation(shared.Update.CONSERVATIVE_UPGRADE)


def apply(dmap: DependencyMap, op: Support, speaker: AgentId, row: Rule) -> None:
    """The evidence (registered when it carries a claim) joins Dep(target) and its
    speaker commits to it; then gamma's upgrade."""
    shared.register_evidence(dmap, op, speaker)
    # T3.support.evidence-joins-dep
    dmap.add_dependency(op.target, op.evidence)
    # T3.support.no-label-change: the row adds no attack and sets no label.
    shared.apply_row(dmap, op.target, row, ())
    shared.update_target(dmap, op, realisation(op))
