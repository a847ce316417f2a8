"""The classification experiment of Table 2: score an interpreter against a trace's gold operations.

For each utterance of a trace the interpreter is asked for operations; the
labels it names are compared with the labels of the operations the trace
records (the gold), by :func:`~gcv.interpret.metrics.score`.  Two rows:

``classified``
    the labels the reply names, whether or not its operations would apply
    (Section 3's step 1, operation classification, which Table 2 reports);
``applied``
    the labels of the operations that passed validation and the engine's
    preconditions, an empty set for a refused reply (what reaches D_t).

Each row is scored over all turns and over the *key shifts*: the turns whose
gold operations change some record's standing label or some agent's awareness
set (Section 4.1), read off the engine's change journal.

The interpreter reads D_t as the renderer writes it, at checkpoints (every
``checkpoint_every`` turns, from the first).  With ``state=StateSource.GOLD``
D_t follows the gold operations, so each turn is scored against the true
state and an early error does not spill into later turns; with
``StateSource.OWN`` it follows the interpreter's own accepted operations, as
a deployed verifier would.  Choices and reasons: ``docs/interpreter.md`` and
``spec/gcv/spec/normative.md`` ("Interpreter evaluation").
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import icontract

from gcv.errors import EndpointError
from gcv.interpret.metrics import Scores, score
from gcv.interpret.protocol import Interpreter, Request
from gcv.interpret.turn import interpret_turn
from gcv.progress import progress
from gcv.reference.depmap import AwarenessGained, StandingChanged
from gcv.reference.errors import GcvError
from gcv.reference.identifiers import AgentId
from gcv.reference.render import render_checkpoint
from gcv.reference.verifier import Turn, TurnReport, Verifier
from gcv.trace import Trace

__all__ = ["ROWS", "Evaluation", "StateSource", "TurnResult", "evaluate", "is_key_shift"]

ROWS = ("classified", "applied")
"""The two ways a reply's labels are scored (see the module docstring)."""


class StateSource(enum.Enum):
    """Whose operations build the D_t the interpreter reads."""

    GOLD = "gold"
    """The trace's operations (each turn scored against the true state)."""
    OWN = "own"
    """The interpreter's own accepted operations (end to end)."""


def is_key_shift(report: TurnReport) -> bool:
    """Check whether a turn changed some record's standing or some agent's awareness set.

    A newly registered record is not a standing change: it enters labelled
    active and no existing label moved.

    >>> from gcv.reference.operations import ExpandAwareness, Observe
    >>> v = Verifier(["a"])
    >>> is_key_shift(v.apply_turn(Turn("a", (Observe("o1", "401s"),))))
    False
    >>> is_key_shift(v.apply_turn(Turn("a", (ExpandAwareness("mis_monitor"),))))
    True
    """
    return any(isinstance(c, StandingChanged | AwarenessGained) for c in report.changes)


@dataclass(frozen=True, slots=True)
class TurnResult:
    """One utterance scored.

    ``problems`` says why the reply was refused (empty when accepted); an
    endpoint failure (with ``keep_going``) leaves ``reply`` ``None``.
    """

    position: int
    speaker: AgentId
    utterance: str
    gold: frozenset[str]
    classified: frozenset[str]
    applied: frozenset[str]
    key_shift: bool
    checkpoint: bool
    reply: str | None
    problems: tuple[GcvError, ...]
    attempts: int
    # The endpoint's reported usage for the turn's requests; None when not reported.
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    @property
    def number(self) -> int:
        """T_n, the 1-based position."""
        return self.position + 1

    @property
    def accepted(self) -> bool:
        """The reply arrived and every operation of it applies."""
        return self.reply is not None and not self.problems

    def labels(self, row: str) -> frozenset[str]:
        """The predicted labels of ``row`` (``classified`` or ``applied``)."""
        if row not in ROWS:
            raise ValueError(f"row {row!r} is not one of {ROWS}")
        return self.classified if row == "classified" else self.applied


