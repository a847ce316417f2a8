"""Engines that make a chosen clause's paper-compatible alternative, one reading each.

Each entry of :data:`READINGS` patches the reference, for as long as its context lasts,
so that it reads one chosen clause of ``spec/gcv/spec/transition.py`` another way the papers allow
(the clause's ``alternative``; spec/gcv/spec/normative.md).  :data:`ALTERNATIVES` holds each
clause's first reading, under the clause's id; a clause whose alternative names two
readings has its second in :data:`READINGS` too, as ``CLAUSE:READING``.  The patches
compose: each wraps whatever the patched name holds when it is entered, so
:func:`all_alternatives` is an implementation making every first reading at once.

A reading can also be *probed* (:meth:`Reading.probe`): the reference then behaves as
itself, and the reading notes (:func:`tracking`) where it would have decided otherwise.
Made, it notes where it did.  A reading that never decides otherwise on a conversation
cannot change an answer of it, made or not: that is how the vectors' generator keeps the
combinations of readings it tries small (:mod:`gcv.conformance.cases.blame`).  A reading's
own bookkeeping (the issue ids of ``T3.question.issue-ids-apart``) is kept in both modes,
so a conversation probed up to some step can go on with the reading made.

This module imports only the reference and its protocol session.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
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
from gcv.reference.epistemic.formula import Believes, Not, parse
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import holds_everywhere
from gcv.reference.epistemic.updates import expand, lexicographic_upgrade
from gcv.reference.errors import (
    AlreadyAware,
    DuplicateRecord,
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
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from gcv.reference.records import GOOD_STANDING, Kind, Standing
from gcv.reference.rules.rule import Rule

__all__ = [
    "ALTERNATIVES",
    "HOMES",
    "ORDERS",
    "READINGS",
    "Reading",
    "Tracker",
    "all_alternatives",
    "clause_of",
    "readings",
    "remembering",
    "tracking",
]

HOMES: dict[type[Operation], Any] = {
    ExpandAwareness: gcv.reference.rules.expand_awareness,
    Hypothesize: gcv.reference.rules.hypothesize,
    Support: gcv.reference.rules.support,
    Undermine: gcv.reference.rules.undermine,
    Revise: gcv.reference.rules.revise,
    Resolve: gcv.reference.rules.resolve,
}
"""The engine's home of each operation these engines patch (gcv.reference.rules)."""


# -- where a reading decided otherwise ----------------------------------------------------------


class Tracker:
    """Where the readings decided otherwise (made) or would have (probed): for each, the
    steps it did so at (:attr:`step`, which whoever drives the conversation sets), each with
    what it decided there."""

    def __init__(self) -> None:
        self.step = 0
        self.decisions: dict[str, list[tuple[int, str]]] = {}

    def note(self, name: str, detail: str) -> None:
        """``name`` decides ``detail`` otherwise at the current step."""
        self.decisions.setdefault(name, []).append((self.step, detail))

    @property
    def first(self) -> dict[str, int]:
        """Each reading that decided otherwise, and the first step it did so at."""
        return {name: found[0][0] for name, found in self.decisions.items()}


_TRACKERS: list[Tracker] = []


@contextmanager
def tracking() -> Iterator[Tracker]:
    """A :class:`Tracker` that the readings made or probed inside the context report to."""
    tracker = Tracker()
    _TRACKERS.append(tracker)
    try:
        yield tracker
    finally:
        _TRACKERS.remove(tracker)


def _decided(name: str, detail: object = "") -> None:
    if _TRACKERS:
        _TRACKERS[-1].note(name, detail if isinstance(detail, str) else repr(detail))


Patch = Callable[[str, bool], AbstractContextManager[None]]
"""``patch(name, making)``: the context in which the reading ``name`` is made (``making``)
or probed."""


@dataclass(frozen=True, slots=True)
class Reading:
    """One paper-compatible reading of a chosen clause, as a patch of the reference."""

    name: str
    """The clause id for its first reading, ``CLAUSE:READING`` for a further one."""
    patch: Patch

    @property
    def clause(self) -> str:
        """The chosen clause this reading reads otherwise."""
        return clause_of(self.name)

    def __call__(self) -> AbstractContextManager[None]:
        """The reference making this reading."""
        return self.patch(self.name, True)

    def probe(self) -> AbstractContextManager[None]:
        """The reference as it is, noting where this reading would decide otherwise."""
        return self.patch(self.name, False)


def clause_of(name: str) -> str:
    """The clause id a reading's name reads (``T3.support.target-standing:s-t`` ->
    ``T3.support.target-standing``)."""
    return name.split(":", 1)[0]


# -- patching ------------------------------------------------------------------------------------


@contextmanager
def _wrapped(target: Any, name: str, wrap: Callable[[Any], Any]) -> Iterator[None]:
    """Replace ``target.name`` by ``wrap(current value)`` while the context lasts."""
    saved = getattr(target, name)
    setattr(target, name, wrap(saved))
    try:
        yield
    finally:
        setattr(target, name, saved)


def _all(*patches: Callable[[], AbstractContextManager[None]]) -> AbstractContextManager[None]:
    """Several patches as one context; if one cannot be made, those made are undone."""

    @contextmanager
    def entered() -> Iterator[None]:
        with ExitStack() as stack:
            for patch in patches:
                stack.enter_context(patch())
            yield

    return entered()


def _same(one: Any, other: Any) -> bool:
    """Whether two outcomes (a value, or an error raised) are the same answer."""
    if isinstance(one, GcvError) or isinstance(other, GcvError):
        return bool(_error_key(one) == _error_key(other))
    return bool(one == other)


