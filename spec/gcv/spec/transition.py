"""Table 3 and Algorithm 1, executable: the per-turn transition D_t -> D_t+1.

The declarative statement of what one turn does to the dependency map D_t = (M, AF, Cm,
Dep) (Definition 2.1, held as :class:`gcv.spec.state.State`): :func:`process_turn` applies
the operation kinds in the fixed order (:data:`ORDER`, stated once: each kind with its
``process_<operation>``, and what the turn does once that kind's operations are applied),
and each ``process_<operation>`` states that operation's row of Table 3 (its preconditions
as plain checks, one per clause) and of Section 2's operation table (its DEL realisation on
M_t, through :mod:`gcv.spec.epistemic`'s updates).  It is slow and obvious on purpose:
relations are sets of pairs, a turn works on a copy of the state, and nothing is indexed.
It imports nothing from ``reference/``.

It is one module, read top to bottom as the paper's table is: the checks and effects
several rows share, the realisation of an operation on M_t, the eight
``process_<operation>`` in the fixed order, then the turn.  A reader of one operation reads
its ``process_<operation>`` and the shared helpers above it; D_t itself, a turn and its
outcome are :mod:`gcv.spec.state`'s.

Whole, at about 800 lines, because the rows share their helpers (citations, evidence,
targets, the realisation on M_t) and the turn reads them all: split per operation, each row
would import the shared checks from a third module and the order from a fourth, and the
change recipe (docs/layout.md) names this one file for ``process_<operation>``.

Every rule cites its clause, whose prose (the paper's place, or the reason for a choice)
is in the table of :mod:`gcv.spec.clauses`; ``spec/gcv/spec/normative.md`` is generated from it.
A turn's :class:`gcv.spec.ledger.Ledger` collects the clauses it exercised
(:attr:`Outcome.clauses`, :attr:`Rejected.clauses`), so a conformance step can say which
choices it depends on, and carries the brute force's budget.

Where the paper's objects are: **Table 3** (preconditions), the checks at the top of each
``process_<operation>``, one per clause ``T3.<operation>.*``, and the form rules the schema
cannot state (``form.*``, :func:`form_violation`); **Algorithm 1** (per-operation rule),
the effects below those checks (``T3.*``) and each operation's DEL realisation (``del.*``,
:func:`realisation`); **the fixed order** and the simultaneous announcement, :data:`ORDER`
and :func:`process_turn` (``order.*``); atomicity and composition, ``turn.*``.

Operations are the trace format's operation objects (``spec/gcv/spec/trace.schema.json``, already
schema-valid), except that a ``formula`` is a :mod:`gcv.spec.epistemic` formula, not its
text: parsing is the caller's.

References
----------
Grounded Continuation, Section 2 (the operation table, "Updating D_t"), the proof of Lemma
2.2, Appendix A.1, A.3 ("State composition", "Subsumption at Resolve"), A.4 (Table 3), B.2
and B.3.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from gcv.spec import core
from gcv.spec import epistemic as se
from gcv.spec.clauses import (
    ABDUCTION,
    ATOMIC,
    CITED_REGISTERED,
    CLAIM_NOT_BLANK,
    COMPOSITION,
    DEPENDS_ANY_STANDING,
    DISSENT_ACCUMULATES,
    DISSENTER_NOT_SPEAKER,
    DISSENTERS_IN_AGS,
    EMPTY_LIST_ABSENT,
    EVIDENCE_COMMITS,
    EVIDENCE_DEPENDS_NEEDS_CLAIM,
    EVIDENCE_EXISTING,
    EVIDENCE_NEW_WITH_CLAIM,
    EVIDENCE_NOT_TARGET,
    EXISTING_EVIDENCE_COMMITS,
    EXPAND_AGENTS,
    EXPAND_ALL,
    EXPAND_CHANGES,
    EXPAND_EFFECT,
    FORMULA_AGENTS,
    FORMULA_ATOMS,
    FORMULA_SOURCE,
    HYPOTHESIZE_DEL,
    HYPOTHESIZE_KIND,
    HYPOTHESIZE_NO_COMMITMENT,
    ID_NEW,
    INTRODUCES_EFFECT,
    INTRODUCES_NEW,
    NEW_ACTIVE,
    NEW_RECORD_DEP,
    NO_EMPTY_W,
    NO_OPERATIONS,
    NO_SELF_CITATION,
    OBSERVE_COMMITS,
    OBSERVE_DEL,
    OBSERVE_KIND,
    PREMISES_DEP,
    PREMISES_GOOD,
    QUESTION_DEL,
    QUESTION_ISSUE_IDS,
    QUESTION_NO_RECORD,
    RESOLVE_COMMITS,
    RESOLVE_DEL,
    RESOLVE_EFFECT,
    RESOLVE_FORM,
    RESOLVE_TARGET,
    RESOLVE_UNATTACKED,
    REVISE_ANNOUNCE,
    REVISE_ATTACKERS,
    REVISE_DEL,
    REVISE_EFFECT,
    REVISE_RETRACTS,
    REVISE_TARGET,
    SIMULTANEOUS,
    SPEAKER_IN_AGS,
    SPLIT_KEEPS_ORDER,
    SUBSUMES_ANY,
    SUBSUMES_EFFECT,
    SUPPORT_DEL,
    SUPPORT_DEP,
    SUPPORT_NO_LABEL,
    SUPPORT_TARGET,
    SURPRISE,
    UNDERMINE_CONSERVATIVE,
    UNDERMINE_DEL,
    UNDERMINE_EFFECT,
    UNDERMINE_TARGET,
)
from gcv.spec.ledger import UNBOUNDED, Budget, Ledger, Operation, TooCostly, refusal_clauses
from gcv.spec.state import Outcome, Problem, Record, Rejected, State, Turn, model_of

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
    "agents_of",
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


# The labels each operation accepts on its target (its Table 3 clause says whose choice).
SUPPORT_TARGETS = frozenset({core.ACTIVE, core.WEAKENED, core.RESOLVED})
UNDERMINE_TARGETS = frozenset({core.ACTIVE, core.WEAKENED})
REVISE_TARGETS = frozenset(core.STANDING_LABELS)
RESOLVE_TARGETS = frozenset(core.GOOD_STANDING)


# -- the checks and effects the rows share ------------------------------------------------------


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


def _note_withdrawn(ledger: Ledger, state: State, records: Sequence[str], clause_id: str) -> None:
    """Note a clause that admits cited records outside S_t, when some are."""
    if any(state.label(r) not in core.GOOD_STANDING for r in records):
        ledger.note(clause_id)


def _new_record(state: State, op: Operation, ledger: Ledger) -> None:
    ledger.note(NEW_ACTIVE, NEW_RECORD_DEP)
    _require(op["id"] not in state.records, ID_NEW, "duplicate-record", field="id", record=op["id"])
    _note_issue_id(state, op["id"], ledger, question=False)
    depends_on = tuple(op.get("depends_on", ()))
    _cited(state, "depends_on", depends_on, own=op["id"], allowed=None)
    _note_withdrawn(ledger, state, depends_on, DEPENDS_ANY_STANDING)


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
    state.records[record] = Record(claim, speaker, state.turn, kind, formula)
    d = state.dmap
    standing = {**d.standing, record: core.ACTIVE}
    resting = d.dep | {(record, r) for r in depends_on}
    state.dmap = replace(d, args=d.args | {record}, standing=standing, dep=resting)


def _register_own(state: State, op: Operation, kind: str, speaker: str) -> None:
    """The record an Observe or Hypothesize registers."""
    own = (op["id"], op["claim"], kind, speaker, op.get("depends_on", ()), op.get("formula"))
    _register(state, *own)


def _target(state: State, op: Operation, allowed: frozenset[str], standing: str) -> None:
    target = op["target"]
    _require(
        target in state.records, CITED_REGISTERED, "unknown-record", field="target", record=target
    )
    _require(
        state.label(target) in allowed, standing, "wrong-standing", field="target", record=target
    )


def _evidence(state: State, op: Operation, speaker: str, ledger: Ledger) -> None:
    evidence = op["evidence"]
    _require(
        evidence != op["target"],
        EVIDENCE_NOT_TARGET,
        "self-reference",
        field="evidence",
        record=evidence,
    )
    if op.get("evidence_claim") is None:
        good = frozenset(core.GOOD_STANDING)
        _cited(
            state,
            "evidence",
            (evidence,),
            own=None,
            allowed=good,
            standing_clause=EVIDENCE_EXISTING,
        )
        ledger.note(EVIDENCE_EXISTING, EXISTING_EVIDENCE_COMMITS)
    else:
        _require(
            evidence not in state.records,
            ID_NEW,
            "duplicate-record",
            field="evidence",
            record=evidence,
        )
        _note_issue_id(state, evidence, ledger, question=False)
        depends_on = tuple(op.get("evidence_depends_on", ()))
        _cited(state, "evidence_depends_on", depends_on, own=evidence, allowed=None)
        ledger.note(EVIDENCE_NEW_WITH_CLAIM, EVIDENCE_COMMITS, NEW_ACTIVE)
        _note_withdrawn(ledger, state, depends_on, DEPENDS_ANY_STANDING)
        _register(state, evidence, op["evidence_claim"], "evidence", speaker, depends_on)
    state.commitments[speaker].add(evidence)


def _relabel(state: State, record: str, label: str) -> None:
    state.dmap = replace(state.dmap, standing={**state.dmap.standing, record: label})


def _link(
    state: State, *, dep: Iterable[tuple[str, str]] = (), att: Iterable[tuple[str, str]] = ()
) -> None:
    """Add Dep links and attacks between registered records."""
    state.dmap = replace(state.dmap, dep=state.dmap.dep | set(dep), att=state.dmap.att | set(att))


# -- the epistemic layer: M_t and the problem queue (Appendix A.1) ---------------------------


def _check_formula(state: State, op: Operation, ledger: Ledger, also: Sequence[str] = ()) -> None:
    """The operation's own formula names agents of Ags and atoms of Prop_t (or introduced)."""
    formula = op.get("formula")
    if formula is None:
        return
    ledger.note(FORMULA_ATOMS)
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


