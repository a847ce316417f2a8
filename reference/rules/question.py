"""Question(chi): no record (the issue it opens is not an argument); chi queued.

Mirrors ``process_question`` of ``spec/transition.py``.
"""

from __future__ import annotations

from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic.abduction import queue_question
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.errors import PreconditionViolation
from gcv.reference.operations import Question
from gcv.reference.rules.row import Registration, Rule

__all__ = ["ROW", "apply", "find_violation"]

# B.3 T1: "Args_1 = {timeline}" although the Question opened I_1.
ROW = Rule(registers=Registration.NEVER)


def find_violation(op: Question, view: StateView) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``: none.  T3.question.issue-ids-apart:
    the id names an issue, which is not a record (B.3 T1), so it is checked against nothing."""
    return None


def apply(dmap: DependencyMap, op: Question) -> None:
    """del.question: "no DEL update; chi queued as an open abductive problem"."""
    if op.formula is None:
        return
    state = dmap.epistemic
    queued = queue_question(state.problems, state.model, op.formula, op.id, dmap.standing)
    dmap.replace_epistemic(EpistemicState(state.model, queued))
