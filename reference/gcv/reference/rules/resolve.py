"""Resolve(target): target resolved; subsumed records rest on it, a decision rests on its
premises and records dissent; consensual [!gamma].

Mirrors ``process_resolve`` of ``spec/gcv/spec/transition.py``: its row of Table 3, its
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

__all__ = ["RESOLVE", "Resolve", "realisation"]


@dataclass(frozen=True, slots=True, repr=False)
class Resolve:
    """Resolve: label the target resolved (DEL: consensual [!gamma], or a decision with dissent).

    ``subsumes``: each subsumed record gains a Dep link to the target (A.3).
    An ``authoritative`` Resolve is a decision: it may add the ``premises`` it
    rests on to Dep(target) and record the ``dissenters``; it changes nothing in
    M_t.  A consensual Resolve announces gamma: ``formula``, else the target's.
    """

    name: ClassVar[str] = "resolve"
    __repr__ = form.show
    target: form.Identifier
    subsumes: form.Identifiers = ()
    authoritative: form.Flag = False
    premises: form.Identifiers = ()
    dissenters: form.Identifiers = ()
    formula: Annotated[
        form.OptionalFormula,
        form.Described("consensual only: gamma of [!gamma] (default: the target's formula)."),
    ] = None

    def __post_init__(self) -> None:
        form.check_fields(self)
        # T3.resolve.decision-fields
        if not self.authoritative:
            for field in ("premises", "dissenters"):
                if getattr(self, field):
                    raise form.fail(
                        self.name, field, f"only an authoritative Resolve records {field}"
                    )
        elif self.formula is not None:
            raise form.fail(
                self.name,
                "formula",
                "only a consensual Resolve announces a formula; a decision records dissent",
            )


def preconditions(
    op: Resolve, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``, or ``None``."""
    return shared.first(
        # T3.cite.registered, T3.resolve.target-in-good-standing, T3.resolve.target-unattacked
        shared.target(view, op, row),
        # T3.cite.not-self, T3.cite.registered; T3.resolve.subsumes-any-standing
        shared.cited(view, "subsumes", op.subsumes, not_self=op.target, in_good_standing=False),
        # T3.cite.not-self, T3.cite.registered, T3.resolve.premises-in-good-standing
        shared.cited(
            view,
            "premises",
            op.premises,
            not_self=op.target,
            in_good_standing=row.grounds_in_good_standing,
        ),
        # T3.resolve.dissenters-in-ags, T3.resolve.dissenter-not-speaker
        shared.agents(view, "dissenters", op.dissenters, not_self=speaker),
    )


def realisation(op: Resolve) -> shared.Realisation:
    """del.resolve: "consensual [!gamma], or decision recording dissent" (no update)."""
    if op.authoritative:
        return shared.Realisation(None)
    return shared.Realisation(shared.Update.HARD_ANNOUNCEMENT)


def effect(op: Resolve, dmap: DependencyMap, speaker: AgentId, row: Row) -> None:
    """Link the subsumed records and the premises, record dissent and commitments, label
    the target resolved; then a consensus's [!gamma]."""
    # T3.resolve.subsumes-dep (A.3): the cross-hypothesis link that did not exist when
    # the subsumed records were created.
    for subsumed in op.subsumes:
        dmap.add_dependency(subsumed, op.target)
    # T3.resolve.premises-join-dep
    for premise in op.premises:
        dmap.add_dependency(op.target, premise)
    # T3.resolve.resolved: its dissent is recorded
    for dissenter in op.dissenters:
        dmap.record_dissent(op.target, dissenter)
    # T3.resolve.commitments: a consensus commits everyone, a decision its speaker.
    for agent in (speaker,) if op.authoritative else dmap.agents:
        dmap.commit(agent, op.target)
    # T3.resolve.resolved
    shared.apply_row(dmap, op.target, row, ())
    shared.update_target(dmap, op, realisation(op))


# "Resolve sets st = resolved only when alpha_gamma in S_t and no attack on it is
# recorded (Table 3)".
RESOLVE = Rule(
    value=Resolve,
    row=Row(
        registers=Registration.NEVER,
        # T3.resolve.target-in-good-standing
        target_standing=frozenset({Standing.ACTIVE, Standing.RESOLVED}),
        # T3.resolve.target-unattacked
        target_unattacked=True,
        # T3.resolve.resolved
        target_becomes=Standing.RESOLVED,
        # T3.resolve.premises-in-good-standing
        grounds_in_good_standing=True,
    ),
    preconditions=preconditions,
    effect=effect,
    realisation=realisation,
)