@dataclass(frozen=True, slots=True)
class Evaluation:
    """An interpreter scored on one trace: the settings and every turn."""

    trace: str
    interpreter: dict[str, str]
    state: StateSource
    checkpoint_every: int
    turns: tuple[TurnResult, ...]

    @property
    def key_shifts(self) -> tuple[int, ...]:
        """The numbers T_n of the key-shift turns."""
        return tuple(t.number for t in self.turns if t.key_shift)

    def tokens(self) -> tuple[int | None, int | None]:
        """Prompt and completion tokens over the run, as the endpoint reported them.

        Each is None when no turn reported it (a native run, or a server that
        sends no usage).
        """

        def total(counts: list[int | None]) -> int | None:
            known = [c for c in counts if c is not None]
            return sum(known) if known else None

        return (
            total([t.prompt_tokens for t in self.turns]),
            total([t.completion_tokens for t in self.turns]),
        )

    def scores(self, row: str, *, key_shifts_only: bool = False) -> Scores:
        """Micro-F1 and exact-match counts of ``row``, over all turns or the key shifts."""
        turns = [t for t in self.turns if t.key_shift or not key_shifts_only]
        return score([(t.gold, t.labels(row)) for t in turns])

    def as_dict(self) -> dict[str, object]:
        """The evaluation as plain JSON data (settings, scores, and every turn)."""

        def cell(s: Scores) -> dict[str, object]:
            return {
                "f1": s.f1,
                "exact_match": s.exact_match,
                "turns": s.turns,
                "exact": s.exact,
                "tp": s.true_positives,
                "fp": s.false_positives,
                "fn": s.false_negatives,
            }

        return {
            "trace": self.trace,
            "interpreter": self.interpreter,
            "state": self.state.value,
            "checkpoint_every": self.checkpoint_every,
            "key_shifts": list(self.key_shifts),
            "tokens": dict(zip(("prompt", "completion"), self.tokens(), strict=True)),
            "scores": {
                row: {
                    "overall": cell(self.scores(row)),
                    "key_shifts": cell(self.scores(row, key_shifts_only=True)),
                }
                for row in ROWS
            },
            "turns": [
                {
                    "turn": t.number,
                    "speaker": t.speaker,
                    "gold": sorted(t.gold),
                    "classified": sorted(t.classified),
                    "applied": sorted(t.applied),
                    "key_shift": t.key_shift,
                    "checkpoint": t.checkpoint,
                    "accepted": t.accepted,
                    "attempts": t.attempts,
                    "prompt_tokens": t.prompt_tokens,
                    "completion_tokens": t.completion_tokens,
                    "problems": [p.as_dict() for p in t.problems],
                    "reply": t.reply,
                }
                for t in self.turns
            ],
        }


def _commit(verifier: Verifier, turn: Turn) -> TurnReport:
    """Apply ``turn``, or, if the engine refuses it, an empty turn by the same speaker.

    The utterance was made either way; counting it keeps T_n in the rendered
    state equal to the conversation's n-th utterance.
    """
    try:
        return verifier.apply_turn(turn)
    except GcvError:
        return verifier.apply_turn(Turn(turn.speaker, (), turn.text))


def _is_complete(trace: Trace, result: Evaluation) -> bool:
    return [t.position for t in result.turns] == list(range(len(trace.turns)))


def _applied_only_if_accepted(turns: Sequence[TurnResult]) -> bool:
    return all(t.applied == (t.classified if t.accepted else frozenset()) for t in turns)