def _error_key(error: Any) -> Any:
    # Two errors are one answer when they name the same thing (their wording aside).
    if not isinstance(error, GcvError):
        return error
    return (type(error), error.code, error.field, error.record, error.operation_index)


def _outcome(function: Callable[..., Any], *args: Any, **kw: Any) -> tuple[bool, Any]:
    """(True, value) or (False, the error ``function`` raised)."""
    try:
        return True, function(*args, **kw)
    except GcvError as error:
        return False, error


def _fingerprint(outcome: tuple[bool, Any]) -> str:
    """What a reading decided, as a short text (an error by what it names)."""
    returned, value = outcome
    if not returned or isinstance(value, GcvError):
        return repr(_error_key(value))
    return repr(value)


def _deliver(outcome: tuple[bool, Any]) -> Any:
    returned, value = outcome
    if not returned:
        raise value
    return value


def _pure(
    target: Any,
    attribute: str,
    alternative: Callable[[Any], Any],
    may_differ: Callable[..., bool] | None = None,
) -> Patch:
    """A reading of a pure function: ``alternative(original)`` is the function it reads
    instead.  Both are computed and compared, to tell whether it decides otherwise; with
    ``may_differ``, only where that holds (elsewhere the two are one function), so that
    readings stacked on one function stay cheap."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        def wrap(original: Any) -> Any:
            instead = alternative(original)

            def call(*args: Any, **kw: Any) -> Any:
                if may_differ is not None and not may_differ(*args, **kw):
                    return original(*args, **kw)
                theirs = _outcome(original, *args, **kw)
                mine = _outcome(instead, *args, **kw)
                if theirs[0] != mine[0] or not _same(theirs[1], mine[1]):
                    _decided(name, _fingerprint(mine))
                    return _deliver(mine if making else theirs)
                return _deliver(theirs)

            return call

        return _wrapped(target, attribute, wrap)

    return patch


def _derived(target: Any, attribute: str, derive: Callable[..., Any]) -> Patch:
    """A reading of a pure function whose answer follows from the reference's:
    ``derive(theirs, *args)`` (the function is called once, however many readings stack)."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        def wrap(original: Any) -> Any:
            def call(*args: Any, **kw: Any) -> Any:
                theirs = original(*args, **kw)
                mine = derive(theirs, *args, **kw)
                if mine == theirs:
                    return theirs
                _decided(name, _fingerprint((True, mine)))
                return mine if making else theirs

            return call

        return _wrapped(target, attribute, wrap)

    return patch


def _conditional(
    target: Any, attribute: str, differs: Callable[..., bool], alternative: Callable[[Any], Any]
) -> Patch:
    """A reading of a function with effects: where ``differs(*args)`` holds (before the
    call), the reading decides otherwise, and made, ``alternative(original)`` is called
    instead."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        def wrap(original: Any) -> Any:
            instead = alternative(original)

            def call(*args: Any, **kw: Any) -> Any:
                if not differs(*args, **kw):
                    return original(*args, **kw)
                _decided(name, args[1:])
                return (instead if making else original)(*args, **kw)

            return call

        return _wrapped(target, attribute, wrap)

    return patch


def _each(*patches: Patch) -> Patch:
    """Several patches as one reading."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        return _all(*(lambda p=p: p(name, making) for p in patches))

    return patch


# -- operations applied: before, after -----------------------------------------------------------

_APPLY = (gcv.reference.apply, "apply_operation")


def _after_apply(extra: Callable[[DependencyMap, Operation, AgentId, bool], bool]) -> Patch:
    """After each operation the reference applies, ``extra(dmap, op, speaker, making)``,
    which changes D_t only when ``making`` and says whether it would change it."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        def wrap(original: Any) -> Any:
            def apply_operation(
                dmap: DependencyMap, op: Operation, speaker: AgentId, **kw: Any
            ) -> None:
                original(dmap, op, speaker, **kw)
                if extra(dmap, op, speaker, making):
                    _decided(name, op)

            return apply_operation

        return _wrapped(*_APPLY, wrap)

    return patch


def _before_apply(
    rewrite: Callable[[DependencyMap, Operation, AgentId], Operation | None],
) -> Patch:
    """Apply ``rewrite(op)`` in place of each operation (None: the operation does nothing)."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        def wrap(original: Any) -> Any:
            def apply_operation(
                dmap: DependencyMap, op: Operation, speaker: AgentId, **kw: Any
            ) -> None:
                rewritten = rewrite(dmap, op, speaker)
                if rewritten is not op:
                    _decided(name, rewritten)
                applied = rewritten if making else op
                if applied is not None:
                    original(dmap, applied, speaker, **kw)

            return apply_operation

        return _wrapped(*_APPLY, wrap)

    return patch


def _rule_changed(
    name: str, change: Callable[[Rule[Any]], Rule[Any]]
) -> Callable[[], AbstractContextManager[None]]:
    """Replace the rule of the operation ``name`` in the engine's order by ``change(rule)``
    (the rule the order holds when entered: the changes compose)."""

    def wrap(order: tuple[Rule[Any], ...]) -> tuple[Rule[Any], ...]:
        return tuple(change(rule) if rule.name == name else rule for rule in order)

    return lambda: _wrapped(gcv.reference.operations, "ORDER", wrap)


def _table_row(name: str, **change: object) -> Patch:
    """Swap one row of the operation table as the preconditions read it."""

    def changed(rule: Rule[Any]) -> Rule[Any]:
        row: Any = dataclasses.replace  # the fields ``change`` names are a row's
        return dataclasses.replace(rule, row=row(rule.row, **change))

    def read_with_row(original: Any) -> Any:
        def find_violation(op: Operation, view: Any, speaker: AgentId) -> Any:
            with _rule_changed(name, changed)():
                return original(op, view, speaker)

        return find_violation

    def may_differ(op: Operation, view: Any, speaker: AgentId) -> bool:
        return op.name == name

    # apply_operation reads find_violation through apply's namespace.
    return _pure(gcv.reference.apply, "find_violation", read_with_row, may_differ)


