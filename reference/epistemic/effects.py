"""The epistemic side of D_t and of each operation: M_t, its problem queue, and Algorithm 1.

:class:`EpistemicState` is the epistemic component the dependency map holds:
the plausibility model M_t (Prop_t, W, the orders, the awareness sets) and the
queue of abductive problems.  The functions below compute an operation's
effect on it from :data:`~gcv.reference.epistemic.table.DEL_RULES`; the dependency
map installs the result inside the turn's transaction, so a rejected turn
leaves M_t exactly as it was.

Preconditions come first, as a pure check (:func:`find_epistemic_violation`,
:func:`find_empty_announcement`); the effect functions raise only what cannot
be known without computing the update (a hard announcement that leaves no
world).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import icontract

from gcv.reference.epistemic.abduction import (
    Problem,
    close_problems,
    is_surprising,
    keeps_the_queue,
    queue_question,
)
from gcv.reference.epistemic.formula import Formula, Not
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import check_formula, everything, truth_set
from gcv.reference.epistemic.table import DEL_RULES, FormulaSource, Update, realisation
from gcv.reference.epistemic.updates import (
    announce,
    conservative_upgrade,
    expand,
    lexicographic_upgrade,
    restrict,
)
from gcv.reference.errors import DuplicateAtom, NoSurvivingWorld, PreconditionViolation
from gcv.reference.identifiers import RecordId
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    own_formula,
)
from gcv.reference.records import Standing

__all__ = [
    "EpistemicState",
    "announce_simultaneously",
    "apply_effect",
    "find_empty_announcement",
    "find_epistemic_violation",
    "formula_of",
]


@dataclass(frozen=True, slots=True)
class EpistemicState:
    """M_t and the queue of abductive problems (Definition A.2) posed so far."""

    model: PlausibilityModel
    problems: tuple[Problem, ...] = ()

    def snapshot(self) -> dict[str, object]:
        """The state as plain JSON data (problems in the order they were posed)."""
        return {
            "model": self.model.snapshot(),
            "problems": [p.snapshot() for p in self.problems],
        }


def _is_own_first(op: Operation, result: Formula | None) -> bool:
    own = own_formula(op)
    return own is None or result is own


@icontract.ensure(
    lambda op, result: _is_own_first(op, result), "an operation's own formula comes first"
)
def formula_of(op: Operation, target_formula: Formula | None) -> Formula | None:
    """The formula the operation's update acts on (its row's :class:`FormulaSource`)."""
    rule = DEL_RULES[op.operation]
    own: Formula | None = own_formula(op)
    if rule.source is FormulaSource.TARGET and own is None:
        return target_formula
    return own


@icontract.ensure(
    lambda result: result is None or isinstance(result, PreconditionViolation),
    "a violation is reported as a typed PreconditionViolation, never raised",
)
def find_epistemic_violation(
    op: Operation, model: PlausibilityModel
) -> PreconditionViolation | None:
    """The first epistemic precondition ``op`` violates in ``model``, or ``None``.

    The atoms it introduces must be new to Prop_t (``duplicate-atom``); its own
    formula may name only agents of Ags (``unknown-agent``) and atoms of Prop_t,
    the introduced ones included (``unknown-atom``).  A target's formula was
    checked when the target was registered, and Prop_t only grows.

    >>> from gcv.reference.epistemic.formula import parse
    >>> m = PlausibilityModel.implicit(["a"], ["p"])
    >>> find_epistemic_violation(Observe("o1", "q holds", formula=parse("q")), m).code
    'unknown-atom'
    >>> find_epistemic_violation(
    ...     Hypothesize("h", "q", formula=parse("q"), introduces=("q",)), m) is None
    True
    """
    introduced: tuple[str, ...] = ()
    if isinstance(op, Hypothesize):
        for atom in op.introduces:
            if atom in model.atoms:
                return DuplicateAtom(f"atom {atom!r} is already in Prop_t", field="introduces")
        introduced = op.introduces
    own: Formula | None = own_formula(op)
    if own is None:
        return None
    return check_formula(model, own, also=introduced)


@icontract.ensure(
    lambda formulas, result: result is None or 0 <= result < len(formulas),
    "the position of one of the announcements",
)
def find_empty_announcement(model: PlausibilityModel, formulas: Sequence[Formula]) -> int | None:
    """The position of the first announcement after which no world would be left, if any.

    The announcements are simultaneous: each formula is read in ``model``.
    """
    running = everything(model)
    for position, formula in enumerate(formulas):
        running &= truth_set(model, formula)
        if not running:
            return position
    return None


def _keeps_problems(before: EpistemicState, after: EpistemicState) -> bool:
    return keeps_the_queue(before.problems, after.problems)


@icontract.require(
    lambda state, observations: (
        find_empty_announcement(state.model, [f for _, f in observations]) is None
    ),
    "the simultaneous announcement leaves some world",
    enabled=icontract.SLOW,
)
@icontract.ensure(
    lambda state, result: _keeps_problems(state, result), "posed problems stay queued"
)
def announce_simultaneously(
    state: EpistemicState, observations: Sequence[tuple[RecordId, Formula]]
) -> EpistemicState:
    """Observe, for a whole turn: [!(psi_1 & ... & psi_n)], every psi_k read in M_t.

    Each observation psi_k poses the problem (B_i, psi_k) for every agent i who
    does not believe psi_k in M_t announced with the others (Definition A.2's
    surprise check); that model is the problem's M_chi.

    Notes
    -----
    n evaluations and one pass over W, O(n |W|), plus the surprise checks.
    """
    model = state.model.explicit()
    sets = [truth_set(model, formula) for _, formula in observations]
    full = everything(model)
    keep = full
    for inside in sets:
        keep &= inside
    assert keep, "the precondition keeps some world"
    problems = list(state.problems)
    for position, (record, formula) in enumerate(observations):
        others = full
        for k, inside in enumerate(sets):
            if k != position:
                others &= inside
        posed = restrict(model, others)
        problems += [
            Problem(agent, formula, record, posed)
            for agent in model.agents
            if is_surprising(posed, agent, formula)
        ]
    return EpistemicState(restrict(model, keep), tuple(problems))


def _update(model: PlausibilityModel, update: Update, formula: Formula) -> PlausibilityModel:
    match update:
        case Update.HARD_ANNOUNCEMENT:
            return announce(model, formula)
        case Update.LEXICOGRAPHIC_UPGRADE:
            return lexicographic_upgrade(model, formula)
        case Update.CONSERVATIVE_UPGRADE:
            return conservative_upgrade(model, formula)
    raise AssertionError(f"{update} is not a plausibility update")


@icontract.ensure(
    lambda state, result: _keeps_problems(state, result),
    "posed problems stay queued; solutions are only added",
)
def apply_effect(
    state: EpistemicState,
    op: Operation,
    *,
    target_formula: Formula | None,
    standing: Mapping[RecordId, Standing],
    literal_abduction: bool = False,
) -> EpistemicState:
    """The state after ``op``'s epistemic effect (its row of :data:`DEL_RULES`).

    Observe is handled a turn at a time by :func:`announce_simultaneously`;
    here an Observe is announced alone.  ``standing`` is st_t after the
    operation's argumentation effect (a problem is open while no hypothesis
    that solved it is in S_t); ``literal_abduction`` picks Definition A.2's reading
    (:func:`~gcv.reference.epistemic.abduction.check_solution`).

    Raises
    ------
    NoSurvivingWorld
        A hard announcement ([!psi], [!~gamma], [!gamma]) holds at no world.
    ModelTooLarge
        New atoms would split W beyond the reference's bound.

    Examples
    --------
    >>> from gcv.reference.epistemic.formula import parse
    >>> from gcv.reference.operations import Revise
    >>> s = EpistemicState(PlausibilityModel.implicit(["a"], ["h2"]))
    >>> apply_effect(s, Revise("h2"), target_formula=parse("h2"), standing={}).model.size
    1
    """
    model = state.model
    match op:
        case ExpandAwareness():
            return EpistemicState(expand(model, op.atom, op.agents or None), state.problems)
        case Observe():
            if op.formula is None:
                return state
            if find_empty_announcement(model, [op.formula]) is not None:
                raise NoSurvivingWorld(
                    f"the announcement {op.formula} holds at no world of W_t",
                    field="formula",
                    record=op.id,
                )
            return announce_simultaneously(state, [(op.id, op.formula)])
        case Hypothesize():
            for atom in op.introduces:
                model = expand(model, atom)
            if op.formula is None:
                return EpistemicState(model, state.problems)
            problems = close_problems(
                state.problems, model, op.formula, op.id, standing, literal=literal_abduction
            )
            return EpistemicState(lexicographic_upgrade(model, op.formula), problems)
        case Question():
            if op.formula is None:
                return state
            return EpistemicState(
                model, queue_question(state.problems, model, op.formula, op.id, standing)
            )
    formula = formula_of(op, target_formula)
    reading = realisation(op)
    if formula is None or reading.update is None:
        return state
    acted_on = Not(formula) if reading.negated else formula
    return EpistemicState(_update(model, reading.update, acted_on), state.problems)
