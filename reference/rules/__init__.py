"""One home per operation (Table 3, Algorithm 1, Section 2's operation table).

Each of the eight operations has one module here, mirroring its ``process_<operation>``
in ``spec/transition.py``: its row of Table 3 (``ROW``), its preconditions in the
clause order the spec checks them, each under its clause id (``find_violation``), its
argumentation effect and its epistemic effect, the DEL realisation (``apply``, and
``realisation`` where the operation chooses a plausibility update).  What several share
is in :mod:`~gcv.reference.rules.shared`; the turn (the fixed order and Observe's
simultaneous announcements) is :mod:`gcv.reference.apply`'s.

:data:`RULES` collects the rows: the engine reads its row for each operation it
checks and applies, and the Z3 encoding in ``proofs/`` is built from the same rows.
The obligation ``table-3`` proves the encoding built from these rows equal, for every
state, to a second statement written from the spec (``proofs/table3.py``);
``tests/test_transition.py`` checks the engine against the spec, and
``tests/refinement.py`` checks engine, spec and encoding on every step of every state
of a small scope.  That the encoding is the engine is tested there, not proved.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import icontract

from gcv.reference.operations import Hypothesize, OperationKind, Resolve, Revise, Support, Undermine
from gcv.reference.rules import (
    expand_awareness,
    hypothesize,
    observe,
    question,
    resolve,
    revise,
    support,
    undermine,
)
from gcv.reference.rules.row import Registration, Rule
from gcv.reference.rules.shared import Realisation, Update

__all__ = ["RULES", "Realisation", "Registration", "Rule", "Update", "realisation"]

RULES: Mapping[OperationKind, Rule] = MappingProxyType(
    {
        OperationKind.EXPAND_AWARENESS: expand_awareness.ROW,
        OperationKind.OBSERVE: observe.ROW,
        OperationKind.HYPOTHESIZE: hypothesize.ROW,
        OperationKind.SUPPORT: support.ROW,
        OperationKind.UNDERMINE: undermine.ROW,
        OperationKind.REVISE: revise.ROW,
        OperationKind.RESOLVE: resolve.ROW,
        OperationKind.QUESTION: question.ROW,
    }
)


def _leaves_m_unchanged(op: Hypothesize | Support | Undermine | Revise | Resolve) -> bool:
    return (isinstance(op, Resolve) and op.authoritative) or (
        isinstance(op, Revise) and not op.announces
    )


@icontract.ensure(
    lambda op, result: (result.update is None) == _leaves_m_unchanged(op),
    "Section 2's table: only a decision and a Revise read as its attacks leave M_t as it is",
)
def realisation(op: Hypothesize | Support | Undermine | Revise | Resolve) -> Realisation:
    """The plausibility update ``op`` applies to gamma, as its home reads it.

    >>> realisation(Revise("h2")), realisation(Revise("h2", ("h4",)))
    (Realisation(update=<Update.HARD_ANNOUNCEMENT: '[!phi]'>, negated=True), \
Realisation(update=None, negated=False))
    """
    match op:
        case Hypothesize():
            return hypothesize.realisation(op)
        case Support():
            return support.realisation(op)
        case Undermine():
            return undermine.realisation(op)
        case Revise():
            return revise.realisation(op)
        case Resolve():
            return resolve.realisation(op)
    raise AssertionError(f"{op!r} applies no plausibility update")