def _cited_field(field: str, **change: object) -> Patch:
    """Check the records an operation cites in ``field`` with other options."""

    def instead(original: Any) -> Any:
        def cited(view: Any, name: str, records: Any, **options: Any) -> Any:
            return original(view, name, records, **(options | change if name == field else options))

        return cited

    def differs(view: Any, name: str, records: Any, **options: Any) -> bool:
        return name == field

    return _pure(gcv.reference.rules.shared, "cited", instead, differs)


# -- commitments -------------------------------------------------------------------------------


def _hypothesis_commits_speaker(
    dmap: DependencyMap, op: Operation, speaker: AgentId, making: bool
) -> bool:
    if not isinstance(op, Hypothesize) or op.id in dmap.commitments(speaker):
        return False
    if making:
        dmap.commit(speaker, op.id)
    return True


def _existing_evidence_commits_nobody(
    dmap: DependencyMap, op: Operation, speaker: AgentId, making: bool
) -> bool:
    if not isinstance(op, Support | Undermine) or op.evidence_claim is not None:
        return False
    if op.evidence not in dmap.commitments(speaker):
        return False
    if making:
        dmap.retract(speaker, op.evidence)
    return True


def _consensus_commits_only_the_speaker(
    dmap: DependencyMap, op: Operation, speaker: AgentId, making: bool
) -> bool:
    if not isinstance(op, Resolve) or op.authoritative:
        return False
    others = [a for a in dmap.agents if a != speaker and op.target in dmap.commitments(a)]
    if making:
        for agent in others:
            dmap.retract(agent, op.target)
    return bool(others)


def _revise_keeps_commitments(name: str, making: bool) -> AbstractContextManager[None]:
    """Revise leaves Cm_t as it was (only Revise's retraction: the readings that retract a
    commitment elsewhere still do, so that the readings compose)."""

    def changed(rule: Rule[Any]) -> Rule[Any]:
        def effect(op: Revise, dmap: DependencyMap, speaker: AgentId, row: Any) -> None:
            committed = op.target in dmap.commitments(speaker)
            rule.effect(op, dmap, speaker, row)
            if committed:
                _decided(name, op)
                if making:
                    dmap.commit(speaker, op.target)

        return dataclasses.replace(rule, effect=effect)

    return _rule_changed("revise", changed)()


# -- which error a refused turn reports --------------------------------------------------------

_VERIFIER = gcv.reference.verifier.Verifier


