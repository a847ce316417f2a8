"""Table 3 and Algorithm 1, executable: the per-turn transition D_t -> D_t+1.

This is the declarative statement of what one turn does to the dependency map
D_t = (M, AF, Cm, Dep) (Definition 2.1): :func:`process_turn` lists the eight
operation kinds in the fixed order, one line each, and each ``process_<op>``
states that operation's row of Table 3 (its preconditions as plain checks, one
per clause) and of Section 2's operation table (its DEL realisation on M_t,
through :mod:`gcv.spec.epistemic`'s updates).  It is slow and obvious on purpose:
relations are sets of pairs, a turn works on a copy of the state, and nothing
is indexed.  It imports nothing from ``reference/``.

Every rule cites its clause (:data:`gcv.spec.clauses.CLAUSES`), which says whether
the paper states it or the reference chose it; ``spec/normative.md`` has the
prose of each.  The clauses a turn exercised are in :attr:`Outcome.clauses` (or
:attr:`Rejected.clauses`), so a conformance step can say which choices it
depends on.

Where the paper's objects are:

- **Table 3** (preconditions): the checks at the top of each ``process_<operation>``,
  one per clause ``T3.<operation>.*``; the form rules the schema cannot state are
  ``form.*`` (:func:`process_turn`'s first line).
- **Algorithm 1** (per-operation rule): the effects below those checks (``T3.*``
  effects) and each operation's DEL realisation (``del.*``, :func:`realisation`).
- **The fixed order** and the simultaneous announcement: :data:`ORDER` and the
  body of :func:`process_turn` (``order.*``); atomicity and composition: ``turn.*``.

Operations are the trace format's operation objects (``spec/trace.schema.json``,
already schema-valid), except that a ``formula`` is a :mod:`gcv.spec.epistemic`
formula, not its text: parsing is the caller's.

References
----------
Grounded Continuation, Section 2 (the operation table, "Updating D_t"), the proof
of Lemma 2.2, Appendix A.1, A.3 ("State composition", "Subsumption at Resolve"),
A.4 (Table 3), B.2 and B.3.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from gcv.spec import core
from gcv.spec import epistemic as se
from gcv.spec.clauses import CHOSEN, PAPER, clause

__all__ = [
    "ORDER",
    "RESOLVE_TARGETS",
    "REVISE_TARGETS",
    "SUPPORT_TARGETS",
    "UNDERMINE_TARGETS",
    "Budget",
    "Outcome",
    "Problem",
    "Record",
    "Rejected",
    "State",
    "TooCostly",
    "Turn",
    "afford",
    "agents_of",
    "budget",
    "form_violation",
    "formula_of",
    "model_of",
    "process_announcements",
    "process_expand_awareness",
    "process_hypothesize",
    "process_observe",
    "process_question",
    "process_resolve",
    "process_revise",
    "process_support",
    "process_turn",
    "process_undermine",
    "realisation",
    "refusal_clauses",
]

Operation = Mapping[str, Any]
"""An operation object of the trace format, its ``formula`` a spec formula."""


# -- D_t ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """An argument of Args_t: its fixed facts and its standing label st_t."""

    claim: str
    speaker: str
    turn: int
    kind: str
    standing: str
    formula: se.Formula | None = None


@dataclass(frozen=True)
class Problem:
    """An abductive problem (B_agent, chi) (Definition A.2), posed by ``source`` in ``posed``.

    ``closed_by``: the hypotheses that solved it, in the order they did.
    """

    agent: str
    chi: se.Formula
    source: str
    posed: se.EpistemicModel
    closed_by: tuple[str, ...] = ()

    def is_open(self, records: Mapping[str, Record]) -> bool:
        """Open while no hypothesis that solved it is in S_t."""
        return not any(
            h in records and records[h].standing in core.GOOD_STANDING for h in self.closed_by
        )


@dataclass
class State:
    """D_t = (M_t, AF_t, Cm_t, Dep_t) with Prop_t, the awareness sets and the problem queue.

    ``model`` None means M_t has not been needed yet: it is then the default model
    (every valuation of Prop_t, one cell per agent, all worlds equally plausible),
    which every update so far leaves as it is (:func:`model_of` builds it).
    """

    agents: tuple[str, ...]
    atoms: set[str]
    awareness: dict[str, set[str]]
    model: se.EpistemicModel | None = None
    turn: int = 0
    records: dict[str, Record] = field(default_factory=dict)
    dep: set[tuple[str, str]] = field(default_factory=set)
    att: set[tuple[str, str]] = field(default_factory=set)
    commitments: dict[str, set[str]] = field(default_factory=dict)
    dissent: dict[str, set[str]] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()

    @classmethod
    def start(
        cls,
        agents: Sequence[str],
        atoms: Sequence[str] = (),
        model: se.EpistemicModel | None = None,
    ) -> State:
        """D_0: no records; Prop_0 and the awareness sets from ``model``, else every agent
        aware of every atom of ``atoms``."""
        if model is not None:
            return cls(
                tuple(agents),
                set(model.atoms),
                {a: set(model.awareness[a]) for a in agents},
                model,
                commitments={a: set() for a in agents},
            )
        return cls(
            tuple(agents),
            set(atoms),
            {a: set(atoms) for a in agents},
            commitments={a: set() for a in agents},
        )

    def copy(self) -> State:
        """A copy a turn can change (records, models and problems are immutable)."""
        return replace(
            self,
            atoms=set(self.atoms),
            awareness={a: set(s) for a, s in self.awareness.items()},
            records=dict(self.records),
            dep=set(self.dep),
            att=set(self.att),
            commitments={a: set(s) for a, s in self.commitments.items()},
            dissent={r: set(s) for r, s in self.dissent.items()},
        )

    def label(self, record: str) -> str:
        """st_t(record)."""
        return self.records[record].standing

    def active_set(self) -> set[str]:
        """S_t: the records labelled active or resolved."""
        return {r for r, rec in self.records.items() if rec.standing in core.GOOD_STANDING}

    def attacked(self) -> set[str]:
        """The records with a recorded incoming attack."""
        return {target for _, target in self.att}

    def to_core(self) -> core.DependencyMap:
        """The parts the queries read (:class:`gcv.spec.core.DependencyMap`)."""
        return core.DependencyMap(
            args=frozenset(self.records),
            att=frozenset(self.att),
            standing={r: rec.standing for r, rec in self.records.items()},
            dep=frozenset(self.dep),
        )

    def snapshot(self) -> dict[str, object]:
        """The argumentation, commitment and vocabulary parts as plain sorted data."""
        return {
            "turn": self.turn,
            "agents": sorted(self.agents),
            "atoms": sorted(self.atoms),
            "awareness": {a: sorted(atoms) for a, atoms in sorted(self.awareness.items())},
            "records": [
                {
                    "id": r,
                    "claim": rec.claim,
                    "speaker": rec.speaker,
                    "turn": rec.turn,
                    "kind": rec.kind,
                    "standing": rec.standing,
                }
                for r, rec in sorted(self.records.items())
            ],
            "dep": sorted([a, b] for a, b in self.dep),
            "att": sorted([a, b] for a, b in self.att),
            "commitments": {a: sorted(rs) for a, rs in sorted(self.commitments.items())},
            "dissent": {r: sorted(ags) for r, ags in sorted(self.dissent.items()) if ags},
        }


@dataclass(frozen=True)
class Turn:
    """One utterance's operations, as the Interpreter extracted them, and its speaker."""

    speaker: str
    operations: tuple[Operation, ...]


@dataclass(frozen=True)
class Outcome:
    """An accepted turn: D_t+1 and the clauses the turn exercised.

    A turn exercises every paper clause that applied to it, and a chosen clause only where
    the clause's alternative could have decided the turn differently: ``order.kinds`` only
    for a turn with operations of two kinds, ``T3.support.target-standing`` only for a
    weakened target, ``T3.revise.retracts-commitment`` only when the speaker was committed,
    and the clauses that pick a refused turn's error only when it is refused.
    """

    state: State
    clauses: frozenset[str]


