"""Question(chi): no record (the issue it opens is not an argument); chi queued.

Mirrors ``process_question`` of ``spec/gcv/spec/transition.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

import gcv.reference.rules.form as form
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic.abduction import queue_question
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.errors import PreconditionViolation
from gcv.reference.identifiers import AgentId
from gcv.reference.rules.rule import Registration, Row, Rule

__all__ = ["QUESTION", "Question"]


@dataclass(frozen=True, slots=True, repr=False)
class Question:
    """Question: open the issue ``id`` (B.3's I_1); no record, no DEL update.

    ``formula`` chi is queued as an open abductive problem whose source is ``id``.
    """

    name: ClassVar[str] = "question"
    __repr__ = form.show
    id: Annotated[
        form.Identifier,
        form.Described(
            "the issue the Question opens (no record: B.3 T1), the source of the problems it "
            "queues."
        ),
    ]
    claim: form.Claim
    formula: Annotated[
        form.OptionalFormula, form.Described("chi, queued as an open abductive problem.")
    ] = None

    def __post_init__(self) -> None:
        form.check_fields(self)


def preconditions(
    op: Question, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``: none.  T3.question.issue-ids-apart:
    the id names an issue, which is not a record (B.3 T1), so it is checked against nothing."""
    return None


def effect(op: Question, dmap: DependencyMap, speaker: AgentId, row: Row) -> None:
    """del.question: "no DEL update; chi queued as an open abductive problem"."""
    if op.formula is None:
        return
    state = dmap.epistemic
    queued = queue_question(state.problems, state.model, op.formula, op.id, dmap.standing)
    dmap.replace_epistemic(EpistemicState(state.model, queued))


# B.3 T1: "Args_1 = {timeline}" although the Question opened I_1.
QUESTION = Rule(
    value=Question,
    row=Row(registers=Registration.NEVER),
    preconditions=preconditions,
    effect=effect,
)