def _speaker_checked_last(name: str, making: bool) -> AbstractContextManager[None]:
    """An unknown speaker is reported only when every operation applies (as a known agent's)."""

    def wrap(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            if turn.speaker not in self.state.agents:
                stand_in = gcv.reference.verifier.Turn(self.state.agents[0], turn.operations)
                applied, refused = _outcome(original, copy.deepcopy(self), stand_in)
                if not applied:
                    _decided(name, _error_key(refused))
                    if making:
                        raise refused
            return original(self, turn)

        return apply_turn

    return _wrapped(_VERIFIER, "apply_turn", wrap)


def _speaker_before_form(name: str, making: bool) -> AbstractContextManager[None]:
    """An unknown speaker is reported before a malformed operation."""

    def wrap(original: Any) -> Any:
        def dispatch(self: Any, request: Any) -> Any:
            verifier, speaker = self.verifier, request.get("speaker")
            if request["cmd"] != "apply" or not verifier or speaker in verifier.state.agents:
                return original(self, request)
            unknown = UnknownAgent(f"speaker {speaker!r} is not in Ags", field="speaker")
            # The turn is refused either way (nothing applies): which error is the question.
            applied, outcome = _outcome(original, self, request)
            if applied or (outcome.code, outcome.field) != (unknown.code, "speaker"):
                _decided(name, _fingerprint((applied, outcome)))
                if making:
                    raise unknown
            return _deliver((applied, outcome))

        return dispatch

    return _wrapped(gcv.conformance.session.Session, "_dispatch", wrap)


def _first_failing_as_written(name: str, making: bool) -> AbstractContextManager[None]:
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
                # Read through apply's namespace, which other readings patch.
                ordered = vars(gcv.reference.apply)["in_application_order"](turn.operations)
                for index, op in ordered:
                    try:
                        original(scratch, gcv.reference.verifier.Turn(turn.speaker, (op,)))
                    except GcvError as error:
                        failures.append((index, error))
                index, first = min(failures, key=lambda failure: failure[0])
                if index == refused.operation_index and _same(first, refused):
                    raise
                _decided(name, (index, _error_key(first)))
                if not making:
                    raise
                raise first.locate(
                    turn=refused.turn or 0, operation_index=index, operation=first.operation
                ) from None

        return apply_turn

    return _wrapped(_VERIFIER, "apply_turn", wrap)


def _fields_last_first() -> Patch:
    """An operation's fields are checked from the last in its signature to the first."""

    def instead(original: Any) -> Any:
        return lambda *checks: original(*checks[::-1])

    return _pure(gcv.reference.rules.shared, "first", instead)


def _registration_before_self_reference() -> Patch:
    """A cited record is checked for registration before self-reference."""

    def instead(original: Any) -> Any:
        def cited(view: Any, name: str, records: Any, **options: Any) -> Any:
            for record in records:
                unknown = original(view, name, (record,), not_self=None, in_good_standing=False)
                found = unknown or original(view, name, (record,), **options)
                if found is not None:
                    return found
            return None

        return cited

    def may_differ(view: Any, name: str, records: Any, **options: Any) -> bool:
        return options.get("not_self") in records

    return _pure(gcv.reference.rules.shared, "cited", instead, may_differ)


def _epistemic_before_table(name: str, making: bool) -> AbstractContextManager[None]:
    """An operation's epistemic preconditions are checked before its Table 3 ones."""

    def wrap(original: Any) -> Any:
        def check(rule: Rule[Any], op: Operation, view: Any, speaker: AgentId) -> Any:
            found = rule.epistemic(op, view, speaker, rule.row)
            table = found and rule.preconditions(op, view, speaker, rule.row)
            if found is not None and table is not None and not _same(found, table):
                _decided(name, _error_key(found))
                if making:
                    return found
            return original(rule, op, view, speaker)

        return check

    return _wrapped(Rule, "check", wrap)


# -- queries ------------------------------------------------------------------------------------


def _unregistered_record_answers_empty(name: str, making: bool) -> AbstractContextManager[None]:
    """A set query about an unregistered record answers the empty set."""

    def wrap(original: Any) -> Any:
        def answer(self: Any, record: Any) -> Any:
            if record in self.state.records:
                return original(self, record)
            _decided(name, record)
            return () if making else original(self, record)

        return answer

    return _all(*(lambda q=q: _wrapped(_VERIFIER, q, wrap) for q in sorted(RECORD_SET_QUERIES)))


# -- turns and order ----------------------------------------------------------------------------


def _every_utterance_numbered(name: str, making: bool) -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            try:
                return original(self, turn)
            except GcvError:
                _decided(name)
                if making:
                    self.state.advance_turn()
                raise

        return apply_turn

    return _wrapped(_VERIFIER, "apply_turn", wrap)


def _no_operations_refused(name: str, making: bool) -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            if not turn.operations:
                _decided(name)
                if making:
                    raise MalformedInput("a turn with no operations")
            return original(self, turn)

        return apply_turn

    return _wrapped(_VERIFIER, "apply_turn", wrap)


def _empty_list_as_given() -> Patch:
    """An empty list is a field given: premises or dissenters on a consensual Resolve and
    evidence_depends_on without evidence_claim are malformed, agents: [] names nobody, and
    attackers: [] selects Revise's reading with attackers (the attacks alone)."""

    def instead(original: Any) -> Any:
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

    def may_differ(op: Any) -> bool:
        return isinstance(op, dict) and any(value == [] for value in op.values())

    return _pure(gcv.conformance.session, "operation_from_json", instead, may_differ)


def _later_decision_replaces_dissent(
    dmap: DependencyMap, op: Operation, speaker: AgentId, making: bool
) -> bool:
    """A Resolve of a resolved record keeps only its own dissenters.  (The fake drops the
    earlier ones outside the map's journal: no vector rejects a turn after such a Resolve.)"""
    if not isinstance(op, Resolve):
        return False
    recorded = dmap._dissent.get(op.target, {})
    dropped = [a for a in recorded if a not in op.dissenters]
    if making:
        for agent in dropped:
            del recorded[agent]
    return bool(dropped)


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


def _fixed_order(order: Sequence[str]) -> Patch:
    """Another fixed order of the kinds (stable within a kind, as the reference's)."""
    rank = {kind: position for position, kind in enumerate(order)}

    def ordered(theirs: list[tuple[int, Operation]], operations: Any) -> Any:
        return sorted(theirs, key=lambda pair: rank[pair[1].name])

    return _derived(gcv.reference.apply, "in_application_order", ordered)


_EA, _OB, _HY, _SU, _UN, _RV, _RS, _QU = (
    "expand-awareness",
    "observe",
    "hypothesize",
    "support",
    "undermine",
    "revise",
    "resolve",
    "question",
)
ORDERS: dict[str, tuple[str, ...]] = {
    "order.kinds": _RESOLVE_EARLY,
    "order.kinds:observe-before-expand-awareness": (_OB, _EA, _HY, _SU, _UN, _RV, _RS, _QU),
    "order.kinds:hypothesize-before-expand-awareness": (_HY, _EA, _OB, _SU, _UN, _RV, _RS, _QU),
    "order.kinds:support-before-expand-awareness": (_OB, _HY, _SU, _EA, _UN, _RV, _RS, _QU),
    "order.kinds:undermine-before-expand-awareness": (_OB, _HY, _SU, _UN, _EA, _RV, _RS, _QU),
    "order.kinds:revise-before-expand-awareness": (_OB, _HY, _RV, _EA, _SU, _UN, _RS, _QU),
    "order.kinds:resolve-before-expand-awareness": (_OB, _HY, _SU, _RS, _EA, _UN, _RV, _QU),
    "order.kinds:question-before-expand-awareness": (_OB, _HY, _QU, _EA, _SU, _UN, _RV, _RS),
    "order.kinds:hypothesize-before-observe": (_EA, _HY, _OB, _SU, _UN, _RV, _RS, _QU),
    "order.kinds:support-before-observe": (_EA, _HY, _SU, _OB, _UN, _RV, _RS, _QU),
    "order.kinds:resolve-before-observe": (_EA, _HY, _SU, _RS, _OB, _UN, _RV, _QU),
    "order.kinds:question-before-observe": (_EA, _HY, _QU, _OB, _SU, _UN, _RV, _RS),
    "order.kinds:support-before-hypothesize": (_EA, _OB, _SU, _HY, _UN, _RV, _RS, _QU),
    "order.kinds:undermine-before-hypothesize": (_EA, _OB, _SU, _UN, _HY, _RV, _RS, _QU),
    "order.kinds:resolve-before-hypothesize": (_EA, _OB, _SU, _RS, _HY, _UN, _RV, _QU),
    "order.kinds:question-before-hypothesize": (_EA, _OB, _QU, _HY, _SU, _UN, _RV, _RS),
    "order.kinds:undermine-before-support": (_EA, _OB, _HY, _UN, _SU, _RV, _RS, _QU),
    "order.kinds:revise-before-support": (_EA, _OB, _HY, _RV, _SU, _UN, _RS, _QU),
    "order.kinds:question-before-support": (_EA, _OB, _HY, _QU, _SU, _UN, _RV, _RS),
    "order.kinds:revise-before-undermine": (_EA, _OB, _HY, _SU, _RV, _UN, _RS, _QU),
    "order.kinds:question-before-undermine": (_EA, _OB, _HY, _SU, _QU, _UN, _RV, _RS),
    "order.kinds:resolve-before-revise": (_EA, _OB, _HY, _SU, _UN, _RS, _RV, _QU),
    "order.kinds:question-before-revise": (_EA, _OB, _HY, _SU, _UN, _QU, _RV, _RS),
    "order.kinds:question-before-resolve": (_EA, _OB, _HY, _SU, _UN, _RV, _QU, _RS),
}
"""The orders of kinds the alternative of ``order.kinds`` stands for: its first reading
(Resolve before Undermine and Revise), and for each pair of kinds that some fixed order
keeping the narrated pairs (``order.kinds.narrated``) and every scenario turn's outcome
puts the other way round, the nearest such order (fewest pairs inverted) that does.  Four
pairs no such order inverts: Observe before Undermine and Revise, Hypothesize before
Revise, Support before Resolve (tests/conformance/test_alternatives.py recomputes them).
A pair Resolve-early already inverts (Undermine, Resolve) has no reading of its own."""


def _reversed_within_kind() -> Patch:
    """Operations of one kind apply last written first."""

    def ordered(theirs: list[tuple[int, Operation]], operations: Any) -> Any:
        runs = [list(run) for _, run in itertools.groupby(theirs, key=_kind)]
        return [pair for run in runs for pair in reversed(run)]

    return _derived(gcv.reference.apply, "in_application_order", ordered)


def _kind(pair: tuple[int, Operation]) -> str:
    return pair[1].name


def _observations_one_after_another(name: str, making: bool) -> AbstractContextManager[None]:
    """Each Observe announces its psi as it is applied; the turn announces nothing more.
    (With one announcement in the turn the two readings are the same: the reading decides
    otherwise on a turn with several, noted before it applies, as a turn may be refused
    before its announcements settle.)"""

    def changed(rule: Rule[Any]) -> Rule[Any]:
        settle = rule.settle
        if settle is None or not making:
            return rule

        def effect(op: Observe, dmap: DependencyMap, speaker: AgentId, row: Any) -> None:
            rule.effect(op, dmap, speaker, row)
            settle(dmap, [(0, op)])  # the turn locates a failure at the operation

        return dataclasses.replace(rule, effect=effect, settle=None)

    def noting(original: Any) -> Any:
        def apply_operations(dmap: DependencyMap, operations: Any, speaker: AgentId) -> Any:
            announced = [
                op.id for op in operations if isinstance(op, Observe) and op.formula is not None
            ]
            if len(announced) > 1:
                _decided(name, tuple(announced))
            return original(dmap, operations, speaker)

        return apply_operations

    return _all(
        _rule_changed("observe", changed),
        lambda: _wrapped(gcv.reference.verifier, "apply_operations", noting),
    )


# -- preconditions ------------------------------------------------------------------------------


def _self_citation_accepted() -> Patch:
    def instead(original: Any) -> Any:
        def cited(view: Any, name: str, records: Any, **options: Any) -> Any:
            return original(view, name, records, **(options | {"not_self": None}))

        return cited

    def may_differ(view: Any, name: str, records: Any, **options: Any) -> bool:
        return options.get("not_self") in records

    return _pure(gcv.reference.rules.shared, "cited", instead, may_differ)


def _evidence_may_be_target() -> Patch:
    def instead(original: Any) -> Any:
        def evidence(view: Any, op: Support | Undermine, row: Any) -> Any:
            found = original(view, op, row)
            if found is not None and found.code == "self-reference" and found.field == "evidence":
                return original(view, dataclasses.replace(op, target=""), row)
            return found

        return evidence

    return _pure(gcv.reference.rules.shared, "evidence", instead)


def _evidence_always_new() -> Patch:
    def instead(original: Any) -> Any:
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

    return _pure(gcv.reference.rules.shared, "evidence", instead)


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
        if any(atom in known for atom in op.introduces):
            kept = tuple(a for a in op.introduces if a not in known)
            return dataclasses.replace(op, introduces=kept)
    return op


def _kind_merged(kind: Kind, into: Kind) -> Patch:
    """Records of ``kind`` register as ``into`` (the kinds are one)."""

    def differs(dmap: Any, record: Any, claim: Any, registered: Kind, *rest: Any) -> bool:
        return registered is kind

    def instead(original: Any) -> Any:
        def register(dmap: Any, record: Any, claim: Any, registered: Kind, *rest: Any) -> None:
            original(dmap, record, claim, into, *rest)

        return register

    return _conditional(gcv.reference.rules.shared, "register", differs, instead)


def _premises_outside_dep(dmap: DependencyMap, op: Operation, speaker: AgentId) -> Operation:
    """A decision lists its premises apart (checked as the reference checks them); they do
    not join Dep(target)."""
    if isinstance(op, Resolve) and op.premises:
        found = gcv.reference.apply.find_violation(op, dmap.view(), speaker)
        if found is not None:
            return op  # refused either way, by the same check
        return dataclasses.replace(op, premises=())
    return op


def _dissenting_speaker_accepted() -> Patch:
    def instead(original: Any) -> Any:
        def agents(view: Any, name: str, names: Any, **options: Any) -> Any:
            return original(view, name, names)

        return agents

    return _pure(gcv.reference.rules.shared, "agents", instead)


def _form_relaxed(check: str, accepts: Callable[..., bool]) -> Patch:
    """A form check of the operations that lets through what ``accepts`` allows."""

    def instead(original: Any) -> Any:
        def relaxed(*args: Any) -> None:
            if not accepts(*args):
                original(*args)

        return relaxed

    return _pure(gcv.reference.rules.form, check, instead)


def _is_blank(kind: Any, field: str, value: object) -> bool:
    return isinstance(value, str) and bool(value) and not value.strip()


def _existing_evidence_with_dependencies(name: str, claim: object, depends_on: object) -> bool:
    return claim is None and depends_on != ()


def _decision_fields_anywhere(name: str, making: bool) -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def post_init(self: Resolve) -> None:
            try:
                original(self)
            except MalformedOperation as error:
                if error.field not in ("premises", "dissenters", "formula"):
                    raise
                _decided(name, error.field)
                if not making:
                    raise
                original(dataclasses.replace(self, premises=(), dissenters=(), formula=None))

        return post_init

    return _wrapped(Resolve, "__post_init__", wrap)


# -- issue ids ----------------------------------------------------------------------------------


def _issue_ids(dmap: DependencyMap) -> set[str]:
    """The ids of the issues the conversation's Questions opened (kept with the map, so a
    copy of the map keeps them)."""
    found: set[str] | None = getattr(dmap, "_opened_issues", None)
    if found is None:
        found = set()
        dmap._opened_issues = found  # type: ignore[attr-defined]
    return found


def _registered_id(op: Operation) -> tuple[str, str] | None:
    """(field, id) of the record ``op`` registers, if it registers one."""
    if isinstance(op, Observe | Hypothesize):
        return "id", op.id
    if isinstance(op, Support | Undermine) and op.evidence_claim is not None:
        return "evidence", op.evidence
    return None


def _one_namespace(name: str, making: bool) -> AbstractContextManager[None]:
    """Records and issues share one namespace: a Question whose id names a record or an
    issue opened earlier, and a record whose id names an issue, are refused
    (duplicate-record), each where the operation's id is checked first."""

    def clash(dmap: DependencyMap, op: Operation) -> DuplicateRecord | None:
        issues = _issue_ids(dmap)
        if isinstance(op, Question) and (op.id in dmap.records or op.id in issues):
            return DuplicateRecord(f"{op.id!r} is already an id", field="id", record=op.id)
        registered = _registered_id(op)
        if registered is not None and registered[1] in issues:
            field, record = registered
            if record not in dmap.records:  # a record's own duplicate is the reference's
                return DuplicateRecord(f"{record!r} names an issue", field=field, record=record)
        return None

    def applying(original: Any) -> Any:
        def apply_operation(
            dmap: DependencyMap, op: Operation, speaker: AgentId, **kw: Any
        ) -> None:
            found = clash(dmap, op)
            if found is not None:
                _decided(name, _error_key(found))
                if making:
                    raise found
            original(dmap, op, speaker, **kw)
            if isinstance(op, Question):
                _issue_ids(dmap).add(op.id)

        return apply_operation

    def atomic(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            issues = _issue_ids(self.state)
            kept = set(issues)
            try:
                return original(self, turn)
            except BaseException:
                issues.clear()
                issues.update(kept)
                raise

        return apply_turn

    return _all(
        lambda: _wrapped(*_APPLY, applying),
        lambda: _wrapped(_VERIFIER, "apply_turn", atomic),
    )


# -- the epistemic realisations -----------------------------------------------------------------


def _own_formula_only() -> Patch:
    """An operation on a target acts on its own formula only, never its target's."""

    def differs(dmap: DependencyMap, op: Any, reading: Any) -> bool:
        target = dmap.records.get(op.target)
        inherited = target is not None and target.formula is not None
        return op.formula is None and inherited and reading.update is not None

    def instead(original: Any) -> Any:
        return lambda dmap, op, reading: None

    return _conditional(gcv.reference.rules.shared, "update_target", differs, instead)


def _switch_ignored(kind: type[Operation], **default: object) -> Patch:
    """The operation's realisation ignores the field that selects its alternative."""

    def instead(original: Any) -> Any:
        def realisation(op: Operation) -> Any:
            changed: Any = dataclasses.replace  # the fields ``default`` names are ``kind``'s
            return original(changed(op, **default) if isinstance(op, kind) else op)

        return realisation

    return _pure(HOMES[kind], "realisation", instead)


def _expansion_prefers_the_atom_false() -> Patch:
    """Becoming aware of p makes the copies where p is false the more plausible."""

    def differs(model: PlausibilityModel, atom: str, *rest: Any) -> bool:
        return atom not in model.atoms

    def instead(original: Any) -> Any:
        def expand(model: Any, atom: str, *rest: Any) -> Any:
            return lexicographic_upgrade(original(model, atom, *rest), Not(parse(atom)))

        return expand

    return _conditional(gcv.reference.rules.expand_awareness, "expand", differs, instead)


def _surprise_read_before_the_turn(name: str, making: bool) -> AbstractContextManager[None]:
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
        def is_surprising(posed: Any, agent: Any, formula: Any) -> bool:
            theirs = original(posed, agent, formula)
            mine = original(before[0], agent, formula)
            if mine != theirs:
                _decided(name, (agent, formula, mine))
            return bool(mine if making else theirs)

        return is_surprising

    # The turn's announcement, in Observe's home.
    return _all(
        lambda: _wrapped(gcv.reference.rules.observe, "announce_simultaneously", announcing),
        lambda: _wrapped(gcv.reference.epistemic.effects, "is_surprising", surprising),
    )


_REMEMBERED: list[dict[object, Any]] = []


def _remembered(key: object, compute: Callable[[], Any]) -> Any:
    """``compute()``, or its value for ``key`` while :func:`remembering` lasts."""
    if not _REMEMBERED:
        return compute()
    memo = _REMEMBERED[-1]
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _problem_key(problem: Problem) -> tuple[object, ...]:
    return (problem.agent, problem.formula, problem.model.fingerprint())


@contextmanager
def remembering() -> Iterator[None]:
    """While it lasts, Definition A.2's checks (the reference's and the readings') are
    remembered by value: a model by its fingerprint (equal fingerprints, equal models), so
    replays of one conversation under many readings check each problem once."""
    _REMEMBERED.append({})

    def wrap(original: Any) -> Any:
        def check(current: Any, problem: Problem, gamma: Any, literal: bool = False) -> Any:
            key = ("check", current.fingerprint(), _problem_key(problem), gamma, literal)
            return _remembered(key, lambda: original(current, problem, gamma, literal=literal))

        return check

    try:
        with _wrapped(gcv.reference.epistemic.abduction, "check_solution", wrap):
            yield
    finally:
        _REMEMBERED.pop()


def _unchecked(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` without the contracts icontract wrapped it in: a reading is an engine
    other than the reference, and the reference's own checks, run beside it, keep theirs
    (under ICONTRACT_SLOW the upgrade's on the models a problem arose in, brought to
    Prop_t, took minutes on the Phase 2 replay)."""
    found: Callable[..., Any] = getattr(function, "__wrapped__", function)
    return found


def _explains(model: PlausibilityModel, problem: Problem, gamma: Any) -> bool:
    """Definition A.2's explanatory check read in ``model``: M[up-up gamma] satisfies B_i chi."""

    def compute() -> bool:
        agent = problem.agent
        upgraded = _unchecked(lexicographic_upgrade)(model, gamma, [agent])
        return holds_everywhere(upgraded, Believes(agent, problem.formula))

    key = ("explains", model.fingerprint(), problem.agent, problem.formula, gamma)
    return bool(_remembered(key, compute))


def _explanation_read_in(
    reader: Callable[[], Callable[[PlausibilityModel, Problem], PlausibilityModel]],
) -> Patch:
    """A reading of Definition A.2 whose explanatory check reads ``model_of(M_t, problem)``
    (``model_of`` made by ``reader`` each time the reading is entered); consistency and
    non-triviality are read in M_t, as the reference reads them."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        model_of = reader()

        def wrap(original: Any) -> Any:
            def check(current: Any, problem: Problem, gamma: Any, literal: bool = False) -> Any:
                theirs = original(current, problem, gamma, literal=literal)
                explanatory = _explains(model_of(current, problem), problem, gamma)
                if explanatory == theirs.explanatory:
                    return theirs
                mine = dataclasses.replace(theirs, explanatory=explanatory)
                _decided(name, mine)
                return mine if making else theirs

            return check

        return _wrapped(gcv.reference.epistemic.abduction, "check_solution", wrap)

    return patch


def _solution_read_in_the_current_model() -> Patch:
    """Definition A.2's explanatory check reads M_t, not the model the problem arose in
    (the literal reading: Verifier(..., literal_abduction=True))."""
    return _explanation_read_in(lambda: lambda current, problem: current)


def _solution_read_in_the_model_as_it_arose() -> Patch:
    """Definition A.2's explanatory check reads the model the problem arose in as it was:
    brought to Prop_t by Definition A.3's expansion, not restricted to the worlds that agree
    with M_t on the other atoms."""

    def reader() -> Callable[[PlausibilityModel, Problem], PlausibilityModel]:
        # Each problem's model, brought to each Prop_t once while the reading lasts.
        brought: dict[tuple[int, tuple[str, ...]], tuple[PlausibilityModel, PlausibilityModel]]
        brought = {}

        def as_it_arose(current: PlausibilityModel, problem: Problem) -> PlausibilityModel:
            key = (id(problem.model), tuple(sorted(current.atoms)))
            cached = brought.get(key)
            if cached is not None and cached[0] is problem.model:
                return cached[1]

            def bring() -> PlausibilityModel:
                arose = problem.model
                for atom in sorted(current.atoms):
                    if atom not in arose.atoms:
                        arose = _unchecked(expand)(arose, atom)
                return arose

            found = _remembered(("arose", problem.model.fingerprint(), key[1]), bring)
            brought[key] = (problem.model, found)
            return found  # type: ignore[no-any-return]

        return as_it_arose

    return _explanation_read_in(reader)


def _empty_announcement_ignored(name: str, making: bool) -> AbstractContextManager[None]:
    """An announcement true at no world leaves M_t as it was; the turn is accepted."""

    def ignoring(original: Any) -> Any:
        def apply(*args: Any, **kw: Any) -> None:
            try:
                original(*args, **kw)
            except NoSurvivingWorld:
                _decided(name)
                if not making:
                    raise

        return apply

    return _all(
        lambda: _wrapped(*_APPLY, ignoring),
        _rule_changed(
            "observe",
            lambda rule: dataclasses.replace(
                rule, settle=None if rule.settle is None else ignoring(rule.settle)
            ),
        ),
    )


def _unknown_agent_malformed() -> Patch:
    """A formula naming an agent outside Ags is not a formula of the language."""

    def derive(theirs: Any, op: Operation, view: Any, speaker: AgentId) -> Any:
        if isinstance(theirs, UnknownAgent) and theirs.field == "formula":
            return MalformedFormula(str(theirs), field="formula")
        return theirs

    return _derived(gcv.reference.apply, "find_violation", derive)


def _support_of_s_t_only() -> Patch:
    """Support's target in S_t only: a weakened record cannot be supported."""
    return _table_row("support", target_standing=frozenset(GOOD_STANDING))


_PATCHES: dict[str, Patch] = {
    "turn.speaker-checked-first": _speaker_checked_last,
    "turn.well-formed-first": _speaker_before_form,
    "query.record-registered": _unregistered_record_answers_empty,
    "turn.numbering": _every_utterance_numbered,
    "turn.no-operations": _no_operations_refused,
    **{name: _fixed_order(order) for name, order in ORDERS.items()},
    "order.within-kind-as-written": _reversed_within_kind(),
    "order.first-failing-operation": _first_failing_as_written,
    "order.simultaneous-observations": _observations_one_after_another,
    "order.fields": _fields_last_first(),
    "order.cited-record-checks": _registration_before_self_reference(),
    "order.epistemic-after-table": _epistemic_before_table,
    "T3.cite.not-self": _self_citation_accepted(),
    "T3.register.depends-on-any-standing": _each(
        _cited_field("depends_on", in_good_standing=True),
        _cited_field("evidence_depends_on", in_good_standing=True),
    ),
    "T3.evidence.not-target": _evidence_may_be_target(),
    "T3.evidence.existing-in-good-standing": _evidence_always_new(),
    "T3.evidence.existing-commits-speaker": _after_apply(_existing_evidence_commits_nobody),
    "T3.expand-awareness.changes-something": _before_apply(_expansion_of_nothing_accepted),
    "del.expand-awareness.copies-equally-plausible": _expansion_prefers_the_atom_false(),
    "T3.observe.kind": _kind_merged(Kind.PREMISE, Kind.OBSERVATION),
    "T3.hypothesize.kind": _kind_merged(Kind.POSITION, Kind.HYPOTHESIS),
    "T3.hypothesize.no-commitment": _after_apply(_hypothesis_commits_speaker),
    "T3.hypothesize.introduces-new-atoms": _before_apply(_known_atoms_not_introduced),
    "del.hypothesize.solves": _solution_read_in_the_current_model(),
    "del.hypothesize.solves:as-it-arose": _solution_read_in_the_model_as_it_arose(),
    "T3.support.target-standing": _table_row("support", target_standing=frozenset(Standing)),
    "T3.support.target-standing:s-t": _support_of_s_t_only(),
    "del.undermine.conservative": _switch_ignored(Undermine, downgrade="lexicographic"),
    "T3.revise.attackers-in-good-standing": _cited_field("attackers", in_good_standing=False),
    "T3.revise.retracts-commitment": _revise_keeps_commitments,
    "del.revise.announce": _switch_ignored(Revise, announce=None),
    "T3.resolve.subsumes-any-standing": _cited_field("subsumes", in_good_standing=True),
    "T3.resolve.premises-in-good-standing": _cited_field("premises", in_good_standing=False),
    "T3.resolve.premises-join-dep": _before_apply(_premises_outside_dep),
    "T3.resolve.dissenter-not-speaker": _dissenting_speaker_accepted(),
    "T3.resolve.commitments": _after_apply(_consensus_commits_only_the_speaker),
    "T3.resolve.dissent-accumulates": _after_apply(_later_decision_replaces_dissent),
    "form.empty-list-as-absent": _empty_list_as_given(),
    "T3.resolve.decision-fields": _decision_fields_anywhere,
    "form.claim-not-blank": _form_relaxed("check_claim", _is_blank),
    "form.evidence-depends-on-needs-claim": _form_relaxed(
        "check_evidence_dependencies", _existing_evidence_with_dependencies
    ),
    "del.formula.agents-in-ags": _unknown_agent_malformed(),
    "del.formula.own-else-target": _own_formula_only(),
    "del.announcement.some-world-survives": _empty_announcement_ignored,
    "del.observe.poses-problems": _surprise_read_before_the_turn,
    "T3.question.issue-ids-apart": _one_namespace,
}

READINGS: dict[str, Reading] = {name: Reading(name, patch) for name, patch in _PATCHES.items()}
"""Every reading, by name: each chosen clause's first under the clause's id, a further one
as ``CLAUSE:READING``, in the order they are entered (which is how they compose)."""

ALTERNATIVES: dict[str, Reading] = {
    name: reading for name, reading in READINGS.items() if ":" not in name
}
"""Chosen clause id -> a context in which the reference makes its first alternative."""


def readings(made: Sequence[str] = (), probed: Sequence[str] = ()) -> AbstractContextManager[None]:
    """The reference making the readings ``made`` and probing ``probed`` (names of
    :data:`READINGS`), entered in :data:`READINGS`'s order whatever the order given."""
    making, probing = set(made), set(probed)
    chosen = [
        (lambda r=r: r()) if r.name in making else (lambda r=r: r.probe())
        for r in READINGS.values()
        if r.name in making or r.name in probing
    ]
    return _all(*chosen)


def all_alternatives() -> AbstractContextManager[None]:
    """The reference making every alternative of :data:`ALTERNATIVES` at once."""
    return readings(made=list(ALTERNATIVES))