def _on_target(state: State, op: Operation, del_clause: str, ledger: Ledger) -> None:
    """Support, Undermine, Revise, Resolve on M_t: their realisation of gamma or ~gamma."""
    gamma = formula_of(state, op)
    update, negated = realisation(op)
    if gamma is None or update is None:
        return
    ledger.note(del_clause)
    if op.get("formula") is None:
        ledger.note(FORMULA_SOURCE)
    if not ledger.epistemic:
        return
    model = model_of(state)
    acted_on = se.Not(gamma) if negated else gamma
    match update:
        case "hard announcement":
            ledger.budget.afford(model, acted_on)
            _require(
                bool(se.compute_truth_set(model, acted_on)),
                NO_EMPTY_W,
                "no-surviving-world",
                field="formula",
                record=op["target"],
            )
            state.model = se.process_announcement(model, acted_on)
        case "lexicographic upgrade":
            ledger.budget.afford(model, acted_on)
            state.model = se.process_lexicographic_upgrade(model, acted_on)
        case "conservative upgrade":
            ledger.budget.afford(model, acted_on, conservative=True)
            state.model = se.process_conservative_upgrade(model, acted_on)
        case _:
            raise AssertionError(f"{op['op']} has no update {update}")


def _believes(model: se.EpistemicModel, agent: str, f: se.Formula, budget: Budget) -> bool:
    budget.afford(model, se.Believes(agent, f))
    return se.is_valid(model, se.Believes(agent, f))


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


