"""Where each rule of the transition comes from: the paper, or a choice of the reference.

Every precondition, effect and ordering rule of :mod:`gcv.spec.transition` is a
:class:`Clause` with a stable identifier.  A clause's ``source`` is ``paper``
(``place`` cites the section, table, proof or scenario turn that states it) or
``chosen`` (``place`` gives the reason, and ``alternative`` names the reading
a paper-faithful implementation could make instead, where one exists).

This module is the one table of the clauses' prose: each row below declares one clause
(:func:`clause`), and :mod:`gcv.spec.transition` cites the identifier it returns at the
check or effect the clause governs.  ``spec/gcv/spec/normative.md`` lists the clauses in this
table's order; its entries are generated from the rows (``gcv normative``, which
``tests/test_normative.py`` checks is current), so the prose is written here only.
A clause may also be declared beside the check that cites it: :func:`clause` registers
it wherever it is called, and the generator reads :data:`CLAUSES`.

Whole, at about 900 lines: it is one table (rows grouped as ``spec/gcv/spec/normative.md``'s
sections are: the turn, the order, records, then one group per operation, then M_t), and a
reader looks up a clause by its id or its group, never reads two groups for one purpose;
split into one file per group, the order of ``spec/gcv/spec/normative.md`` would be the order of an
import list, and adding a clause (docs/layout.md, "Where a change goes") one more file to
find.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

__all__ = ["CHOSEN", "CLAUSES", "PAPER", "Affects", "Clause", "Source", "clause"]

Source = Literal["paper", "chosen"]
PAPER: Source = "paper"
CHOSEN: Source = "chosen"

Affects = Literal[
    "outcome", "error", "commitments", "record-fields", "model", "problems", "dissent", "answer"
]
"""What a choice's alternative could change: ``outcome``, whether the turn is accepted and
so everything after it; ``error``, only which error a refused turn reports (it is refused,
and D_t unchanged, either way); ``commitments``, Cm_t; ``record-fields``, a record's kind
or turn number; ``model``, M_t (and so the problem queue); ``problems``, only the queue of
abductive problems; ``dissent``, only the dissent recorded with a decision; ``answer``, only
the answer of the query that exercises it (a query changes nothing)."""


@dataclass(frozen=True)
class Clause:
    """One rule of the transition and where it comes from.

    Attributes
    ----------
    id:
        Stable identifier, ``<part>.<operation or topic>.<rule>``, e.g.
        ``T3.undermine.target-standing``.
    source:
        ``paper`` or ``chosen``.
    place:
        For ``paper``, where the text states it; for ``chosen``, why the reference chose it.
    rule:
        What the clause requires or does, in one sentence.
    alternative:
        For ``chosen``: the other reading an implementation faithful to the paper may make.
    affects:
        For ``chosen``: what the alternative could change (:data:`Affects`).
    note:
        What ``spec/gcv/spec/normative.md`` says of the clause besides the above: the consequences
        of the reading, or how it changed.
    """

    id: str
    source: Source
    place: str
    rule: str
    alternative: str | None = None
    affects: Affects = "outcome"
    note: str | None = None


_REGISTRY: dict[str, Clause] = {}

CLAUSES: Mapping[str, Clause] = MappingProxyType(_REGISTRY)
"""Every clause of the transition, by identifier, in the order declared."""


def clause(
    id: str,
    source: Source,
    place: str,
    rule: str,
    alternative: str | None = None,
    affects: Affects = "outcome",
    *,
    note: str | None = None,
) -> str:
    """Register a clause and return its identifier (for the check or effect that cites it)."""
    if id in _REGISTRY:
        raise ValueError(f"clause {id} is declared twice")
    if alternative is not None and source != CHOSEN:
        raise ValueError(f"{id}: only a choice has an alternative")
    _REGISTRY[id] = Clause(id, source, place, rule, alternative, affects, note)
    return id


# -- The turn ---------------------------------------------------------------------------------

SPEAKER_IN_AGS = clause(
    "turn.speaker-in-ags",
    PAPER,
    place="Definition 2.1: Cm_t is over Ags; the utterance is an agent's",
    rule="the turn's speaker is an agent of Ags (unknown-agent, field speaker)",
)

SPEAKER_FIRST = clause(
    "turn.speaker-checked-first",
    CHOSEN,
    place="a turn's subject before its operations, so that a turn breaking several rules gets one "
    "code",
    rule="the speaker is checked before any operation",
    alternative="check the speaker after the operations; only the error code of such a turn "
    "differs",
    affects="error",
)

WELL_FORMED_FIRST = clause(
    "turn.well-formed-first",
    CHOSEN,
    place="an operation that is not well formed is refused where it is read, before any is applied",
    rule="a turn with a malformed operation is refused with malformed-operation at the first "
    "malformed operation as written, before the speaker and any precondition",
    alternative="check the speaker before the operations' form; only the error code of such a "
    "turn differs",
    affects="error",
)

ATOMIC = clause(
    "turn.atomic",
    PAPER,
    place='Section 2: "Multiple operation instances from one utterance are composed into the same '
    'per-turn state transition"',
    rule="a turn applies all of its operations or none; a rejected turn leaves D_t as it was",
)

COMPOSITION = clause(
    "turn.composition",
    PAPER,
    place='A.3, "State composition": "Each operation contributes an intermediate state ... that '
    'state determine[s] the inputs to subsequent operations"',
    rule="each operation is checked against, and applied to, the state the turn has left so far",
)

NUMBERED = clause(
    "turn.numbering",
    CHOSEN,
    place="turns are named T1, T2, ... in the scenarios; a refused utterance changes nothing",
    rule="an accepted turn takes the next turn number, which its new records carry; a rejected "
    "turn takes none",
    alternative="number every utterance, accepted or not",
    affects="record-fields",
)

NO_OPERATIONS = clause(
    "turn.no-operations",
    CHOSEN,
    place="an utterance may assert nothing the eight operations capture, and the verifier runs "
    "beside every turn (Section 3); an interpreter's refused reply is scored as such a turn",
    rule="a turn with no operations is accepted: it takes the next turn number and changes "
    "nothing else",
    alternative="refuse it (malformed-input); the turn numbers then skip utterances that asserted "
    "nothing",
)

CLAIM_NOT_BLANK = clause(
    "form.claim-not-blank",
    CHOSEN,
    place="a claim is what a record asserts; white space asserts nothing",
    rule="a claim (and an evidence claim) has a character other than white space "
    "(malformed-operation)",
    alternative="accept any non-empty string, as the schema does",
)

EVIDENCE_DEPENDS_NEEDS_CLAIM = clause(
    "form.evidence-depends-on-needs-claim",
    CHOSEN,
    place="only a record registered by the operation gets its dependencies from it",
    rule="evidence_depends_on only with evidence_claim (malformed-operation)",
    alternative="ignore evidence_depends_on on existing evidence",
)

EMPTY_LIST_ABSENT = clause(
    "form.empty-list-as-absent",
    CHOSEN,
    place="a list names records or agents; an empty one names none, as leaving the field out does",
    rule="an empty list field (depends_on, evidence_depends_on, attackers, subsumes, premises, "
    "dissenters, agents) is the field left out: premises: [] and dissenters: [] are accepted "
    "on a consensual Resolve, evidence_depends_on: [] without evidence_claim, Expand-"
    "Awareness with agents: [] expands every agent's awareness, Revise with attackers: [] "
    "reads as naming no attacker",
    alternative="an empty list is a field given: premises or dissenters on a consensual "
    "Resolve and evidence_depends_on without evidence_claim are malformed-operation even "
    "when empty, and agents: [] names nobody (already-aware)",
)


# -- The order of a turn's operations and of their checks -------------------------------------

ORDER_KINDS = clause(
    "order.kinds",
    CHOSEN,
    place='Section 2 says only "the engine applies the resulting operation instances in a fixed '
    'order"; this order applies every turn of Phases 2 and 3 as the paper narrates them',
    rule="Expand-Awareness, Observe, Hypothesize, Support, Undermine, Revise, Resolve, Question",
    alternative="another fixed order under which the paper's scenario turns still apply; turns "
    "whose operations interact then differ",
)

ORDER_NARRATED = clause(
    "order.kinds.narrated",
    PAPER,
    place="B.2 T7 (Observe o9, then Undermine h2 by o9), T12 (Hypothesize h4, then Revise h2 with "
    "attacker h4) and T13 (Support h4, then Resolve h4) as the paper narrates them",
    rule="Observe before Undermine, Hypothesize before Revise, Support before Resolve",
    note="A turn whose interacting operations are only of these pairs depends on no choice of "
    "order.",
)

ORDER_WRITTEN = clause(
    "order.within-kind-as-written",
    CHOSEN,
    place="the Interpreter's order is the utterance's, and nothing reorders operations of one kind",
    rule="operations of one kind apply in the order the turn lists them",
    alternative="operations of one kind in the reverse of the written order; turns whose "
    "operations of one kind interact then differ",
)

FIRST_FAILING = clause(
    "order.first-failing-operation",
    CHOSEN,
    place="a rejected turn needs one error; the one met first while applying is the natural one",
    rule="a rejected turn reports the first failing operation in application order, located by "
    "its position as written",
    alternative="report, of the operations that fail, the first as written",
    affects="error",
)

SIMULTANEOUS = clause(
    "order.simultaneous-observations",
    CHOSEN,
    place="Section 2's composition into one transition; B.1's round of \"I don't know\" answers "
    "is simultaneous (announced one after another, Alice's answer would tell Bob he is muddy)",
    rule="one turn's Observe formulas are one announcement [!(psi_1 & ... & psi_n)], each psi_k "
    "read in M_t as the Observe phase found it, made once every Observe of the turn is registered",
    alternative="announce a turn's observations one after another (the same for factual formulas)",
)

FIELD_ORDER = clause(
    "order.fields",
    CHOSEN,
    place="so that an operation breaking several preconditions still gets one error code",
    rule="an operation's fields are checked in the order of its signature (target, then the "
    "records it cites, then agents), each cited record through all its checks before the next, in "
    "the order written",
    alternative="check an operation's fields from the last of its signature to the first",
    affects="error",
)

CITED_CHECKS = clause(
    "order.cited-record-checks",
    CHOSEN,
    place="citing one's own record is the more specific error",
    rule="a cited record is checked for self-reference, then registration, then standing "
    "(wrong-standing before attacked-target)",
    alternative="check that a cited record is registered before self-reference",
    affects="error",
)

EPISTEMIC_LAST = clause(
    "order.epistemic-after-table",
    CHOSEN,
    place="the argumentation row is the operation's subject; its formula is an input of its effect",
    rule="an operation's epistemic preconditions (duplicate-atom, then the formula's agents and "
    "atoms) are checked after all of its Table 3 preconditions",
    alternative="check the epistemic preconditions before those of Table 3",
    affects="error",
)


# -- Records, citations and evidence (shared by several rows) ---------------------------------

NEW_ACTIVE = clause(
    "T3.register.new-active",
    PAPER,
    place="proof of Lemma 2.2: Observe, Hypothesize, Support, Expand-Awareness and Question "
    '"label any new argument active"',
    rule="a registered record is new to Args_t and labelled active",
)

ID_NEW = clause(
    "T3.register.id-new",
    PAPER,
    place='A.1: records are "identified by their unique identifiers"; "different IDs remain '
    'distinct even when their claims coincide"',
    rule="a new record's identifier is not yet registered (duplicate-record)",
)

CITED_REGISTERED = clause(
    "T3.cite.registered",
    PAPER,
    place="Definition 2.1: Dep_t maps Args_t to subsets of Args_t; attacks relate arguments of "
    "Args_t",
    rule="every record an operation cites is registered (unknown-record)",
)

NO_SELF_CITATION = clause(
    "T3.cite.not-self",
    CHOSEN,
    place="a record cannot rest on, attack or be evidence for itself in the operation that names "
    "it",
    rule="an operation does not cite its own record (self-reference): a new record's depends_on "
    "and new evidence's evidence_depends_on do not name that record, and Revise's attackers "
    "and Resolve's subsumes and premises do not name its target; nothing else is "
    "self-reference (new evidence may rest on the target it supports or undermines: Dep may "
    "hold cycles, Definition 2.1, Corollary 2.4; Support's and Undermine's evidence being "
    "their target is T3.evidence.not-target)",
    alternative="accept the self-citation; a Dep self-loop only puts the record on a cycle",
)

DEPENDS_ANY_STANDING = clause(
    "T3.register.depends-on-any-standing",
    CHOSEN,
    place="the map records what an utterance rests on; the Verify walk is what flags a record "
    "resting on a withdrawn one",
    rule="Observe, Hypothesize, Question and new evidence may depend on records of any standing",
    alternative="require depends_on in S_t; resting on a withdrawn record is then refused, not "
    "ungrounded",
)

NEW_RECORD_DEP = clause(
    "T3.register.dep",
    PAPER,
    place='Definition 2.1: "Dep_t maps each argument to its recorded supporting arguments"',
    rule="a new record's Dep is the records it depends on",
)

EVIDENCE_NOT_TARGET = clause(
    "T3.evidence.not-target",
    CHOSEN,
    place="evidence for or against a record is another record",
    rule="Support's and Undermine's evidence is not their target (self-reference)",
    alternative="accept the target as its own existing evidence (a Dep self-loop for Support, a "
    "self-attack for Undermine)",
)

EVIDENCE_NEW_WITH_CLAIM = clause(
    "T3.evidence.registered-with-claim",
    PAPER,
    place='B.3: the evidence "is registered as a new record alpha_e ... committed by the '
    'speaker"; B.2, "Evidence records"',
    rule="evidence that carries a claim is registered as a new active record of kind evidence, "
    "depending on its evidence_depends_on",
)

EVIDENCE_EXISTING = clause(
    "T3.evidence.existing-in-good-standing",
    CHOSEN,
    place="B.2 T7 undermines h2 by o9, registered by an Observe of the same turn; a withdrawn "
    "record is no evidence",
    rule="evidence without a claim is an existing record in S_t (wrong-standing otherwise)",
    alternative="evidence is always a new record (B.3's letter); citing an existing record is "
    "refused",
)

EVIDENCE_COMMITS = clause(
    "T3.evidence.speaker-commits",
    PAPER,
    place='B.3: the evidence "is registered as a new record alpha_e ... committed by the speaker"',
    rule="the speaker of a Support or Undermine commits to the evidence it registers",
)

EXISTING_EVIDENCE_COMMITS = clause(
    "T3.evidence.existing-commits-speaker",
    CHOSEN,
    place="citing a record as one's evidence asserts it, as registering it would",
    rule="the speaker of a Support or Undermine citing an existing record commits to it",
    alternative="citing existing evidence commits nobody new (B.3 speaks only of registered "
    "evidence)",
    affects="commitments",
)


# -- Expand-Awareness -------------------------------------------------------------------------

EXPAND_AGENTS = clause(
    "T3.expand-awareness.agents-in-ags",
    PAPER,
    place="Definition A.3: A_i for i in Ags",
    rule="the named agents are agents of Ags (unknown-agent, field agents)",
)

EXPAND_ALL = clause(
    "T3.expand-awareness.default-all",
    PAPER,
    place='B.2 T4 and B.3: the expansion is "applied to every agent\'s awareness set"',
    rule="an expansion naming no agent applies to every agent",
)

EXPAND_CHANGES = clause(
    "T3.expand-awareness.changes-something",
    CHOSEN,
    place="an utterance interpreted as an expansion that expands nothing is a misreading",
    rule="some named agent is not yet aware of the atom (already-aware, field atom)",
    alternative="accept the expansion as a no-op",
)

EXPAND_EFFECT = clause(
    "del.expand-awareness",
    PAPER,
    place='Section 2\'s table: "add p to the awareness set A_i; world-set refinement on p"; '
    "Definition A.3",
    rule="the atom joins Prop_t and the named agents' A_i; a new atom splits every world into two "
    "copies that differ on it",
)

SPLIT_KEEPS_ORDER = clause(
    "del.expand-awareness.copies-equally-plausible",
    CHOSEN,
    place="becoming aware of p is not learning whether p",
    rule="each copy keeps its world's cell and rank for every agent",
    alternative="the copies where p is false are the more plausible (an atom one was unaware of "
    "is presumed false)",
    affects="model",
)


# -- Observe ----------------------------------------------------------------------------------

OBSERVE_KIND = clause(
    "T3.observe.kind",
    CHOSEN,
    place="B.3's decisions rest on assumptions a_i, which the map must be able to name as premises",
    rule="an Observe registers an observation or a premise (default observation)",
    alternative="one kind: a premise registers as an observation",
    affects="record-fields",
)

OBSERVE_COMMITS = clause(
    "T3.observe.speaker-commits",
    PAPER,
    place='Section 2: "Observe and Resolve commit content"',
    rule="the speaker commits to the observed record",
)

OBSERVE_DEL = clause(
    "del.observe",
    PAPER,
    place='Section 2\'s table: "Observe [!psi] (hard public announcement)"',
    rule="an Observe with formula psi announces [!psi]",
)

SURPRISE = clause(
    "del.observe.poses-problems",
    CHOSEN,
    place="Definition A.2's surprise check, read as B.2 T5 reads it: \"just before o7 was "
    'announced ... Bob did not believe o7"',
    rule="an observation psi poses (B_i, psi) for every agent i who does not believe psi in the "
    "model announced with the turn's other observations but not psi; that model is M_chi",
    alternative="read the surprise check in M_t before the turn's observations (M_chi unchanged)",
    affects="problems",
)


# -- Hypothesize ------------------------------------------------------------------------------

HYPOTHESIZE_KIND = clause(
    "T3.hypothesize.kind",
    CHOSEN,
    place="B.3's IBIS positions P_n are proposals the group deliberates on, like hypotheses",
    rule="a Hypothesize registers a hypothesis or a position (default hypothesis)",
    alternative="one kind: a position registers as a hypothesis",
    affects="record-fields",
)

HYPOTHESIZE_NO_COMMITMENT = clause(
    "T3.hypothesize.no-commitment",
    CHOSEN,
    place='Section 2 names Observe and Resolve as the operations that "commit content"; '
    "Hypothesize adjusts plausibility",
    rule="a Hypothesize commits nobody",
    alternative="the speaker commits to their own hypothesis",
    affects="commitments",
)

INTRODUCES_NEW = clause(
    "T3.hypothesize.introduces-new-atoms",
    CHOSEN,
    place="an atom that is already in Prop_t is not introduced by gamma",
    rule="the atoms a Hypothesize introduces are not in Prop_t (duplicate-atom, field introduces)",
    alternative="accept an atom already in Prop_t, which is then not introduced again",
)

INTRODUCES_EFFECT = clause(
    "del.hypothesize.introduces",
    PAPER,
    place="B.2's integration step: Prop_5 = Prop_4 + {h1, rate_bypass}",
    rule="the introduced atoms join Prop_t and every agent's A_i, splitting W, before gamma's "
    "update",
)

ABDUCTION = clause(
    "del.hypothesize.solves",
    CHOSEN,
    place="Definition A.2 checks consistency in M and the explanation in M[up-up gamma]; read "
    "literally (M = M_t, the engine's literal_abduction) chi is announced in M_t, so the "
    "first consistent, non-trivial hypothesis (h1 at T5) explains every observation and B.2's "
    "open problems (o6 open until T11; h2 answers o1, h3 o6, h4 o8) do not hold "
    "(docs/epistemic.md); the chosen reading, the default, reads the model the problem arose "
    "in, keeping what was learned since about every other atom, as B.2's steps do (T6: "
    "h2 := (p_redis -> p_auth) answers o1, posed at T1, with Redis known from T3)",
    rule="gamma solves an open (B_i, chi) when M_t does not satisfy B_i ~gamma, M_chi^t[up-up "
    "gamma] satisfies B_i chi, and gamma is neither chi nor true nor believed in M_t (M_t: after "
    "gamma's atoms are introduced, before its upgrade; M_chi^t: the model the problem arose in, "
    "brought to Prop_t and restricted to the worlds agreeing with M_t outside chi's atoms)",
    alternative="the literal reading, all three conditions in M_t (runnable: "
    "Verifier(..., literal_abduction=True)); or read the model the problem arose in as it "
    "was (then no faithful h2 answers o1)",
    affects="problems",
    note="In full: M_chi^t is brought to Prop_t by Definition A.3's expansion and restricted to "
    "the worlds that agree with M_t on every atom outside chi's, keeping what was learned since "
    "about everything but chi, as B.2's steps do: at T6 h2 := (p_redis -> p_auth) \"answers the "
    'abductive problem posed by o1" (posed at T1) because Redis is known to fail from T3; at T5 '
    'h1 explains o7 because "Redis being down plus h1 entails Stripe 429s"; forgetting only '
    "chi's atoms keeps the re-announcement o8' (T5) from answering o8's problem by itself. The "
    "literal reading, all three conditions in the one M = M_t as A.2 writes them, is runnable "
    "as Verifier(..., literal_abduction=True) (reference) and is_abductive_solution(..., "
    "literal=True) (spec): chi is announced in M_t, so every consistent, non-trivial candidate "
    "explains every observation; in Phase 2 h1 closes every problem at T5 and the queue stays "
    'empty, so B.2\'s o6 "open until T11", h2 answering o1, h3 o6 and h4 o8 do not hold '
    'under it, while its closing "h1, h3 and h4 together explain every observation" does '
    '(docs/epistemic.md, "Abduction under both readings", marks each of B.2\'s statements); '
    "the chosen reading is the default because it keeps the more of B.2's statements. Under "
    "the second alternative h2, with the paper's formula, cannot answer o1, and only an extra "
    "conjunct p_redis, which the paper's h2 does not carry, makes it do so, and makes it answer "
    "o8 as well. With this reading the engine computes every abductive step B.2 names: (B_b, o7) "
    "posed at T3 and answered by h1 at T5, o1 answered by h2 at T6 and open again once h2 is "
    "weakened at T7, o6 open from T2 until h3 at T11, o8 open from T3 until h4 at T12. What it "
    "does not compute is B.2's count of explained observations, which is causal, not Definition "
    "A.2's: after T9 the open problems are o1, o2, o3, o5, o6 and o8 where B.2 names o1, o5 and "
    'o6; o8 is open there by B.2\'s own T12 ("it answers the problem posed by o8"), and o2 '
    "(payment failures) and o3 (the database alert) are never answered, since no hypothesis's "
    "formula entails p_pay or p_db (B.2's T6 counts o2 explained by h1 & h2, and its T12 every "
    "observation by h1 & h3 & h4, through the causal chain that the formulas read materially do "
    "not carry).",
)

HYPOTHESIZE_DEL = clause(
    "del.hypothesize",
    PAPER,
    place='Section 2\'s table: "Hypothesize [up-up gamma] (soft lexicographic upgrade)"',
    rule="a Hypothesize with formula gamma applies [up-up gamma]",
)


# -- Support ----------------------------------------------------------------------------------

SUPPORT_TARGET = clause(
    "T3.support.target-standing",
    CHOSEN,
    place="Support changes no label, so it cannot break Lemma 2.2; an abandoned record is renewed "
    'only as a new argument (Section 2: "A renewed assertion of their claim enters as a new '
    'argument")',
    rule="Support's target is active, weakened or resolved (wrong-standing)",
    alternative="any standing, or only S_t",
)

SUPPORT_DEP = clause(
    "T3.support.evidence-joins-dep",
    PAPER,
    place='Definition 2.1: Dep_t(alpha) holds "its recorded supporting arguments"',
    rule="the evidence joins Dep(target)",
)

SUPPORT_NO_LABEL = clause(
    "T3.support.no-label-change",
    PAPER,
    place="proof of Lemma 2.2: Support adds no attack edge; no operation moves a weakened or "
    "abandoned argument back into S_t",
    rule="Support changes no label and adds no attack",
)

SUPPORT_DEL = clause(
    "del.support",
    PAPER,
    place='Section 2\'s table: "Support [up gamma], or [up-up gamma] if gamma-specific evidence"',
    rule="[up gamma], or [up-up gamma] when the operation marks its evidence specific",
)


# -- Undermine --------------------------------------------------------------------------------

UNDERMINE_TARGET = clause(
    "T3.undermine.target-standing",
    PAPER,
    place='proof of Lemma 2.2: "Undermine, whose precondition requires an active or weakened '
    'target"',
    rule="Undermine's target is active or weakened (wrong-standing)",
)

UNDERMINE_EFFECT = clause(
    "T3.undermine.attack-weakened",
    PAPER,
    place='proof of Lemma 2.2: Undermine "adds (alpha_e, alpha_gamma) and leaves st(alpha_gamma) '
    '= weakened"',
    rule="the attack (evidence, target) is added and the target is labelled weakened",
)

UNDERMINE_DEL = clause(
    "del.undermine",
    PAPER,
    place='Section 2\'s table: "family of plausibility downgrades of gamma"; B.2 T7: "Undermine '
    'applies [up-up ~h2]"',
    rule="[up-up ~gamma]",
)

UNDERMINE_CONSERVATIVE = clause(
    "del.undermine.conservative",
    CHOSEN,
    place="the other member of the family that A.1's updates give",
    rule="with downgrade conservative, [up ~gamma]",
    alternative="ignore downgrade: always [up-up ~gamma] (B.2 T7's reading)",
    affects="model",
)


# -- Revise -----------------------------------------------------------------------------------

REVISE_TARGET = clause(
    "T3.revise.target-any-standing",
    PAPER,
    place='proof of Lemma 2.2: Revise "adds attacks on alpha_gamma and sets st = abandoned"; B.2 '
    'T12: "h2 stays abandoned"',
    rule="Revise's target may carry any label",
)

REVISE_ATTACKERS = clause(
    "T3.revise.attackers-in-good-standing",
    CHOSEN,
    place="a withdrawn record attacks nothing",
    rule="Revise's attackers are in S_t (wrong-standing)",
    alternative="attackers of any standing",
)

REVISE_EFFECT = clause(
    "T3.revise.attacks-abandoned",
    PAPER,
    place='proof of Lemma 2.2: "Revise adds attacks on alpha_gamma and sets st(alpha_gamma) = '
    'abandoned"',
    rule="an attack (a, target) for each attacker; the target is labelled abandoned",
)

REVISE_RETRACTS = clause(
    "T3.revise.retracts-commitment",
    CHOSEN,
    place='B.3: Cm holds "public, retractable assertions"; revising one\'s own claim retracts it',
    rule="the speaker's commitment to the target, if any, is retracted",
    alternative="commitments are unchanged by Revise",
    affects="commitments",
)

REVISE_DEL = clause(
    "del.revise",
    PAPER,
    place='Section 2\'s table: "Revise [!~gamma] or Att edge addition"; B.2 T9 (no attacker): '
    '"Revise applies the hard announcement !~h2"; T12 (attacker h4): the attack alone',
    rule="with no attackers [!~gamma]; with attackers the attacks alone",
)

REVISE_ANNOUNCE = clause(
    "del.revise.announce",
    CHOSEN,
    place="the table gives both readings; the trace may say which one an utterance is",
    rule="announce true or false overrides the reading the attackers select",
    alternative="ignore announce: the attackers alone select the reading",
)


# -- Resolve ----------------------------------------------------------------------------------

RESOLVE_TARGET = clause(
    "T3.resolve.target-in-good-standing",
    PAPER,
    place='proof of Lemma 2.2: "Resolve sets st = resolved only when alpha_gamma in S_t"',
    rule="Resolve's target is in S_t (wrong-standing)",
)

RESOLVE_UNATTACKED = clause(
    "T3.resolve.target-unattacked",
    PAPER,
    place='proof of Lemma 2.2: "... and no attack on it is recorded (Table 3)"',
    rule="Resolve's target has no recorded incoming attack (attacked-target); by Lemma 2.2 this "
    "never fires once the standing check has passed",
)

SUBSUMES_ANY = clause(
    "T3.resolve.subsumes-any-standing",
    CHOSEN,
    place="subsumption records a cross-hypothesis dependency whatever the subsumed record's "
    "standing",
    rule="the subsumed records are registered, of any standing",
    alternative="subsumed records in S_t only",
)

SUBSUMES_EFFECT = clause(
    "T3.resolve.subsumes-dep",
    PAPER,
    place='A.3, "Subsumption at Resolve": the edge is added at Resolve (Phase 2 T13: h4 unifies '
    "h1 and h3)",
    rule="each subsumed record gains the target in its Dep",
)

PREMISES_GOOD = clause(
    "T3.resolve.premises-in-good-standing",
    CHOSEN,
    place="a decision cannot rest on a withdrawn premise",
    rule="an authoritative Resolve's premises are in S_t (wrong-standing)",
    alternative="premises of any standing; the Verify walk then flags the decision",
)

PREMISES_DEP = clause(
    "T3.resolve.premises-join-dep",
    CHOSEN,
    place="A.3: \"Resolve changes an existing record's standing without replacing its support "
    'links"',
    rule="an authoritative Resolve's premises join Dep(target)",
    alternative="a separate decision record depending on the premises (B.3's letter: the decision "
    "lists them); Verify of the target then differs",
)

DISSENTERS_IN_AGS = clause(
    "T3.resolve.dissenters-in-ags",
    PAPER,
    place='B.3: a decision "recording dissent" of agents of Ags',
    rule="each dissenter is an agent of Ags (unknown-agent)",
)

DISSENTER_NOT_SPEAKER = clause(
    "T3.resolve.dissenter-not-speaker",
    CHOSEN,
    place="the agent who takes a decision does not dissent from it",
    rule="no dissenter is the speaker (self-reference)",
    alternative="accept the speaker among the dissenters",
)

RESOLVE_EFFECT = clause(
    "T3.resolve.resolved",
    PAPER,
    place="proof of Lemma 2.2: Resolve sets st(alpha_gamma) = resolved",
    rule="the target is labelled resolved; its dissent is recorded",
)

DISSENT_ACCUMULATES = clause(
    "T3.resolve.dissent-accumulates",
    CHOSEN,
    place="a record of S_t may be resolved again (resolved is in S_t, so T3.resolve.target-in-"
    "good-standing admits it); the dissent recorded at the first decision still happened",
    rule="a Resolve of a record already resolved adds its dissenters to the dissent recorded "
    "before; its premises join Dep and its commitments are added as for a first Resolve",
    alternative="a later Resolve replaces the recorded dissent with its own dissenters (none "
    "for a consensual one)",
    affects="dissent",
)

RESOLVE_COMMITS = clause(
    "T3.resolve.commitments",
    CHOSEN,
    place='Section 2: "Observe and Resolve commit content"; a consensus is everyone\'s, a '
    "decision its speaker's",
    rule="a consensual Resolve commits every agent to the target, an authoritative one its speaker",
    alternative="only the speaker commits, either way",
    affects="commitments",
)

RESOLVE_FORM = clause(
    "T3.resolve.decision-fields",
    CHOSEN,
    place="premises and dissent belong to a decision, an announcement to a consensus",
    rule="premises and dissenters only on an authoritative Resolve, a formula only on a "
    "consensual one (malformed-operation)",
    alternative="accept premises and dissenters on a consensual Resolve, and a formula on a "
    "decision",
)

RESOLVE_DEL = clause(
    "del.resolve",
    PAPER,
    place='Section 2\'s table: "Resolve consensual [!gamma], or decision recording dissent"',
    rule="consensual: [!gamma]; authoritative: no change to M_t",
)


# -- Question ---------------------------------------------------------------------------------

QUESTION_NO_RECORD = clause(
    "T3.question.registers-record",
    PAPER,
    place='B.3 T1: "Operations: Question (opens root issue), Observe" and "Args_1 = {timeline}, '
    "the premise record of the six-week deadline registered by Observe ... The Question opens "
    'issue I_1"; Section 2: "Expand-Awareness and Question expand or query without committing '
    "claims\". No statement of B.1-B.3 needs a question record: B.2 T10's Question keeps o6 on "
    "the queue, which is a problem, not an argument; Lemma 2.2's proof (\"Question add[s] no "
    'attack edge and label[s] any new argument active") holds with no new argument',
    rule="a Question registers no record: its id names the issue it opens and the problems it "
    "queues",
    note="[Modified: the reference registered a question record, for later operations to name an "
    "issue; B.3 names I_1 and keeps it out of Args_1, and no operation of the papers cites an "
    "issue. Its id is no longer checked against the records' "
    "(T3.question.issue-ids-apart).]",
)

QUESTION_ISSUE_IDS = clause(
    "T3.question.issue-ids-apart",
    CHOSEN,
    place='B.3 T1 keeps the issue a Question opens out of Args_t ("Args_1 = {timeline}" ... '
    '"The Question opens issue I_1"), and the identifiers A.1 makes unique are the records\' '
    '("records ... identified by their unique identifiers"); the papers name issues I_n and '
    "records otherwise, and state no rule for an id both could take. Issue ids are kept apart, "
    "as B.3 keeps issues apart from Args, and nothing is checked",
    rule="a Question's id names the issue it opens, in a namespace of its own: it may be a "
    "record's id, a later record may take it, and two Questions may share one (the same issue "
    "asked again); the problems it queues name it as their source",
    alternative="one namespace for records and issues: a Question whose id names a record or an "
    "issue opened earlier, and a record whose id names an issue, are refused (duplicate-record, "
    "field id)",
    note="[Modified: the reference refused a Question whose id named a record "
    "(duplicate-record, as a paper clause), yet let a later record take a Question's id and two "
    "Questions share one. The unexplained query answers a problem's source by its id, so where "
    "a record and an issue share an id it names that id once: the problems are still told "
    "apart by their formula and agent.]",
)

QUESTION_DEL = clause(
    "del.question",
    PAPER,
    place="Section 2's table: \"Question: no DEL update; chi queued as an open abductive "
    'problem"; B.2 T10',
    rule="chi is queued for every agent who does not believe it and has no open problem with the "
    "same chi; M_t is unchanged",
)


# -- Formulas and announcements ---------------------------------------------------------------

FORMULA_AGENTS = clause(
    "del.formula.agents-in-ags",
    CHOSEN,
    place="the modalities K_i, B_i, E_G, C_G, A_i, X_i are indexed by Ags (Definition A.1)",
    rule="an operation's own formula names only agents of Ags (unknown-agent, field formula)",
    alternative="refuse such a formula as outside the language (malformed-formula)",
)

FORMULA_ATOMS = clause(
    "del.formula.atoms-in-prop",
    PAPER,
    place="Definition 2.1: claims lie in Prop_t; M_t is over Prop_t (Definition A.1)",
    rule="an operation's own formula names only atoms of Prop_t, the ones it introduces included "
    "(unknown-atom, field formula)",
)

FORMULA_SOURCE = clause(
    "del.formula.own-else-target",
    CHOSEN,
    place="Section 2's table names the target's hypothesis gamma; the trace may state it "
    "explicitly",
    rule="Support, Undermine, Revise and Resolve act on their own formula if given, else the "
    "target record's; an operation with neither leaves M_t as it is",
    alternative="act on the operation's own formula only; without one, M_t is left as it is",
)

NO_EMPTY_W = clause(
    "del.announcement.some-world-survives",
    CHOSEN,
    place="no truthful announcement of a formula true nowhere is possible, and W must stay "
    "non-empty",
    rule="a hard announcement ([!psi], [!~gamma], [!gamma]) that holds at no world is refused "
    "(no-surviving-world); for a turn's observations, at the first after which none is left",
    alternative="accept the turn and leave M_t as it was when the announcement holds at no world",
)


# -- The queries' conventions (the conformance protocol) --------------------------------------

UNREGISTERED_CANDIDATE = clause(
    "query.verify.no-record",
    PAPER,
    place='A.1: "a candidate with no associated record is ungrounded"; Section 2: "Otherwise, '
    'including when no record is associated, it is ungrounded"',
    rule="Verify of a candidate with no record (none named, or an identifier outside Args_t) "
    "answers ungrounded, with no witness",
)

UNREGISTERED_RECORD = clause(
    "query.record-registered",
    CHOSEN,
    place="Affected, Affected*, Dep_t, st_t, attackers and dissenters are defined on Args_t "
    "(Definitions 2.1 and 2.3); an identifier outside it is the caller's mistake, which an "
    "empty answer would hide",
    rule="a set query that names a record (affected, affected_star, affected_star_active, "
    "dependencies, attackers, dissenters) answers unknown-record when the record is not "
    "registered (standing too, which has no value outside Args_t in any reading)",
    alternative="answer such a set query with the empty set",
    affects="answer",
)
