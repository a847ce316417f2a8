"""The eight operations (Section 2, Table 3) as typed, immutable values.

An operation value is well formed by construction: its fields are checked
when it is built and a :class:`~gcv.reference.errors.MalformedOperation` names the
field that is wrong.  Whether it may be *applied* depends on the state; that
is the job of each operation's home in :mod:`gcv.reference.rules`.

Each operation may carry the formula its DEL realisation needs (Section 2's
table: psi for Observe, gamma for Hypothesize, Support, Undermine, Revise and
Resolve, chi for Question).  An operation with no formula, whose target has
none either, changes nothing in M_t (see :mod:`gcv.reference.rules`).

Within a turn the engine applies operations in the fixed order of
:data:`APPLICATION_ORDER` (the paper fixes an order without listing it; see
spec/normative.md, "Operation order"), keeping the written order among
operations of the same kind.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import ClassVar

import icontract

from gcv.reference.epistemic.formula import MAX_DEPTH, Formula, is_atom_name
from gcv.reference.errors import MalformedOperation
from gcv.reference.identifiers import AgentId, RecordId, is_identifier, name_list_problem
from gcv.reference.records import MAX_CLAIM_LENGTH, Kind

__all__ = [
    "APPLICATION_ORDER",
    "DOWNGRADES",
    "EPISTEMIC_FIELDS",
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
    "own_formula",
    "target_of",
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
    problem = name_list_problem(values)
    if problem is not None:
        raise _fail(kind, field, problem)


def _check_claim(kind: OperationKind, field: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise _fail(kind, field, "a claim must be a non-empty string")
    if len(value) > MAX_CLAIM_LENGTH:
        raise _fail(kind, field, f"a claim is at most {MAX_CLAIM_LENGTH} characters")


def _check_kind(kind: OperationKind, value: object, allowed: frozenset[Kind]) -> None:
    if not isinstance(value, Kind) or value not in allowed:
        names = sorted(k.value for k in allowed)
        raise _fail(kind, "kind", f"record kind {value!r} is not one of {names}")


def _check_flag(kind: OperationKind, field: str, value: object) -> None:
    if not isinstance(value, bool):
        raise _fail(kind, field, f"expected true or false, got {value!r}")


def _check_formula(kind: OperationKind, value: object) -> None:
    # The bare base class builds no formula of the language (CrossHair found that
    # ``Formula()`` passed this check and then broke the JSON encoding).
    if value is not None and (not isinstance(value, Formula) or type(value) is Formula):
        raise _fail(kind, "formula", f"expected a formula, got {type(value).__name__}")
    if value is not None and value.depth > MAX_DEPTH:
        raise _fail(kind, "formula", f"a formula may be nested at most {MAX_DEPTH} deep")


def _check_atoms(kind: OperationKind, field: str, values: object) -> None:
    if not isinstance(values, tuple):
        raise _fail(kind, field, f"expected a tuple of atoms, got {type(values).__name__}")
    for value in values:
        if not is_atom_name(value):
            raise _fail(kind, field, f"{value!r} cannot be written as an atom in a formula")
    if len(set(values)) != len(values):
        raise _fail(kind, field, f"repeats an atom: {list(values)!r}")


EPISTEMIC_FIELDS = frozenset({"formula", "introduces", "specific", "downgrade", "announce"})
"""The fields that carry an operation's epistemic inputs (the same names in a trace)."""


def _show(op: object) -> str:
    """The dataclass repr, leaving out the epistemic fields at their defaults (so an
    operation without a formula reads as it always has)."""
    shown = []
    for field in dataclasses.fields(op):  # type: ignore[arg-type]
        value = getattr(op, field.name)
        if field.name in EPISTEMIC_FIELDS and value == field.default:
            continue
        shown.append(f"{field.name}={value!r}")
    return f"{type(op).__name__}({', '.join(shown)})"


DOWNGRADES = ("lexicographic", "conservative")
"""Undermine's downgrade family: [up-up ~gamma] (the default, B.2 T7) or [up ~gamma]."""


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


