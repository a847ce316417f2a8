"""Replay a trace through a fresh Verifier and check every expectation it states."""

from __future__ import annotations

from dataclasses import dataclass

import icontract

from gcv.history import initial_verifier
from gcv.reference.errors import GcvError
from gcv.reference.verifier import TurnReport, Verifier
from gcv.trace import Expectation, Trace, TraceTurn

__all__ = ["Check", "Replay", "TurnOutcome", "evaluate", "replay"]


@dataclass(frozen=True, slots=True)
class Check:
    """An expectation, what the verifier answered, and whether they agree."""

    expectation: Expectation
    actual: object
    ok: bool


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """One trace turn replayed: its report or its error, and its checks."""

    trace_turn: TraceTurn
    report: TurnReport | None
    error: GcvError | None
    checks: tuple[Check, ...]

    @property
    def handled_as_expected(self) -> bool:
        """The turn was accepted, or rejected with the error code, as the trace says."""
        expected = self.trace_turn.rejected
        if expected is None:
            return self.error is None
        return self.error is not None and self.error.code == expected

    @property
    def ok(self) -> bool:
        """The turn was handled as the trace says, and every check holds."""
        return self.handled_as_expected and all(c.ok for c in self.checks)


@dataclass(frozen=True, slots=True)
class Replay:
    """A whole trace replayed."""

    trace: Trace
    verifier: Verifier
    turns: tuple[TurnOutcome, ...]
    final: tuple[Check, ...]

    @property
    def checks(self) -> tuple[Check, ...]:
        """Every check, turn by turn, then the final ones."""
        return tuple(c for t in self.turns for c in t.checks) + self.final

    @property
    def failures(self) -> int:
        """How many checks failed, plus how many turns were not handled as expected."""
        mishandled = sum(not t.handled_as_expected for t in self.turns)
        return mishandled + sum(not c.ok for c in self.checks)

    @property
    def ok(self) -> bool:
        """Every turn and every check agrees with the trace."""
        return self.failures == 0


def evaluate(verifier: Verifier, expectation: Expectation) -> Check:
    """Ask ``verifier`` the expectation's query and compare (sets without order).

    A query about an unknown record or agent answers with the error's code.
    """
    e = expectation
    subject = e.subject
    actual: object
    try:
        match e.query:
            case "verify":
                grounding = verifier.verify(subject)
                actual = {
                    "grounded": grounding.grounded,
                    "closure": sorted(grounding.closure),
                    "witness": grounding.witness,
                    "path": list(grounding.path),
                }
                ok = grounding.grounded == e.expected and (
                    e.closure is None or e.closure == frozenset(grounding.closure)
                )
                return Check(e, actual, ok)
            case "arguments":
                actual = frozenset(verifier.state.records)
            case "standing":
                assert subject is not None, "the schema requires a record"
                actual = verifier.standing(subject).value
            case "aware":
                assert subject is not None and e.atom is not None, "the schema requires both"
                actual = verifier.is_aware(subject, e.atom)
            case "commitments":
                assert subject is not None, "the schema requires an agent"
                actual = frozenset(verifier.commitments(subject))
            case "holds" | "knows" | "believes" | "worlds" | "ordered" | "unexplained":
                actual = _epistemic(verifier, e)
            case _:
                assert subject is not None, "the schema requires a record"
                actual = frozenset(_record_set(verifier, e.query, subject))
    except GcvError as error:
        return Check(e, f"error: {error.code}", False)
    return Check(e, actual, actual == e.expected)


def _epistemic(verifier: Verifier, e: Expectation) -> object:
    """The answer to an epistemic expectation (M_t's queries)."""
    match e.query:
        case "worlds":
            worlds = verifier.worlds()
            return len(worlds) if isinstance(e.expected, int) else frozenset(worlds)
        case "unexplained":
            return frozenset(p.source for p in verifier.unexplained(e.subject))
        case "ordered":
            assert e.subject is not None, "the schema requires an agent"
            return verifier.is_ordered(e.subject, e.layers)
    assert e.formula is not None, "the schema requires a formula"
    match e.query:
        case "knows":
            assert e.subject is not None, "the schema requires an agent"
            return verifier.knows(e.subject, e.formula, at=e.at)
        case "believes":
            assert e.subject is not None, "the schema requires an agent"
            return verifier.believes(e.subject, e.formula, given=e.given, at=e.at)
    return verifier.holds(e.formula, at=e.at)


def _record_set(verifier: Verifier, query: str, record: str) -> tuple[str, ...]:
    match query:
        case "affected":
            return verifier.affected(record)
        case "affected_star":
            return verifier.affected_star(record)
        case "affected_star_active":
            return verifier.affected_star_active(record)
        case "dependencies":
            return verifier.dependencies(record)
        case "attackers":
            return verifier.attackers(record)
        case "dissenters":
            return verifier.dissenters(record)
    raise AssertionError(f"query {query!r} is not in the schema")


def _replay_turn(verifier: Verifier, trace_turn: TraceTurn) -> TurnOutcome:
    # A digest is O(|D_t|), so one per turn makes replay quadratic: it is a costly
    # check of the engine's all-or-nothing turn, taken only under icontract.SLOW (the tests).
    before = verifier.state.digest() if icontract.SLOW else None
    report: TurnReport | None = None
    error: GcvError | None = None
    try:
        report = verifier.apply_turn(trace_turn.turn)
    except GcvError as caught:
        error = caught
        # A rejected turn must leave D_t exactly as it was.
        if before is not None and verifier.state.digest() != before:
            raise RuntimeError(f"turn {trace_turn.number} was rejected but changed D_t") from caught
    checks = tuple(evaluate(verifier, e) for e in trace_turn.expectations)
    return TurnOutcome(trace_turn, report, error, checks)


def replay(trace: Trace) -> Replay:
    """Replay ``trace`` from an empty map, checking after each turn and at the end."""
    verifier = initial_verifier(trace)
    turns = tuple(_replay_turn(verifier, t) for t in trace.turns)
    final = tuple(evaluate(verifier, e) for e in trace.expectations)
    return Replay(trace, verifier, turns, final)
