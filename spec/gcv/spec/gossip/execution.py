"""Section 2.1 (execution model): versioned Guard checks, commits, durable intent records.

The paper states requirements, not mechanisms: "A conforming implementation
must evaluate the Guard and commit the accepted ELC successor against the same
versioned state.  It must either serialize those operations or revalidate the
action when the state version changes.  External side effects also require a
durable intent record and an idempotent or compensating execution rule."

Choices made here, where the paper is silent:

* The authoritative ELC state is an :class:`ElcStore` over the source domain
  H_src (the secret-only root of Section 2.4), guarded by
  :func:`gcv.spec.gossip.guard.compute_source_guard`.  Its version counts commits.
* A :class:`Permit` names the store, the call and the version it was checked
  on.  Its intent id ``<store>@v<version>:<call>`` is deterministic: the same
  call checked against the same version is the same intent.
* Committing a permit whose version is current commits it.  Committing a
  permit from an older version revalidates the call against the current state
  (the paper's second option): if still permitted it commits, otherwise
  ``StaleVersionError`` is raised with the fresh diagnostic and nothing changes.
  A permit for another store or a future version is refused the same way.
* Write-ahead: the commit record is appended to the journal (flushed and
  fsynced when the journal has a file) before the in-memory state changes, so
  a store rebuilt from the journal has every committed call.
* Idempotence: committing an intent that the journal already holds returns the
  original receipt and changes nothing.  The external effect is called with
  the intent id after the commit and marked done in the journal once it
  returns; it runs again only if it never completed (at-least-once, so the
  effect must itself be idempotent in the intent id, the paper's "idempotent
  execution rule").
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gcv.spec.gossip.calls import AgentSet, Call, History, compute_call, compute_history
from gcv.spec.gossip.errors import HistoryError, StaleVersionError
from gcv.spec.gossip.guard import (
    GuardDecision,
    Preconditions,
    compute_not_yet_known_precondition,
    compute_source_guard,
)
from gcv.spec.gossip.source import require_source_agents

__all__ = [
    "ElcStore",
    "IntentJournal",
    "Permit",
    "Receipt",
    "compute_permit",
    "compute_section_2_example",
    "compute_store",
    "process_commit",
]


@dataclass(frozen=True)
class Permit:
    """Section 2.1, stage 6. An accepted, uncommitted call and the version it was checked on."""

    intent_id: str
    store: str
    call: Call
    version: int


@dataclass(frozen=True)
class Receipt:
    """Section 2.1, stage 7. The record of a committed call."""

    intent_id: str
    call: Call
    checked_version: int
    committed_version: int
    revalidated: bool
    replayed: bool = False


class IntentJournal:
    """Section 2.1 (durable intent record). An append-only log of commits and completed effects.

    With a ``path`` every record is one JSON line, flushed and fsynced before
    ``append`` returns; an existing file is read back on construction.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.records: list[dict[str, Any]] = []
        if path is not None and path.exists():
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if line.strip():
                    try:
                        self.records.append(json.loads(line))
                    except json.JSONDecodeError as error:
                        raise HistoryError(
                            f"intent journal {path}, line {number}: {error}"
                        ) from None

    def append(self, record: dict[str, Any]) -> None:
        """Append ``record`` durably (to the file first, when there is one)."""
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record, sort_keys=True) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        self.records.append(dict(record))

    def get_commit(self, intent_id: str) -> dict[str, Any] | None:
        """Return the commit record of ``intent_id``, if the journal has one."""
        for record in self.records:
            if record["kind"] == "commit" and record["intent"] == intent_id:
                return record
        return None

    def is_effect_done(self, intent_id: str) -> bool:
        """Check whether the external effect of ``intent_id`` completed."""
        return any(
            record["kind"] == "effect-done" and record["intent"] == intent_id
            for record in self.records
        )


@dataclass
class ElcStore:
    """Section 2.1 (authoritative ELC state). The committed history, its version and journal."""

    name: str
    agents: AgentSet
    preconditions: Preconditions
    journal: IntentJournal
    history: History = ()
    version: int = 0


