"""Engines that break one paper rule each: the vectors' paper profile must catch every one.

Each entry of :data:`PAPER_BUGS` patches the reference, for as long as its context lasts, so
that it breaks exactly one clause of ``spec/gcv/spec/transition.py`` marked **paper** (the
``clause``), or one definition of Appendix A the transition reads (Definition A.1's belief,
Definition A.2's checks), as :mod:`gcv.conformance.alternatives` does for the chosen
clauses' alternatives.  Each runs as a third-party engine does: behind ``gcv serve``, under
``python -O`` (no contracts of ours to stop it), through :mod:`.serve_bug`.

``python -m tests.conformance.paper_sweep`` runs each through ``gcv conform`` over the whole
suite and writes the table of ``docs/conformance.md``: the paper-profile steps each fails and
the case that catches it; ``tests/conformance/test_paper_clauses.py`` runs each on that case
alone.  The clauses no engine can break observably are in :data:`UNOBSERVABLE`, with the
argument.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

import gcv.conformance.session
import gcv.reference.apply
import gcv.reference.epistemic.abduction
import gcv.reference.epistemic.semantics
import gcv.reference.rules.expand_awareness
import gcv.reference.rules.hypothesize
import gcv.reference.rules.observe
import gcv.reference.rules.question
import gcv.reference.rules.shared
import gcv.reference.verifier
from gcv.conformance.alternatives.patching import (
    HOMES,
    Patch,
    after_apply,
    before_apply,
    rule_changed,
    wrapped,
)
from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.formula import atoms_of
from gcv.reference.errors import SelfReference, UnknownAtom, UnknownRecord
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Support,
    Undermine,
)
from gcv.reference.records import Kind, Record, Standing
from gcv.reference.rules.shared import Update
from tests import broken_engines

__all__ = ["DEFINITIONS", "PAPER_BUGS", "UNOBSERVABLE", "PaperBug"]

Context = Callable[[], AbstractContextManager[None]]

DEFINITIONS: dict[str, str] = {
    "Definition A.1 (belief)": "A.1's Convention: \"Agent i believes phi at w iff phi holds at "
    "every <=_i-minimal world in {w': w ~_i w'}\", its own information cell",
    "Definition A.2 (consistency)": 'Definition A.2, 1. Consistency: "M does not satisfy '
    'B_i ~gamma"',
    "Definition A.2 (non-triviality)": 'Definition A.2, 3. Non-triviality: "gamma != chi, M '
    'does not satisfy B_i gamma, and gamma != T"',
}
"""The definitions of Appendix A the transition reads beyond its clauses, with the sentence
that states each: a broken one is caught by the paper profile as a clause is."""


@dataclass(frozen=True)
class PaperBug:
    """An engine breaking one paper rule.

    Attributes
    ----------
    clause:
        The paper clause of ``spec/gcv/spec/transition.py`` it breaks, and only that one, or one of
        :data:`DEFINITIONS`.
    what:
        The broken behaviour, in a phrase.
    patch:
        A context in which the reference behaves so.
    """

    clause: str
    what: str
    patch: Context


def _made(patch: Patch) -> Context:
    """A patch of :mod:`gcv.conformance.alternatives`'s kind, made."""
    return lambda: patch("paper-bug", True)


def _after(extra: Callable[[DependencyMap, Operation, AgentId], None]) -> Context:
    """Run ``extra`` after each operation the reference applies."""

    def changes(dmap: DependencyMap, op: Operation, speaker: AgentId, making: bool) -> bool:
        extra(dmap, op, speaker)
        return False

    return _made(after_apply(changes))


def _instead(rewrite: Callable[[DependencyMap, Operation, AgentId], Operation | None]) -> Context:
    """Apply ``rewrite(op)`` in place of each operation (None: it does nothing)."""
    return _made(before_apply(rewrite))


