"""Readings of the chosen clauses on an operation's preconditions and form.

What an operation may cite (itself, its target, records of any standing), which kinds
of record are one, what a decision's fields may be, the form checks (``form.*``), and the
one namespace of records and issues (``T3.question.issue-ids-apart``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import gcv.reference.apply
import gcv.reference.operations
import gcv.reference.rules.form
import gcv.reference.rules.shared
from gcv.conformance.alternatives.patching import (
    APPLY,
    VERIFIER,
    Patch,
    conditional,
    decided,
    error_key,
    pure,
    table_row,
    together,
    wrapped,
)
from gcv.reference.depmap import DependencyMap
from gcv.reference.errors import (
    DuplicateRecord,
    MalformedOperation,
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
    Support,
    Undermine,
)
from gcv.reference.records import GOOD_STANDING, Kind


def self_citation_accepted() -> Patch:
    def instead(original: Any) -> Any:
        def cited(view: Any, name: str, records: Any, **options: Any) -> Any:
            return original(view, name, records, **(options | {"not_self": None}))

        return cited

    def may_differ(view: Any, name: str, records: Any, **options: Any) -> bool:
        return options.get("not_self") in records

    return pure(gcv.reference.rules.shared, "cited", instead, may_differ)


def evidence_may_be_target() -> Patch:
    def instead(original: Any) -> Any:
        def evidence(view: Any, op: Support | Undermine, row: Any) -> Any:
            found = original(view, op, row)
            if found is not None and found.code == "self-reference" and found.field == "evidence":
                return original(view, dataclasses.replace(op, target=""), row)
            return found

        return evidence

    return pure(gcv.reference.rules.shared, "evidence", instead)


def evidence_always_new() -> Patch:
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

    return pure(gcv.reference.rules.shared, "evidence", instead)


def expansion_of_nothing_accepted(
    dmap: DependencyMap, op: Operation, speaker: AgentId
) -> Operation | None:
    if isinstance(op, ExpandAwareness):
        named = op.agents or dmap.agents
        if all(agent in dmap.agents and op.atom in dmap.awareness(agent) for agent in named):
            return None
    return op


def known_atoms_not_introduced(
    dmap: DependencyMap, op: Operation, speaker: AgentId
) -> Operation | None:
    if isinstance(op, Hypothesize) and op.introduces:
        known = dmap.model.atoms
        if any(atom in known for atom in op.introduces):
            kept = tuple(a for a in op.introduces if a not in known)
            return dataclasses.replace(op, introduces=kept)
    return op


def kind_merged(kind: Kind, into: Kind) -> Patch:
    """Records of ``kind`` register as ``into`` (the kinds are one)."""

    def differs(dmap: Any, record: Any, claim: Any, registered: Kind, *rest: Any) -> bool:
        return registered is kind

    def instead(original: Any) -> Any:
        def register(dmap: Any, record: Any, claim: Any, registered: Kind, *rest: Any) -> None:
            original(dmap, record, claim, into, *rest)

        return register

    return conditional(gcv.reference.rules.shared, "register", differs, instead)


def premises_outside_dep(dmap: DependencyMap, op: Operation, speaker: AgentId) -> Operation:
    """A decision lists its premises apart (checked as the reference checks them); they do
    not join Dep(target)."""
    if isinstance(op, Resolve) and op.premises:
        found = gcv.reference.apply.find_violation(op, dmap.view(), speaker)
        if found is not None:
            return op  # refused either way, by the same check
        return dataclasses.replace(op, premises=())
    return op


def dissenting_speaker_accepted() -> Patch:
    def instead(original: Any) -> Any:
        def agents(view: Any, name: str, names: Any, **options: Any) -> Any:
            return original(view, name, names)

        return agents

    return pure(gcv.reference.rules.shared, "agents", instead)


def form_relaxed(check: str, accepts: Callable[..., bool]) -> Patch:
    """A form check of the operations that lets through what ``accepts`` allows."""

    def instead(original: Any) -> Any:
        def relaxed(*args: Any) -> None:
            if not accepts(*args):
                original(*args)

        return relaxed

    return pure(gcv.reference.rules.form, check, instead)


def is_blank(kind: Any, field: str, value: object) -> bool:
    return isinstance(value, str) and bool(value) and not value.strip()


def existing_evidence_with_dependencies(name: str, claim: object, depends_on: object) -> bool:
    return claim is None and depends_on != ()


def decision_fields_anywhere(name: str, making: bool) -> AbstractContextManager[None]:
    def wrap(original: Any) -> Any:
        def post_init(self: Resolve) -> None:
            try:
                original(self)
            except MalformedOperation as error:
                if error.field not in ("premises", "dissenters", "formula"):
                    raise
                decided(name, error.field)
                if not making:
                    raise
                original(dataclasses.replace(self, premises=(), dissenters=(), formula=None))

        return post_init

    return wrapped(Resolve, "__post_init__", wrap)


def support_of_s_t_only() -> Patch:
    """Support's target in S_t only: a weakened record cannot be supported."""
    return table_row("support", target_standing=frozenset(GOOD_STANDING))


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


def one_namespace(name: str, making: bool) -> AbstractContextManager[None]:
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
                decided(name, error_key(found))
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

    return together(
        lambda: wrapped(*APPLY, applying),
        lambda: wrapped(VERIFIER, "apply_turn", atomic),
    )
