"""Support(target, evidence): the evidence joins Dep(target); [up gamma] or [up-up gamma].

Mirrors ``process_support`` of ``spec/gcv/spec/transition.py``: its row of Table 3, its
preconditions in clause order, its argumentation effect and its DEL realisation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

import gcv.reference.rules.form as form
import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.errors import PreconditionViolation
from gcv.reference.identifiers import AgentId
from gcv.reference.records import Standing
from gcv.reference.rules.rule import Registration, Row, Rule

__all__ = ["SUPPORT", "Support", "realisation"]


@dataclass(frozen=True, slots=True, repr=False)
class Support(shared.Citing):
    """Support: add the evidence record alpha_e to Dep(target) (DEL: [up gamma]).

    With ``evidence_claim`` the evidence is registered as a new record of its own;
    without it, ``evidence`` names an existing record in good standing.
    gamma is ``formula``, else the target's formula; ``specific`` evidence (evidence
    specific to gamma) makes the upgrade lexicographic, [up-up gamma].
    """

    name: ClassVar[str] = "support"
    specific: Annotated[
        form.Flag,
        form.Described("evidence specific to gamma: [up-up gamma] instead of [up gamma]."),
    ] = False


def preconditions(
    op: Support, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
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


def effect(op: Support, dmap: DependencyMap, speaker: AgentId, row: Row) -> None:
    """The evidence (registered when it carries a claim) joins Dep(target) and its
    speaker commits to it; then gamma's upgrade."""
    shared.register_evidence(dmap, op, speaker)
    # T3.support.evidence-joins-dep
    dmap.add_dependency(op.target, op.evidence)
    # T3.support.no-label-change: the row adds no attack and sets no label.
    shared.apply_row(dmap, op.target, row, ())
    shared.update_target(dmap, op, realisation(op))


SUPPORT = Rule(
    value=Support,
    row=Row(
        registers=Registration.EVIDENCE,
        # T3.support.target-standing: Support changes no label, so it may target any record
        # not abandoned.
        target_standing=frozenset({Standing.ACTIVE, Standing.WEAKENED, Standing.RESOLVED}),
        # T3.evidence.existing-in-good-standing
        grounds_in_good_standing=True,
    ),
    preconditions=preconditions,
    effect=effect,
    realisation=realisation,
)
