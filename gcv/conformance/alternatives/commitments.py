"""Readings of the chosen clauses on Cm_t: who an operation commits or leaves committed."""

from __future__ import annotations

import dataclasses
from contextlib import AbstractContextManager
from typing import Any

from gcv.conformance.alternatives.patching import decided, rule_changed
from gcv.reference.depmap import DependencyMap
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import (
    Hypothesize,
    Operation,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from gcv.reference.rules.rule import Rule


def hypothesis_commits_speaker(
    dmap: DependencyMap, op: Operation, speaker: AgentId, making: bool
) -> bool:
    if not isinstance(op, Hypothesize) or op.id in dmap.commitments(speaker):
        return False
    if making:
        dmap.commit(speaker, op.id)
    return True


def existing_evidence_commits_nobody(
    dmap: DependencyMap, op: Operation, speaker: AgentId, making: bool
) -> bool:
    if not isinstance(op, Support | Undermine) or op.evidence_claim is not None:
        return False
    if op.evidence not in dmap.commitments(speaker):
        return False
    if making:
        dmap.retract(speaker, op.evidence)
    return True


def consensus_commits_only_the_speaker(
    dmap: DependencyMap, op: Operation, speaker: AgentId, making: bool
) -> bool:
    if not isinstance(op, Resolve) or op.authoritative:
        return False
    others = [a for a in dmap.agents if a != speaker and op.target in dmap.commitments(a)]
    if making:
        for agent in others:
            dmap.retract(agent, op.target)
    return bool(others)


def revise_keeps_commitments(name: str, making: bool) -> AbstractContextManager[None]:
    """Revise leaves Cm_t as it was (only Revise's retraction: the readings that retract a
    commitment elsewhere still do, so that the readings compose)."""

    def changed(rule: Rule[Any]) -> Rule[Any]:
        def effect(op: Revise, dmap: DependencyMap, speaker: AgentId, row: Any) -> None:
            committed = op.target in dmap.commitments(speaker)
            rule.effect(op, dmap, speaker, row)
            if committed:
                decided(name, op)
                if making:
                    dmap.commit(speaker, op.target)

        return dataclasses.replace(rule, effect=effect)

    return rule_changed("revise", changed)()