class Rejected(Exception):
    """A turn is refused: the error ``code`` of the first clause it breaks.

    ``index`` is the failing operation's position in the turn as written (None for
    the speaker); ``clauses`` are those the turn exercised up to and including the
    broken one.
    """

    def __init__(
        self, code: str, clause_id: str, field: str | None = None, record: str | None = None
    ) -> None:
        super().__init__(f"{code} ({clause_id}): field {field}, record {record}")
        self.code = code
        self.clause = clause_id
        self.field = field
        self.record = record
        self.index: int | None = None
        self.operation: str | None = None
        self.clauses: frozenset[str] = frozenset()


# -- the cost of the brute force --------------------------------------------------------------


@dataclass(frozen=True)
class Budget:
    """The largest models the brute force is asked to compute on (None: no limit)."""

    worlds: int | None = None
    """For a modal formula and Definition A.2's check (O(|W|^2) per world)."""
    conservative: int | None = None
    """For a conservative upgrade (O(|W|^4))."""


class TooCostly(Exception):
    """The brute force would exceed the :class:`Budget` in force; nothing was decided."""


_UNBOUNDED = Budget()
_BUDGET: contextvars.ContextVar[Budget] = contextvars.ContextVar("budget", default=_UNBOUNDED)


@contextmanager
def budget(worlds: int | None, conservative: int | None = None) -> Iterator[None]:
    """Within the block, raise :class:`TooCostly` instead of computing beyond the bound."""
    token = _BUDGET.set(Budget(worlds, worlds if conservative is None else conservative))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def _is_modal(f: se.Formula) -> bool:
    match f:
        case se.Top() | se.Bottom() | se.Atom():
            return False
        case se.Not(body):
            return _is_modal(body)
        case se.And(parts) | se.Or(parts):
            return any(_is_modal(p) for p in parts)
        case se.Implies(left, right) | se.Iff(left, right):
            return _is_modal(left) or _is_modal(right)
    return True


def afford(model: se.EpistemicModel, *formulas: se.Formula, conservative: bool = False) -> None:
    """Raise :class:`TooCostly` if evaluating ``formulas`` (or a conservative upgrade) on
    ``model`` would exceed the :class:`Budget` in force."""
    limit = _BUDGET.get().conservative if conservative else _BUDGET.get().worlds
    if limit is None or len(model.worlds) <= limit:
        return
    if conservative or any(_is_modal(f) for f in formulas):
        raise TooCostly(f"{len(model.worlds)} worlds, beyond the budget of {limit}")


# -- clauses that govern the whole turn ---------------------------------------------------------

SPEAKER_IN_AGS = clause(
    "turn.speaker-in-ags",
    PAPER,
    "Definition 2.1: Cm_t is over Ags; the utterance is an agent's",
    "the turn's speaker is an agent of Ags (unknown-agent, field speaker)",
)
SPEAKER_FIRST = clause(
    "turn.speaker-checked-first",
    CHOSEN,
    "a turn's subject before its operations, so that a turn breaking several rules gets one code",
    "the speaker is checked before any operation",
    "check the speaker after the operations; only the error code of such a turn differs",
    affects="error",
)
WELL_FORMED_FIRST = clause(
    "turn.well-formed-first",
    CHOSEN,
    "an operation that is not well formed is refused where it is read, before any is applied",
    "a turn with a malformed operation is refused with malformed-operation at the first "
    "malformed operation as written, before the speaker and any precondition",
    "check the speaker before the operations' form; only the error code of such a turn differs",
    affects="error",
)
ATOMIC = clause(
    "turn.atomic",
    PAPER,
    'Section 2: "Multiple operation instances from one utterance are composed into the same '
    'per-turn state transition"',
    "a turn applies all of its operations or none; a rejected turn leaves D_t as it was",
)
COMPOSITION = clause(
    "turn.composition",
    PAPER,
    'A.3, "State composition": "Each operation contributes an intermediate state ... that '
    'state determine[s] the inputs to subsequent operations"',
    "each operation is checked against, and applied to, the state the turn has left so far",
)
NUMBERED = clause(
    "turn.numbering",
    CHOSEN,
    "turns are named T1, T2, ... in the scenarios; a refused utterance changes nothing",
    "an accepted turn takes the next turn number, which its new records carry; a rejected "
    "turn takes none",
    "number every utterance, accepted or not",
    affects="record-fields",
)
NO_OPERATIONS = clause(
    "turn.no-operations",
    CHOSEN,
    "an utterance may assert nothing the eight operations capture, and the verifier runs "
    "beside every turn (Section 3); an interpreter's refused reply is scored as such a turn",
    "a turn with no operations is accepted: it takes the next turn number and changes nothing else",
    "refuse it (malformed-input); the turn numbers then skip utterances that asserted nothing",
)
ORDER_KINDS = clause(
    "order.kinds",
    CHOSEN,
    'Section 2 says only "the engine applies the resulting operation instances in a fixed '
    'order"; this order applies every turn of Phases 2 and 3 as the paper narrates them',
    "Expand-Awareness, Observe, Hypothesize, Support, Undermine, Revise, Resolve, Question",
    "another fixed order under which the paper's scenario turns still apply; turns whose "
    "operations interact then differ",
)
ORDER_NARRATED = clause(
    "order.kinds.narrated",
    PAPER,
    "B.2 T7 (Observe o9, then Undermine h2 by o9), T12 (Hypothesize h4, then Revise h2 with "
    "attacker h4) and T13 (Support h4, then Resolve h4) as the paper narrates them",
    "Observe before Undermine, Hypothesize before Revise, Support before Resolve",
)
_NARRATED = frozenset({("observe", "undermine"), ("hypothesize", "revise"), ("support", "resolve")})
ORDER_WRITTEN = clause(
    "order.within-kind-as-written",
    CHOSEN,
    "the Interpreter's order is the utterance's, and nothing reorders operations of one kind",
    "operations of one kind apply in the order the turn lists them",
    "operations of one kind in the reverse of the written order; turns whose operations "
    "of one kind interact then differ",
)
FIRST_FAILING = clause(
    "order.first-failing-operation",
    CHOSEN,
    "a rejected turn needs one error; the one met first while applying is the natural one",
    "a rejected turn reports the first failing operation in application order, located by its "
    "position as written",
    "report, of the operations that fail, the first as written",
    affects="error",
)
SIMULTANEOUS = clause(
    "order.simultaneous-observations",
    CHOSEN,
    "Section 2's composition into one transition; B.1's round of \"I don't know\" answers "
    "is simultaneous (announced one after another, Alice's answer would tell Bob he is muddy)",
    "one turn's Observe formulas are one announcement [!(psi_1 & ... & psi_n)], each psi_k "
    "read in M_t as the Observe phase found it, made once every Observe of the turn is "
    "registered",
    "announce a turn's observations one after another (the same for factual formulas)",
)
FIELD_ORDER = clause(
    "order.fields",
    CHOSEN,
    "so that an operation breaking several preconditions still gets one error code",
    "an operation's fields are checked in the order of its signature (target, then the "
    "records it cites, then agents), each cited record through all its checks before the "
    "next, in the order written",
    "check an operation's fields from the last of its signature to the first",
    affects="error",
)
CITED_CHECKS = clause(
    "order.cited-record-checks",
    CHOSEN,
    "citing one's own record is the more specific error",
    "a cited record is checked for self-reference, then registration, then standing "
    "(wrong-standing before attacked-target)",
    "check that a cited record is registered before self-reference",
    affects="error",
)
EPISTEMIC_LAST = clause(
    "order.epistemic-after-table",
    CHOSEN,
    "the argumentation row is the operation's subject; its formula is an input of its effect",
    "an operation's epistemic preconditions (duplicate-atom, then the formula's agents and "
    "atoms) are checked after all of its Table 3 preconditions",
    "check the epistemic preconditions before those of Table 3",
    affects="error",
)

# -- preconditions and effects shared by several operations -------------------------------------

