"""The eight operations (Section 2, Table 3) and the fixed order of a turn (Algorithm 1).

Each operation is one :class:`~gcv.reference.rules.rule.Rule` in its home,
:mod:`gcv.reference.rules`: the value it is written as (``Revise``), its row of Table
3, its preconditions and its effect.  :data:`ORDER` lists them once, in the order the
engine applies a turn's operations: the paper fixes an order without listing it (see
spec/gcv/spec/normative.md, "Operation order"), and this tuple is the engine's statement of it,
as ``process_turn``'s ``ORDER`` is the spec's.  Nothing else in the engine names an
operation: it runs whichever rule :func:`rule_of` finds for a value.

An operation value is well formed by construction: its fields are checked when it is
built (each against the form its annotation declares,
:mod:`gcv.reference.rules.form`) and a :class:`~gcv.reference.errors.MalformedOperation`
names the field that is wrong.  Whether it may be *applied* depends on the state; that
is its rule's ``check``.

Each operation may carry the formula its DEL realisation needs (Section 2's
table: psi for Observe, gamma for Hypothesize, Support, Undermine, Revise and
Resolve, chi for Question).  An operation with no formula, whose target has
none either, changes nothing in M_t.
"""

from __future__ import annotations

from typing import Any

import icontract

from gcv.reference.epistemic.formula import Formula
from gcv.reference.identifiers import RecordId
from gcv.reference.rules.expand_awareness import EXPAND_AWARENESS, ExpandAwareness
from gcv.reference.rules.form import EPISTEMIC_FIELDS as EPISTEMIC_FIELDS
from gcv.reference.rules.hypothesize import HYPOTHESIZE, Hypothesize
from gcv.reference.rules.observe import OBSERVE, Observe
from gcv.reference.rules.question import QUESTION, Question
from gcv.reference.rules.resolve import RESOLVE, Resolve
from gcv.reference.rules.revise import REVISE, Revise
from gcv.reference.rules.rule import Realisation, Rule
from gcv.reference.rules.support import SUPPORT, Support
from gcv.reference.rules.undermine import UNDERMINE, Undermine

__all__ = [
    "ORDER",
    "ExpandAwareness",
    "Hypothesize",
    "Observe",
    "Operation",
    "Question",
    "Resolve",
    "Revise",
    "Support",
    "Undermine",
]
"""The engine's public names here (the package's too); the functions below are its own."""

ORDER: tuple[Rule[Any], ...] = (
    EXPAND_AWARENESS,
    OBSERVE,
    HYPOTHESIZE,
    SUPPORT,
    UNDERMINE,
    REVISE,
    RESOLVE,
    QUESTION,
)
"""Algorithm 1's fixed order (clause ``order.kinds``): Expand-Awareness first, so new atoms
are in Prop_t before records use them; then the operations that register records, before
those that reference them; Question last."""

Operation = (
    ExpandAwareness | Observe | Hypothesize | Support | Undermine | Revise | Resolve | Question
)
"""An operation value: one of the eight rules' values."""


_INDEX: list[Any] = [None, {}, {}]
"""The order last read, and for it each value's rule and rank: read from ORDER, made again
whenever ORDER is another tuple (an alternative engine swaps one in)."""


def _indexed() -> tuple[dict[type, Rule[Any]], dict[type, int]]:
    order, rules, ranks = _INDEX
    if order is not ORDER:
        rules = {rule.value: rule for rule in ORDER}
        ranks = {rule.value: rank for rank, rule in enumerate(ORDER)}
        _INDEX[:] = [ORDER, rules, ranks]
    return rules, ranks


def rule_of(op: object) -> Rule[Any]:
    """The rule of ``op``'s operation: the one of :data:`ORDER` whose value it is.

    >>> rule_of(Revise("h2")).name
    'revise'
    """
    rule = _indexed()[0].get(type(op))
    if rule is None:
        raise AssertionError(f"{op!r} is not an operation of ORDER")
    return rule


def own_formula(op: Operation) -> Formula | None:
    """The operation's own formula over Prop_t, when it gives one (Expand-Awareness has none).

    >>> own_formula(ExpandAwareness("p")) is None
    True
    """
    formula: Formula | None = getattr(op, "formula", None)
    return formula


def target_of(op: Operation) -> RecordId | None:
    """The record an operation with a target acts on (Table 3: Support, Undermine, Revise,
    Resolve: the values with a ``target`` field); None otherwise.

    >>> target_of(Revise("h2")), target_of(Observe("o1", "401s"))
    ('h2', None)
    """
    target: RecordId | None = getattr(op, "target", None)
    return target


def realisation(op: Operation) -> Realisation:
    """The plausibility update ``op`` applies to gamma, as its rule reads it.

    >>> realisation(Revise("h2")), realisation(Revise("h2", ("h4",)))
    (Realisation(update=<Update.HARD_ANNOUNCEMENT: '[!phi]'>, negated=True), \
Realisation(update=None, negated=False))
    """
    reading = rule_of(op).realisation
    if reading is None:
        raise AssertionError(f"{op!r} applies no plausibility update")
    return reading(op)


def _is_stable_order(
    operations: tuple[Operation, ...], result: list[tuple[int, Operation]]
) -> bool:
    rank = _indexed()[1]
    ranks = [(rank[type(op)], index) for index, op in result]
    return sorted(i for i, _ in result) == list(range(len(operations))) and ranks == sorted(ranks)


@icontract.ensure(
    lambda operations, result: _is_stable_order(operations, result),
    "every operation once, in ORDER, written order within a kind",
)
def in_application_order(operations: tuple[Operation, ...]) -> list[tuple[int, Operation]]:
    """Pair each operation with its written position and sort by :data:`ORDER`.

    The sort is stable, so operations of one kind keep their written order.

    >>> ops = (Question("q1", "why?"), Observe("o1", "401s"))
    >>> [(i, op.name) for i, op in in_application_order(ops)]
    [(1, 'observe'), (0, 'question')]
    """
    rank = _indexed()[1]
    return sorted(enumerate(operations), key=lambda pair: rank[type(pair[1])])
