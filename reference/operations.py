"""The eight operations (Section 2, Table 3) as typed, immutable values.

An operation value is well formed by construction: its fields are checked
when it is built and a :class:`~reference.errors.MalformedOperation` names the
field that is wrong.  Whether it may be *applied* depends on the state; that
is the job of :mod:`reference.preconditions`.

Within a turn the engine applies operations in the fixed order of
:data:`APPLICATION_ORDER` (the paper fixes an order without listing it; see
spec/normative.md, "Operation order"), keeping the written order among
operations of the same kind.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

import icontract

from reference.errors import MalformedOperation
from reference.records import MAX_CLAIM_LENGTH, AgentId, Kind, RecordId, is_identifier

__all__ = [
    "APPLICATION_ORDER",
    "ExpandAwareness",
    "Hypothesize",
    "Observe",
    "Operation",
    "OperationKind",
    "Question",
    "Resolve",
    "Revise",
    "Support",
    "Undermine",
    "in_application_order",
]


class OperationKind(enum.Enum):
    """The eight operations, declared in the order the engine applies them within a turn."""

    EXPAND_AWARENESS = "expand-awareness"
    OBSERVE = "observe"
    HYPOTHESIZE = "hypothesize"
    SUPPORT = "support"
    UNDERMINE = "undermine"
    REVISE = "revise"
    RESOLVE = "resolve"
    QUESTION = "question"


APPLICATION_ORDER: tuple[OperationKind, ...] = tuple(OperationKind)
"""Expand-Awareness first, so new atoms are in Prop_t before records use them; then
the operations that register records, before those that reference them; Question last."""

_RANK = {kind: rank for rank, kind in enumerate(APPLICATION_ORDER)}


def _fail(kind: OperationKind, field: str, detail: str) -> MalformedOperation:
    return MalformedOperation(f"{kind.value}: {detail}", field=field)


def _check_identifier(kind: OperationKind, field: str, value: object) -> None:
    if not is_identifier(value):
        raise _fail(kind, field, f"{value!r} is not a well-formed identifier")


def _check_identifiers(kind: OperationKind, field: str, values: object) -> None:
    if not isinstance(values, tuple):
        raise _fail(kind, field, f"expected a tuple of identifiers, got {type(values).__name__}")
    for value in values:
        _check_identifier(kind, field, value)
    if len(set(values)) != len(values):
        raise _fail(kind, field, f"repeats an identifier: {list(values)!r}")


def _check_claim(kind: OperationKind, field: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise _fail(kind, field, "a claim must be a non-empty string")
    if len(value) > MAX_CLAIM_LENGTH:
        raise _fail(kind, field, f"a claim is at most {MAX_CLAIM_LENGTH} characters")


def _check_kind(kind: OperationKind, value: object, allowed: frozenset[Kind]) -> None:
    if value not in allowed:
        names = sorted(k.value for k in allowed)
        raise _fail(kind, "kind", f"record kind {value!r} is not one of {names}")


def _check_flag(kind: OperationKind, field: str, value: object) -> None:
    if not isinstance(value, bool):
        raise _fail(kind, field, f"expected true or false, got {value!r}")


def _check_evidence(
    kind: OperationKind, evidence: object, claim: object, depends_on: object
) -> None:
    _check_identifier(kind, "evidence", evidence)
    if claim is None:
        if depends_on != ():
            raise _fail(
                kind,
                "evidence_depends_on",
                "dependencies can only be given when the evidence is registered "
                "(with evidence_claim)",
            )
    else:
        _check_claim(kind, "evidence_claim", claim)
    _check_identifiers(kind, "evidence_depends_on", depends_on)


@dataclass(frozen=True, slots=True)
class Observe:
    """Observe: register an observed claim psi as a new active record (DEL: [!psi]).

    ``kind`` is ``observation`` or ``premise`` (an assumption a decision may rest on).
    The speaker commits to the record.
    """

    operation: ClassVar[OperationKind] = OperationKind.OBSERVE
    id: RecordId
    claim: str
    kind: Kind = Kind.OBSERVATION
    depends_on: tuple[RecordId, ...] = ()

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "id", self.id)
        _check_claim(self.operation, "claim", self.claim)
        _check_kind(self.operation, self.kind, frozenset({Kind.OBSERVATION, Kind.PREMISE}))
        _check_identifiers(self.operation, "depends_on", self.depends_on)


@dataclass(frozen=True, slots=True)
class Hypothesize:
    """Hypothesize: register a hypothesis gamma as a new active record (DEL: [up-up gamma]).

    ``kind`` is ``hypothesis`` or ``position`` (an IBIS position, "adopt P_n").
    ``depends_on`` are the records it rests on.  No commitment is made.
    """

    operation: ClassVar[OperationKind] = OperationKind.HYPOTHESIZE
    id: RecordId
    claim: str
    kind: Kind = Kind.HYPOTHESIS
    depends_on: tuple[RecordId, ...] = ()

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "id", self.id)
        _check_claim(self.operation, "claim", self.claim)
        _check_kind(self.operation, self.kind, frozenset({Kind.HYPOTHESIS, Kind.POSITION}))
        _check_identifiers(self.operation, "depends_on", self.depends_on)


@dataclass(frozen=True, slots=True)
class Support:
    """Support: add the evidence record alpha_e to Dep(target) (DEL: [up gamma]).

    With ``evidence_claim`` the evidence is registered as a new record of its own;
    without it, ``evidence`` names an existing record in good standing.
    """

    operation: ClassVar[OperationKind] = OperationKind.SUPPORT
    target: RecordId
    evidence: RecordId
    evidence_claim: str | None = None
    evidence_depends_on: tuple[RecordId, ...] = ()

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "target", self.target)
        _check_evidence(
            self.operation, self.evidence, self.evidence_claim, self.evidence_depends_on
        )


@dataclass(frozen=True, slots=True)
class Undermine:
    """Undermine: add the attack (alpha_e, target) and label the target weakened.

    DEL: a plausibility downgrade of gamma.  The evidence is registered or
    reused exactly as for :class:`Support`.
    """

    operation: ClassVar[OperationKind] = OperationKind.UNDERMINE
    target: RecordId
    evidence: RecordId
    evidence_claim: str | None = None
    evidence_depends_on: tuple[RecordId, ...] = ()

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "target", self.target)
        _check_evidence(
            self.operation, self.evidence, self.evidence_claim, self.evidence_depends_on
        )


@dataclass(frozen=True, slots=True)
class Revise:
    """Revise: add an attack from each of ``attackers`` on the target and label it abandoned.

    DEL: [!not gamma], or the attack additions alone.  The speaker's commitment
    to the target, if any, is retracted.
    """

    operation: ClassVar[OperationKind] = OperationKind.REVISE
    target: RecordId
    attackers: tuple[RecordId, ...] = ()

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "target", self.target)
        _check_identifiers(self.operation, "attackers", self.attackers)


@dataclass(frozen=True, slots=True)
class Resolve:
    """Resolve: label the target resolved (DEL: consensual [!gamma], or a decision with dissent).

    ``subsumes``: each subsumed record gains a Dep link to the target (A.3).
    An ``authoritative`` Resolve is a decision: it may add the ``premises`` it
    rests on to Dep(target) and record the ``dissenters``.
    """

    operation: ClassVar[OperationKind] = OperationKind.RESOLVE
    target: RecordId
    subsumes: tuple[RecordId, ...] = ()
    authoritative: bool = False
    premises: tuple[RecordId, ...] = ()
    dissenters: tuple[AgentId, ...] = ()

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "target", self.target)
        _check_identifiers(self.operation, "subsumes", self.subsumes)
        _check_flag(self.operation, "authoritative", self.authoritative)
        _check_identifiers(self.operation, "premises", self.premises)
        _check_identifiers(self.operation, "dissenters", self.dissenters)
        if not self.authoritative:
            for field in ("premises", "dissenters"):
                if getattr(self, field):
                    raise _fail(
                        self.operation, field, f"only an authoritative Resolve records {field}"
                    )


@dataclass(frozen=True, slots=True)
class ExpandAwareness:
    """Expand-Awareness: add the atom p to Prop_t and to the awareness sets A_i.

    ``agents`` names the agents whose awareness grows; empty means every agent.
    """

    operation: ClassVar[OperationKind] = OperationKind.EXPAND_AWARENESS
    atom: str
    agents: tuple[AgentId, ...] = ()

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "atom", self.atom)
        _check_identifiers(self.operation, "agents", self.agents)


@dataclass(frozen=True, slots=True)
class Question:
    """Question: register the query chi as a new active question record (no DEL update)."""

    operation: ClassVar[OperationKind] = OperationKind.QUESTION
    id: RecordId
    claim: str
    depends_on: tuple[RecordId, ...] = ()

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "id", self.id)
        _check_claim(self.operation, "claim", self.claim)
        _check_identifiers(self.operation, "depends_on", self.depends_on)


Operation = (
    Observe | Hypothesize | Support | Undermine | Revise | Resolve | ExpandAwareness | Question
)


def _is_stable_order(
    operations: tuple[Operation, ...], result: list[tuple[int, Operation]]
) -> bool:
    ranks = [(_RANK[op.operation], index) for index, op in result]
    return sorted(i for i, _ in result) == list(range(len(operations))) and ranks == sorted(ranks)


@icontract.ensure(
    lambda operations, result: _is_stable_order(operations, result),
    "every operation once, in APPLICATION_ORDER, written order within a kind",
)
def in_application_order(operations: tuple[Operation, ...]) -> list[tuple[int, Operation]]:
    """Pair each operation with its written position and sort by :data:`APPLICATION_ORDER`.

    The sort is stable, so operations of one kind keep their written order.

    >>> ops = (Question("q1", "why?"), Observe("o1", "401s"))
    >>> [(i, op.operation.value) for i, op in in_application_order(ops)]
    [(1, 'observe'), (0, 'question')]
    """
    return sorted(enumerate(operations), key=lambda pair: _RANK[pair[1].operation])