NEW_ACTIVE = clause(
    "T3.register.new-active",
    PAPER,
    'proof of Lemma 2.2: Observe, Hypothesize, Support, Expand-Awareness and Question "label '
    'any new argument active"',
    "a registered record is new to Args_t and labelled active",
)
ID_NEW = clause(
    "T3.register.id-new",
    PAPER,
    'A.1: records are "identified by their unique identifiers"; "different IDs remain '
    'distinct even when their claims coincide"',
    "a new record's identifier is not yet registered (duplicate-record)",
)
CITED_REGISTERED = clause(
    "T3.cite.registered",
    PAPER,
    "Definition 2.1: Dep_t maps Args_t to subsets of Args_t; attacks relate arguments of Args_t",
    "every record an operation cites is registered (unknown-record)",
)
NO_SELF_CITATION = clause(
    "T3.cite.not-self",
    CHOSEN,
    "a record cannot rest on, attack or be evidence for itself in the operation that names it",
    "an operation does not cite its own record (self-reference): a new record's depends_on "
    "and new evidence's evidence_depends_on do not name that record, and Revise's attackers "
    "and Resolve's subsumes and premises do not name its target; nothing else is "
    "self-reference (new evidence may rest on the target it supports or undermines: Dep may "
    "hold cycles, Definition 2.1, Corollary 2.4; Support's and Undermine's evidence being "
    "their target is T3.evidence.not-target)",
    "accept the self-citation; a Dep self-loop only puts the record on a cycle",
)
DEPENDS_ANY_STANDING = clause(
    "T3.register.depends-on-any-standing",
    CHOSEN,
    "the map records what an utterance rests on; the Verify walk is what flags a record "
    "resting on a withdrawn one",
    "Observe, Hypothesize, Question and new evidence may depend on records of any standing",
    "require depends_on in S_t; resting on a withdrawn record is then refused, not ungrounded",
)
NEW_RECORD_DEP = clause(
    "T3.register.dep",
    PAPER,
    'Definition 2.1: "Dep_t maps each argument to its recorded supporting arguments"',
    "a new record's Dep is the records it depends on",
)
EVIDENCE_NOT_TARGET = clause(
    "T3.evidence.not-target",
    CHOSEN,
    "evidence for or against a record is another record",
    "Support's and Undermine's evidence is not their target (self-reference)",
    "accept the target as its own existing evidence (a Dep self-loop for Support, a self-"
    "attack for Undermine)",
)
EVIDENCE_NEW_WITH_CLAIM = clause(
    "T3.evidence.registered-with-claim",
    PAPER,
    'B.3: the evidence "is registered as a new record alpha_e ... committed by the speaker"; '
    'B.2, "Evidence records"',
    "evidence that carries a claim is registered as a new active record of kind evidence, "
    "depending on its evidence_depends_on",
)
EVIDENCE_EXISTING = clause(
    "T3.evidence.existing-in-good-standing",
    CHOSEN,
    "B.2 T7 undermines h2 by o9, registered by an Observe of the same turn; a withdrawn "
    "record is no evidence",
    "evidence without a claim is an existing record in S_t (wrong-standing otherwise)",
    "evidence is always a new record (B.3's letter); citing an existing record is refused",
)
EVIDENCE_COMMITS = clause(
    "T3.evidence.speaker-commits",
    PAPER,
    'B.3: the evidence "is registered as a new record alpha_e ... committed by the speaker"',
    "the speaker of a Support or Undermine commits to the evidence it registers",
)
EXISTING_EVIDENCE_COMMITS = clause(
    "T3.evidence.existing-commits-speaker",
    CHOSEN,
    "citing a record as one's evidence asserts it, as registering it would",
    "the speaker of a Support or Undermine citing an existing record commits to it",
    "citing existing evidence commits nobody new (B.3 speaks only of registered evidence)",
    affects="commitments",
)

# The labels each operation accepts on its target (its Table 3 clause says whose choice).
SUPPORT_TARGETS = frozenset({core.ACTIVE, core.WEAKENED, core.RESOLVED})
UNDERMINE_TARGETS = frozenset({core.ACTIVE, core.WEAKENED})
REVISE_TARGETS = frozenset(core.STANDING_LABELS)
RESOLVE_TARGETS = frozenset(core.GOOD_STANDING)

# -- the eight operations, in the fixed order -------------------------------------------------


def _require(
    condition: bool,
    clause_id: str,
    code: str,
    *,
    field: str | None = None,
    record: str | None = None,
) -> None:
    if not condition:
        raise Rejected(code, clause_id, field, record)


def _cited(
    state: State,
    field: str,
    records: Sequence[str],
    *,
    own: str | None,
    allowed: frozenset[str] | None,
    standing_clause: str | None = None,
) -> None:
    """Each cited record in the order written: not the operation's own, registered, and (when
    ``allowed`` is given) carrying one of those labels."""
    for record in records:
        _require(record != own, NO_SELF_CITATION, "self-reference", field=field, record=record)
        _require(
            record in state.records, CITED_REGISTERED, "unknown-record", field=field, record=record
        )
        if allowed is not None and standing_clause is not None:
            _require(
                state.label(record) in allowed,
                standing_clause,
                "wrong-standing",
                field=field,
                record=record,
            )


def _register(
    state: State,
    record: str,
    claim: str,
    kind: str,
    speaker: str,
    depends_on: Sequence[str],
    formula: se.Formula | None = None,
) -> None:
    """A new active record of this turn, resting on ``depends_on``."""
    state.records[record] = Record(claim, speaker, state.turn, kind, core.ACTIVE, formula)
    state.dep |= {(record, d) for d in depends_on}


def _register_own(state: State, op: Operation, kind: str, speaker: str) -> None:
    """The record an Observe, Hypothesize or Question registers."""
    own = (op["id"], op["claim"], kind, speaker, op.get("depends_on", ()), op.get("formula"))
    _register(state, *own)


# Expand-Awareness ------------------------------------------------------------------------------

EXPAND_AGENTS = clause(
    "T3.expand-awareness.agents-in-ags",
    PAPER,
    "Definition A.3: A_i for i in Ags",
    "the named agents are agents of Ags (unknown-agent, field agents)",
)
EXPAND_ALL = clause(
    "T3.expand-awareness.default-all",
    PAPER,
    'B.2 T4 and B.3: the expansion is "applied to every agent\'s awareness set"',
    "an expansion naming no agent applies to every agent",
)
EXPAND_CHANGES = clause(
    "T3.expand-awareness.changes-something",
    CHOSEN,
    "an utterance interpreted as an expansion that expands nothing is a misreading",
    "some named agent is not yet aware of the atom (already-aware, field atom)",
    "accept the expansion as a no-op",
)
EXPAND_EFFECT = clause(
    "del.expand-awareness",
    PAPER,
    'Section 2\'s table: "add p to the awareness set A_i; world-set refinement on p"; '
    "Definition A.3",
    "the atom joins Prop_t and the named agents' A_i; a new atom splits every world into two "
    "copies that differ on it",
)
SPLIT_KEEPS_ORDER = clause(
    "del.expand-awareness.copies-equally-plausible",
    CHOSEN,
    "becoming aware of p is not learning whether p",
    "each copy keeps its world's cell and rank for every agent",
    "the copies where p is false are the more plausible (an atom one was unaware of is "
    "presumed false)",
    affects="model",
)


def process_expand_awareness(state: State, op: Operation, speaker: str) -> None:
    """Expand-Awareness(p, agents): p joins Prop_t and A_i (Definition A.3)."""
    named = tuple(op.get("agents", ()))
    for agent in named:
        _require(agent in state.agents, EXPAND_AGENTS, "unknown-agent", field="agents")
    growing = named or state.agents
    _note(EXPAND_ALL if not named else EXPAND_AGENTS)
    _require(
        any(op["atom"] not in state.awareness[a] for a in growing),
        EXPAND_CHANGES,
        "already-aware",
        field="atom",
    )
    _note(EXPAND_EFFECT)
    state.atoms.add(op["atom"])
    for agent in growing:
        state.awareness[agent].add(op["atom"])
    if state.model is not None:
        _note(SPLIT_KEEPS_ORDER)
        if _follows_m():
            state.model = se.process_awareness_expansion(state.model, op["atom"], named or None)


# Observe --------------------------------------------------------------------------------------