# -- the eight operations, in the fixed order -------------------------------------------------


def process_expand_awareness(state: State, op: Operation, speaker: str, ledger: Ledger) -> None:
    """Expand-Awareness(p, agents): p joins Prop_t and A_i (Definition A.3)."""
    named = tuple(op.get("agents", ()))
    for agent in named:
        _require(agent in state.agents, EXPAND_AGENTS, "unknown-agent", field="agents")
    growing = named or state.agents
    ledger.note(EXPAND_ALL if not named else EXPAND_AGENTS)
    _require(
        any(op["atom"] not in state.awareness[a] for a in growing),
        EXPAND_CHANGES,
        "already-aware",
        field="atom",
    )
    ledger.note(EXPAND_EFFECT)
    state.atoms.add(op["atom"])
    for agent in growing:
        state.awareness[agent].add(op["atom"])
    if state.model is not None:
        ledger.note(SPLIT_KEEPS_ORDER)
        if ledger.epistemic:
            state.model = se.process_awareness_expansion(state.model, op["atom"], named or None)


def process_observe(state: State, op: Operation, speaker: str, ledger: Ledger) -> None:
    """Observe(psi): a new active record the speaker commits to; [!psi] joins the turn's
    announcement (:func:`process_announcements`)."""
    _new_record(state, op, ledger)
    ledger.note(OBSERVE_COMMITS)
    if op.get("kind", "observation") != "observation":
        ledger.note(OBSERVE_KIND)
    _register_own(state, op, op.get("kind", "observation"), speaker)
    state.commitments[speaker].add(op["id"])
    _check_formula(state, op, ledger)