@dataclass(frozen=True, slots=True, repr=False)
class Observe:
    """Observe: register an observed claim psi as a new active record (DEL: [!psi]).

    ``kind`` is ``observation`` or ``premise`` (an assumption a decision may rest on).
    The speaker commits to the record.  ``formula`` is psi; the hard
    announcements of one turn's observations are simultaneous.
    """

    operation: ClassVar[OperationKind] = OperationKind.OBSERVE
    __repr__ = _show
    id: RecordId
    claim: str
    kind: Kind = Kind.OBSERVATION
    depends_on: tuple[RecordId, ...] = ()
    formula: Formula | None = None

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "id", self.id)
        _check_claim(self.operation, "claim", self.claim)
        _check_kind(self.operation, self.kind, frozenset({Kind.OBSERVATION, Kind.PREMISE}))
        _check_identifiers(self.operation, "depends_on", self.depends_on)
        _check_formula(self.operation, self.formula)


@dataclass(frozen=True, slots=True, repr=False)
class Hypothesize:
    """Hypothesize: register a hypothesis gamma as a new active record (DEL: [up-up gamma]).

    ``kind`` is ``hypothesis`` or ``position`` (an IBIS position, "adopt P_n").
    ``depends_on`` are the records it rests on.  No commitment is made.
    ``formula`` is gamma; ``introduces`` are the new atoms gamma brings into
    Prop_t (B.2's integration step: Prop_5 = Prop_4 + {h1, rate_bypass}), every
    agent becoming aware of them, before gamma is checked against the open
    abductive problems and upgraded.
    """

    operation: ClassVar[OperationKind] = OperationKind.HYPOTHESIZE
    __repr__ = _show
    id: RecordId
    claim: str
    kind: Kind = Kind.HYPOTHESIS
    depends_on: tuple[RecordId, ...] = ()
    formula: Formula | None = None
    introduces: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "id", self.id)
        _check_claim(self.operation, "claim", self.claim)
        _check_kind(self.operation, self.kind, frozenset({Kind.HYPOTHESIS, Kind.POSITION}))
        _check_identifiers(self.operation, "depends_on", self.depends_on)
        _check_formula(self.operation, self.formula)
        _check_atoms(self.operation, "introduces", self.introduces)


@dataclass(frozen=True, slots=True, repr=False)
class Support:
    """Support: add the evidence record alpha_e to Dep(target) (DEL: [up gamma]).

    With ``evidence_claim`` the evidence is registered as a new record of its own;
    without it, ``evidence`` names an existing record in good standing.
    gamma is ``formula``, else the target's formula; ``specific`` evidence (evidence
    specific to gamma) makes the upgrade lexicographic, [up-up gamma].
    """

    operation: ClassVar[OperationKind] = OperationKind.SUPPORT
    __repr__ = _show
    target: RecordId
    evidence: RecordId
    evidence_claim: str | None = None
    evidence_depends_on: tuple[RecordId, ...] = ()
    formula: Formula | None = None
    specific: bool = False

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "target", self.target)
        _check_evidence(
            self.operation, self.evidence, self.evidence_claim, self.evidence_depends_on
        )
        _check_formula(self.operation, self.formula)
        _check_flag(self.operation, "specific", self.specific)


@dataclass(frozen=True, slots=True, repr=False)
class Undermine:
    """Undermine: add the attack (alpha_e, target) and label the target weakened.

    DEL: a plausibility downgrade of gamma (``formula``, else the target's
    formula), from the family ``downgrade``: ``lexicographic`` [up-up ~gamma]
    (B.2, T7) or ``conservative`` [up ~gamma].  The evidence is registered or
    reused exactly as for :class:`Support`.
    """

    operation: ClassVar[OperationKind] = OperationKind.UNDERMINE
    __repr__ = _show
    target: RecordId
    evidence: RecordId
    evidence_claim: str | None = None
    evidence_depends_on: tuple[RecordId, ...] = ()
    formula: Formula | None = None
    downgrade: str = "lexicographic"

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "target", self.target)
        _check_evidence(
            self.operation, self.evidence, self.evidence_claim, self.evidence_depends_on
        )
        _check_formula(self.operation, self.formula)
        if self.downgrade not in DOWNGRADES:
            raise _fail(
                self.operation, "downgrade", f"{self.downgrade!r} is not one of {list(DOWNGRADES)}"
            )