OBSERVE_KIND = clause(
    "T3.observe.kind",
    CHOSEN,
    "B.3's decisions rest on assumptions a_i, which the map must be able to name as premises",
    "an Observe registers an observation or a premise (default observation)",
    "one kind: a premise registers as an observation",
    affects="record-fields",
)
OBSERVE_COMMITS = clause(
    "T3.observe.speaker-commits",
    PAPER,
    'Section 2: "Observe and Resolve commit content"',
    "the speaker commits to the observed record",
)
OBSERVE_DEL = clause(
    "del.observe",
    PAPER,
    'Section 2\'s table: "Observe [!psi] (hard public announcement)"',
    "an Observe with formula psi announces [!psi]",
)


def process_observe(state: State, op: Operation, speaker: str) -> None:
    """Observe(psi): a new active record the speaker commits to; [!psi] joins the turn's
    announcement (:func:`process_announcements`)."""
    _new_record(state, op)
    _note(OBSERVE_COMMITS)
    if op.get("kind", "observation") != "observation":
        _note(OBSERVE_KIND)
    _register_own(state, op, op.get("kind", "observation"), speaker)
    state.commitments[speaker].add(op["id"])
    _check_formula(state, op)


def process_announcements(state: State, observed: Sequence[tuple[int, Operation]]) -> None:
    """The turn's observations, simultaneously: [!(psi_1 & ... & psi_n)], each psi_k read in
    M_t as the Observe phase found it.  psi_k poses (B_i, psi_k) for every agent i who does
    not believe it in M_t announced with the others (Definition A.2)."""
    announced = [(index, op) for index, op in observed if op.get("formula") is not None]
    if not announced:
        return
    _note(OBSERVE_DEL, SURPRISE)
    if len(announced) > 1:
        _note(SIMULTANEOUS)
    if not _follows_m():
        return
    model = model_of(state)
    formulas = [op["formula"] for _, op in announced]
    for k, (index, op) in enumerate(announced):
        so_far = se.And(tuple(formulas[: k + 1]))
        afford(model, so_far)
        if not se.compute_truth_set(model, so_far):
            refused = Rejected("no-surviving-world", NO_EMPTY_W, "formula", op["id"])
            refused.index, refused.operation = index, "observe"
            raise refused
    problems = list(state.problems)
    for k, (_, op) in enumerate(announced):
        others = se.And(tuple(f for j, f in enumerate(formulas) if j != k))
        posed = se.process_announcement(model, others) if len(formulas) > 1 else model
        problems += [
            Problem(agent, op["formula"], op["id"], posed)
            for agent in state.agents
            if not _believes(posed, agent, op["formula"])
        ]
    state.model = se.process_announcement(model, se.And(tuple(formulas)))
    state.problems = tuple(problems)


# Hypothesize ----------------------------------------------------------------------------------

HYPOTHESIZE_KIND = clause(
    "T3.hypothesize.kind",
    CHOSEN,
    "B.3's IBIS positions P_n are proposals the group deliberates on, like hypotheses",
    "a Hypothesize registers a hypothesis or a position (default hypothesis)",
    "one kind: a position registers as a hypothesis",
    affects="record-fields",
)
HYPOTHESIZE_NO_COMMITMENT = clause(
    "T3.hypothesize.no-commitment",
    CHOSEN,
    'Section 2 names Observe and Resolve as the operations that "commit content"; '
    "Hypothesize adjusts plausibility",
    "a Hypothesize commits nobody",
    "the speaker commits to their own hypothesis",
    affects="commitments",
)
INTRODUCES_NEW = clause(
    "T3.hypothesize.introduces-new-atoms",
    CHOSEN,
    "an atom that is already in Prop_t is not introduced by gamma",
    "the atoms a Hypothesize introduces are not in Prop_t (duplicate-atom, field introduces)",
    "accept an atom already in Prop_t, which is then not introduced again",
)
INTRODUCES_EFFECT = clause(
    "del.hypothesize.introduces",
    PAPER,
    "B.2's integration step: Prop_5 = Prop_4 + {h1, rate_bypass}",
    "the introduced atoms join Prop_t and every agent's A_i, splitting W, before gamma's update",
)
ABDUCTION = clause(
    "del.hypothesize.solves",
    CHOSEN,
    "Definition A.2 checks consistency in M and the explanation in M[up-up gamma]; in M_t chi "
    "is announced, so the explanatory check reads the model the problem arose in, keeping what "
    "was learned since about every other atom, as B.2's steps do (T6: h2 := (p_redis -> "
    "p_auth) answers o1, posed at T1, with Redis known from T3)",
    "gamma solves an open (B_i, chi) when M_t does not satisfy B_i ~gamma, M_chi^t[up-up gamma] "
    "satisfies B_i chi, and gamma is neither chi nor true nor believed in M_t (M_t: after "
    "gamma's atoms are introduced, before its upgrade; M_chi^t: the model the problem arose "
    "in, brought to Prop_t and restricted to the worlds agreeing with M_t outside chi's atoms)",
    "check all three conditions in M_t (every candidate then explains chi); or read the model "
    "the problem arose in as it was (then no faithful h2 answers o1)",
    affects="problems",
)
HYPOTHESIZE_DEL = clause(
    "del.hypothesize",
    PAPER,
    'Section 2\'s table: "Hypothesize [up-up gamma] (soft lexicographic upgrade)"',
    "a Hypothesize with formula gamma applies [up-up gamma]",
)


def process_hypothesize(state: State, op: Operation, speaker: str) -> None:
    """Hypothesize(gamma): a new active record, no commitment; its atoms join Prop_t, gamma is
    checked against the open problems (Definition A.2), then [up-up gamma]."""
    _new_record(state, op)
    _note(HYPOTHESIZE_NO_COMMITMENT)
    if op.get("kind", "hypothesis") != "hypothesis":
        _note(HYPOTHESIZE_KIND)
    _register_own(state, op, op.get("kind", "hypothesis"), speaker)
    introduces = tuple(op.get("introduces", ()))
    for atom in introduces:
        _require(atom not in state.atoms, INTRODUCES_NEW, "duplicate-atom", field="introduces")
    _check_formula(state, op, also=introduces)
    if introduces:
        _note(INTRODUCES_EFFECT)
    for atom in introduces:
        state.atoms.add(atom)
        for agent in state.agents:
            state.awareness[agent].add(atom)
        if state.model is not None and _follows_m():
            state.model = se.process_awareness_expansion(state.model, atom)
    gamma = op.get("formula")
    if gamma is None:
        return
    _note(HYPOTHESIZE_DEL)
    # The abduction choice decides something only where a problem may be open when gamma
    # comes: one on the queue, or one this turn's earlier records may have posed (its
    # observations apply first; without M_t followed their problems are not queued).
    posed_now = any(
        r.turn == state.turn and r.formula is not None and name != op["id"]
        for name, r in state.records.items()
    )
    if posed_now or any(p.is_open(state.records) for p in state.problems):
        _note(ABDUCTION)
    if not _follows_m():
        return
    model = model_of(state)
    solved = []
    for problem in state.problems:
        if problem.is_open(state.records) and _solves(model, problem, gamma):
            problem = replace(problem, closed_by=(*problem.closed_by, op["id"]))
        solved.append(problem)
    state.problems = tuple(solved)
    afford(model, gamma)
    state.model = se.process_lexicographic_upgrade(model, gamma)


# Support --------------------------------------------------------------------------------------

SUPPORT_TARGET = clause(
    "T3.support.target-standing",
    CHOSEN,
    "Support changes no label, so it cannot break Lemma 2.2; an abandoned record is renewed "
    'only as a new argument (Section 2: "A renewed assertion of their claim enters as a new '
    'argument")',
    "Support's target is active, weakened or resolved (wrong-standing)",
    "any standing, or only S_t",
)
SUPPORT_DEP = clause(
    "T3.support.evidence-joins-dep",
    PAPER,
    'Definition 2.1: Dep_t(alpha) holds "its recorded supporting arguments"',
    "the evidence joins Dep(target)",
)
SUPPORT_NO_LABEL = clause(
    "T3.support.no-label-change",
    PAPER,
    "proof of Lemma 2.2: Support adds no attack edge; no operation moves a weakened or "
    "abandoned argument back into S_t",
    "Support changes no label and adds no attack",
)
SUPPORT_DEL = clause(
    "del.support",
    PAPER,
    'Section 2\'s table: "Support [up gamma], or [up-up gamma] if gamma-specific evidence"',
    "[up gamma], or [up-up gamma] when the operation marks its evidence specific",
)