def process_announcements(
    state: State, observed: Sequence[tuple[int, Operation]], ledger: Ledger
) -> None:
    """The turn's observations, simultaneously: [!(psi_1 & ... & psi_n)], each psi_k read in
    M_t as the Observe phase found it.  psi_k poses (B_i, psi_k) for every agent i who does
    not believe it in M_t announced with the others (Definition A.2)."""
    announced = [(index, op) for index, op in observed if op.get("formula") is not None]
    if not announced:
        return
    ledger.note(OBSERVE_DEL, SURPRISE)
    if len(announced) > 1:
        ledger.note(SIMULTANEOUS)
    if not ledger.epistemic:
        return
    model = model_of(state)
    formulas = [op["formula"] for _, op in announced]
    for k, (index, op) in enumerate(announced):
        so_far = se.And(tuple(formulas[: k + 1]))
        ledger.budget.afford(model, so_far)
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
            if not _believes(posed, agent, op["formula"], ledger.budget)
        ]
    state.model = se.process_announcement(model, se.And(tuple(formulas)))
    state.problems = tuple(problems)


def process_hypothesize(state: State, op: Operation, speaker: str, ledger: Ledger) -> None:
    """Hypothesize(gamma): a new active record, no commitment; its atoms join Prop_t, gamma is
    checked against the open problems (Definition A.2), then [up-up gamma]."""
    _new_record(state, op, ledger)
    ledger.note(HYPOTHESIZE_NO_COMMITMENT)
    if op.get("kind", "hypothesis") != "hypothesis":
        ledger.note(HYPOTHESIZE_KIND)
    _register_own(state, op, op.get("kind", "hypothesis"), speaker)
    introduces = tuple(op.get("introduces", ()))
    for atom in introduces:
        _require(atom not in state.atoms, INTRODUCES_NEW, "duplicate-atom", field="introduces")
    _check_formula(state, op, ledger, also=introduces)
    if introduces:
        ledger.note(INTRODUCES_EFFECT)
    for atom in introduces:
        state.atoms.add(atom)
        for agent in state.agents:
            state.awareness[agent].add(atom)
        if state.model is not None and ledger.epistemic:
            state.model = se.process_awareness_expansion(state.model, atom)
    gamma = op.get("formula")
    if gamma is None:
        return
    ledger.note(HYPOTHESIZE_DEL)
    # The abduction choice decides something only where a problem may be open when gamma
    # comes: one on the queue, or one this turn's earlier records may have posed (its
    # observations apply first; without M_t followed their problems are not queued).
    posed_now = any(
        r.turn == state.turn and r.formula is not None and name != op["id"]
        for name, r in state.records.items()
    )
    if posed_now or any(p.is_open(state.dmap) for p in state.problems):
        ledger.note(ABDUCTION)
    if not ledger.epistemic:
        return
    model = model_of(state)
    solved = []
    for problem in state.problems:
        if problem.is_open(state.dmap):
            ledger.budget.afford_abduction(model, problem.chi)
            if se.is_abductive_solution(model, problem.posed, problem.agent, problem.chi, gamma):
                problem = replace(problem, closed_by=(*problem.closed_by, op["id"]))
        solved.append(problem)
    state.problems = tuple(solved)
    ledger.budget.afford(model, gamma)
    state.model = se.process_lexicographic_upgrade(model, gamma)


def process_support(state: State, op: Operation, speaker: str, ledger: Ledger) -> None:
    """Support(target, evidence): the evidence (registered when it carries a claim) joins
    Dep(target) and the speaker commits to it; [up gamma] or [up-up gamma]."""
    _target(state, op, SUPPORT_TARGETS, SUPPORT_TARGET)
    if state.label(op["target"]) == core.WEAKENED:
        ledger.note(SUPPORT_TARGET)
    _evidence(state, op, speaker, ledger)
    _check_formula(state, op, ledger)
    ledger.note(SUPPORT_DEP, SUPPORT_NO_LABEL)
    _link(state, dep={(op["target"], op["evidence"])})
    _on_target(state, op, SUPPORT_DEL, ledger)


def process_undermine(state: State, op: Operation, speaker: str, ledger: Ledger) -> None:
    """Undermine(target, evidence): attack (evidence, target), target weakened, the speaker
    commits to the evidence; a plausibility downgrade of gamma."""
    _target(state, op, UNDERMINE_TARGETS, UNDERMINE_TARGET)
    ledger.note(UNDERMINE_TARGET)
    _evidence(state, op, speaker, ledger)
    _check_formula(state, op, ledger)
    ledger.note(UNDERMINE_EFFECT)
    _link(state, att={(op["evidence"], op["target"])})
    _relabel(state, op["target"], core.WEAKENED)
    conservative = op.get("downgrade") == "conservative"
    _on_target(state, op, UNDERMINE_CONSERVATIVE if conservative else UNDERMINE_DEL, ledger)