def _engine(verifier: type[gcv.reference.verifier.Verifier]) -> Context:
    """The conformance session built on a broken :class:`Verifier` subclass."""
    return lambda: wrapped(gcv.conformance.session, "Verifier", lambda _: verifier)


def _row(name: str, **change: object) -> Context:
    """A row of the operation table changed, as the operation's checks and effect read it."""

    def changed(rule: Any) -> Any:
        return dataclasses.replace(rule, row=dataclasses.replace(rule.row, **change))

    return rule_changed(name, changed)


@contextmanager
def _while_applying(
    kind: type[Operation], target: Any, name: str, replacement: Callable[[Any], Any]
) -> Iterator[None]:
    """``target.name`` is ``replacement(original)`` while an operation of ``kind`` applies."""

    def wrap(original: Any) -> Any:
        def apply_operation(dmap: DependencyMap, op: Operation, speaker: AgentId, **kw: Any) -> Any:
            if not isinstance(op, kind):
                return original(dmap, op, speaker, **kw)
            with wrapped(target, name, replacement):
                return original(dmap, op, speaker, **kw)

        return apply_operation

    with wrapped(gcv.reference.apply, "apply_operation", wrap):
        yield


def _during(kind: type[Operation], target: Any, name: str, replacement: Any) -> Context:
    return lambda: _while_applying(kind, target, name, replacement)


def _checked_then(
    kind: type[Operation], rewrite: Callable[[Any], Operation]
) -> Callable[[DependencyMap, Operation, AgentId], Operation]:
    """Check an operation of ``kind`` as written, then apply ``rewrite(op)`` (its effect
    changed only)."""

    def rewritten(dmap: DependencyMap, op: Operation, speaker: AgentId) -> Operation:
        if not isinstance(op, kind):
            return op
        found = gcv.reference.apply.find_violation(op, dmap.view(), speaker)
        if found is not None:
            raise found
        return rewrite(op)

    return rewritten


# -- the turn ---------------------------------------------------------------------------------


class _UnknownSpeakerSpeaksForTheFirstAgent(gcv.reference.verifier.Verifier):
    """An utterance by an agent outside Ags is applied as the first agent's."""

    def apply_turn(self, turn: gcv.reference.verifier.Turn) -> Any:
        if turn.speaker not in self.state.agents:
            turn = gcv.reference.verifier.Turn(self.state.agents[0], turn.operations)
        return super().apply_turn(turn)


_RESOLVE_BEFORE_SUPPORT = (
    "expand-awareness",
    "observe",
    "hypothesize",
    "undermine",
    "revise",
    "resolve",
    "support",
    "question",
)


def _resolve_before_support() -> AbstractContextManager[None]:
    """A fixed order of kinds that applies Resolve before Support (B.2 T13 narrates the
    reverse); every other pair keeps the reference's order."""

    def ordered(operations: Any) -> Any:
        pairs = enumerate(operations)
        return sorted(pairs, key=lambda pair: _RESOLVE_BEFORE_SUPPORT.index(pair[1].name))

    return wrapped(gcv.reference.apply, "in_application_order", lambda _: ordered)


# -- registration, citation and Dep -----------------------------------------------------------


def _new_records_resolved(original: Any) -> Any:
    def register(dmap: DependencyMap, record: Any, *rest: Any) -> None:
        original(dmap, record, *rest)
        dmap.set_standing(record, Standing.RESOLVED)

    return register


def _question_registered(dmap: DependencyMap, op: Operation, speaker: AgentId) -> None:
    """The issue a Question opens registered as a record, as a premise would be (where its
    id is free: an engine registering issues keeps ids unique)."""
    if isinstance(op, Question) and op.id not in dmap.records:
        dmap.add_record(Record(op.id, op.claim, speaker, dmap.turn + 1, Kind.PREMISE))


def _duplicate_ignored(dmap: DependencyMap, op: Operation, speaker: AgentId) -> Operation | None:
    """A record whose identifier is taken is not registered again; the turn goes on."""
    if isinstance(op, Observe | Hypothesize) and op.id in dmap.records:
        return None
    return op


