"""Preconditions of the eight operations (Table 3), as one pure function.

:func:`find_violation` reads a :class:`~gcv.reference.depmap.StateView` and returns
the first violated precondition as a typed error, or ``None``: each operation's
clauses are checked by its home in :mod:`gcv.reference.rules`, against its row of
:data:`~gcv.reference.rules.RULES`.  It never raises and never mutates, so it can be
searched by CrossHair and replayed against the Z3 encoding.
:func:`find_epistemic_violation` does the same for the clauses that read M_t.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import icontract

from gcv.reference.depmap import StateView
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.errors import PreconditionViolation
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
    own_formula,
)
from gcv.reference.rules import (
    RULES,
    expand_awareness,
    hypothesize,
    observe,
    question,
    resolve,
    revise,
    shared,
    support,
    undermine,
)

__all__ = ["find_epistemic_violation", "find_violation"]


def is_relation_over(
    relation: Mapping[RecordId, Collection[RecordId]], members: Collection[RecordId]
) -> bool:
    """Check that ``relation`` relates only ``members``: Dep_t maps Args_t to subsets of
    Args_t, and Att_t is a subset of Args_t x Args_t (Definition 2.1)."""
    return all(
        key in members and all(value in members for value in values)
        for key, values in relation.items()
    )


def is_well_formed_view(view: StateView) -> bool:
    """Check that ``view`` is a state the engine can be in: each agent of Ags has an
    awareness set A_i, and the recorded attacks relate registered records only."""
    return all(agent in view.awareness for agent in view.agents) and is_relation_over(
        view.attackers, view.standing
    )


@icontract.require(
    lambda view: is_well_formed_view(view),
    "the view is a state of Definition 2.1: every agent has A_i, Att_t relates records of Args_t",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda result: result is None or isinstance(result, PreconditionViolation),
    "a violation is reported as a typed PreconditionViolation, never raised",
)
def find_violation(
    op: Operation, view: StateView, speaker: AgentId
) -> PreconditionViolation | None:
    """Return the first precondition of Table 3 that ``op`` violates in ``view``, or ``None``.

    Parameters
    ----------
    op:
        The operation, already well formed.
    view:
        The state it would be applied to (the staged state of the turn so far).
    speaker:
        The agent whose utterance the operation interprets.

    Examples
    --------
    >>> from gcv.reference.records import Standing
    >>> view = StateView(["a"], {"h2": Standing.ABANDONED}, {}, {"a": []})
    >>> find_violation(Undermine("h2", "o9", "token expired"), view, "a").code
    'wrong-standing'
    >>> find_violation(Observe("o1", "401s"), view, "a") is None
    True
    """
    row = RULES[op.operation]
    match op:
        case ExpandAwareness():
            return expand_awareness.find_violation(op, view)
        case Observe():
            return observe.find_violation(op, view)
        case Hypothesize():
            return hypothesize.find_violation(op, view)
        case Support():
            return support.find_violation(op, view, row)
        case Undermine():
            return undermine.find_violation(op, view, row)
        case Revise():
            return revise.find_violation(op, view, row)
        case Resolve():
            return resolve.find_violation(op, view, speaker, row)
        case Question():
            return question.find_violation(op, view)
    raise AssertionError(f"unknown operation {op!r}")


@icontract.ensure(
    lambda result: result is None or isinstance(result, PreconditionViolation),
    "a violation is reported as a typed PreconditionViolation, never raised",
)
def find_epistemic_violation(
    op: Operation, model: PlausibilityModel
) -> PreconditionViolation | None:
    """The first epistemic precondition ``op`` violates in ``model``, or ``None``.

    The atoms a Hypothesize introduces must be new to Prop_t (``duplicate-atom``); an
    operation's own formula may name only agents of Ags (``unknown-agent``) and atoms
    of Prop_t, the introduced ones included (``unknown-atom``).

    >>> from gcv.reference.epistemic.formula import parse
    >>> m = PlausibilityModel.implicit(["a"], ["p"])
    >>> find_epistemic_violation(Observe("o1", "q holds", formula=parse("q")), m).code
    'unknown-atom'
    >>> find_epistemic_violation(
    ...     Hypothesize("h", "q", formula=parse("q"), introduces=("q",)), m) is None
    True
    """
    if isinstance(op, Hypothesize):
        return hypothesize.find_epistemic_violation(op, model)
    return shared.formula_violation(model, own_formula(op))
