"""Revise(target, attackers): attacks on the target, target abandoned; [!~gamma] or the
attacks alone.

Mirrors ``process_revise`` of ``spec/gcv/spec/transition.py``: its row of Table 3, its
preconditions in clause order, its argumentation effect and its DEL realisation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

import gcv.reference.rules.form as form
import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.errors import PreconditionViolation
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.records import Standing
from gcv.reference.rules.rule import Registration, Row, Rule

__all__ = ["REVISE", "Revise", "realisation"]


@dataclass(frozen=True, slots=True, repr=False)
class Revise:
    """Revise: add an attack from each of ``attackers`` on the target and label it abandoned.

    DEL: [!not gamma] (gamma: ``formula``, else the target's formula), or the
    attack additions alone.  ``announce`` chooses; left out, a Revise with no
    attackers announces (B.2, T9) and one with attackers only attacks (T12).
    The speaker's commitment to the target, if any, is retracted.
    """

    name: ClassVar[str] = "revise"
    __repr__ = form.show
    target: form.Identifier
    attackers: form.Identifiers = ()
    formula: Annotated[
        form.OptionalFormula, form.Described("gamma (default: the target's formula).")
    ] = None
    announce: Annotated[
        form.OptionalFlag,
        form.Described(
            "[!~gamma] (true) or the attacks alone (false); default: announce iff no attackers."
        ),
    ] = None

    def __post_init__(self) -> None:
        form.check_fields(self)

    @property
    def announces(self) -> bool:
        """Whether the epistemic effect is [!not gamma] rather than the attacks alone."""
        return self.announce if self.announce is not None else not self.attackers


def preconditions(
    op: Revise, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
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


def attackers(op: Revise) -> tuple[RecordId, ...]:
    """What attacks the target: the attackers."""
    return op.attackers


def effect(op: Revise, dmap: DependencyMap, speaker: AgentId, row: Row) -> None:
    """The speaker's commitment to the target is retracted, the attackers attack it and
    it is abandoned; then [!~gamma] or nothing on M_t."""
    # T3.revise.retracts-commitment
    dmap.retract(speaker, op.target)
    # T3.revise.attacks-abandoned
    shared.apply_row(dmap, op.target, row, attackers(op))
    shared.update_target(dmap, op, realisation(op))


# "Revise adds attacks on alpha_gamma and sets st = abandoned", from any label.
REVISE = Rule(
    value=Revise,
    row=Row(
        registers=Registration.NEVER,
        # T3.revise.target-any-standing
        target_standing=frozenset(Standing),
        # T3.revise.attacks-abandoned
        target_becomes=Standing.ABANDONED,
        attacks_target=True,
        # T3.revise.attackers-in-good-standing
        grounds_in_good_standing=True,
    ),
    preconditions=preconditions,
    effect=effect,
    attackers=attackers,
    realisation=realisation,
)
