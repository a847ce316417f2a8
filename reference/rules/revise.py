"""Revise(target, attackers): attacks on the target, target abandoned; [!~gamma] or the
attacks alone.

Mirrors ``process_revise`` of ``spec/transition.py``: its row of Table 3, its
preconditions in clause order, its argumentation effect and its DEL realisation.
"""

from __future__ import annotations

import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.errors import PreconditionViolation
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import Revise
from gcv.reference.records import Standing
from gcv.reference.rules.row import Registration, Rule

__all__ = ["ROW", "apply", "find_violation", "realisation"]

# "Revise adds attacks on alpha_gamma and sets st = abandoned", from any label.
ROW = Rule(
    registers=Registration.NEVER,
    # T3.revise.target-any-standing
    target_standing=frozenset(Standing),
    # T3.revise.attacks-abandoned
    target_becomes=Standing.ABANDONED,
    attacks_target=True,
    # T3.revise.attackers-in-good-standing
    grounds_in_good_standing=True,
)


def find_violation(op: Revise, view: StateView, row: Rule) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``, or ``None``."""
    return shared.first(
        # T3.cite.registered, T3.revise.target-any-standing
        shared.target(view, op, row),
        # T3.cite.not-self, T3.cite.registered, T3.revise.attackers-in-good-standing
        shared.cited(
            view,
            "attackers",
            op.attackers,
            not_self=op.target,
            in_good_standing=row.grounds_in_good_standing,
        ),
    )


def realisation(op: Revise) -> shared.Realisation:
    """del.revise: [!~gamma] with no attackers (B.2 T9), the attacks alone with some (T12);
    del.revise.announce: the operation's ``announce`` overrides that reading."""
    if op.announces:
        return shared.Realisation(shared.Update.HARD_ANNOUNCEMENT, negated=True)
    return shared.Realisation(None)


def apply(dmap: DependencyMap, op: Revise, speaker: AgentId, row: Rule) -> None:
    """The speaker's commitment to the target is retracted, the attackers attack it and
    it is abandoned; then [!~gamma] or nothing on M_t."""
    # T3.revise.retracts-commitment
    dmap.retract(speaker, op.target)
    # T3.revise.attacks-abandoned
    shared.apply_row(dmap, op.target, row, op.attackers)
    shared.update_target(dmap, op, realisation(op))
