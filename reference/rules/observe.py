"""Observe(psi): a new active record the speaker commits to; [!psi].

Mirrors ``process_observe`` of ``spec/transition.py``.  Within a turn the
observations' announcements are one simultaneous announcement
(``order.simultaneous-observations``), which the turn applies after its last Observe
(:func:`gcv.reference.apply.apply_announcements`); :func:`apply` announces psi itself
only when it is applied alone.
"""

from __future__ import annotations

import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic.effects import announce_simultaneously, find_empty_announcement
from gcv.reference.errors import NoSurvivingWorld, PreconditionViolation
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import Observe
from gcv.reference.rules.row import Registration, Rule

__all__ = ["ROW", "apply", "find_violation"]

ROW = Rule(registers=Registration.ALWAYS)


def find_violation(op: Observe, view: StateView) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``, or ``None``."""
    # T3.register.id-new, then T3.cite.* over depends_on (T3.register.depends-on-any-standing)
    return shared.registering(view, op.id, op.depends_on)


def apply(dmap: DependencyMap, op: Observe, speaker: AgentId, *, announce: bool) -> None:
    """Register the observation and commit its speaker; with ``announce``, [!psi] alone.

    Raises
    ------
    NoSurvivingWorld
        Announced alone, psi holds at no world of W_t.
    """
    # T3.register.new-active, T3.register.dep; T3.observe.kind: the kind the trace gives
    shared.register(dmap, op.id, op.claim, op.kind, speaker, op.depends_on, op.formula)
    # T3.observe.speaker-commits
    dmap.commit(speaker, op.id)
    if not announce or op.formula is None:
        return
    # del.observe: [!psi]; its problems are posed as in a turn's announcement.
    if find_empty_announcement(dmap.model, [op.formula]) is not None:
        raise NoSurvivingWorld(
            f"the announcement {op.formula} holds at no world of W_t",
            field="formula",
            record=op.id,
        )
    dmap.replace_epistemic(announce_simultaneously(dmap.epistemic, [(op.id, op.formula)]))
