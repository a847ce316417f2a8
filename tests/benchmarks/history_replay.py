"""The history-replay baseline of Section 4.5: Affected* without a reverse index.

A system that keeps only the conversation's turn log answers a retraction query by
re-applying the recorded turns to rebuild Dep (forward links only, as recorded), then
scanning Dep for the records that rest, transitively, on the withdrawn premise.  Both
steps are linear in the history, which is the growth the paper's Figure 4c shows for
"history replay".

This is the leanest replay we could write, so the ratio against it is a lower bound:
it re-applies only the Dep effects of each operation (Table 3's Dep column; labels,
attacks and commitments do not bear on Affected*), with no precondition checks, and
computes the closure by one scan that inverts Dep followed by one traversal.
:func:`engine_replay` is the heavier alternative: re-applying every turn through
``Verifier.apply_turn``.
"""

from __future__ import annotations

from collections.abc import Sequence

from gcv.reference.identifiers import RecordId
from gcv.reference.operations import Hypothesize, Observe, Resolve, Support, Undermine
from gcv.reference.verifier import Turn, Verifier

__all__ = ["engine_replay", "replay_affected_star", "replay_dep"]


def replay_dep(log: Sequence[Turn]) -> dict[RecordId, list[RecordId]]:
    """Dep rebuilt from the turn log: record -> the records it rests on."""
    dep: dict[RecordId, list[RecordId]] = {}
    for turn in log:
        for op in turn.operations:
            kind = type(op)
            if kind is Observe or kind is Hypothesize:  # a Question registers no record
                dep[op.id] = list(op.depends_on)  # type: ignore[union-attr]
            elif kind is Support or kind is Undermine:
                if op.evidence_claim is not None:  # type: ignore[union-attr]
                    dep[op.evidence] = list(op.evidence_depends_on)  # type: ignore[union-attr]
                if kind is Support:
                    dep[op.target].append(op.evidence)  # type: ignore[union-attr]
            elif kind is Resolve:
                for subsumed in op.subsumes:  # type: ignore[union-attr]
                    dep[subsumed].append(op.target)  # type: ignore[union-attr]
                dep[op.target].extend(op.premises)  # type: ignore[union-attr]
    return dep


def replay_affected_star(log: Sequence[Turn], beta: RecordId) -> set[RecordId]:
    """Affected*(beta) from the turn log alone: replay Dep, invert it, traverse."""
    dep = replay_dep(log)
    resting_on: dict[RecordId, list[RecordId]] = {}
    for record, supports in dep.items():
        for support in supports:
            resting_on.setdefault(support, []).append(record)
    found: set[RecordId] = set()
    stack = [beta]
    while stack:
        for record in resting_on.get(stack.pop(), ()):
            if record not in found:
                found.add(record)
                stack.append(record)
    return found


def engine_replay(log: Sequence[Turn], beta: RecordId, fresh: Verifier) -> tuple[RecordId, ...]:
    """Affected*(beta) after re-applying every turn of ``log`` to ``fresh`` through the engine."""
    for turn in log:
        fresh.apply_turn(turn)
    return fresh.affected_star(beta)
