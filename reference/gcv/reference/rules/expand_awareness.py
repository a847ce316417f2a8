"""Expand-Awareness(p, agents): p joins Prop_t and the named agents' A_i (Definition A.3).

Mirrors ``process_expand_awareness`` of ``spec/gcv/spec/transition.py``.  It changes nothing in
(Args, st, Att, Dep): all of its effect is on M_t.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import gcv.reference.rules.form as form
import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.updates import expand
from gcv.reference.errors import AlreadyAware, PreconditionViolation
from gcv.reference.identifiers import AgentId
from gcv.reference.rules.rule import Registration, Row, Rule

__all__ = ["EXPAND_AWARENESS", "ExpandAwareness"]


@dataclass(frozen=True, slots=True, repr=False)
class ExpandAwareness:
    """Expand-Awareness: add the atom p to Prop_t and to the awareness sets A_i.

    ``agents`` names the agents whose awareness grows; empty means every agent.
    """

    name: ClassVar[str] = "expand-awareness"
    __repr__ = form.show
    atom: form.Identifier
    agents: form.Identifiers = ()

    def __post_init__(self) -> None:
        form.check_fields(self)


def preconditions(
    op: ExpandAwareness, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``, or ``None``."""
    # T3.expand-awareness.agents-in-ags
    unknown = shared.agents(view, "agents", op.agents)
    if unknown is not None:
        return unknown
    # T3.expand-awareness.default-all: no agent named, every agent of Ags.
    named = op.agents or tuple(view.agents)
    # T3.expand-awareness.changes-something
    if all(op.atom in view.awareness[agent] for agent in named):
        return AlreadyAware(f"every named agent is already aware of {op.atom!r}", field="atom")
    return None


def no_epistemic_preconditions(
    op: ExpandAwareness, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
    """It carries no formula: every check is Table 3's."""
    return None


def effect(op: ExpandAwareness, dmap: DependencyMap, speaker: AgentId, row: Row) -> None:
    """del.expand-awareness: add p to A_i and split every world on a new p
    (del.expand-awareness.copies-equally-plausible: each copy keeps its rank)."""
    state = dmap.epistemic
    dmap.replace_epistemic(
        EpistemicState(expand(state.model, op.atom, op.agents or None), state.problems)
    )


EXPAND_AWARENESS = Rule(
    value=ExpandAwareness,
    row=Row(registers=Registration.NEVER),
    preconditions=preconditions,
    epistemic=no_epistemic_preconditions,
    effect=effect,
)