def _unknown_citations_dropped(
    dmap: DependencyMap, op: Operation, speaker: AgentId
) -> Operation | None:
    """Cited records that are not registered are left out; an unknown target, skipped."""
    target = getattr(op, "target", None)
    if target is not None and target not in dmap.records:
        return None
    known = {
        name: tuple(r for r in getattr(op, name) if r in dmap.records)
        for name in ("depends_on", "attackers", "subsumes", "premises", "evidence_depends_on")
        if hasattr(op, name)
    }
    existing_evidence = isinstance(op, Support | Undermine) and op.evidence_claim is None
    if existing_evidence and getattr(op, "evidence", None) not in dmap.records:
        return None
    return dataclasses.replace(op, **known)


def _dep_left_out(only: Callable[[Kind], bool]) -> Context:
    """Registered records of the kinds ``only`` selects get no Dep links."""

    def wrap(original: Any) -> Any:
        def register(
            dmap: Any, record: Any, claim: Any, kind: Kind, speaker: Any, deps: Any, *rest: Any
        ) -> None:
            original(dmap, record, claim, kind, speaker, () if only(kind) else deps, *rest)

        return register

    return lambda: wrapped(gcv.reference.rules.shared, "register", wrap)


def _registered_evidence_commits_nobody(
    dmap: DependencyMap, op: Operation, speaker: AgentId
) -> None:
    if isinstance(op, Support | Undermine) and op.evidence_claim is not None:
        dmap.retract(speaker, op.evidence)


def _observation_commits_nobody(dmap: DependencyMap, op: Operation, speaker: AgentId) -> None:
    if isinstance(op, Observe):
        dmap.retract(speaker, op.id)


# -- Expand-Awareness -------------------------------------------------------------------------


def _unknown_agents_dropped(
    dmap: DependencyMap, op: Operation, speaker: AgentId
) -> Operation | None:
    if isinstance(op, ExpandAwareness) and op.agents:
        known = tuple(a for a in op.agents if a in dmap.agents)
        return dataclasses.replace(op, agents=known) if known else None
    return op


def _no_agent_means_the_speaker(dmap: DependencyMap, op: Operation, speaker: AgentId) -> Operation:
    if isinstance(op, ExpandAwareness) and not op.agents:
        return dataclasses.replace(op, agents=(speaker,))
    return op


# -- Resolve ----------------------------------------------------------------------------------


def _unknown_dissenters_dropped(dmap: DependencyMap, op: Operation, speaker: AgentId) -> Operation:
    if isinstance(op, Resolve) and op.dissenters:
        return dataclasses.replace(
            op, dissenters=tuple(a for a in op.dissenters if a in dmap.agents)
        )
    return op


# -- the DEL realisations ---------------------------------------------------------------------


def _announcement_keeping_the_worlds(original: Any) -> Any:
    """The turn's observations pose their problems, but no world is eliminated."""

    def announce(state: EpistemicState, observations: Any) -> EpistemicState:
        return EpistemicState(state.model, original(state, observations).problems)

    return announce


def _no_update(original: Any) -> Any:
    return lambda model, formula, *rest: model


def _nothing_queued(original: Any) -> Any:
    return lambda problems, *rest: problems


def _realisation_dropped(kind: type[Operation]) -> Context:
    """The operation's row of the DEL table applies no update to M_t."""

    def wrap(original: Any) -> Any:
        def realisation(op: Operation) -> Any:
            found = original(op)
            return dataclasses.replace(found, update=None) if isinstance(op, kind) else found

        return realisation

    return lambda: wrapped(HOMES[kind], "realisation", wrap)