def process_support(state: State, op: Operation, speaker: str) -> None:
    """Support(target, evidence): the evidence (registered when it carries a claim) joins
    Dep(target) and the speaker commits to it; [up gamma] or [up-up gamma]."""
    _target(state, op, SUPPORT_TARGETS, SUPPORT_TARGET)
    if state.label(op["target"]) == core.WEAKENED:
        _note(SUPPORT_TARGET)
    _evidence(state, op, speaker)
    _check_formula(state, op)
    _note(SUPPORT_DEP, SUPPORT_NO_LABEL)
    state.dep.add((op["target"], op["evidence"]))
    _on_target(state, op, SUPPORT_DEL)


# Undermine ------------------------------------------------------------------------------------

UNDERMINE_TARGET = clause(
    "T3.undermine.target-standing",
    PAPER,
    'proof of Lemma 2.2: "Undermine, whose precondition requires an active or weakened target"',
    "Undermine's target is active or weakened (wrong-standing)",
)
UNDERMINE_EFFECT = clause(
    "T3.undermine.attack-weakened",
    PAPER,
    'proof of Lemma 2.2: Undermine "adds (alpha_e, alpha_gamma) and leaves st(alpha_gamma) = '
    'weakened"',
    "the attack (evidence, target) is added and the target is labelled weakened",
)
UNDERMINE_DEL = clause(
    "del.undermine",
    PAPER,
    'Section 2\'s table: "family of plausibility downgrades of gamma"; B.2 T7: "Undermine '
    'applies [up-up ~h2]"',
    "[up-up ~gamma]",
)
UNDERMINE_CONSERVATIVE = clause(
    "del.undermine.conservative",
    CHOSEN,
    "the other member of the family that A.1's updates give",
    "with downgrade conservative, [up ~gamma]",
    "ignore downgrade: always [up-up ~gamma] (B.2 T7's reading)",
    affects="model",
)


def process_undermine(state: State, op: Operation, speaker: str) -> None:
    """Undermine(target, evidence): attack (evidence, target), target weakened, the speaker
    commits to the evidence; a plausibility downgrade of gamma."""
    _target(state, op, UNDERMINE_TARGETS, UNDERMINE_TARGET)
    _note(UNDERMINE_TARGET)
    _evidence(state, op, speaker)
    _check_formula(state, op)
    _note(UNDERMINE_EFFECT)
    state.att.add((op["evidence"], op["target"]))
    _relabel(state, op["target"], core.WEAKENED)
    conservative = op.get("downgrade") == "conservative"
    _on_target(state, op, UNDERMINE_CONSERVATIVE if conservative else UNDERMINE_DEL)


# Revise ---------------------------------------------------------------------------------------

REVISE_TARGET = clause(
    "T3.revise.target-any-standing",
    PAPER,
    'proof of Lemma 2.2: Revise "adds attacks on alpha_gamma and sets st = abandoned"; B.2 '
    'T12: "h2 stays abandoned"',
    "Revise's target may carry any label",
)
REVISE_ATTACKERS = clause(
    "T3.revise.attackers-in-good-standing",
    CHOSEN,
    "a withdrawn record attacks nothing",
    "Revise's attackers are in S_t (wrong-standing)",
    "attackers of any standing",
)
REVISE_EFFECT = clause(
    "T3.revise.attacks-abandoned",
    PAPER,
    'proof of Lemma 2.2: "Revise adds attacks on alpha_gamma and sets st(alpha_gamma) = abandoned"',
    "an attack (a, target) for each attacker; the target is labelled abandoned",
)
REVISE_RETRACTS = clause(
    "T3.revise.retracts-commitment",
    CHOSEN,
    'B.3: Cm holds "public, retractable assertions"; revising one\'s own claim retracts it',
    "the speaker's commitment to the target, if any, is retracted",
    "commitments are unchanged by Revise",
    affects="commitments",
)
REVISE_DEL = clause(
    "del.revise",
    PAPER,
    'Section 2\'s table: "Revise [!~gamma] or Att edge addition"; B.2 T9 (no attacker): '
    '"Revise applies the hard announcement !~h2"; T12 (attacker h4): the attack alone',
    "with no attackers [!~gamma]; with attackers the attacks alone",
)
REVISE_ANNOUNCE = clause(
    "del.revise.announce",
    CHOSEN,
    "the table gives both readings; the trace may say which one an utterance is",
    "announce true or false overrides the reading the attackers select",
    "ignore announce: the attackers alone select the reading",
)


def process_revise(state: State, op: Operation, speaker: str) -> None:
    """Revise(target, attackers): attacks on the target, target abandoned, the speaker's
    commitment to it retracted; [!~gamma] or the attacks alone."""
    _target(state, op, REVISE_TARGETS, REVISE_TARGET)
    _note(REVISE_TARGET)
    attackers = tuple(op.get("attackers", ()))
    _cited(
        state,
        "attackers",
        attackers,
        own=op["target"],
        allowed=frozenset(core.GOOD_STANDING),
        standing_clause=REVISE_ATTACKERS,
    )
    _check_formula(state, op)
    _note(REVISE_EFFECT)
    if op["target"] in state.commitments[speaker]:
        _note(REVISE_RETRACTS)
    state.att |= {(a, op["target"]) for a in attackers}
    _relabel(state, op["target"], core.ABANDONED)
    state.commitments[speaker].discard(op["target"])
    _on_target(state, op, REVISE_ANNOUNCE if "announce" in op else REVISE_DEL)


# Resolve --------------------------------------------------------------------------------------

RESOLVE_TARGET = clause(
    "T3.resolve.target-in-good-standing",
    PAPER,
    'proof of Lemma 2.2: "Resolve sets st = resolved only when alpha_gamma in S_t"',
    "Resolve's target is in S_t (wrong-standing)",
)
RESOLVE_UNATTACKED = clause(
    "T3.resolve.target-unattacked",
    PAPER,
    'proof of Lemma 2.2: "... and no attack on it is recorded (Table 3)"',
    "Resolve's target has no recorded incoming attack (attacked-target); by Lemma 2.2 this "
    "never fires once the standing check has passed",
)
SUBSUMES_ANY = clause(
    "T3.resolve.subsumes-any-standing",
    CHOSEN,
    "subsumption records a cross-hypothesis dependency whatever the subsumed record's standing",
    "the subsumed records are registered, of any standing",
    "subsumed records in S_t only",
)
SUBSUMES_EFFECT = clause(
    "T3.resolve.subsumes-dep",
    PAPER,
    'A.3, "Subsumption at Resolve": the edge is added at Resolve (Phase 2 T13: h4 unifies h1 '
    "and h3)",
    "each subsumed record gains the target in its Dep",
)
PREMISES_GOOD = clause(
    "T3.resolve.premises-in-good-standing",
    CHOSEN,
    "a decision cannot rest on a withdrawn premise",
    "an authoritative Resolve's premises are in S_t (wrong-standing)",
    "premises of any standing; the Verify walk then flags the decision",
)
PREMISES_DEP = clause(
    "T3.resolve.premises-join-dep",
    CHOSEN,
    'A.3: "Resolve changes an existing record\'s standing without replacing its support links"',
    "an authoritative Resolve's premises join Dep(target)",
    "a separate decision record depending on the premises (B.3's letter: the decision lists "
    "them); Verify of the target then differs",
)
DISSENTERS_IN_AGS = clause(
    "T3.resolve.dissenters-in-ags",
    PAPER,
    'B.3: a decision "recording dissent" of agents of Ags',
    "each dissenter is an agent of Ags (unknown-agent)",
)
DISSENTER_NOT_SPEAKER = clause(
    "T3.resolve.dissenter-not-speaker",
    CHOSEN,
    "the agent who takes a decision does not dissent from it",
    "no dissenter is the speaker (self-reference)",
    "accept the speaker among the dissenters",
)
RESOLVE_EFFECT = clause(
    "T3.resolve.resolved",
    PAPER,
    "proof of Lemma 2.2: Resolve sets st(alpha_gamma) = resolved",
    "the target is labelled resolved; its dissent is recorded",
)
RESOLVE_COMMITS = clause(
    "T3.resolve.commitments",
    CHOSEN,
    'Section 2: "Observe and Resolve commit content"; a consensus is everyone\'s, a decision its '
    "speaker's",
    "a consensual Resolve commits every agent to the target, an authoritative one its speaker",
    "only the speaker commits, either way",
    affects="commitments",
)
RESOLVE_FORM = clause(
    "T3.resolve.decision-fields",
    CHOSEN,
    "premises and dissent belong to a decision, an announcement to a consensus",
    "premises and dissenters only on an authoritative Resolve, a formula only on a consensual "
    "one (malformed-operation)",
    "accept premises and dissenters on a consensual Resolve, and a formula on a decision",
)
RESOLVE_DEL = clause(
    "del.resolve",
    PAPER,
    'Section 2\'s table: "Resolve consensual [!gamma], or decision recording dissent"',
    "consensual: [!gamma]; authoritative: no change to M_t",
)


