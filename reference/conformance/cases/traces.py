"""From a trace to a case: the scenarios, and the hook for counterexample traces.

:func:`case_from_trace` turns any ``gcv-trace/1`` document into a case: each
turn becomes an ``apply`` step (rejected where the trace says so), each of the
trace's expectations a query step whose stated answer must be the
reference's, and the case can survey every record after each turn and at the
end.  The built-in scenarios go through it (``scenarios/...``), and so can a
counterexample that ``proofs/`` decodes into a trace: ``gcv vectors
--import-trace FILE --id findings/proofs/NAME --statement "Lemma 2.2"`` adds
it to ``spec/vectors/findings/proofs.json``, where the generator keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from reference.conformance.cases.builder import CaseBuilder
from reference.conformance.vectors import SUITE_VERSION, Case
from reference.trace import Expectation, load_trace, operation_to_json

__all__ = ["FINAL_SURVEY", "TURN_SURVEY", "case_from_trace", "scenario_cases"]

TURN_SURVEY: tuple[str, ...] = ("verify",)
"""Asked about every record after each turn of a scenario's replay case."""

FINAL_SURVEY: tuple[str, ...] = (
    "standing",
    "verify",
    "affected",
    "affected_star",
    "affected_star_active",
    "dependencies",
    "attackers",
    "dissenters",
)
"""Asked about every record at the end of a scenario's final-state case."""


def _ask(b: CaseBuilder, e: Expectation) -> None:
    why = e.why
    match e.query:
        case "verify":
            stated: Any = e.expected
            if e.closure is not None:
                stated = {"grounded": e.expected, "closure": sorted(e.closure)}
            b.query("verify", e.subject, equals=stated, note=why)
        case "commitments":
            b.query("commitments", agent=e.subject, equals=e.expected, note=why)
        case "aware":
            b.query("aware", agent=e.subject, atom=e.atom, equals=e.expected, note=why)
        case _:
            b.query(e.query, e.subject, equals=e.expected, note=why)


def case_from_trace(
    text: str | bytes,
    case_id: str,
    description: str,
    statements: Sequence[str],
    *,
    origin: Mapping[str, Any],
    turn_survey: Sequence[str] = (),
    final_survey: Sequence[str] = (),
    expectations: bool = True,
    tags: Sequence[str] = (),
    added_in: str = SUITE_VERSION,
) -> Case:
    """A case that replays the ``gcv-trace/1`` document ``text`` against the reference.

    Parameters
    ----------
    text:
        The trace; it is validated (``reference.trace.load_trace``).
    case_id, description, statements, origin, tags, added_in:
        The case's metadata (``origin`` for a counterexample:
        ``{"kind": "proof", "obligation": ..., "twin": ...}``).
    turn_survey, final_survey:
        Queries asked about every record after each turn, and at the end
        (followed then by every agent's commitments and the state dump).
    expectations:
        Whether the trace's own expectations become query steps.

    Raises
    ------
    MalformedTrace
        The trace is not a valid ``gcv-trace/1`` document.
    CaseError
        The reference does not do what the trace states, or disagrees with the spec.
    """
    trace = load_trace(text)
    b = CaseBuilder(
        case_id,
        description,
        statements,
        agents=tuple(trace.agents),
        atoms=trace.atoms,
        tags=tags,
        origin=origin,
        added_in=added_in,
    )
    for t in trace.turns:
        operations = [operation_to_json(op) for op in t.turn.operations]
        b.apply(t.turn.speaker, *operations, rejected=t.rejected, note=t.why)
        for e in t.expectations if expectations else ():
            _ask(b, e)
        if turn_survey:
            b.survey(*turn_survey)
    for e in trace.expectations if expectations else ():
        _ask(b, e)
    if final_survey:
        b.survey(*final_survey)
        for agent in sorted(trace.agents):
            b.query("commitments", agent=agent)
        b.state()
    return b.build()


_SCENARIOS = {
    "phase2-debugging": (
        "Phase 2 (B.2)",
        "Phase 2, naturalistic debugging (B.2): h2 undermined at T7 and abandoned at T9, h4 "
        "reversing the causal direction at T12 and subsuming h1 and h3 at T13, and Section "
        "4.4's four retraction queries",
    ),
    "phase3-deliberation": (
        "Phase 3 (B.3)",
        "Phase 3, open-ended deliberation (B.3): a decision with dissent resting on three "
        "assumptions; when a3 flips, Affected*(a3) flags the Yjs decision and leaves the "
        "access-control resolution intact",
    ),
}


def scenario_cases() -> list[Case]:
    """Two cases per built-in scenario: the replay with the trace's expectations and Verify
    for every record after each turn, and the final state surveyed query by query."""
    cases = []
    for name, (statement, description) in _SCENARIOS.items():
        text = resources.files("spec").joinpath("scenarios", f"{name}.json").read_bytes()
        origin = {"kind": "scenario", "scenario": f"spec/scenarios/{name}.json"}
        statements = [statement, "Lemma 2.1", "Definition 2.3"]
        cases.append(
            case_from_trace(
                text,
                f"scenarios/{name}/replay",
                f"{description}: every expectation the trace states, turn by turn.",
                statements,
                origin=origin,
                turn_survey=TURN_SURVEY,
                tags=["scenario"],
            )
        )
        cases.append(
            case_from_trace(
                text,
                f"scenarios/{name}/final-state",
                f"{description}: the final map, every query about every record.",
                [statement, "Definition 2.1", "Corollary 2.4"],
                origin=origin,
                final_survey=FINAL_SURVEY,
                expectations=False,
                tags=["scenario"],
            )
        )
    return cases