@icontract.require(lambda checkpoint_every: checkpoint_every >= 1, "a checkpoint interval >= 1")
@icontract.ensure(
    lambda trace, result: _is_complete(trace, result), "one result per utterance, in order"
)
@icontract.ensure(
    lambda result: _applied_only_if_accepted(result.turns),
    "only an accepted reply's labels reach the applied row",
)
def evaluate(
    trace: Trace,
    interpreter: Interpreter,
    *,
    state: StateSource = StateSource.GOLD,
    checkpoint_every: int = 1,
    keep_going: bool = False,
    quiet: bool = True,
) -> Evaluation:
    """Score ``interpreter`` on ``trace``'s gold operations (Table 2).

    Parameters
    ----------
    trace:
        A trace whose turns carry gold operations (Phases 2 and 3 do).
    interpreter:
        Asked once per utterance, in order.
    state:
        Whose operations build the D_t the interpreter reads.
    checkpoint_every:
        The rendered state goes with turns T1, T(1+k), T(1+2k), ...
    keep_going:
        On an endpoint failure, record it for that turn (scored as predicting
        nothing) and go on, instead of stopping.
    quiet:
        Draw no bar of the utterances asked so far (one is drawn on a terminal
        stderr otherwise).

    Raises
    ------
    EndpointError
        The endpoint failed and ``keep_going`` is false.

    Examples
    --------
    >>> from importlib import resources
    >>> from gcv.interpret.native import NativeInterpreter
    >>> from gcv.trace import load_trace
    >>> path = resources.files("gcv.spec").joinpath("scenarios", "phase2-debugging.json")
    >>> phase2 = load_trace(path.read_bytes())
    >>> result = evaluate(phase2, NativeInterpreter(phase2))
    >>> s = result.scores("applied")
    >>> s.f1, s.exact_match, result.key_shifts
    (1.0, 1.0, (4, 7, 9, 13))
    """
    agents = trace.agents
    gold = Verifier(list(agents), list(trace.atoms))
    own = Verifier(list(agents), list(trace.atoms)) if state is StateSource.OWN else None
    seen = own or gold
    since_checkpoint: list[TurnReport] = []
    history: list[tuple[AgentId, str]] = []
    results: list[TurnResult] = []
    asked = progress(trace.turns, "utterances", quiet=quiet)
    for position, trace_turn in enumerate(asked):
        turn = trace_turn.turn
        checkpoint = position % checkpoint_every == 0
        rendered = None
        if checkpoint:
            rendered = "\n".join(render_checkpoint(since_checkpoint, seen.state, agents))
            since_checkpoint = []
        request = Request(position, turn.speaker, turn.text, agents, tuple(history), rendered)
        reply: str | None = None
        labels, applied = frozenset[str](), frozenset[str]()
        problems: tuple[GcvError, ...] = ()
        attempts = 0
        usage: tuple[int | None, int | None] = (None, None)
        own_report = None
        try:
            outcome = interpret_turn(interpreter, seen, request, commit=own is not None)
        except EndpointError as error:
            if not keep_going:
                raise
            problems = (error,)
        else:
            reply, labels, problems = outcome.reply.text, outcome.labels, outcome.problems
            attempts, own_report = outcome.reply.attempts, outcome.report
            usage = (outcome.reply.prompt_tokens, outcome.reply.completion_tokens)
            applied = labels if outcome.accepted else frozenset()
        gold_report = _commit(gold, turn)
        if own is not None and own_report is None:
            own_report = own.apply_turn(Turn(turn.speaker, (), turn.text))
        since_checkpoint.append(own_report or gold_report)
        result = TurnResult(
            position=position,
            speaker=turn.speaker,
            utterance=turn.text,
            gold=frozenset(op.name for op in turn.operations),
            classified=labels,
            applied=applied,
            key_shift=is_key_shift(gold_report),
            checkpoint=checkpoint,
            reply=reply,
            problems=problems,
            attempts=attempts,
            prompt_tokens=usage[0],
            completion_tokens=usage[1],
        )
        results.append(result)
        history.append((turn.speaker, turn.text))
    return Evaluation(
        trace=trace.name,
        interpreter=interpreter.describe(),
        state=state,
        checkpoint_every=checkpoint_every,
        turns=tuple(results),
    )
