"""Engines that make a chosen clause's paper-compatible alternative, one clause each.

Each entry of :data:`ALTERNATIVES` patches the reference, for as long as its context
lasts, so that it reads one chosen clause of ``spec/transition.py`` the other way the
papers allow (the clause's ``alternative``; spec/normative.md).  The patches compose:
each wraps whatever the patched name holds when it is entered, so :func:`all_alternatives`
is an implementation making every alternative at once.

This module imports only the reference and its protocol session.  The vectors' generator
runs each case under the alternative of every choice its steps name, and records what that
engine answers where it differs (a step's ``alternatives``), so that a runner can blame a
difference on the choices whose alternatives explain it.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, suppress
from functools import partial
from typing import Any

import gcv.conformance.session
import gcv.reference.apply
import gcv.reference.epistemic.abduction
import gcv.reference.epistemic.effects
import gcv.reference.operations
import gcv.reference.rules.expand_awareness
import gcv.reference.rules.form
import gcv.reference.rules.hypothesize
import gcv.reference.rules.observe
import gcv.reference.rules.resolve
import gcv.reference.rules.revise
import gcv.reference.rules.shared
import gcv.reference.rules.support
import gcv.reference.rules.undermine
import gcv.reference.verifier
from gcv.conformance.protocol import RECORD_SET_QUERIES
from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic.abduction import Problem
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.formula import Not, parse
from gcv.reference.epistemic.updates import lexicographic_upgrade
from gcv.reference.errors import (
    AlreadyAware,
    GcvError,
    MalformedFormula,
    MalformedInput,
    MalformedOperation,
    NoSurvivingWorld,
    UnknownAgent,
    UnknownRecord,
)
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from gcv.reference.records import Kind, Standing
from gcv.reference.rules.rule import Rule

__all__ = ["ALTERNATIVES", "HOMES", "all_alternatives"]

HOMES: dict[type[Operation], Any] = {
    ExpandAwareness: gcv.reference.rules.expand_awareness,
    Hypothesize: gcv.reference.rules.hypothesize,
    Support: gcv.reference.rules.support,
    Undermine: gcv.reference.rules.undermine,
    Revise: gcv.reference.rules.revise,
    Resolve: gcv.reference.rules.resolve,
}
"""The engine's home of each operation these engines patch (gcv.reference.rules)."""

Alternative = Callable[[], AbstractContextManager[None]]


@contextmanager
def _wrapped(target: Any, name: str, wrap: Callable[[Any], Any]) -> Iterator[None]:
    """Replace ``target.name`` by ``wrap(current value)`` while the context lasts."""
    saved = getattr(target, name)
    setattr(target, name, wrap(saved))
    try:
        yield
    finally:
        setattr(target, name, saved)


def _after_apply(extra: Callable[[DependencyMap, Operation, AgentId], None]) -> Alternative:
    """Run ``extra`` after each operation the reference applies."""

    def wrap(original: Any) -> Any:
        def apply_operation(
            dmap: DependencyMap, op: Operation, speaker: AgentId, **kw: Any
        ) -> None:
            original(dmap, op, speaker, **kw)
            extra(dmap, op, speaker)

        return apply_operation

    return lambda: _wrapped(gcv.reference.apply, "apply_operation", wrap)


def _before_apply(
    rewrite: Callable[[DependencyMap, Operation, AgentId], Operation | None],
) -> Alternative:
    """Apply ``rewrite(op)`` in place of each operation (None: the operation does nothing)."""

    def wrap(original: Any) -> Any:
        def apply_operation(
            dmap: DependencyMap, op: Operation, speaker: AgentId, **kw: Any
        ) -> None:
            rewritten = rewrite(dmap, op, speaker)
            if rewritten is not None:
                original(dmap, rewritten, speaker, **kw)

        return apply_operation

    return lambda: _wrapped(gcv.reference.apply, "apply_operation", wrap)


def _rule_changed(name: str, change: Callable[[Rule[Any]], Rule[Any]]) -> Alternative:
    """Replace the rule of the operation ``name`` in the engine's order by ``change(rule)``."""

    def wrap(order: tuple[Rule[Any], ...]) -> tuple[Rule[Any], ...]:
        return tuple(change(rule) if rule.name == name else rule for rule in order)

    return lambda: _wrapped(gcv.reference.operations, "ORDER", wrap)