def _introduced_atoms_unknown_to_the_formula(original: Any) -> Any:
    """Gamma may name only atoms already in Prop_t, not those the operation introduces."""

    def violation(op: Operation, view: Any, speaker: AgentId, row: Any) -> Any:
        found = original(op, view, speaker, row)
        if found is None and isinstance(op, Hypothesize) and op.introduces and op.formula:
            named = set(op.introduces) & atoms_of(op.formula)
            if named:
                return UnknownAtom(f"atom {sorted(named)[0]!r} is not in Prop_t", field="formula")
        return found

    return violation


def _evidence_resting_on_the_target_refused(
    dmap: DependencyMap, op: Operation, speaker: AgentId
) -> Operation:
    if isinstance(op, Support | Undermine) and op.target in op.evidence_depends_on:
        raise SelfReference(
            f"{op.evidence} rests on {op.target}", field="evidence_depends_on", record=op.target
        )
    return op


def _unregistered_refused(original: Any) -> Any:
    def verify(self: Any, candidate: Any) -> Any:
        if candidate is not None and candidate not in self.state.records:
            raise UnknownRecord(f"record {candidate!r} is not registered", record=candidate)
        return original(self, candidate)

    return verify


def _announcing(replacement: Callable[[Any], Any]) -> Context:
    """The turn's announcement, in Observe's home, replaced."""
    return lambda: wrapped(gcv.reference.rules.observe, "announce_simultaneously", replacement)


def _first_announcement_only(original: Any) -> Any:
    """A turn's simultaneous announcement eliminates the worlds outside the first
    observation's psi; the later observations eliminate none (they still pose problems)."""

    def announce(state: EpistemicState, observations: Any) -> EpistemicState:
        first = original(state, list(observations)[:1])
        return EpistemicState(first.model, original(state, observations).problems)

    return announce


def _conservative_as_lexicographic(original: Any) -> Any:
    """Support's [up gamma] done as [up-up gamma]."""

    def realisation(op: Any) -> Any:
        found = original(op)
        if found.update is Update.CONSERVATIVE_UPGRADE:
            return dataclasses.replace(found, update=Update.LEXICOGRAPHIC_UPGRADE)
        return found

    return realisation


def _verdict(change: Callable[[Any, Any, Any], Any]) -> Context:
    """Definition A.2's verdict ``change(verdict, problem, gamma)`` makes."""

    def wrap(original: Any) -> Any:
        def check(current: Any, problem: Any, gamma: Any, literal: bool = False) -> Any:
            return change(original(current, problem, gamma, literal=literal), problem, gamma)

        return check

    return lambda: wrapped(gcv.reference.epistemic.abduction, "check_solution", wrap)


def _without_the_belief_half(verdict: Any, problem: Any, gamma: Any) -> Any:
    """Non-triviality without "M does not satisfy B_i gamma": gamma != chi and != T only."""
    trivial = gamma == problem.formula or gamma == gcv.reference.epistemic.abduction.TOP
    return dataclasses.replace(verdict, non_trivial=not trivial)


def _belief_over_w(original: Any) -> Any:
    """B_i read at the most plausible worlds of all of W (by i's ranks), as if W were one
    cell: where they all satisfy phi, B_i phi holds everywhere, else nowhere."""
    return lambda labels, *rest: original([0] * len(labels), *rest)


