"""One turn of the loop of Section 3: interpret, validate, and apply all or nothing.

``interpreter -> reply -> read_reply -> Verifier.apply_turn`` (or, to measure
without committing, :func:`~gcv.interpret.validate.check_turn`).  A reply
with any defect reaches the engine not at all; one whose operations break a
precondition is refused by the engine's atomic ``apply_turn``, which leaves
D_t exactly as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import icontract

from gcv.interpret.protocol import Interpreter, Reply, Request
from gcv.interpret.validate import check_turn, read_reply
from gcv.reference.errors import GcvError
from gcv.reference.operations import Operation
from gcv.reference.verifier import Turn, TurnReport, Verifier

__all__ = ["Interpretation", "interpret_turn"]


@dataclass(frozen=True, slots=True)
class Interpretation:
    """An utterance interpreted and checked.

    Attributes
    ----------
    reply:
        What the interpreter answered.
    labels:
        The operation labels the reply names (scored as the classification).
    operations:
        The operations, when the whole turn was sound; else ``None``.
    problems:
        Why the turn was refused: every defect of the reply, or the engine's
        first violated precondition.  Empty exactly when ``operations`` is set.
    report:
        The committed turn's report (only when committing and accepted).
    """

    reply: Reply
    labels: frozenset[str]
    operations: tuple[Operation, ...] | None
    problems: tuple[GcvError, ...]
    report: TurnReport | None = None

    @property
    def accepted(self) -> bool:
        """Whether every operation of the reply applies, as one turn."""
        return self.operations is not None


def _is_all_or_nothing(result: Interpretation, commit: bool) -> bool:
    if result.operations is None:
        return bool(result.problems) and result.report is None
    return not result.problems and (result.report is not None) == commit


def _turn_changed_only_if_committed(
    verifier: Verifier, before: int, result: Interpretation
) -> bool:
    committed = result.report is not None
    return verifier.state.turn == before + committed


@icontract.snapshot(lambda verifier: verifier.state.turn, name="turn")
@icontract.ensure(
    lambda commit, result: _is_all_or_nothing(result, commit),
    "a turn is accepted with no problem, or refused with its reasons and nothing applied",
)
@icontract.ensure(
    lambda verifier, OLD, result: _turn_changed_only_if_committed(verifier, OLD.turn, result),
    "D_t advances by one turn when the operations were committed, and not at all otherwise",
)
def interpret_turn(
    interpreter: Interpreter, verifier: Verifier, request: Request, *, commit: bool = True
) -> Interpretation:
    """Interpret ``request`` and apply the operations to ``verifier`` as one atomic turn.

    With ``commit=False`` the operations are only checked, on a copy
    (:func:`~gcv.interpret.validate.check_turn`), and D_t does not change.

    Raises
    ------
    EndpointError
        The interpreter's endpoint failed (nothing is applied).

    Examples
    --------
    >>> from gcv.interpret.protocol import Reply
    >>> class Scripted:
    ...     def describe(self): return {"interpreter": "scripted"}
    ...     def interpret(self, request): return Reply(self.text)
    >>> scripted, v = Scripted(), Verifier(["a"])
    >>> scripted.text = '{"operations": [{"op": "revise", "target": "h2"}]}'
    >>> bad = interpret_turn(scripted, v, Request(0, "a", "h2 is wrong"))
    >>> bad.accepted, bad.problems[0].code, v.state.turn
    (False, 'unknown-record', 0)
    >>> scripted.text = '{"operations": [{"op": "observe", "id": "o1", "claim": "401s"}]}'
    >>> good = interpret_turn(scripted, v, Request(0, "a", "I see 401s"))
    >>> good.accepted, sorted(v.state.records)
    (True, ['o1'])
    """
    reply = interpreter.interpret(request)
    read = read_reply(reply.text)
    if read.operations is None:
        return Interpretation(reply, read.labels, None, read.problems)
    if not commit:
        error = check_turn(verifier, request.speaker, read.operations)
        if error is not None:
            return Interpretation(reply, read.labels, None, (error,))
        return Interpretation(reply, read.labels, read.operations, ())
    try:
        report = verifier.apply_turn(Turn(request.speaker, read.operations, request.utterance))
    except GcvError as error:
        return Interpretation(reply, read.labels, None, (error,))
    return Interpretation(reply, read.labels, read.operations, (), report)
