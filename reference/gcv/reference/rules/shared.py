"""The checks and effects several operations share, each under the clause it implements.

Mirrors the section "preconditions and effects shared by several operations" of
``spec/gcv/spec/transition.py``.  An operation's home calls these in its own clause order, so
the first violated clause, and with it the error code, is the one the spec names
(clauses ``order.fields`` and ``order.cited-record-checks``: fields in declaration
order, and within a field self-reference, existence, standing).

The checks are pure: they read a :class:`~gcv.reference.depmap.StateView` and return
the violation as a typed error, or ``None``.  The effects write through the dependency
map's journaled primitives, inside the turn's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, ClassVar, Protocol

from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.formula import Formula, Not
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.updates import (
    announce,
    conservative_upgrade,
    lexicographic_upgrade,
)
from gcv.reference.errors import (
    AttackedTarget,
    DuplicateRecord,
    PreconditionViolation,
    SelfReference,
    UnknownAgent,
    UnknownRecord,
    WrongStanding,
)
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.records import GOOD_STANDING, Kind, Record
from gcv.reference.rules import form
from gcv.reference.rules.rule import Realisation, Row, Update

__all__ = [
    "Citing",
    "Realisation",
    "Targeting",
    "Update",
    "agents",
    "apply_row",
    "cited",
    "evidence",
    "first",
    "new_record",
    "realise",
    "register",
    "register_evidence",
    "registering",
    "target",
    "update_target",
]


class Targeting(Protocol):
    """An operation on a target (Support, Undermine, Revise, Resolve)."""

    @property
    def name(self) -> str: ...
    @property
    def target(self) -> RecordId: ...
    @property
    def formula(self) -> Formula | None: ...


@dataclass(frozen=True, slots=True, repr=False)
class Citing:
    """The fields of an operation that cites evidence for or against its target (Support,
    Undermine): with ``evidence_claim`` the evidence is registered as a new record resting
    on ``evidence_depends_on``; without it, ``evidence`` names an existing record."""

    name: ClassVar[str]
    __repr__ = form.show
    target: form.Identifier
    evidence: form.Identifier
    evidence_claim: form.OptionalClaim = None
    evidence_depends_on: form.Identifiers = ()
    formula: Annotated[
        form.OptionalFormula, form.Described("gamma (default: the target's formula).")
    ] = None

    def __post_init__(self) -> None:
        form.check_fields(self)
        form.check_evidence_dependencies(self.name, self.evidence_claim, self.evidence_depends_on)


# -- preconditions -------------------------------------------------------------------------


def first(*checks: PreconditionViolation | None) -> PreconditionViolation | None:
    """The first violation among ``checks``, in the order the clauses are checked."""
    return next((c for c in checks if c is not None), None)


def new_record(view: StateView, field: str, record: RecordId) -> PreconditionViolation | None:
    """T3.register.id-new: a new record's identifier is not yet registered."""
    if record in view.standing:
        return DuplicateRecord(
            f"record {record!r} is already registered", field=field, record=record
        )
    return None


def cited(
    view: StateView,
    field: str,
    records: Iterable[RecordId],
    *,
    not_self: RecordId | None,
    in_good_standing: bool,
) -> PreconditionViolation | None:
    """Each record ``field`` cites, in the order written: T3.cite.not-self, then
    T3.cite.registered, then (when ``in_good_standing``) the field's standing clause."""
    for record in records:
        if record == not_self:
            return SelfReference(
                f"record {record!r} cannot cite itself in {field}", field=field, record=record
            )
        if record not in view.standing:
            return UnknownRecord(f"record {record!r} is not registered", field=field, record=record)
        if in_good_standing and view.standing[record] not in GOOD_STANDING:
            return WrongStanding(
                f"record {record!r} is {view.standing[record].value}; "
                f"{field} must be active or resolved",
                field=field,
                record=record,
            )
    return None


def registering(
    view: StateView,
    record: RecordId,
    depends_on: Sequence[RecordId],
    *,
    field: str = "id",
    depends_field: str = "depends_on",
) -> PreconditionViolation | None:
    """A record an operation registers: T3.register.id-new, then what it depends on
    (T3.register.depends-on-any-standing: records of any label)."""
    return first(
        new_record(view, field, record),
        cited(view, depends_field, depends_on, not_self=record, in_good_standing=False),
    )


