"""The DEL realisations of the eight operations (Section 2's table, Table 3): one row each.

This table is the sibling of :data:`gcv.reference.rules.RULES`: RULES says what an
operation does to the argumentation framework, :data:`DEL_RULES` what it does
to M_t.  The engine reads both, so the epistemic effect of an operation is
written in one place.

=================  ===============================  ============================
operation          default realisation              alternative (chosen by)
=================  ===============================  ============================
Expand-Awareness   add p to A_i; split W on p       -
Observe            [!psi] (simultaneous in a turn)  -
Hypothesize        [up-up gamma]                    -
Support            [up gamma]                       [up-up gamma] (``specific``)
Undermine          [up-up ~gamma]                   [up ~gamma] (``downgrade``)
Revise             [!~gamma]                        attacks only (``announce``)
Resolve            [!gamma] (consensual)            none: a decision (``authoritative``)
Question           queue (B_i, chi)                 -
=================  ===============================  ============================

An operation whose formula is absent (and, for the operations on a target,
whose target has no formula) has no epistemic effect.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import icontract

from gcv.reference.operations import Operation, OperationKind, Resolve, Revise, Support, Undermine

__all__ = ["DEL_RULES", "DelRule", "FormulaSource", "Realisation", "Update", "realisation"]


class Update(enum.Enum):
    """The update primitives of M_t (Appendix A.1, Definition A.3)."""

    HARD_ANNOUNCEMENT = "[!phi]"
    LEXICOGRAPHIC_UPGRADE = "[up-up phi]"
    CONSERVATIVE_UPGRADE = "[up phi]"
    AWARENESS_EXPANSION = "add p to A_i, split every world on p"
    QUEUE_PROBLEM = "queue (B_i, chi) as an open abductive problem"


class FormulaSource(enum.Enum):
    """Where an operation's formula comes from."""

    OWN = "the operation's formula field"
    TARGET = "the operation's formula field, else the target record's formula"
    ATOM = "the operation's atom"


@dataclass(frozen=True, slots=True)
class Realisation:
    """One reading of an operation in M_t: an update of its formula, or of its negation.

    ``update`` None: no change to M_t (Revise's attacks alone; an authoritative Resolve).
    """

    update: Update | None
    negated: bool = False


@dataclass(frozen=True, slots=True)
class DelRule:
    """One row: the formula's source, the default realisation and its alternative.

    Attributes
    ----------
    source:
        Where the formula psi, gamma or chi is taken from.
    default, alternative:
        The realisation, and the other reading the operation may choose.
    switch:
        The operation field that selects ``alternative``.
    simultaneous:
        The realisations of one turn's operations of this kind are one
        simultaneous update (each formula read in the model before any of them).
    poses_problems:
        An agent who did not believe the formula before it is announced has an
        abductive problem (Definition A.2).
    solves_problems:
        The formula is checked as a candidate solution of every open problem.
    introduces_atoms:
        The operation may bring new atoms into Prop_t before its update.
    """

    source: FormulaSource
    default: Realisation
    alternative: Realisation | None = None
    switch: str | None = None
    simultaneous: bool = False
    poses_problems: bool = False
    solves_problems: bool = False
    introduces_atoms: bool = False


_NONE = Realisation(None)

DEL_RULES: Mapping[OperationKind, DelRule] = MappingProxyType(
    {
        OperationKind.EXPAND_AWARENESS: DelRule(
            FormulaSource.ATOM, Realisation(Update.AWARENESS_EXPANSION)
        ),
        # "[!psi] (hard public announcement)".  One utterance states its observations
        # at once, so a turn's announcements are one simultaneous announcement.
        OperationKind.OBSERVE: DelRule(
            FormulaSource.OWN,
            Realisation(Update.HARD_ANNOUNCEMENT),
            simultaneous=True,
            poses_problems=True,
        ),
        # "[up-up gamma] (soft lexicographic upgrade)", after the abduction check.
        OperationKind.HYPOTHESIZE: DelRule(
            FormulaSource.OWN,
            Realisation(Update.LEXICOGRAPHIC_UPGRADE),
            solves_problems=True,
            introduces_atoms=True,
        ),
        # "[up gamma], or [up-up gamma] if gamma-specific evidence".
        OperationKind.SUPPORT: DelRule(
            FormulaSource.TARGET,
            Realisation(Update.CONSERVATIVE_UPGRADE),
            Realisation(Update.LEXICOGRAPHIC_UPGRADE),
            "specific",
        ),
        # "family of plausibility downgrades of gamma"; B.2 T7: "Undermine applies
        # [up-up ~h2]".
        OperationKind.UNDERMINE: DelRule(
            FormulaSource.TARGET,
            Realisation(Update.LEXICOGRAPHIC_UPGRADE, negated=True),
            Realisation(Update.CONSERVATIVE_UPGRADE, negated=True),
            "downgrade",
        ),
        # "[!~gamma] or Att edge addition"; B.2 T9: "Revise applies the hard
        # announcement !~h2".
        OperationKind.REVISE: DelRule(
            FormulaSource.TARGET,
            Realisation(Update.HARD_ANNOUNCEMENT, negated=True),
            _NONE,
            "announce",
        ),
        # "consensual [!gamma], or decision recording dissent".
        OperationKind.RESOLVE: DelRule(
            FormulaSource.TARGET,
            Realisation(Update.HARD_ANNOUNCEMENT),
            _NONE,
            "authoritative",
        ),
        # "no DEL update; chi queued as an open abductive problem".
        OperationKind.QUESTION: DelRule(FormulaSource.OWN, Realisation(Update.QUEUE_PROBLEM)),
    }
)


def _chooses_alternative(op: Operation) -> bool:
    match op:
        case Support():
            return op.specific
        case Undermine():
            return op.downgrade == "conservative"
        case Revise():
            return not op.announces
        case Resolve():
            return op.authoritative
    return False


def _is_a_reading_of_its_row(op: Operation, result: Realisation) -> bool:
    rule = DEL_RULES[op.operation]
    return result in (rule.default, rule.alternative)


@icontract.ensure(
    lambda op, result: _is_a_reading_of_its_row(op, result),
    "the realisation is the row's default or its alternative",
)
def realisation(op: Operation) -> Realisation:
    """The reading of ``op`` in M_t: its row's default, or the alternative its switch selects.

    >>> from gcv.reference.operations import Revise
    >>> realisation(Revise("h2")), realisation(Revise("h2", ("h4",)))
    (Realisation(update=<Update.HARD_ANNOUNCEMENT: '[!phi]'>, negated=True), \
Realisation(update=None, negated=False))
    """
    rule = DEL_RULES[op.operation]
    if rule.alternative is not None and _chooses_alternative(op):
        return rule.alternative
    return rule.default
