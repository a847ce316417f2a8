"""The epistemic component of D_t: M_t with its problem queue, and the turn's announcement.

:class:`EpistemicState` is the epistemic component the dependency map holds: the
plausibility model M_t (Prop_t, W, the orders, the awareness sets) and the queue of
abductive problems.  Each operation's effect on it is in its home
(:mod:`gcv.reference.rules`); what is shared is here: the simultaneous hard
announcement of a turn's observations (Definition A.2's surprise check included), with
its precondition as a pure check (:func:`find_empty_announcement`).  The dependency
map installs each new state inside the turn's transaction, so a rejected turn leaves
M_t exactly as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import icontract

from gcv.reference.epistemic.abduction import Problem, is_surprising, keeps_the_queue
from gcv.reference.epistemic.formula import Formula
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import everything, truth_set
from gcv.reference.epistemic.updates import restrict
from gcv.reference.identifiers import RecordId

__all__ = ["EpistemicState", "announce_simultaneously", "find_empty_announcement"]


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
    if not keep:
        raise RuntimeError("the precondition keeps no world")
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
