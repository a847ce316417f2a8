"""Observe(psi): a new active record the speaker commits to; [!psi].

Mirrors ``process_observe`` of ``spec/gcv/spec/transition.py``, and the turn's
``process_announcements``: within a turn the observations' announcements are one
simultaneous announcement (``order.simultaneous-observations``), which the turn makes
after its last Observe (:func:`announce`, through the rule's :func:`settle`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, ClassVar

import icontract

import gcv.reference.rules.form as form
import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic.abduction import keeps_the_queue
from gcv.reference.epistemic.effects import (
    EpistemicState,
    announce_simultaneously,
    find_empty_announcement,
)
from gcv.reference.errors import GcvError, NoSurvivingWorld, PreconditionViolation
from gcv.reference.identifiers import AgentId
from gcv.reference.records import Kind
from gcv.reference.rules.rule import Registration, Row, Rule

__all__ = ["OBSERVE", "Observe", "announce", "settle"]


@dataclass(frozen=True, slots=True, repr=False)
class Observe:
    """Observe: register an observed claim psi as a new active record (DEL: [!psi]).

    ``kind`` is ``observation`` or ``premise`` (an assumption a decision may rest on).
    The speaker commits to the record.  ``formula`` is psi; the hard
    announcements of one turn's observations are simultaneous.
    """

    name: ClassVar[str] = "observe"
    __repr__ = form.show
    id: form.Identifier
    claim: form.Claim
    kind: Annotated[Kind, form.Kinds(Kind.OBSERVATION, Kind.PREMISE)] = Kind.OBSERVATION
    depends_on: form.Identifiers = ()
    formula: Annotated[
        form.OptionalFormula,
        form.Described("psi: [!psi]; a turn's announcements are simultaneous."),
    ] = None

    def __post_init__(self) -> None:
        form.check_fields(self)


def preconditions(
    op: Observe, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``, or ``None``."""
    # T3.register.id-new, then T3.cite.* over depends_on (T3.register.depends-on-any-standing)
    return shared.registering(view, op.id, op.depends_on)


def effect(op: Observe, dmap: DependencyMap, speaker: AgentId, row: Row) -> None:
    """Register the observation and commit its speaker; psi waits for :func:`announce`."""
    # T3.register.new-active, T3.register.dep; T3.observe.kind: the kind the trace gives
    shared.register(dmap, op.id, op.claim, op.kind, speaker, op.depends_on, op.formula)
    # T3.observe.speaker-commits
    dmap.commit(speaker, op.id)


def _only_eliminates(before: EpistemicState, after: EpistemicState) -> bool:
    if after is before:
        return True
    kept = set(before.model.explicit().worlds)
    return keeps_the_queue(before.problems, after.problems) and all(
        w in kept for w in after.model.worlds
    )


@icontract.snapshot(lambda dmap: dmap.epistemic, name="epistemic")
@icontract.ensure(
    lambda OLD, dmap: _only_eliminates(OLD.epistemic, dmap.epistemic),
    "[!psi] eliminates worlds and adds none; posed problems stay queued",
)
def announce(dmap: DependencyMap, observed: Sequence[tuple[int, Observe]]) -> None:
    """del.observe: the hard announcements of one turn's observations, simultaneously.

    Each psi is read in M_t as the turn's Observe phase found it; the worlds where
    any fails are eliminated at once, and each observation poses its abductive
    problems (Definition A.2, del.observe.poses-problems).

    Raises
    ------
    NoSurvivingWorld
        No world satisfies them all (del.announcement.some-world-survives); ``record``
        and the operation's position name the observation at which the conjunction (in
        the turn's order) first became unsatisfiable.
    """
    announced = [(i, op.id, op.formula) for i, op in observed if op.formula is not None]
    if not announced:
        return
    try:
        model = dmap.model.explicit()
    except GcvError as error:
        error.record = announced[0][1]
        raise error.locate(
            turn=dmap.turn + 1, operation_index=announced[0][0], operation=Observe.name
        ) from None
    position = find_empty_announcement(model, [formula for _, _, formula in announced])
    if position is not None:
        index, record, formula = announced[position]
        raise NoSurvivingWorld(
            f"after announcing {formula} with the turn's earlier observations no world of "
            "W_t is left",
            field="formula",
            record=record,
        ).locate(turn=dmap.turn + 1, operation_index=index, operation=Observe.name)
    pairs = [(record, formula) for _, record, formula in announced]
    dmap.replace_epistemic(announce_simultaneously(dmap.epistemic, pairs))


def settle(dmap: DependencyMap, observed: Sequence[tuple[int, Observe]]) -> None:
    """What the turn does once its observations are applied: their psi announced together
    (:func:`announce`), when one of them gives a psi."""
    if any(op.formula is not None for _, op in observed):
        announce(dmap, observed)


OBSERVE = Rule(
    value=Observe,
    row=Row(registers=Registration.ALWAYS),
    preconditions=preconditions,
    effect=effect,
    settle=settle,
)