PAPER_BUGS: dict[str, PaperBug] = {
    bug.what: bug
    for bug in (
        PaperBug(
            "turn.speaker-in-ags",
            "an unknown speaker's turn applied as the first agent's",
            _engine(_UnknownSpeakerSpeaksForTheFirstAgent),
        ),
        PaperBug(
            "turn.atomic",
            "a rejected turn keeping its valid operations",
            _engine(broken_engines.NonAtomicTurn),
        ),
        PaperBug(
            "turn.composition",
            "Resolve checked against the state the turn started in",
            _engine(broken_engines.ResolveReadsTheTurnsStart),
        ),
        PaperBug(
            "order.kinds.narrated",
            "a turn's operations applied in the order written",
            _engine(broken_engines.WrittenOrderTurn),
        ),
        PaperBug(
            "order.kinds.narrated",
            "Resolve applied before Support",
            _resolve_before_support,
        ),
        PaperBug(
            "T3.register.new-active",
            "new records labelled resolved",
            lambda: wrapped(gcv.reference.rules.shared, "register", _new_records_resolved),
        ),
        PaperBug(
            "T3.register.id-new",
            "a duplicate identifier ignored, the turn accepted",
            _instead(_duplicate_ignored),
        ),
        PaperBug(
            "T3.cite.registered",
            "unregistered cited records left out, the turn accepted",
            _instead(_unknown_citations_dropped),
        ),
        PaperBug(
            "T3.register.dep",
            "a new record registered without its Dep links",
            _dep_left_out(lambda kind: kind is not Kind.EVIDENCE),
        ),
        PaperBug(
            "T3.evidence.registered-with-claim",
            "registered evidence without its Dep links",
            _dep_left_out(lambda kind: kind is Kind.EVIDENCE),
        ),
        PaperBug(
            "T3.evidence.speaker-commits",
            "registered evidence committing nobody",
            _after(_registered_evidence_commits_nobody),
        ),
        PaperBug(
            "T3.expand-awareness.agents-in-ags",
            "unknown agents of an expansion left out",
            _instead(_unknown_agents_dropped),
        ),
        PaperBug(
            "T3.expand-awareness.default-all",
            "an expansion naming no agent applied to its speaker only",
            _instead(_no_agent_means_the_speaker),
        ),
        PaperBug(
            "del.expand-awareness",
            "Expand-Awareness not splitting worlds",
            _during(
                ExpandAwareness,
                gcv.reference.rules.expand_awareness,
                "expand",
                lambda _: broken_engines._expansion_without_split,
            ),
        ),
        PaperBug(
            "T3.observe.speaker-commits",
            "an observation committing nobody",
            _after(_observation_commits_nobody),
        ),
        PaperBug(
            "del.observe",
            "a hard announcement keeping the worlds it should eliminate",
            _announcing(_announcement_keeping_the_worlds),
        ),
        PaperBug(
            "del.hypothesize.introduces",
            "introduced atoms not splitting worlds",
            _during(
                Hypothesize,
                gcv.reference.rules.hypothesize,
                "expand",
                lambda _: broken_engines._expansion_without_split,
            ),
        ),
        PaperBug(
            "del.hypothesize",
            "Hypothesize without its lexicographic upgrade",
            _during(Hypothesize, gcv.reference.rules.shared, "lexicographic_upgrade", _no_update),
        ),
        PaperBug(
            "T3.support.evidence-joins-dep",
            "Support recording no Dep link",
            _engine(broken_engines.SupportForgetsDependency),
        ),
        PaperBug(
            "T3.support.no-label-change",
            "Support reviving a weakened record",
            _after(
                lambda dmap, op, speaker: (
                    dmap.set_standing(op.target, Standing.ACTIVE)
                    if isinstance(op, Support) and dmap.standing[op.target] is Standing.WEAKENED
                    else None
                )
            ),
        ),
        PaperBug(
            "del.support",
            "Support without its upgrade",
            _realisation_dropped(Support),
        ),
        PaperBug(
            "T3.undermine.target-standing",
            "Undermine of a target of any standing",
            _engine(broken_engines.UndermineIgnoresTargetStanding),
        ),
        PaperBug(
            "T3.undermine.attack-weakened",
            "Undermine adding no attack",
            _row("undermine", attacks_target=False),
        ),
        PaperBug(
            "del.undermine",
            "Undermine without its downgrade",
            _realisation_dropped(Undermine),
        ),
        PaperBug(
            "T3.revise.target-any-standing",
            "Revise of an active target only",
            _row("revise", target_standing=frozenset({Standing.ACTIVE})),
        ),
        PaperBug(
            "T3.revise.attacks-abandoned",
            "Revise adding no attack",
            _row("revise", attacks_target=False),
        ),
        PaperBug(
            "del.revise",
            "Revise without its announcement",
            _realisation_dropped(gcv.reference.operations.Revise),
        ),
        PaperBug(
            "T3.resolve.target-in-good-standing",
            "Resolve of a target of any standing",
            _row("resolve", target_standing=frozenset(Standing)),
        ),
        PaperBug(
            "T3.resolve.subsumes-dep",
            "Resolve recording no Dep link from the subsumed records",
            _engine(broken_engines.ResolveForgetsSubsumes),
        ),
        PaperBug(
            "T3.resolve.dissenters-in-ags",
            "unknown dissenters left out",
            _instead(_unknown_dissenters_dropped),
        ),
        PaperBug(
            "T3.resolve.resolved",
            "Resolve recording no dissent",
            _instead(_checked_then(Resolve, lambda op: dataclasses.replace(op, dissenters=()))),
        ),
        PaperBug(
            "del.resolve",
            "a consensual Resolve without its announcement",
            _realisation_dropped(Resolve),
        ),
        PaperBug(
            "T3.question.registers-record",
            "a Question registering its issue as a record (B.3 T1: Args_1 = {timeline})",
            _after(_question_registered),
        ),
        PaperBug(
            "del.question",
            "a Question queueing no problem",
            _during(Question, gcv.reference.rules.question, "queue_question", _nothing_queued),
        ),
        PaperBug(
            "T3.evidence.registered-with-claim",
            "T3.cite.not-self read wider: new evidence resting on the operation's target refused",
            _instead(_evidence_resting_on_the_target_refused),
        ),
        PaperBug(
            "query.verify.no-record",
            "Verify of an unregistered identifier refused as unknown-record",
            lambda: wrapped(gcv.reference.verifier.Verifier, "verify", _unregistered_refused),
        ),
        PaperBug(
            "del.formula.atoms-in-prop",
            "a formula naming the atoms its operation introduces refused",
            rule_changed(
                "hypothesize",
                lambda rule: dataclasses.replace(
                    rule, epistemic=_introduced_atoms_unknown_to_the_formula(rule.epistemic)
                ),
            ),
        ),
        PaperBug(
            "del.observe",
            "a turn's simultaneous announcement where the later observations eliminate no worlds",
            _announcing(_first_announcement_only),
        ),
        PaperBug(
            "del.support",
            "a conservative upgrade done lexicographically",
            lambda: wrapped(HOMES[Support], "realisation", _conservative_as_lexicographic),
        ),
        PaperBug(
            "Definition A.1 (belief)",
            "belief taken over all of W instead of the agent's own information cell",
            lambda: wrapped(gcv.reference.epistemic.semantics, "_believes", _belief_over_w),
        ),
        PaperBug(
            "Definition A.2 (consistency)",
            "Definition A.2's consistency inverted",
            _verdict(lambda v, p, g: dataclasses.replace(v, consistent=not v.consistent)),
        ),
        PaperBug(
            "Definition A.2 (non-triviality)",
            "Definition A.2's non-triviality dropped whole",
            _verdict(lambda v, p, g: dataclasses.replace(v, non_trivial=True)),
        ),
        PaperBug(
            "Definition A.2 (non-triviality)",
            "Definition A.2's non-triviality without its belief half (M does not satisfy "
            "B_i gamma)",
            _verdict(_without_the_belief_half),
        ),
    )
}
"""What the engine breaks -> the engine."""

UNOBSERVABLE: dict[str, str] = {
    "T3.resolve.target-unattacked": (
        "Lemma 2.2: no record of S_t is attacked, and Resolve checks its target is in S_t "
        "first, so the attack check never decides a turn (tests/conformance/test_profiles.py "
        "runs the suite without it: no step differs)"
    ),
}
"""Paper clause -> why no engine breaking only it can be told apart."""