def process_revise(state: State, op: Operation, speaker: str, ledger: Ledger) -> None:
    """Revise(target, attackers): attacks on the target, target abandoned, the speaker's
    commitment to it retracted; [!~gamma] or the attacks alone."""
    _target(state, op, REVISE_TARGETS, REVISE_TARGET)
    ledger.note(REVISE_TARGET)
    attackers = tuple(op.get("attackers", ()))
    good = frozenset(core.GOOD_STANDING)
    _cited(
        state,
        "attackers",
        attackers,
        own=op["target"],
        allowed=good,
        standing_clause=REVISE_ATTACKERS,
    )
    _check_formula(state, op, ledger)
    ledger.note(REVISE_EFFECT)
    if op["target"] in state.commitments[speaker]:
        ledger.note(REVISE_RETRACTS)
    _link(state, att={(a, op["target"]) for a in attackers})
    _relabel(state, op["target"], core.ABANDONED)
    state.commitments[speaker].discard(op["target"])
    _on_target(state, op, REVISE_ANNOUNCE if "announce" in op else REVISE_DEL, ledger)


def process_resolve(state: State, op: Operation, speaker: str, ledger: Ledger) -> None:
    """Resolve(target): target resolved, subsumed records rest on it, a decision rests on its
    premises and records dissent; consensual [!gamma]."""
    target = op["target"]
    _target(state, op, RESOLVE_TARGETS, RESOLVE_TARGET)
    ledger.note(RESOLVE_TARGET, RESOLVE_UNATTACKED)
    _require(
        target not in state.attacked(),
        RESOLVE_UNATTACKED,
        "attacked-target",
        field="target",
        record=target,
    )
    subsumes, premises = tuple(op.get("subsumes", ())), tuple(op.get("premises", ()))
    _cited(state, "subsumes", subsumes, own=target, allowed=None)
    _note_withdrawn(ledger, state, subsumes, SUBSUMES_ANY)
    good = frozenset(core.GOOD_STANDING)
    _cited(state, "premises", premises, own=target, allowed=good, standing_clause=PREMISES_GOOD)
    for agent in op.get("dissenters", ()):
        _require(agent in state.agents, DISSENTERS_IN_AGS, "unknown-agent", field="dissenters")
        _require(agent != speaker, DISSENTER_NOT_SPEAKER, "self-reference", field="dissenters")
    _check_formula(state, op, ledger)
    ledger.note(RESOLVE_EFFECT)
    if state.dissent.get(target):
        ledger.note(DISSENT_ACCUMULATES)
    if not op.get("authoritative"):
        ledger.note(RESOLVE_COMMITS)  # a decision commits its speaker under either reading
    _relabel(state, target, core.RESOLVED)
    if subsumes:
        ledger.note(SUBSUMES_EFFECT)
    if premises:
        ledger.note(PREMISES_DEP)
    _link(state, dep={(s, target) for s in subsumes} | {(target, p) for p in premises})
    if op.get("dissenters"):
        state.dissent.setdefault(target, set()).update(op["dissenters"])
    for agent in (speaker,) if op.get("authoritative") else state.agents:
        state.commitments[agent].add(target)
    _on_target(state, op, RESOLVE_DEL, ledger)


def _note_issue_id(state: State, name: str, ledger: Ledger, *, question: bool) -> None:
    """T3.question.issue-ids-apart, where its alternative (one namespace for records and
    issues) would refuse: a Question taking a record's or an earlier issue's id, a record
    taking an issue's."""
    taken = name in state.issues or (question and name in state.records)
    if taken:
        ledger.note(QUESTION_ISSUE_IDS)
    if question:
        state.issues.add(name)