def process_resolve(state: State, op: Operation, speaker: str) -> None:
    """Resolve(target): target resolved, subsumed records rest on it, a decision rests on its
    premises and records dissent; consensual [!gamma]."""
    target = op["target"]
    _target(state, op, RESOLVE_TARGETS, RESOLVE_TARGET)
    _note(RESOLVE_TARGET, RESOLVE_UNATTACKED)
    _require(
        not any(t == target for _, t in state.att),
        RESOLVE_UNATTACKED,
        "attacked-target",
        field="target",
        record=target,
    )
    subsumes, premises = tuple(op.get("subsumes", ())), tuple(op.get("premises", ()))
    _cited(state, "subsumes", subsumes, own=target, allowed=None)
    _note_withdrawn(state, subsumes, SUBSUMES_ANY)
    _cited(
        state,
        "premises",
        premises,
        own=target,
        allowed=frozenset(core.GOOD_STANDING),
        standing_clause=PREMISES_GOOD,
    )
    for agent in op.get("dissenters", ()):
        _require(agent in state.agents, DISSENTERS_IN_AGS, "unknown-agent", field="dissenters")
        _require(agent != speaker, DISSENTER_NOT_SPEAKER, "self-reference", field="dissenters")
    _check_formula(state, op)
    _note(RESOLVE_EFFECT)
    if not op.get("authoritative"):
        _note(RESOLVE_COMMITS)  # a decision commits its speaker under either reading
    _relabel(state, target, core.RESOLVED)
    if subsumes:
        _note(SUBSUMES_EFFECT)
    state.dep |= {(s, target) for s in subsumes}
    if premises:
        _note(PREMISES_DEP)
    state.dep |= {(target, p) for p in premises}
    if op.get("dissenters"):
        state.dissent.setdefault(target, set()).update(op["dissenters"])
    for agent in (speaker,) if op.get("authoritative") else state.agents:
        state.commitments[agent].add(target)
    _on_target(state, op, RESOLVE_DEL)


# Question -------------------------------------------------------------------------------------

QUESTION_NO_RECORD = clause(
    "T3.question.registers-record",
    PAPER,
    'B.3 T1: "Operations: Question (opens root issue), Observe" and "Args_1 = {timeline}, the '
    "premise record of the six-week deadline registered by Observe ... The Question opens issue "
    'I_1"; Section 2: "Expand-Awareness and Question expand or query without committing '
    "claims\". No statement of B.1-B.3 needs a question record: B.2 T10's Question keeps o6 on "
    "the queue, which is a problem, not an argument; Lemma 2.2's proof (\"Question add[s] no "
    'attack edge and label[s] any new argument active") holds with no new argument',
    "a Question registers no record: its id names the issue it opens and the problems it "
    "queues, and is not a record's id (duplicate-record, field id)",
)
QUESTION_DEL = clause(
    "del.question",
    PAPER,
    'Section 2\'s table: "Question: no DEL update; chi queued as an open abductive problem"; '
    "B.2 T10",
    "chi is queued for every agent who does not believe it and has no open problem with the "
    "same chi; M_t is unchanged",
)


def process_question(state: State, op: Operation, speaker: str) -> None:
    """Question(chi): no record (the issue it opens is not an argument); chi queued as an open
    abductive problem."""
    # The name is the source of the problems it queues: not a record's, so the
    # source stays unambiguous.
    _require_new_id(state, op, QUESTION_NO_RECORD)
    _note(QUESTION_NO_RECORD)
    _check_formula(state, op)
    chi = op.get("formula")
    if chi is None:
        return
    _note(QUESTION_DEL)
    if not _follows_m():
        return
    model = model_of(state)
    queued = []
    for agent in state.agents:
        if _believes(model, agent, chi):
            continue
        if any(
            p.agent == agent and p.chi == chi and p.is_open(state.records) for p in state.problems
        ):
            continue
        queued.append(Problem(agent, chi, op["id"], model))
    state.problems = (*state.problems, *queued)


# -- the turn -----------------------------------------------------------------------------------

ORDER = (
    "expand-awareness",
    "observe",
    "hypothesize",
    "support",
    "undermine",
    "revise",
    "resolve",
    "question",
)
"""The fixed order of Section 2 ("Updating D_t"), clause ``order.kinds``."""

_PROCESS: Mapping[str, Callable[[State, Operation, str], None]] = {
    "expand-awareness": process_expand_awareness,
    "observe": process_observe,
    "hypothesize": process_hypothesize,
    "support": process_support,
    "undermine": process_undermine,
    "revise": process_revise,
    "resolve": process_resolve,
    "question": process_question,
}


def process_turn(state: State, turn: Turn, *, epistemic: bool = True) -> Outcome:
    """D_t -> D_t+1: the turn's operations in the fixed order, all or none (Algorithm 1).

    With ``epistemic`` False the turn's effects on M_t and the problem queue are not
    computed (its formulas are still checked against Ags and Prop_t): the argumentation
    alone, for a caller that takes M_t from elsewhere.

    Raises
    ------
    Rejected
        The first clause the turn breaks; ``state`` is unchanged.
    """
    staged = state.copy()
    staged.turn += 1
    log = _Log(epistemic=epistemic)
    token = _LOG.set(log)
    try:
        _note(ATOMIC, COMPOSITION)
        if _interact(staged, turn.operations, same_kind=False, narrated=False):
            _note(ORDER_KINDS)
        if _interact(staged, turn.operations, same_kind=False, narrated=True):
            _note(ORDER_NARRATED)
        if _interact(staged, turn.operations, same_kind=True):
            _note(ORDER_WRITTEN)
        _well_formed(turn.operations)
        _require(turn.speaker in staged.agents, SPEAKER_IN_AGS, "unknown-agent", field="speaker")
        if not turn.operations:
            _note(NO_OPERATIONS)
        _each(staged, turn, "expand-awareness")
        observed = _each(staged, turn, "observe")
        process_announcements(staged, observed)
        _each(staged, turn, "hypothesize")
        _each(staged, turn, "support")
        _each(staged, turn, "undermine")
        _each(staged, turn, "revise")
        _each(staged, turn, "resolve")
        _each(staged, turn, "question")
    except Rejected as refused:
        refused.clauses = frozenset(log.clauses) | refusal_clauses(turn, refused.clause)
        raise
    finally:
        _LOG.reset(token)
    return Outcome(staged, frozenset(log.clauses))


def _interact(
    state: State, operations: Sequence[Operation], *, same_kind: bool, narrated: bool = False
) -> bool:
    """Whether two operations (of different kinds, or of one kind) could decide each other's
    outcome: one changes a record or atom the other names, or both act on M_t.  Operations
    that do neither commute, so the order chosen between them decides nothing.
    ``narrated``: only pairs of kinds whose order the paper's scenarios fix (else only the
    other pairs)."""
    touched = [(op["op"], _names(op), _changes(op), _acts_on_m(state, op)) for op in operations]
    return any(
        (a_kind == b_kind) == same_kind
        and (same_kind or (_ordered(a_kind, b_kind) in _NARRATED) == narrated)
        and bool(a_changes & b_names or b_changes & a_names or (a_m and b_m))
        for k, (a_kind, a_names, a_changes, a_m) in enumerate(touched)
        for b_kind, b_names, b_changes, b_m in touched[k + 1 :]
    )


