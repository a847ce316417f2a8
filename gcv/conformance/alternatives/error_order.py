"""Readings of which error a refused turn reports: the order of the checks.

A turn refused either way may be refused for another reason first: the speaker before the
form (``turn.speaker-checked-first``, ``turn.well-formed-first``), the first failing operation as
written (``order.first-failing-operation``), an operation's fields or cited records in
another order, its epistemic preconditions before its Table 3 ones.
"""

from __future__ import annotations

import copy
from contextlib import AbstractContextManager
from typing import Any

import gcv.conformance.session
import gcv.reference.apply
import gcv.reference.operations
import gcv.reference.rules.shared
import gcv.reference.verifier
from gcv.conformance.alternatives.patching import (
    VERIFIER,
    Patch,
    decided,
    deliver,
    error_key,
    fingerprint,
    outcome_of,
    pure,
    same,
    wrapped,
)
from gcv.reference.errors import (
    GcvError,
    UnknownAgent,
)
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import (
    Operation,
)
from gcv.reference.rules.rule import Rule


def speaker_checked_last(name: str, making: bool) -> AbstractContextManager[None]:
    """An unknown speaker is reported only when every operation applies (as a known agent's)."""

    def wrap(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            if turn.speaker not in self.state.agents:
                stand_in = gcv.reference.verifier.Turn(self.state.agents[0], turn.operations)
                applied, refused = outcome_of(original, copy.deepcopy(self), stand_in)
                if not applied:
                    decided(name, error_key(refused))
                    if making:
                        raise refused
            return original(self, turn)

        return apply_turn

    return wrapped(VERIFIER, "apply_turn", wrap)


def speaker_before_form(name: str, making: bool) -> AbstractContextManager[None]:
    """An unknown speaker is reported before a malformed operation."""

    def wrap(original: Any) -> Any:
        def dispatch(self: Any, request: Any) -> Any:
            verifier, speaker = self.verifier, request.get("speaker")
            if request["cmd"] != "apply" or not verifier or speaker in verifier.state.agents:
                return original(self, request)
            unknown = UnknownAgent(f"speaker {speaker!r} is not in Ags", field="speaker")
            # The turn is refused either way (nothing applies): which error is the question.
            applied, outcome = outcome_of(original, self, request)
            if applied or (outcome.code, outcome.field) != (unknown.code, "speaker"):
                decided(name, fingerprint((applied, outcome)))
                if making:
                    raise unknown
            return deliver((applied, outcome))

        return dispatch

    return wrapped(gcv.conformance.session.Session, "_dispatch", wrap)


def first_failing_as_written(name: str, making: bool) -> AbstractContextManager[None]:
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
                if index == refused.operation_index and same(first, refused):
                    raise
                decided(name, (index, error_key(first)))
                if not making:
                    raise
                raise first.locate(
                    turn=refused.turn or 0, operation_index=index, operation=first.operation
                ) from None

        return apply_turn

    return wrapped(VERIFIER, "apply_turn", wrap)


def fields_last_first() -> Patch:
    """An operation's fields are checked from the last in its signature to the first."""

    def instead(original: Any) -> Any:
        return lambda *checks: original(*checks[::-1])

    return pure(gcv.reference.rules.shared, "first", instead)


def registration_before_self_reference() -> Patch:
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

    return pure(gcv.reference.rules.shared, "cited", instead, may_differ)


def epistemic_before_table(name: str, making: bool) -> AbstractContextManager[None]:
    """An operation's epistemic preconditions are checked before its Table 3 ones."""

    def wrap(original: Any) -> Any:
        def check(rule: Rule[Any], op: Operation, view: Any, speaker: AgentId) -> Any:
            found = rule.epistemic(op, view, speaker, rule.row)
            table = found and rule.preconditions(op, view, speaker, rule.row)
            if found is not None and table is not None and not same(found, table):
                decided(name, error_key(found))
                if making:
                    return found
            return original(rule, op, view, speaker)

        return check

    return wrapped(Rule, "check", wrap)