def process_question(state: State, op: Operation, speaker: str, ledger: Ledger) -> None:
    """Question(chi): no record (the issue it opens is not an argument); chi queued as an open
    abductive problem."""
    ledger.note(QUESTION_NO_RECORD)
    # The issue's id is checked against nothing: issues are not arguments (B.3 T1); one
    # namespace for both would refuse an id a record or an earlier issue already took.
    _note_issue_id(state, op["id"], ledger, question=True)
    _check_formula(state, op, ledger)
    chi = op.get("formula")
    if chi is None:
        return
    ledger.note(QUESTION_DEL)
    if not ledger.epistemic:
        return
    model = model_of(state)
    queued = []
    for agent in state.agents:
        if _believes(model, agent, chi, ledger.budget):
            continue
        if any(p.agent == agent and p.chi == chi and p.is_open(state.dmap) for p in state.problems):
            continue
        queued.append(Problem(agent, chi, op["id"], model))
    state.problems = (*state.problems, *queued)


# -- the turn -----------------------------------------------------------------------------------

Process = Callable[[State, Operation, str, Ledger], None]
Settle = Callable[[State, Sequence[tuple[int, Operation]], Ledger], None]

ORDER: tuple[tuple[str, Process, Settle | None], ...] = (
    ("expand-awareness", process_expand_awareness, None),
    ("observe", process_observe, process_announcements),
    ("hypothesize", process_hypothesize, None),
    ("support", process_support, None),
    ("undermine", process_undermine, None),
    ("revise", process_revise, None),
    ("resolve", process_resolve, None),
    ("question", process_question, None),
)
"""The fixed order of Section 2 ("Updating D_t"), clause ``order.kinds``: each kind with its
``process_<kind>``, and what the turn does once the kind's operations are applied, given
them with their written positions (the observations' simultaneous announcement, clause
``order.simultaneous-observations``).  The only statement of the order in the spec."""


def _empty_list_matters(op: Operation) -> bool:
    """Whether ``op`` has an empty list whose reading as a field given could change the turn
    (form.empty-list-as-absent)."""
    decision = bool(op.get("authoritative"))
    differs_if_given = {
        "evidence_depends_on": op.get("evidence_claim") is None,  # malformed-operation
        "premises": not decision,  # malformed-operation (T3.resolve.decision-fields)
        "dissenters": not decision,
        "agents": True,  # names nobody: already-aware
        "attackers": True,  # del.revise: attackers given select the attacks alone
    }
    return any(differs and op.get(name) == [] for name, differs in differs_if_given.items())


def process_turn(
    state: State, turn: Turn, *, epistemic: bool = True, budget: Budget = UNBOUNDED
) -> Outcome:
    """D_t -> D_t+1: the turn's operations in the fixed order, all or none (Algorithm 1).

    With ``epistemic`` False the turn's effects on M_t and the problem queue are not
    computed (its formulas are still checked against Ags and Prop_t): the argumentation
    alone, for a caller that takes M_t from elsewhere.

    Raises
    ------
    Rejected
        The first clause the turn breaks; ``state`` is unchanged.
    TooCostly
        The brute force would exceed ``budget``; ``state`` is unchanged.
    """
    staged = state.copy()
    staged.turn += 1
    ledger = Ledger(budget, epistemic)
    try:
        ledger.note(ATOMIC, COMPOSITION)
        ledger.note_order(turn.operations, lambda op: _acts_on_m(staged, op))
        if any(_empty_list_matters(op) for op in turn.operations):
            ledger.note(EMPTY_LIST_ABSENT)
        _well_formed(turn.operations)
        _require(turn.speaker in staged.agents, SPEAKER_IN_AGS, "unknown-agent", field="speaker")
        if not turn.operations:
            ledger.note(NO_OPERATIONS)
        for kind, process, settle in ORDER:
            applied = _each(staged, turn, kind, process, ledger)
            if settle is not None:
                settle(staged, applied, ledger)
    except Rejected as refused:
        refused.clauses = frozenset(ledger.clauses) | refusal_clauses(
            turn.operations, refused.clause
        )
        raise
    return Outcome(staged, frozenset(ledger.clauses))


def _each(
    state: State, turn: Turn, kind: str, process: Process, ledger: Ledger
) -> list[tuple[int, Operation]]:
    """Apply the turn's operations of one kind, in the order written."""
    ops = [(i, op) for i, op in enumerate(turn.operations) if op["op"] == kind]
    for index, op in ops:
        try:
            process(state, op, turn.speaker, ledger)
        except Rejected as refused:
            refused.index, refused.operation = index, kind
            raise
    return ops


def _acts_on_m(state: State, op: Operation) -> bool:
    target = state.records.get(op.get("target", ""))
    return (
        op.get("formula") is not None
        or (target is not None and target.formula is not None)
        or bool(op.get("introduces"))
        or (op["op"] == "expand-awareness" and state.model is not None)
    )


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