def _ordered(a: str, b: str) -> tuple[str, str]:
    return (a, b) if ORDER.index(a) <= ORDER.index(b) else (b, a)


_CITING = ("id", "target", "evidence")
_CITING_LISTS = ("depends_on", "evidence_depends_on", "attackers", "subsumes", "premises")


def _atoms(op: Operation) -> list[str]:
    atoms = [*op.get("introduces", ()), *([op["atom"]] if "atom" in op else ())]
    if op.get("formula") is not None:
        atoms += sorted(se.compute_atoms(op["formula"]))
    return [f"atom:{a}" for a in atoms]


def _names(op: Operation) -> set[str]:
    """The records and atoms an operation reads or changes."""
    names = {op[f] for f in _CITING if f in op} | {r for f in _CITING_LISTS for r in op.get(f, ())}
    return names | set(_atoms(op))


def _changes(op: Operation) -> set[str]:
    """The records and atoms an operation changes: what it registers, its target (label, Dep,
    attacks, commitments), the records a Resolve subsumes (their Dep), the atoms it adds."""
    changed = {op[f] for f in ("id", "target") if f in op}
    if op.get("evidence_claim") is not None:
        changed.add(op["evidence"])
    changed |= set(op.get("subsumes", ()))
    added = [*op.get("introduces", ()), *([op["atom"]] if "atom" in op else ())]
    return changed | {f"atom:{a}" for a in added}


def _acts_on_m(state: State, op: Operation) -> bool:
    target = state.records.get(op.get("target", ""))
    return (
        op.get("formula") is not None
        or (target is not None and target.formula is not None)
        or bool(op.get("introduces"))
        or (op["op"] == "expand-awareness" and state.model is not None)
    )


def refusal_clauses(turn: Turn, broken: str) -> frozenset[str]:
    """The clauses a refusal of ``turn`` for breaking ``broken`` exercises besides those its
    operations did: the broken clause, and the choices of which error a refused turn reports
    and that it takes no turn number."""
    clauses = {broken, NUMBERED, SPEAKER_FIRST, FIELD_ORDER, CITED_CHECKS}
    if len(turn.operations) > 1:
        clauses.add(FIRST_FAILING)
    # The epistemic checks come after Table 3's, so a turn with epistemic inputs that
    # breaks a Table 3 row would report another code if they came first.
    if broken.startswith("del.") or any(
        op.get("formula") is not None or op.get("introduces") for op in turn.operations
    ):
        clauses.add(EPISTEMIC_LAST)
    return frozenset(clauses)


def _each(state: State, turn: Turn, kind: str) -> list[tuple[int, Operation]]:
    """Apply the turn's operations of one kind, in the order written."""
    ops = [(i, op) for i, op in enumerate(turn.operations) if op["op"] == kind]
    for index, op in ops:
        try:
            _PROCESS[kind](state, op, turn.speaker)
        except Rejected as refused:
            refused.index, refused.operation = index, kind
            raise
    return ops


def _well_formed(operations: Sequence[Operation]) -> None:
    """The form rules the schema cannot state, each operation in the order written."""
    for index, op in enumerate(operations):
        broken = form_violation(op)
        if broken is not None:
            clause_id, field_name = broken
            refused = Rejected("malformed-operation", clause_id, field_name)
            refused.index, refused.operation = index, op["op"]
            raise refused


def form_violation(op: Operation) -> tuple[str, str] | None:
    """The form rule ``op`` breaks that the schema cannot state, and its field; or None."""
    for name in ("claim", "evidence_claim"):
        if name in op and not op[name].strip():
            return CLAIM_NOT_BLANK, name
    if op.get("evidence_depends_on") and op.get("evidence_claim") is None:
        return EVIDENCE_DEPENDS_NEEDS_CLAIM, "evidence_depends_on"
    if op["op"] == "resolve":
        decision = bool(op.get("authoritative"))
        for name in ("premises", "dissenters"):
            if op.get(name) and not decision:
                return RESOLVE_FORM, name
        if decision and op.get("formula") is not None:
            return RESOLVE_FORM, "formula"
    return None


CLAIM_NOT_BLANK = clause(
    "form.claim-not-blank",
    CHOSEN,
    "a claim is what a record asserts; white space asserts nothing",
    "a claim (and an evidence claim) has a character other than white space (malformed-operation)",
    "accept any non-empty string, as the schema does",
)
EVIDENCE_DEPENDS_NEEDS_CLAIM = clause(
    "form.evidence-depends-on-needs-claim",
    CHOSEN,
    "only a record registered by the operation gets its dependencies from it",
    "evidence_depends_on only with evidence_claim (malformed-operation)",
    "ignore evidence_depends_on on existing evidence",
)


# -- the checks and effects the rows share --------------------------------------------------------


@dataclass
class _Log:
    """What the turn under way records: the clauses it exercised; whether it follows M_t."""

    epistemic: bool = True
    clauses: set[str] = field(default_factory=set)


def _follows_m() -> bool:
    log = _LOG.get(None)
    return log is None or log.epistemic


_LOG: contextvars.ContextVar[_Log] = contextvars.ContextVar("clauses")


def _note(*clause_ids: str) -> None:
    """Record that the turn exercised these clauses."""
    log = _LOG.get(None)
    if log is not None:
        log.clauses.update(clause_ids)


def _require_new_id(state: State, op: Operation, clause_id: str) -> None:
    _require(
        op["id"] not in state.records,
        clause_id,
        "duplicate-record",
        field="id",
        record=op["id"],
    )


def _new_record(state: State, op: Operation) -> None:
    _note(NEW_ACTIVE, NEW_RECORD_DEP)
    _require_new_id(state, op, ID_NEW)
    depends_on = tuple(op.get("depends_on", ()))
    _cited(state, "depends_on", depends_on, own=op["id"], allowed=None)
    _note_withdrawn(state, depends_on, DEPENDS_ANY_STANDING)


def _note_withdrawn(state: State, records: Sequence[str], clause_id: str) -> None:
    """Note a clause that admits cited records outside S_t, when some are."""
    if any(state.label(r) not in core.GOOD_STANDING for r in records):
        _note(clause_id)


def _target(state: State, op: Operation, allowed: frozenset[str], standing: str) -> None:
    target = op["target"]
    _require(
        target in state.records,
        CITED_REGISTERED,
        "unknown-record",
        field="target",
        record=target,
    )
    _require(
        state.label(target) in allowed,
        standing,
        "wrong-standing",
        field="target",
        record=target,
    )


def _evidence(state: State, op: Operation, speaker: str) -> None:
    evidence = op["evidence"]
    _require(
        evidence != op["target"],
        EVIDENCE_NOT_TARGET,
        "self-reference",
        field="evidence",
        record=evidence,
    )
    if op.get("evidence_claim") is None:
        _cited(
            state,
            "evidence",
            (evidence,),
            own=None,
            allowed=frozenset(core.GOOD_STANDING),
            standing_clause=EVIDENCE_EXISTING,
        )
        _note(EVIDENCE_EXISTING, EXISTING_EVIDENCE_COMMITS)
    else:
        _require(
            evidence not in state.records,
            ID_NEW,
            "duplicate-record",
            field="evidence",
            record=evidence,
        )
        depends_on = tuple(op.get("evidence_depends_on", ()))
        _cited(state, "evidence_depends_on", depends_on, own=evidence, allowed=None)
        _note(EVIDENCE_NEW_WITH_CLAIM, EVIDENCE_COMMITS, NEW_ACTIVE)
        _note_withdrawn(state, depends_on, DEPENDS_ANY_STANDING)
        _register(state, evidence, op["evidence_claim"], "evidence", speaker, depends_on)
    state.commitments[speaker].add(evidence)


