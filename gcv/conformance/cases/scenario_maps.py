"""``core/scenario-maps``: a scenario's final map built by a conversation that makes no choice.

The scenario cases replay the traces as the papers tell them, and from T1 on their steps
depend on choices of the reference (a Question registers a record; evidence already in
the map supports another record).  Where the final map can be reached without any choice
(:func:`~gcv.conformance.cases.realise.trace_from_map` with ``paper_only``: no Dep
cycle, no weakened record), this case builds it that way and asks the final-state survey
of the scenario case about every record, so those checks are in the ``paper`` profile.
Phase 3's map qualifies; Phase 2's does not (h3 and h4 depend on each other).
"""

from __future__ import annotations

import json
from importlib import resources

from gcv.conformance.cases.realise import trace_from_map
from gcv.conformance.cases.traces import FINAL_SURVEY, case_from_trace
from gcv.conformance.session import Session
from gcv.conformance.statements import COR24, DEF23, LEMMA21, PHASE3, PROP23
from gcv.conformance.vectors import PROFILED_SUITE_VERSION, Case
from gcv.reference.depmap import DependencyMap
from gcv.trace import load_trace, operation_to_json
from gcv.translate import spec_map

__all__ = ["replayed_scenario", "scenario_map_cases"]

_PAPER_MAPS = (("phase3-deliberation", "Phase 3 (B.3)"),)


def replayed_scenario(name: str) -> tuple[Session, tuple[str, ...]]:
    """The scenario's conversation replayed on a session; its agents."""
    trace = load_trace(
        resources.files("gcv.spec").joinpath("scenarios", f"{name}.json").read_bytes()
    )
    session = Session()
    start = {"id": 0, "cmd": "start", "agents": list(trace.agents), "atoms": list(trace.atoms)}
    session.handle(start)
    for number, turn in enumerate(trace.turns, start=1):
        operations = [operation_to_json(op) for op in turn.turn.operations]
        request = {"cmd": "apply", "speaker": turn.turn.speaker, "operations": operations}
        session.handle({"id": number, **request})
    return session, tuple(trace.agents)


def _state(session: Session) -> DependencyMap:
    assert session.verifier is not None, "the scenario was replayed"
    return session.verifier.state


def scenario_map_cases() -> list[Case]:
    """One case per scenario whose final map a conversation without choices reaches."""
    cases = []
    for name, label in _PAPER_MAPS:
        session, agents = replayed_scenario(name)
        trace = trace_from_map(spec_map(_state(session)), name=name, agents=agents, paper_only=True)
        cases.append(
            case_from_trace(
                json.dumps(trace),
                f"core/scenario-maps/{name}",
                f"{label}'s final map (Args, Att, st, Dep), reached one operation a turn by "
                "operations that make no choice; every query of the scenario's final-state "
                "case about every record.",
                (PHASE3, LEMMA21, PROP23, DEF23, COR24),
                origin={"kind": "scenario", "scenario": f"spec/scenarios/{name}.json"},
                final_survey=FINAL_SURVEY,
                expectations=False,
                tags=["scenario"],
                added_in=PROFILED_SUITE_VERSION,
            )
        )
    return cases
