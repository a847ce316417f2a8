"""Readings of the chosen clauses on turns and on the order operations apply in.

The turn's numbering and an empty turn (``turn.*``), the fixed order of kinds and its
nearest alternatives (:data:`ORDERS`), the order within a kind, simultaneous
observations (``order.*``), how the protocol reads an empty list (``form.empty-list-as-absent``)
and how a later decision meets earlier dissent.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import gcv.conformance.session
import gcv.reference.apply
import gcv.reference.operations
import gcv.reference.verifier
from gcv.conformance.alternatives.patching import (
    VERIFIER,
    Patch,
    decided,
    derived,
    pure,
    rule_changed,
    together,
    wrapped,
)
from gcv.reference.depmap import DependencyMap
from gcv.reference.errors import (
    AlreadyAware,
    GcvError,
    MalformedInput,
    MalformedOperation,
)
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import (
    Observe,
    Operation,
    Resolve,
)
from gcv.reference.rules.rule import Rule


def every_utterance_numbered(name: str, making: bool) -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            try:
                return original(self, turn)
            except GcvError:
                decided(name)
                if making:
                    self.state.advance_turn()
                raise

        return apply_turn

    return wrapped(VERIFIER, "apply_turn", wrap)


def no_operations_refused(name: str, making: bool) -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def apply_turn(self: Any, turn: Any) -> Any:
            if not turn.operations:
                decided(name)
                if making:
                    raise MalformedInput("a turn with no operations")
            return original(self, turn)

        return apply_turn

    return wrapped(VERIFIER, "apply_turn", wrap)


def empty_list_as_given() -> Patch:
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

    return pure(gcv.conformance.session, "operation_from_json", instead, may_differ)


def later_decision_replaces_dissent(
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


def fixed_order(order: Sequence[str]) -> Patch:
    """Another fixed order of the kinds (stable within a kind, as the reference's)."""
    rank = {kind: position for position, kind in enumerate(order)}

    def ordered(theirs: list[tuple[int, Operation]], operations: Any) -> Any:
        return sorted(theirs, key=lambda pair: rank[pair[1].name])

    return derived(gcv.reference.apply, "in_application_order", ordered)


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
Revise, Support before Resolve.
A pair Resolve-early already inverts (Undermine, Resolve) has no reading of its own."""


def reversed_within_kind() -> Patch:
    """Operations of one kind apply last written first."""

    def ordered(theirs: list[tuple[int, Operation]], operations: Any) -> Any:
        runs = [list(run) for _, run in itertools.groupby(theirs, key=_kind)]
        return [pair for run in runs for pair in reversed(run)]

    return derived(gcv.reference.apply, "in_application_order", ordered)


def _kind(pair: tuple[int, Operation]) -> str:
    return pair[1].name


def observations_one_after_another(name: str, making: bool) -> AbstractContextManager[None]:
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
                decided(name, tuple(announced))
            return original(dmap, operations, speaker)

        return apply_operations

    return together(
        rule_changed("observe", changed),
        lambda: wrapped(gcv.reference.verifier, "apply_operations", noting),
    )