def _table_row(name: str, **change: Any) -> Alternative:
    """Swap one row of the operation table (what the operation's checks and effect read)."""
    return _rule_changed(
        name, lambda rule: dataclasses.replace(rule, row=dataclasses.replace(rule.row, **change))
    )


def _cited_field(field: str, **change: object) -> Alternative:
    """Check the records an operation cites in ``field`` with other options."""

    def wrap(original: Any) -> Any:
        def cited(view: Any, name: str, records: Any, **options: Any) -> Any:
            return original(view, name, records, **(options | change if name == field else options))

        return cited

    return lambda: _wrapped(gcv.reference.rules.shared, "cited", wrap)


def _all(*alternatives: Alternative) -> Alternative:
    """Several patches as one alternative."""

    @contextmanager
    def entered() -> Iterator[None]:
        # If one patch cannot be made, the ones already made are undone at once.
        with ExitStack() as stack:
            for alternative in alternatives:
                stack.enter_context(alternative())
            yield

    return entered


# -- commitments -------------------------------------------------------------------------------


def _hypothesis_commits_speaker(dmap: DependencyMap, op: Operation, speaker: AgentId) -> None:
    if isinstance(op, Hypothesize):
        dmap.commit(speaker, op.id)


def _existing_evidence_commits_nobody(dmap: DependencyMap, op: Operation, speaker: AgentId) -> None:
    if isinstance(op, Support | Undermine) and op.evidence_claim is None:
        dmap.retract(speaker, op.evidence)


def _consensus_commits_only_the_speaker(
    dmap: DependencyMap, op: Operation, speaker: AgentId
) -> None:
    if isinstance(op, Resolve) and not op.authoritative:
        for agent in dmap.agents:
            if agent != speaker:
                dmap.retract(agent, op.target)


def _revise_keeps_commitments() -> AbstractContextManager[None]:
    return _wrapped(DependencyMap, "retract", lambda _: lambda self, agent, record: None)


# -- which error a refused turn reports --------------------------------------------------------