@dataclass(frozen=True, slots=True, repr=False)
class Revise:
    """Revise: add an attack from each of ``attackers`` on the target and label it abandoned.

    DEL: [!not gamma] (gamma: ``formula``, else the target's formula), or the
    attack additions alone.  ``announce`` chooses; left out, a Revise with no
    attackers announces (B.2, T9) and one with attackers only attacks (T12).
    The speaker's commitment to the target, if any, is retracted.
    """

    operation: ClassVar[OperationKind] = OperationKind.REVISE
    __repr__ = _show
    target: RecordId
    attackers: tuple[RecordId, ...] = ()
    formula: Formula | None = None
    announce: bool | None = None

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "target", self.target)
        _check_identifiers(self.operation, "attackers", self.attackers)
        _check_formula(self.operation, self.formula)
        if self.announce is not None:
            _check_flag(self.operation, "announce", self.announce)

    @property
    def announces(self) -> bool:
        """Whether the epistemic effect is [!not gamma] rather than the attacks alone."""
        return self.announce if self.announce is not None else not self.attackers


@dataclass(frozen=True, slots=True, repr=False)
class Resolve:
    """Resolve: label the target resolved (DEL: consensual [!gamma], or a decision with dissent).

    ``subsumes``: each subsumed record gains a Dep link to the target (A.3).
    An ``authoritative`` Resolve is a decision: it may add the ``premises`` it
    rests on to Dep(target) and record the ``dissenters``; it changes nothing in
    M_t.  A consensual Resolve announces gamma: ``formula``, else the target's.
    """

    operation: ClassVar[OperationKind] = OperationKind.RESOLVE
    __repr__ = _show
    target: RecordId
    subsumes: tuple[RecordId, ...] = ()
    authoritative: bool = False
    premises: tuple[RecordId, ...] = ()
    dissenters: tuple[AgentId, ...] = ()
    formula: Formula | None = None

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "target", self.target)
        _check_identifiers(self.operation, "subsumes", self.subsumes)
        _check_flag(self.operation, "authoritative", self.authoritative)
        _check_identifiers(self.operation, "premises", self.premises)
        _check_identifiers(self.operation, "dissenters", self.dissenters)
        _check_formula(self.operation, self.formula)
        if not self.authoritative:
            for field in ("premises", "dissenters"):
                if getattr(self, field):
                    raise _fail(
                        self.operation, field, f"only an authoritative Resolve records {field}"
                    )
        elif self.formula is not None:
            raise _fail(
                self.operation,
                "formula",
                "only a consensual Resolve announces a formula; a decision records dissent",
            )


@dataclass(frozen=True, slots=True, repr=False)
class ExpandAwareness:
    """Expand-Awareness: add the atom p to Prop_t and to the awareness sets A_i.

    ``agents`` names the agents whose awareness grows; empty means every agent.
    """

    operation: ClassVar[OperationKind] = OperationKind.EXPAND_AWARENESS
    __repr__ = _show
    atom: str
    agents: tuple[AgentId, ...] = ()

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "atom", self.atom)
        _check_identifiers(self.operation, "agents", self.agents)


@dataclass(frozen=True, slots=True, repr=False)
class Question:
    """Question: open the issue ``id`` (B.3's I_1); no record, no DEL update.

    ``formula`` chi is queued as an open abductive problem whose source is ``id``.
    """

    operation: ClassVar[OperationKind] = OperationKind.QUESTION
    __repr__ = _show
    id: RecordId
    claim: str
    formula: Formula | None = None

    def __post_init__(self) -> None:
        _check_identifier(self.operation, "id", self.id)
        _check_claim(self.operation, "claim", self.claim)
        _check_formula(self.operation, self.formula)


Operation = (
    Observe | Hypothesize | Support | Undermine | Revise | Resolve | ExpandAwareness | Question
)


def own_formula(op: Operation) -> Formula | None:
    """The operation's own formula over Prop_t, when it gives one (Expand-Awareness has none).

    >>> own_formula(ExpandAwareness("p")) is None
    True
    """
    return None if isinstance(op, ExpandAwareness) else op.formula


def target_of(op: Operation) -> RecordId | None:
    """The record Support, Undermine, Revise or Resolve acts on (Table 3); None otherwise."""
    match op:
        case Support() | Undermine() | Revise() | Resolve():
            return op.target
    return None


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