def compute_store(
    name: str,
    agents: AgentSet,
    preconditions: Preconditions,
    journal_path: Path | None = None,
) -> ElcStore:
    """Section 2.1. Open a store, replaying the commits of an existing journal (recovery)."""
    require_source_agents(agents)
    journal = IntentJournal(journal_path)
    store = ElcStore(name, agents, preconditions, journal)
    for record in journal.records:
        if record["kind"] != "commit":
            continue
        # Verify that the journal's commits are numbered consecutively
        if record["committed_version"] != store.version + 1:
            raise HistoryError(
                f"intent journal commit {record['intent']} has version "
                f"{record['committed_version']}, expected {store.version + 1}"
            )
        first, second = record["call"]
        store.history = (*store.history, compute_call(agents, first, second))
        store.version += 1
    return store


def compute_permit(store: ElcStore, call: Call) -> tuple[GuardDecision, Permit | None]:
    """Section 2.1, stages 5-6. Check ``call`` at the current version; a permit on permit."""
    decision = compute_source_guard(store.agents, store.preconditions, call, store.history)
    if not decision.permitted:
        return decision, None
    canonical = decision.call
    intent = f"{store.name}@v{store.version}:{canonical.first}-{canonical.second}"
    return decision, Permit(intent, store.name, canonical, store.version)


def _get_receipt(record: dict[str, Any], replayed: bool) -> Receipt:
    """Rebuild a receipt from a commit record."""
    first, second = record["call"]
    return Receipt(
        record["intent"],
        Call(first, second),
        record["checked_version"],
        record["committed_version"],
        record["revalidated"],
        replayed,
    )


def process_commit(
    store: ElcStore, permit: Permit, effect: Callable[[str], None] | None = None
) -> Receipt:
    """Section 2.1, stage 7. Commit a permitted call, then run its external effect once.

    Raises ``StaleVersionError`` (state unchanged) for a foreign or future
    permit, or a stale one that fails revalidation.
    """
    existing = store.journal.get_commit(permit.intent_id)
    if existing is not None:
        _run_effect(store, permit.intent_id, effect)
        return _get_receipt(existing, replayed=True)
    if permit.store != store.name:
        raise StaleVersionError(f"permit {permit.intent_id} was issued by another store")
    if permit.version > store.version:
        raise StaleVersionError(
            f"permit {permit.intent_id} names version {permit.version}, "
            f"but the store is at version {store.version}"
        )
    revalidated = permit.version != store.version
    if revalidated:
        decision = compute_source_guard(
            store.agents, store.preconditions, permit.call, store.history
        )
        if not decision.permitted:
            assert decision.diagnostic is not None  # a denial always carries one
            raise StaleVersionError(
                f"permit {permit.intent_id} was checked on version {permit.version}; "
                f"at version {store.version} the Guard denies it: {decision.diagnostic.message}",
                decision.diagnostic,
            )
    record = {
        "kind": "commit",
        "intent": permit.intent_id,
        "call": [permit.call.first, permit.call.second],
        "checked_version": permit.version,
        "committed_version": store.version + 1,
        "revalidated": revalidated,
    }
    store.journal.append(record)  # write-ahead: durable before the state changes
    store.history = (*store.history, permit.call)
    store.version += 1
    _run_effect(store, permit.intent_id, effect)
    return _get_receipt(record, replayed=False)


def _run_effect(store: ElcStore, intent_id: str, effect: Callable[[str], None] | None) -> None:
    """Run ``effect`` for ``intent_id`` unless the journal records it as done."""
    if effect is None or store.journal.is_effect_done(intent_id):
        return
    effect(intent_id)
    store.journal.append({"kind": "effect-done", "intent": intent_id})


def compute_section_2_example() -> tuple[GuardDecision, GuardDecision, History]:
    """Section 2.4 (guard example). Three agents; pre(ab) = a does not yet know b's secret.

    The first ``ab`` is permitted and committed; the second is denied with the
    failed-precondition label, and the history stays ``ab``.

    >>> first, second, history = compute_section_2_example()
    >>> first.verdict, second.verdict, second.diagnostic.label, [str(k) for k in history]
    ('permit', 'deny', 'call-permission', ['ab'])
    """
    agents = AgentSet(("a", "b", "c"))
    store = compute_store("section-2", agents, compute_not_yet_known_precondition)
    (ab,) = compute_history(agents, "ab")
    first, permit = compute_permit(store, ab)
    # Verify that the first ab call is permitted (Section 2's example)
    assert permit is not None, "the first ab call is permitted at the root"
    process_commit(store, permit)
    second, refused = compute_permit(store, ab)
    # Verify that the second ab call is denied (Section 2's example)
    assert refused is None, "the second ab call is denied"
    return first, second, store.history
