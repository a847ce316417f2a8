"""From a trace to a case: the scenarios, and the hook for counterexample traces.

:func:`case_from_trace` turns any ``gcv-trace/1`` document into a case: each
turn becomes an ``apply`` step (rejected where the trace says so), each of the
trace's expectations a query step whose stated answer must be the
reference's, and the case can survey every record after each turn and at the
end.  The built-in scenarios go through it (``scenarios/...``), and so can a
counterexample that ``proofs/`` decodes into a trace: ``gcv vectors
--import-trace FILE --id findings/proofs/NAME --statement "Lemma 2.2"`` adds
it to ``spec/gcv/spec/vectors/findings/proofs.json``, where the generator keeps it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.protocol import RECORD_QUERIES
from gcv.conformance.statements import (
    A1,
    A2,
    A3,
    COR24,
    DEF21,
    DEF23,
    LEMMA21,
    OBSERVE,
    PHASE1,
    PHASE2,
    PHASE3,
    UPDATES,
)
from gcv.conformance.vectors import EPISTEMIC_SUITE_VERSION, FIRST_SUITE_VERSION, Case
from gcv.progress import progress
from gcv.reference.epistemic.formula import show
from gcv.trace import Expectation, load_trace, operation_to_json

__all__ = ["FINAL_SURVEY", "TURN_SURVEY", "case_from_trace", "scenario_cases"]

TURN_SURVEY: tuple[str, ...] = ("verify",)
"""Asked about every record after each turn of a scenario's replay case."""

FINAL_SURVEY: tuple[str, ...] = RECORD_QUERIES
"""Asked about every record at the end of a scenario's final-state case."""


def _ask(b: CaseBuilder, e: Expectation) -> None:
    why = e.why
    at = None if e.at is None else sorted(e.at)
    formula = None if e.formula is None else show(e.formula)
    match e.query:
        case "holds":
            b.query("holds", formula=formula, at=at, equals=e.expected, note=why)
        case "knows" | "believes":
            given = None if e.given is None else show(e.given)
            b.query(
                e.query,
                agent=e.subject,
                formula=formula,
                given=given,
                at=at,
                equals=e.expected,
                note=why,
            )
        case "worlds":
            b.query("worlds", equals=e.expected, note=why)
        case "ordered":
            layers = [show(layer) for layer in e.layers]
            b.query("ordered", agent=e.subject, layers=layers, equals=e.expected, note=why)
        case "unexplained":
            b.query("unexplained", agent=e.subject, equals=e.expected, note=why)
        case "verify":
            stated: Any = e.expected
            if e.closure is not None:
                stated = {"grounded": e.expected, "closure": sorted(e.closure)}
            b.query("verify", e.subject, equals=stated, note=why)
        case "commitments":
            b.query("commitments", agent=e.subject, equals=e.expected, note=why)
        case "aware":
            b.query("aware", agent=e.subject, atom=e.atom, equals=e.expected, note=why)
        case "arguments":
            # The protocol has no Args_t query: the state dump lists every record.
            b.state(note=why)
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
    added_in: str = FIRST_SUITE_VERSION,
    epistemic_survey: bool = False,
) -> Case:
    """A case that replays the ``gcv-trace/1`` document ``text`` against the reference.

    Parameters
    ----------
    text:
        The trace; it is validated (``gcv.trace.load_trace``).
    case_id, description, statements, origin, tags, added_in:
        The case's metadata (``origin`` for a counterexample:
        ``{"kind": "proof", "obligation": ..., "twin": ...}``).
    turn_survey, final_survey:
        Queries asked about every record after each turn, and at the end
        (followed then by every agent's commitments and the state dump).
    expectations:
        Whether the trace's own expectations become query steps.
    epistemic_survey:
        With a turn survey, also ask W_t before the first turn and after each one; with
        the final survey, also every agent's open problems and whether it knows or
        believes each atom of Prop_t and its negation.

    Raises
    ------
    MalformedTrace
        The trace is not a valid ``gcv-trace/1`` document.
    CaseError
        The reference does not do what the trace states, or disagrees with the spec.
    """
    b = _turns(
        text,
        case_id,
        description,
        statements,
        origin=origin,
        turn_survey=turn_survey,
        expectations=expectations,
        tags=tags,
        added_in=added_in,
        epistemic_survey=epistemic_survey,
    )
    _finish(b, text, final_survey, expectations, epistemic_survey)
    return b.build()


def _turns(
    text: str | bytes,
    case_id: str,
    description: str,
    statements: Sequence[str],
    *,
    origin: Mapping[str, Any],
    turn_survey: Sequence[str],
    expectations: bool,
    tags: Sequence[str],
    added_in: str,
    epistemic_survey: bool,
) -> CaseBuilder:
    """The builder of :func:`case_from_trace`'s case after the trace's turns."""
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
        model=json.loads(text).get("model"),  # sent as declared; load_trace validated it
    )
    trajectory = epistemic_survey and bool(turn_survey)
    if trajectory:
        b.query("worlds", note="M_0")
    for t in trace.turns:
        operations = [operation_to_json(op) for op in t.turn.operations]
        b.apply(t.turn.speaker, *operations, rejected=t.rejected, note=t.why)
        for e in t.expectations if expectations else ():
            _ask(b, e)
        if turn_survey:
            b.survey(*turn_survey)
        if trajectory:
            b.query("worlds")
    return b