def target(view: StateView, op: Targeting, row: Row) -> PreconditionViolation | None:
    """The target: T3.cite.registered, then the row's standing clause
    (``target_standing``), then T3.resolve.target-unattacked when the row asks it."""
    record = op.target
    if record not in view.standing:
        return UnknownRecord(f"record {record!r} is not registered", field="target", record=record)
    label = view.standing[record]
    if label not in row.target_standing:
        allowed = ", ".join(sorted(s.value for s in row.target_standing))
        return WrongStanding(
            f"{op.name} needs its target {allowed}; {record!r} is {label.value}",
            field="target",
            record=record,
        )
    if row.target_unattacked and view.attackers.get(record):
        attackers = ", ".join(sorted(view.attackers[record]))
        return AttackedTarget(
            f"{op.name} needs a target with no recorded attack; "
            f"{record!r} is attacked by {attackers}",
            field="target",
            record=record,
        )
    return None


def evidence(view: StateView, op: Citing, row: Row) -> PreconditionViolation | None:
    """Support's and Undermine's evidence: T3.evidence.not-target; then, without a claim,
    an existing record (T3.evidence.existing-in-good-standing, through the row's
    ``grounds_in_good_standing``), with one a new record and its ``evidence_depends_on``
    (T3.register.id-new, T3.register.depends-on-any-standing)."""
    if op.evidence == op.target:
        return SelfReference(
            f"record {op.target!r} cannot be its own evidence", field="evidence", record=op.target
        )
    if op.evidence_claim is None:
        return cited(
            view,
            "evidence",
            (op.evidence,),
            not_self=None,
            in_good_standing=row.grounds_in_good_standing,
        )
    return registering(
        view,
        op.evidence,
        op.evidence_depends_on,
        field="evidence",
        depends_field="evidence_depends_on",
    )


def agents(
    view: StateView, field: str, named: Iterable[AgentId], *, not_self: AgentId | None = None
) -> PreconditionViolation | None:
    """Each agent ``field`` names is in Ags; with ``not_self``, is not that agent."""
    for agent in named:
        if agent not in view.agents:
            return UnknownAgent(f"agent {agent!r} is not in Ags", field=field)
        if agent == not_self:
            return SelfReference(
                f"the speaker {agent!r} cannot dissent from their own decision", field=field
            )
    return None


# -- effects -------------------------------------------------------------------------------


def register(
    dmap: DependencyMap,
    record: RecordId,
    claim: str,
    kind: Kind,
    speaker: AgentId,
    depends_on: tuple[RecordId, ...],
    formula: Formula | None = None,
) -> None:
    """T3.register.new-active and T3.register.dep: a new active record of this turn,
    resting on ``depends_on``."""
    dmap.add_record(Record(record, claim, speaker, dmap.turn + 1, kind, formula))
    for support in depends_on:
        dmap.add_dependency(record, support)


def register_evidence(dmap: DependencyMap, op: Citing, speaker: AgentId) -> None:
    """T3.evidence.registered-with-claim and T3.evidence.speaker-commits: evidence with a
    claim is a new record; without one it is an existing record, reused
    (T3.evidence.existing-commits-speaker).  Either way the speaker commits to it."""
    if op.evidence_claim is not None:
        register(
            dmap, op.evidence, op.evidence_claim, Kind.EVIDENCE, speaker, op.evidence_depends_on
        )
    dmap.commit(speaker, op.evidence)


def apply_row(
    dmap: DependencyMap, record: RecordId, row: Row, attackers: Iterable[RecordId]
) -> None:
    """The row's attack and label effects on the target (Lemma 2.2's proof): the
    ``attackers`` attack it when the row says so, and it takes the row's label."""
    if row.attacks_target:
        for attacker in attackers:
            dmap.add_attack(attacker, record)
    if row.target_becomes is not None:
        dmap.set_standing(record, row.target_becomes)


# -- the DEL realisation of an operation on a target ---------------------------------------


def realise(model: PlausibilityModel, reading: Realisation, formula: Formula) -> PlausibilityModel:
    """``model`` after ``reading`` of ``formula`` (of its negation when ``negated``)."""
    acted_on = Not(formula) if reading.negated else formula
    match reading.update:
        case Update.HARD_ANNOUNCEMENT:
            return announce(model, acted_on)
        case Update.LEXICOGRAPHIC_UPGRADE:
            return lexicographic_upgrade(model, acted_on)
        case Update.CONSERVATIVE_UPGRADE:
            return conservative_upgrade(model, acted_on)
    return model


def update_target(dmap: DependencyMap, op: Targeting, reading: Realisation) -> None:
    """Apply ``reading`` to gamma: the operation's own formula, else its target's.  With
    neither, or a reading that changes nothing, M_t is left as it is, at no cost."""
    gamma = op.formula if op.formula is not None else dmap.records[op.target].formula
    if gamma is None or reading.update is None:
        return
    state = dmap.epistemic
    dmap.replace_epistemic(EpistemicState(realise(state.model, reading, gamma), state.problems))