def _speaker_checked_last() -> AbstractContextManager[None]:
    """An unknown speaker is reported only when every operation applies (as a known agent's)."""

    def wrap(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            if turn.speaker not in self.state.agents:
                stand_in = gcv.reference.verifier.Turn(self.state.agents[0], turn.operations)
                original(copy.deepcopy(self), stand_in)
            return original(self, turn)

        return apply_turn

    return _wrapped(gcv.reference.verifier.Verifier, "apply_turn", wrap)


def _speaker_before_form() -> AbstractContextManager[None]:
    """An unknown speaker is reported before a malformed operation."""

    def wrap(original: Any) -> Any:
        def dispatch(self: Any, request: Any) -> Any:
            verifier, speaker = self.verifier, request.get("speaker")
            if request["cmd"] == "apply" and verifier and speaker not in verifier.state.agents:
                raise UnknownAgent(f"speaker {speaker!r} is not in Ags", field="speaker")
            return original(self, request)

        return dispatch

    return _wrapped(gcv.conformance.session.Session, "_dispatch", wrap)


def _first_failing_as_written() -> AbstractContextManager[None]:
    """A refused turn reports, of the operations that fail, the first as written (each tried
    on its own after the others, in application order)."""

    def wrap(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            try:
                return original(self, turn)
            except GcvError as refused:
                if len(turn.operations) < 2 or refused.operation_index is None:
                    raise
                failures = []
                scratch = copy.deepcopy(self)
                # Read through apply's namespace, which other alternatives patch.
                ordered = vars(gcv.reference.apply)["in_application_order"](turn.operations)
                for index, op in ordered:
                    try:
                        original(scratch, gcv.reference.verifier.Turn(turn.speaker, (op,)))
                    except GcvError as error:
                        failures.append((index, error))
                index, first = min(failures, key=lambda failure: failure[0])
                raise first.locate(
                    turn=refused.turn or 0, operation_index=index, operation=first.operation
                ) from None

        return apply_turn

    return _wrapped(gcv.reference.verifier.Verifier, "apply_turn", wrap)


def _fields_last_first() -> AbstractContextManager[None]:
    """An operation's fields are checked from the last in its signature to the first."""
    return _wrapped(
        gcv.reference.rules.shared,
        "first",
        lambda original: lambda *checks: original(*checks[::-1]),
    )


def _registration_before_self_reference() -> AbstractContextManager[None]:
    """A cited record is checked for registration before self-reference."""

    def wrap(original: Any) -> Any:
        def cited(view: Any, name: str, records: Any, **options: Any) -> Any:
            for record in records:
                unknown = original(view, name, (record,), not_self=None, in_good_standing=False)
                found = unknown or original(view, name, (record,), **options)
                if found is not None:
                    return found
            return None

        return cited

    return _wrapped(gcv.reference.rules.shared, "cited", wrap)


def _epistemic_before_table() -> AbstractContextManager[None]:
    """An operation's epistemic preconditions are checked before its Table 3 ones."""

    def wrap(original: Any) -> Any:
        def check(rule: Rule[Any], op: Operation, view: Any, speaker: AgentId) -> Any:
            found = rule.epistemic(op, view, speaker, rule.row)
            return found if found is not None else original(rule, op, view, speaker)

        return check

    return _wrapped(Rule, "check", wrap)


# -- queries ------------------------------------------------------------------------------------


def _unregistered_record_answers_empty() -> AbstractContextManager[None]:
    """A set query about an unregistered record answers the empty set."""

    def wrap(original: Any) -> Any:
        def answer(self: Any, record: Any) -> Any:
            return () if record not in self.state.records else original(self, record)

        return answer

    verifier = gcv.reference.verifier.Verifier
    return _all(*(partial(_wrapped, verifier, q, wrap) for q in sorted(RECORD_SET_QUERIES)))()


# -- turns and order ----------------------------------------------------------------------------


def _every_utterance_numbered() -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            try:
                return original(self, turn)
            except GcvError:
                self.state.advance_turn()
                raise

        return apply_turn

    return _wrapped(gcv.reference.verifier.Verifier, "apply_turn", wrap)


def _no_operations_refused() -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            if not turn.operations:
                raise MalformedInput("a turn with no operations")
            return original(self, turn)

        return apply_turn

    return _wrapped(gcv.reference.verifier.Verifier, "apply_turn", wrap)


def _empty_list_as_given() -> AbstractContextManager[None]:
    """An empty list is a field given: premises or dissenters on a consensual Resolve and
    evidence_depends_on without evidence_claim are malformed, agents: [] names nobody, and
    attackers: [] selects Revise's reading with attackers (the attacks alone)."""

    def wrap(original: Any) -> Any:
        def read(op: Any) -> Any:
            decision = bool(op.get("authoritative"))
            for name in ("premises", "dissenters"):
                if op.get(name) == [] and op["op"] == "resolve" and not decision:
                    raise MalformedOperation(f"{name} on a consensual Resolve", field=name)
            if op.get("evidence_depends_on") == [] and op.get("evidence_claim") is None:
                raise MalformedOperation("evidence_depends_on", field="evidence_depends_on")
            if op.get("agents") == []:
                raise AlreadyAware(f"nobody named is unaware of {op['atom']}", field="atom")
            if op.get("attackers") == [] and op.get("announce") is None:
                op = {**op, "announce": False}
            return original(op)

        return read

    return _wrapped(gcv.conformance.session, "operation_from_json", wrap)


def _later_decision_replaces_dissent(dmap: DependencyMap, op: Operation, speaker: AgentId) -> None:
    """A Resolve of a resolved record keeps only its own dissenters.  (The fake drops the
    earlier ones outside the map's journal: no vector rejects a turn after such a Resolve.)"""
    if isinstance(op, Resolve):
        recorded = dmap._dissent.get(op.target, {})
        for agent in [a for a in recorded if a not in op.dissenters]:
            del recorded[agent]


# Resolve before Undermine and Revise: a fixed order of kinds that keeps the pairs the
# paper's scenarios narrate (order.kinds.narrated: Observe before Undermine, Hypothesize
# before Revise, Support before Resolve).
_RESOLVE_EARLY = (
    "expand-awareness",
    "observe",
    "hypothesize",
    "support",
    "resolve",
    "undermine",
    "revise",
    "question",
)


def _resolve_early() -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def ordered(operations: Any) -> Any:
            return sorted(original(operations), key=lambda pair: _RESOLVE_EARLY.index(pair[1].name))

        return ordered

    return _wrapped(gcv.reference.apply, "in_application_order", wrap)


def _reversed_within_kind() -> AbstractContextManager[None]:
    """Operations of one kind apply last written first."""

    def wrap(original: Any) -> Any:
        def ordered(operations: Any) -> Any:
            runs = [list(run) for _, run in itertools.groupby(original(operations), key=_kind)]
            return [pair for run in runs for pair in reversed(run)]

        return ordered

    return _wrapped(gcv.reference.apply, "in_application_order", wrap)


def _kind(pair: tuple[int, Operation]) -> str:
    return pair[1].name


def _observations_one_after_another() -> AbstractContextManager[None]:
    """Each Observe announces its psi as it is applied; the turn announces nothing more."""

    def alone(rule: Rule[Any]) -> Rule[Any]:
        settle = rule.settle

        def effect(op: Observe, dmap: DependencyMap, speaker: AgentId, row: Any) -> None:
            rule.effect(op, dmap, speaker, row)
            if settle is not None:
                settle(dmap, [(0, op)])  # the turn locates a failure at the operation

        return dataclasses.replace(rule, effect=effect, settle=None)

    return _rule_changed("observe", alone)()


# -- preconditions ------------------------------------------------------------------------------


def _self_citation_accepted() -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def cited(view: Any, name: str, records: Any, **options: Any) -> Any:
            return original(view, name, records, **(options | {"not_self": None}))

        return cited

    return _wrapped(gcv.reference.rules.shared, "cited", wrap)


def _evidence_may_be_target() -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def evidence(view: Any, op: Support | Undermine, row: Any) -> Any:
            found = original(view, op, row)
            if found is not None and found.code == "self-reference" and found.field == "evidence":
                return original(view, dataclasses.replace(op, target=""), row)
            return found

        return evidence

    return _wrapped(gcv.reference.rules.shared, "evidence", wrap)


def _evidence_always_new() -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def evidence(view: Any, op: Support | Undermine, row: Any) -> Any:
            found = original(view, op, row)
            if op.evidence_claim is None and (found is None or found.code != "self-reference"):
                return UnknownRecord(
                    "evidence is registered by the operation; it needs evidence_claim",
                    field="evidence",
                    record=op.evidence,
                )
            return found

        return evidence

    return _wrapped(gcv.reference.rules.shared, "evidence", wrap)


def _expansion_of_nothing_accepted(
    dmap: DependencyMap, op: Operation, speaker: AgentId
) -> Operation | None:
    if isinstance(op, ExpandAwareness):
        named = op.agents or dmap.agents
        if all(agent in dmap.agents and op.atom in dmap.awareness(agent) for agent in named):
            return None
    return op


def _known_atoms_not_introduced(
    dmap: DependencyMap, op: Operation, speaker: AgentId
) -> Operation | None:
    if isinstance(op, Hypothesize) and op.introduces:
        known = dmap.model.atoms
        return dataclasses.replace(op, introduces=tuple(a for a in op.introduces if a not in known))
    return op


def _kind_merged(kind: Kind, into: Kind) -> Alternative:
    """Records of ``kind`` register as ``into`` (the kinds are one)."""
    merged = {kind: into}

    def wrap(original: Any) -> Any:
        def register(dmap: Any, record: Any, claim: Any, kind: Kind, *rest: Any) -> None:
            original(dmap, record, claim, merged.get(kind, kind), *rest)

        return register

    return lambda: _wrapped(gcv.reference.rules.shared, "register", wrap)


def _premises_outside_dep(dmap: DependencyMap, op: Operation, speaker: AgentId) -> Operation:
    """A decision lists its premises apart (checked as the reference checks them); they do
    not join Dep(target)."""
    if isinstance(op, Resolve) and op.premises:
        found = gcv.reference.apply.find_violation(op, dmap.view(), speaker)
        if found is not None:
            raise found
        return dataclasses.replace(op, premises=())
    return op


def _dissenting_speaker_accepted() -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def agents(view: Any, name: str, names: Any, **options: Any) -> Any:
            return original(view, name, names)

        return agents

    return _wrapped(gcv.reference.rules.shared, "agents", wrap)


def _form_relaxed(check: str, accepts: Callable[..., bool]) -> Alternative:
    """A form check of the operations that lets through what ``accepts`` allows."""

    def wrap(original: Any) -> Any:
        def relaxed(*args: Any) -> None:
            if not accepts(*args):
                original(*args)

        return relaxed

    return lambda: _wrapped(gcv.reference.rules.form, check, wrap)


def _is_blank(kind: Any, field: str, value: object) -> bool:
    return isinstance(value, str) and bool(value) and not value.strip()


def _existing_evidence_with_dependencies(name: str, claim: object, depends_on: object) -> bool:
    return claim is None and depends_on != ()


def _decision_fields_anywhere() -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def post_init(self: Resolve) -> None:
            try:
                original(self)
            except MalformedOperation as error:
                if error.field not in ("premises", "dissenters", "formula"):
                    raise
                original(dataclasses.replace(self, premises=(), dissenters=(), formula=None))

        return post_init

    return _wrapped(Resolve, "__post_init__", wrap)


# -- the epistemic realisations -----------------------------------------------------------------


def _own_formula_only() -> AbstractContextManager[None]:
    """An operation on a target acts on its own formula only, never its target's."""

    def wrap(original: Any) -> Any:
        def update_target(dmap: DependencyMap, op: Any, reading: Any) -> None:
            if op.formula is not None:
                original(dmap, op, reading)

        return update_target

    return _wrapped(gcv.reference.rules.shared, "update_target", wrap)


def _switch_ignored(kind: type[Operation], **default: object) -> Alternative:
    """The operation's realisation ignores the field that selects its alternative."""

    def wrap(original: Any) -> Any:
        def realisation(op: Operation) -> Any:
            changed: Any = dataclasses.replace  # the fields ``default`` names are ``kind``'s
            return original(changed(op, **default) if isinstance(op, kind) else op)

        return realisation

    return lambda: _wrapped(HOMES[kind], "realisation", wrap)


def _expansion_prefers_the_atom_false() -> AbstractContextManager[None]:
    """Becoming aware of p makes the copies where p is false the more plausible."""

    def wrap(original: Any) -> Any:
        def expand(model: Any, atom: str, *rest: Any) -> Any:
            return lexicographic_upgrade(original(model, atom, *rest), Not(parse(atom)))

        return expand

    return _wrapped(gcv.reference.rules.expand_awareness, "expand", wrap)


def _surprise_read_before_the_turn() -> AbstractContextManager[None]:
    """Each observation's surprise is checked in M_t before the turn's observations (its
    problem's M_chi is the reference's: M_t announced with the others)."""
    before: list[Any] = []

    def announcing(original: Any) -> Any:
        def announce(state: EpistemicState, observations: Any) -> EpistemicState:
            before[:] = [state.model.explicit()]
            announced: EpistemicState = original(state, observations)
            return announced

        return announce

    def surprising(original: Any) -> Any:
        return lambda posed, agent, formula: original(before[0], agent, formula)

    # The turn's announcement, in Observe's home.
    return _all(
        lambda: _wrapped(gcv.reference.rules.observe, "announce_simultaneously", announcing),
        lambda: _wrapped(gcv.reference.epistemic.effects, "is_surprising", surprising),
    )()


def _solution_read_in_the_current_model() -> AbstractContextManager[None]:
    """Definition A.2's explanatory check reads M_t, not the model the problem arose in."""

    def wrap(original: Any) -> Any:
        def check(current: Any, problem: Problem, gamma: Any, literal: bool = False) -> Any:
            problem = dataclasses.replace(problem, model=current)
            return original(current, problem, gamma, literal=literal)

        return check

    return _wrapped(gcv.reference.epistemic.abduction, "check_solution", wrap)


def _empty_announcement_ignored() -> AbstractContextManager[None]:
    """An announcement true at no world leaves M_t as it was; the turn is accepted."""

    def ignoring(original: Any) -> Any:
        def apply(*args: Any, **kw: Any) -> None:
            with suppress(NoSurvivingWorld):
                original(*args, **kw)

        return apply

    return _all(
        lambda: _wrapped(gcv.reference.apply, "apply_operation", ignoring),
        _rule_changed(
            "observe",
            lambda rule: dataclasses.replace(
                rule, settle=None if rule.settle is None else ignoring(rule.settle)
            ),
        ),
    )()


def _unknown_agent_malformed() -> AbstractContextManager[None]:
    """A formula naming an agent outside Ags is not a formula of the language."""

    def wrap(original: Any) -> Any:
        def violation(op: Operation, view: Any, speaker: AgentId) -> Any:
            found = original(op, view, speaker)
            if isinstance(found, UnknownAgent) and found.field == "formula":
                return MalformedFormula(str(found), field="formula")
            return found

        return violation

    return _wrapped(gcv.reference.apply, "find_violation", wrap)


ALTERNATIVES: dict[str, Alternative] = {
    "turn.speaker-checked-first": _speaker_checked_last,
    "turn.well-formed-first": _speaker_before_form,
    "query.record-registered": _unregistered_record_answers_empty,
    "turn.numbering": _every_utterance_numbered,
    "turn.no-operations": _no_operations_refused,
    "order.kinds": _resolve_early,
    "order.within-kind-as-written": _reversed_within_kind,
    "order.first-failing-operation": _first_failing_as_written,
    "order.simultaneous-observations": _observations_one_after_another,
    "order.fields": _fields_last_first,
    "order.cited-record-checks": _registration_before_self_reference,
    "order.epistemic-after-table": _epistemic_before_table,
    "T3.cite.not-self": _self_citation_accepted,
    "T3.register.depends-on-any-standing": _all(
        _cited_field("depends_on", in_good_standing=True),
        _cited_field("evidence_depends_on", in_good_standing=True),
    ),
    "T3.evidence.not-target": _evidence_may_be_target,
    "T3.evidence.existing-in-good-standing": _evidence_always_new,
    "T3.evidence.existing-commits-speaker": _after_apply(_existing_evidence_commits_nobody),
    "T3.expand-awareness.changes-something": _before_apply(_expansion_of_nothing_accepted),
    "del.expand-awareness.copies-equally-plausible": _expansion_prefers_the_atom_false,
    "T3.observe.kind": _kind_merged(Kind.PREMISE, Kind.OBSERVATION),
    "T3.hypothesize.kind": _kind_merged(Kind.POSITION, Kind.HYPOTHESIS),
    "T3.hypothesize.no-commitment": _after_apply(_hypothesis_commits_speaker),
    "T3.hypothesize.introduces-new-atoms": _before_apply(_known_atoms_not_introduced),
    "del.hypothesize.solves": _solution_read_in_the_current_model,
    "T3.support.target-standing": _table_row("support", target_standing=frozenset(Standing)),
    "del.undermine.conservative": _switch_ignored(Undermine, downgrade="lexicographic"),
    "T3.revise.attackers-in-good-standing": _cited_field("attackers", in_good_standing=False),
    "T3.revise.retracts-commitment": _revise_keeps_commitments,
    "del.revise.announce": _switch_ignored(Revise, announce=None),
    "T3.resolve.subsumes-any-standing": _cited_field("subsumes", in_good_standing=True),
    "T3.resolve.premises-in-good-standing": _cited_field("premises", in_good_standing=False),
    "T3.resolve.premises-join-dep": _before_apply(_premises_outside_dep),
    "T3.resolve.dissenter-not-speaker": _dissenting_speaker_accepted,
    "T3.resolve.commitments": _after_apply(_consensus_commits_only_the_speaker),
    "T3.resolve.dissent-accumulates": _after_apply(_later_decision_replaces_dissent),
    "form.empty-list-as-absent": _empty_list_as_given,
    "T3.resolve.decision-fields": _decision_fields_anywhere,
    "form.claim-not-blank": _form_relaxed("check_claim", _is_blank),
    "form.evidence-depends-on-needs-claim": _form_relaxed(
        "check_evidence_dependencies", _existing_evidence_with_dependencies
    ),
    "del.formula.agents-in-ags": _unknown_agent_malformed,
    "del.formula.own-else-target": _own_formula_only,
    "del.announcement.some-world-survives": _empty_announcement_ignored,
    "del.observe.poses-problems": _surprise_read_before_the_turn,
}
"""Chosen clause id -> a context in which the reference makes its alternative instead."""


def all_alternatives() -> AbstractContextManager[None]:
    """The reference making every alternative of :data:`ALTERNATIVES` at once."""
    return _all(*ALTERNATIVES.values())()