def _finish(
    b: CaseBuilder,
    text: str | bytes,
    final_survey: Sequence[str],
    expectations: bool,
    epistemic_survey: bool,
) -> None:
    """The end of :func:`case_from_trace`'s case: the trace's final expectations, and the
    final survey."""
    trace = load_trace(text)
    for e in trace.expectations if expectations else ():
        _ask(b, e)
    if final_survey:
        b.survey(*final_survey)
        for agent in sorted(trace.agents):
            b.query("commitments", agent=agent)
        b.state()
        if epistemic_survey:
            _survey_attitudes(b, sorted(trace.agents))


def _survey_attitudes(b: CaseBuilder, agents: Sequence[str]) -> None:
    """Every agent's open problems, and whether it knows or believes each atom of Prop_t and
    its negation."""
    assert b.session.verifier is not None, "a case always has a conversation"
    atoms = sorted(b.session.verifier.state.model.atoms)
    for agent in agents:
        b.query("unexplained", agent=agent)
        for atom in atoms:
            for query in ("knows", "believes"):
                b.query(query, agent=agent, formula=atom)
                b.query(query, agent=agent, formula=f"~{atom}")


@dataclass(frozen=True)
class _Scenario:
    """A built-in trace and what its two cases are about."""

    name: str
    description: str
    replay: tuple[str, ...]
    final: tuple[str, ...]
    added_in: str = FIRST_SUITE_VERSION
    epistemic: bool = False


_SCENARIOS = (
    _Scenario(
        "phase2-debugging",
        "Phase 2, naturalistic debugging (B.2): h2 undermined at T7 and abandoned at T9, h4 "
        "reversing the causal direction at T12 and subsuming h1 and h3 at T13, and Section "
        "4.4's four retraction queries",
        (PHASE2, LEMMA21, DEF23),
        (PHASE2, DEF21, COR24),
    ),
    _Scenario(
        "phase3-deliberation",
        "Phase 3, open-ended deliberation (B.3): a decision with dissent resting on three "
        "assumptions; when a3 flips, Affected*(a3) flags the Yjs decision and leaves the "
        "access-control resolution intact",
        (PHASE3, LEMMA21, DEF23),
        (PHASE3, DEF21, COR24),
    ),
    _Scenario(
        "phase1-muddy-children",
        "Phase 1, the muddy children (B.1) on a declared M_0 (each child sees the others): "
        "the father's announcement, the simultaneous 'I don't know' answers as epistemic "
        "formulas, the three answers as knowledge (K_a m_a, K_b m_b, K_c ~m_c); W_t goes "
        "8 -> 7 -> 4 -> 2 -> 1 -> 1 worlds, with B.1's "
        "knowledge facts at each step",
        (PHASE1, A1, UPDATES, OBSERVE),
        (PHASE1, A1, DEF21),
        added_in=EPISTEMIC_SUITE_VERSION,
        epistemic=True,
    ),
    _Scenario(
        "phase2-epistemic",
        "Phase 2 with its symbolic model (B.2): mis_monitor entering every A_i at T4, h1-worlds "
        "upgraded at T5, the orderings of T6 and T7, B_i ~h2 without K_i ~h2 after T7, K_i ~h2 "
        "after T9, every h4-world first after T12, and the abductive problems h1, h3 and h4 "
        "solve",
        (PHASE2, UPDATES, A2, A3, LEMMA21),
        (PHASE2, A1, A2, DEF21),
        added_in=EPISTEMIC_SUITE_VERSION,
        epistemic=True,
    ),
)


def scenario_cases(quiet: bool = True) -> list[Case]:
    """Two cases per built-in scenario: the replay with the trace's expectations and Verify
    for every record after each turn (and W_t, for the epistemic scenarios), and the final
    state surveyed query by query.  Unless ``quiet``, a bar on a terminal stderr counts the
    scenarios (the slow part of ``gcv vectors``)."""
    cases = []
    for s in progress(_SCENARIOS, "scenario vectors", quiet=quiet):
        text = resources.files("gcv.spec").joinpath("scenarios", f"{s.name}.json").read_bytes()
        origin = {"kind": "scenario", "scenario": f"spec/scenarios/{s.name}.json"}
        replay = _turns(
            text,
            f"scenarios/{s.name}/replay",
            f"{s.description}: every expectation the trace states, turn by turn.",
            s.replay,
            origin=origin,
            turn_survey=TURN_SURVEY,
            expectations=True,
            tags=["scenario"],
            added_in=s.added_in,
            epistemic_survey=s.epistemic,
        )
        # The same turns, without the queries between them: the final state is the replay's.
        final = replay.fork(
            f"scenarios/{s.name}/final-state",
            f"{s.description}: the final map, every query about every record.",
            s.final,
        )
        _finish(replay, text, (), expectations=True, epistemic_survey=s.epistemic)
        _finish(final, text, FINAL_SURVEY, expectations=False, epistemic_survey=s.epistemic)
        cases += [replay.build(), final.build()]
    return cases
