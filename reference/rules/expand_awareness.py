"""Expand-Awareness(p, agents): p joins Prop_t and the named agents' A_i (Definition A.3).

Mirrors ``process_expand_awareness`` of ``spec/transition.py``.  It changes nothing in
(Args, st, Att, Dep): all of its effect is on M_t.
"""

from __future__ import annotations

import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.updates import expand
from gcv.reference.errors import AlreadyAware, PreconditionViolation
from gcv.reference.operations import ExpandAwareness
from gcv.reference.rules.row import Registration, Rule

__all__ = ["ROW", "apply", "find_violation"]

ROW = Rule(registers=Registration.NEVER)


def find_violation(op: ExpandAwareness, view: StateView) -> PreconditionViolation | None:
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


def apply(dmap: DependencyMap, op: ExpandAwareness) -> None:
    """del.expand-awareness: add p to A_i and split every world on a new p
    (del.expand-awareness.copies-equally-plausible: each copy keeps its rank)."""
    state = dmap.epistemic
    dmap.replace_epistemic(
        EpistemicState(expand(state.model, op.atom, op.agents or None), state.problems)
    )
