"""How a reading patches the reference: the machinery every reading is built from.

A reading is a :data:`Patch`, ``patch(name, making)``: a context in which the reference
makes the reading (``making``) or only notes, to the :class:`Tracker` of :func:`tracking`,
where it would decide otherwise (:func:`decided`).  The combinators build patches of the
kinds the readings need: of a pure function (:func:`pure`, :func:`derived`), of one with
effects (:func:`conditional`), around each operation applied (:func:`before_apply`,
:func:`after_apply`), of an operation's rule in the engine's order (:func:`rule_changed`,
:func:`table_row`, :func:`cited_field`).  Each wraps whatever the patched name holds when
it is entered, which is how readings compose.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

import gcv.reference.apply
import gcv.reference.operations
import gcv.reference.rules.expand_awareness
import gcv.reference.rules.hypothesize
import gcv.reference.rules.resolve
import gcv.reference.rules.revise
import gcv.reference.rules.shared
import gcv.reference.rules.support
import gcv.reference.rules.undermine
import gcv.reference.verifier
from gcv.reference.depmap import DependencyMap
from gcv.reference.errors import (
    GcvError,
)
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Operation,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from gcv.reference.rules.rule import Rule

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


def decided(name: str, detail: object = "") -> None:
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
def wrapped(target: Any, name: str, wrap: Callable[[Any], Any]) -> Iterator[None]:
    """Replace ``target.name`` by ``wrap(current value)`` while the context lasts."""
    saved = getattr(target, name)
    setattr(target, name, wrap(saved))
    try:
        yield
    finally:
        setattr(target, name, saved)


def together(*patches: Callable[[], AbstractContextManager[None]]) -> AbstractContextManager[None]:
    """Several patches as one context; if one cannot be made, those made are undone."""

    @contextmanager
    def entered() -> Iterator[None]:
        with ExitStack() as stack:
            for patch in patches:
                stack.enter_context(patch())
            yield

    return entered()


def same(one: Any, other: Any) -> bool:
    """Whether two outcomes (a value, or an error raised) are the same answer."""
    if isinstance(one, GcvError) or isinstance(other, GcvError):
        return bool(error_key(one) == error_key(other))
    return bool(one == other)


def error_key(error: Any) -> Any:
    # Two errors are one answer when they name the same thing (their wording aside).
    if not isinstance(error, GcvError):
        return error
    return (type(error), error.code, error.field, error.record, error.operation_index)


def outcome_of(function: Callable[..., Any], *args: Any, **kw: Any) -> tuple[bool, Any]:
    """(True, value) or (False, the error ``function`` raised)."""
    try:
        return True, function(*args, **kw)
    except GcvError as error:
        return False, error


def fingerprint(outcome: tuple[bool, Any]) -> str:
    """What a reading decided, as a short text (an error by what it names)."""
    returned, value = outcome
    if not returned or isinstance(value, GcvError):
        return repr(error_key(value))
    return repr(value)


def deliver(outcome: tuple[bool, Any]) -> Any:
    returned, value = outcome
    if not returned:
        raise value
    return value


def pure(
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
                theirs = outcome_of(original, *args, **kw)
                mine = outcome_of(instead, *args, **kw)
                if theirs[0] != mine[0] or not same(theirs[1], mine[1]):
                    decided(name, fingerprint(mine))
                    return deliver(mine if making else theirs)
                return deliver(theirs)

            return call

        return wrapped(target, attribute, wrap)

    return patch


def derived(target: Any, attribute: str, derive: Callable[..., Any]) -> Patch:
    """A reading of a pure function whose answer follows from the reference's:
    ``derive(theirs, *args)`` (the function is called once, however many readings stack)."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        def wrap(original: Any) -> Any:
            def call(*args: Any, **kw: Any) -> Any:
                theirs = original(*args, **kw)
                mine = derive(theirs, *args, **kw)
                if mine == theirs:
                    return theirs
                decided(name, fingerprint((True, mine)))
                return mine if making else theirs

            return call

        return wrapped(target, attribute, wrap)

    return patch


def conditional(
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
                decided(name, args[1:])
                return (instead if making else original)(*args, **kw)

            return call

        return wrapped(target, attribute, wrap)

    return patch


def each(*patches: Patch) -> Patch:
    """Several patches as one reading."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        return together(*(lambda p=p: p(name, making) for p in patches))

    return patch


# -- operations applied: before, after -----------------------------------------------------------

APPLY = (gcv.reference.apply, "apply_operation")


def after_apply(extra: Callable[[DependencyMap, Operation, AgentId, bool], bool]) -> Patch:
    """After each operation the reference applies, ``extra(dmap, op, speaker, making)``,
    which changes D_t only when ``making`` and says whether it would change it."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        def wrap(original: Any) -> Any:
            def apply_operation(
                dmap: DependencyMap, op: Operation, speaker: AgentId, **kw: Any
            ) -> None:
                original(dmap, op, speaker, **kw)
                if extra(dmap, op, speaker, making):
                    decided(name, op)

            return apply_operation

        return wrapped(*APPLY, wrap)

    return patch


def before_apply(
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
                    decided(name, rewritten)
                applied = rewritten if making else op
                if applied is not None:
                    original(dmap, applied, speaker, **kw)

            return apply_operation

        return wrapped(*APPLY, wrap)

    return patch


def rule_changed(
    name: str, change: Callable[[Rule[Any]], Rule[Any]]
) -> Callable[[], AbstractContextManager[None]]:
    """Replace the rule of the operation ``name`` in the engine's order by ``change(rule)``
    (the rule the order holds when entered: the changes compose)."""

    def wrap(order: tuple[Rule[Any], ...]) -> tuple[Rule[Any], ...]:
        return tuple(change(rule) if rule.name == name else rule for rule in order)

    return lambda: wrapped(gcv.reference.operations, "ORDER", wrap)


def table_row(name: str, **change: object) -> Patch:
    """Swap one row of the operation table as the preconditions read it."""

    def changed(rule: Rule[Any]) -> Rule[Any]:
        row: Any = dataclasses.replace  # the fields ``change`` names are a row's
        return dataclasses.replace(rule, row=row(rule.row, **change))

    def read_with_row(original: Any) -> Any:
        def find_violation(op: Operation, view: Any, speaker: AgentId) -> Any:
            with rule_changed(name, changed)():
                return original(op, view, speaker)

        return find_violation

    def may_differ(op: Operation, view: Any, speaker: AgentId) -> bool:
        return op.name == name

    # apply_operation reads find_violation through apply's namespace.
    return pure(gcv.reference.apply, "find_violation", read_with_row, may_differ)


def cited_field(field: str, **change: object) -> Patch:
    """Check the records an operation cites in ``field`` with other options."""

    def instead(original: Any) -> Any:
        def cited(view: Any, name: str, records: Any, **options: Any) -> Any:
            return original(view, name, records, **(options | change if name == field else options))

        return cited

    def differs(view: Any, name: str, records: Any, **options: Any) -> bool:
        return name == field

    return pure(gcv.reference.rules.shared, "cited", instead, differs)


VERIFIER = gcv.reference.verifier.Verifier