def _relabel(state: State, record: str, label: str) -> None:
    state.records[record] = replace(state.records[record], standing=label)


# -- the epistemic layer: M_t and the problem queue (Appendix A.1) ---------------------------

FORMULA_AGENTS = clause(
    "del.formula.agents-in-ags",
    CHOSEN,
    "the modalities K_i, B_i, E_G, C_G, A_i, X_i are indexed by Ags (Definition A.1)",
    "an operation's own formula names only agents of Ags (unknown-agent, field formula)",
    "refuse such a formula as outside the language (malformed-formula)",
)
FORMULA_ATOMS = clause(
    "del.formula.atoms-in-prop",
    PAPER,
    "Definition 2.1: claims lie in Prop_t; M_t is over Prop_t (Definition A.1)",
    "an operation's own formula names only atoms of Prop_t, the ones it introduces included "
    "(unknown-atom, field formula)",
)
FORMULA_SOURCE = clause(
    "del.formula.own-else-target",
    CHOSEN,
    "Section 2's table names the target's hypothesis gamma; the trace may state it explicitly",
    "Support, Undermine, Revise and Resolve act on their own formula if given, else the "
    "target record's; an operation with neither leaves M_t as it is",
    "act on the operation's own formula only; without one, M_t is left as it is",
)
NO_EMPTY_W = clause(
    "del.announcement.some-world-survives",
    CHOSEN,
    "no truthful announcement of a formula true nowhere is possible, and W must stay non-empty",
    "a hard announcement ([!psi], [!~gamma], [!gamma]) that holds at no world is refused "
    "(no-surviving-world); for a turn's observations, at the first after which none is left",
    "accept the turn and leave M_t as it was when the announcement holds at no world",
)
SURPRISE = clause(
    "del.observe.poses-problems",
    CHOSEN,
    "Definition A.2's surprise check, read as B.2 T5 reads it: \"just before o7 was announced "
    '... Bob did not believe o7"',
    "an observation psi poses (B_i, psi) for every agent i who does not believe psi in the "
    "model announced with the turn's other observations but not psi; that model is M_chi",
    "read the surprise check in M_t before the turn's observations (M_chi unchanged)",
    affects="problems",
)


def _check_formula(state: State, op: Operation, also: Sequence[str] = ()) -> None:
    """The operation's own formula names agents of Ags and atoms of Prop_t (or introduced)."""
    formula = op.get("formula")
    if formula is None:
        return
    _note(FORMULA_ATOMS)
    _require(
        agents_of(formula) <= set(state.agents),
        FORMULA_AGENTS,
        "unknown-agent",
        field="formula",
    )
    _require(
        se.compute_atoms(formula) <= state.atoms | set(also),
        FORMULA_ATOMS,
        "unknown-atom",
        field="formula",
    )


def formula_of(state: State, op: Operation) -> se.Formula | None:
    """The formula an operation's update acts on: its own, else its target's (clause
    ``del.formula.own-else-target``)."""
    own = op.get("formula")
    if own is not None or "target" not in op:
        return own
    return state.records[op["target"]].formula


def realisation(op: Operation) -> tuple[str | None, bool]:
    """The DEL realisation of a Support, Undermine, Revise or Resolve: (update, negated?), the
    update one of :data:`gcv.spec.epistemic.DEL_REALISATIONS`' names, None for no change to M_t."""
    default, alternative = se.DEL_REALISATIONS[op["op"]]
    match op["op"]:
        case "support":
            chosen = bool(op.get("specific"))
        case "undermine":
            chosen = op.get("downgrade") == "conservative"
        case "revise":
            announces = op.get("announce")
            chosen = not (not op.get("attackers") if announces is None else announces)
        case "resolve":
            chosen = bool(op.get("authoritative"))
        case _:
            chosen = False
    return alternative if chosen and alternative is not None else default


def _on_target(state: State, op: Operation, del_clause: str) -> None:
    """Support, Undermine, Revise, Resolve on M_t: their realisation of gamma or ~gamma."""
    gamma = formula_of(state, op)
    update, negated = realisation(op)
    if gamma is None or update is None:
        return
    _note(del_clause)
    if op.get("formula") is None:
        _note(FORMULA_SOURCE)
    if not _follows_m():
        return
    model = model_of(state)
    acted_on = se.Not(gamma) if negated else gamma
    match update:
        case "hard announcement":
            afford(model, acted_on)
            _require(
                bool(se.compute_truth_set(model, acted_on)),
                NO_EMPTY_W,
                "no-surviving-world",
                field="formula",
                record=op["target"],
            )
            state.model = se.process_announcement(model, acted_on)
        case "lexicographic upgrade":
            afford(model, acted_on)
            state.model = se.process_lexicographic_upgrade(model, acted_on)
        case "conservative upgrade":
            afford(model, acted_on, conservative=True)
            state.model = se.process_conservative_upgrade(model, acted_on)
        case _:
            raise AssertionError(f"{op['op']} has no update {update}")


def model_of(state: State) -> se.EpistemicModel:
    """M_t, built as the default model the first time a formula needs it."""
    if state.model is None:
        worlds: frozenset[se.World] = frozenset({frozenset()})
        for atom in sorted(state.atoms):
            worlds = worlds | frozenset(w | {atom} for w in worlds)
        everything = frozenset((w, v) for w in worlds for v in worlds)
        state.model = se.EpistemicModel(
            frozenset(state.agents),
            frozenset(state.atoms),
            worlds,
            dict.fromkeys(state.agents, everything),
            {a: frozenset(state.awareness[a]) for a in state.agents},
        )
    return state.model


def _believes(model: se.EpistemicModel, agent: str, f: se.Formula) -> bool:
    afford(model, se.Believes(agent, f))
    return se.is_valid(model, se.Believes(agent, f))


def _solves(model: se.EpistemicModel, problem: Problem, gamma: se.Formula) -> bool:
    grown = len(model.worlds) << len(se.compute_atoms(problem.chi))
    limit = _BUDGET.get().worlds
    if limit is not None and max(grown, len(model.worlds)) > limit:
        raise TooCostly(f"Definition A.2's check on {max(grown, len(model.worlds))} worlds")
    return se.is_abductive_solution(model, problem.posed, problem.agent, problem.chi, gamma)


def agents_of(f: se.Formula) -> frozenset[str]:
    """The agents a formula's modalities name."""
    match f:
        case se.Top() | se.Bottom() | se.Atom():
            return frozenset()
        case se.And(parts) | se.Or(parts):
            return frozenset().union(*(agents_of(p) for p in parts))
        case se.Implies(left, right) | se.Iff(left, right):
            return agents_of(left) | agents_of(right)
        case se.Not(body):
            return agents_of(body)
        case se.CondBelieves(agent, body, condition):
            return frozenset({agent}) | agents_of(body) | agents_of(condition)
        case se.Everybody(group, body) | se.Common(group, body):
            return frozenset(group) | agents_of(body)
        case (
            se.Knows(agent, body)
            | se.Believes(agent, body)
            | se.Aware(agent, body)
            | se.Explicit(agent, body)
        ):
            return frozenset({agent}) | agents_of(body)
    raise AssertionError(f"not a formula: {f!r}")


# -- the queries' conventions (the conformance protocol) -----------------------------------------

UNREGISTERED_CANDIDATE = clause(
    "query.verify.no-record",
    PAPER,
    'A.1: "a candidate with no associated record is ungrounded"; Section 2: "Otherwise, '
    'including when no record is associated, it is ungrounded"',
    "Verify of a candidate with no record (none named, or an identifier outside Args_t) "
    "answers ungrounded, with no witness",
)
UNREGISTERED_RECORD = clause(
    "query.record-registered",
    CHOSEN,
    "Affected, Affected*, Dep_t, st_t, attackers and dissenters are defined on Args_t "
    "(Definitions 2.1 and 2.3); an identifier outside it is the caller's mistake, which an "
    "empty answer would hide",
    "a set query that names a record (affected, affected_star, affected_star_active, "
    "dependencies, attackers, dissenters) answers unknown-record when the record is not "
    "registered (standing too, which has no value outside Args_t in any reading)",
    "answer such a set query with the empty set",
    affects="answer",
)
