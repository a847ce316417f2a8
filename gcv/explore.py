"""``gcv explore TRACE -o conversation.html``: one offline page that steps through the turns.

For every turn the page shows the map D_t (laid out by Graphviz's ``dot``,
with the records the turn added or relabelled outlined), the turn's text and
operations, the renderer's summary (Section 3), and, where the trace has an
epistemic layer, |W_t| and each agent's beliefs and open abductive problems
(Definition A.2).  Clicking a record shows its Affected* (Definition 2.3) or
its Verify walk (Lemma 2.1).

Every answer is computed here, by the reference, and written into the page
as JSON; the page's script only shows them.  The page loads nothing: its
pictures, style and script are inline (``explorer.html`` is its template).
"""

from __future__ import annotations

import argparse
import json
from importlib import resources

import icontract

from gcv.draw import draw_dot, find_highlight, render_image
from gcv.mapview import add_trace_arguments, map_at, run_on_map, write_output
from gcv.reference.depmap import RecordAdded, StandingChanged
from gcv.reference.render import render_turn
from gcv.reference.verifier import Verifier
from gcv.replay import Replay, TurnOutcome
from gcv.trace import Trace

__all__ = ["explorer_page", "main", "step_data"]

_DATA_SLOT = "/*GCV-DATA*/null"


def _answers(verifier: Verifier, record: str) -> dict[str, object]:
    affected = find_highlight(verifier, f"affected:{record}")
    walk = find_highlight(verifier, f"verify:{record}")
    return {
        "affected": list(affected.marked),
        "affected_caption": affected.caption,
        "verify": list(walk.marked),
        "path": list(walk.path),
        "sentence": walk.caption,
    }


def _epistemic(verifier: Verifier, agents: dict[str, str]) -> dict[str, object] | None:
    dmap = verifier.state
    if not dmap.atoms:
        return None
    minds = []
    for agent in dmap.agents:
        aware = sorted(dmap.awareness(agent))
        minds.append(
            {
                "agent": agents.get(agent, agent),
                "believes": [a for a in aware if verifier.believes(agent, a)],
                "disbelieves": [a for a in aware if verifier.believes(agent, f"~{a}")],
                "open": [f"{p.source}: {p.formula}" for p in verifier.unexplained(agent)],
            }
        )
    return {"worlds": dmap.model.size, "agents": minds}


def _changed(outcome: TurnOutcome) -> list[str]:
    if outcome.report is None:
        return []
    changed: dict[str, None] = {}
    for change in outcome.report.changes:
        if isinstance(change, RecordAdded):
            changed[change.record.id] = None
        elif isinstance(change, StandingChanged):
            changed[change.record] = None
    return list(changed)


@icontract.ensure(
    lambda replayed, result: set(result["records"]) == set(replayed.verifier.state.records),
    "every record of Args_t has its answers",
)
def step_data(replayed: Replay) -> dict[str, object]:
    """What the page shows after the last turn of ``replayed``: map, turn, summary, answers."""
    trace, verifier = replayed.trace, replayed.verifier
    outcome = replayed.turns[-1]
    turn = outcome.trace_turn
    dmap = verifier.state
    changed = _changed(outcome)
    title = f"{trace.name} at T{turn.number}"
    svg = render_image(draw_dot(dmap, changed=changed, title=title), "svg").decode("utf-8")
    agents = dict(trace.agents)
    return {
        "number": turn.number,
        "speaker": agents.get(turn.turn.speaker, turn.turn.speaker),
        "text": turn.turn.text,
        "operations": [op.operation.value for op in turn.turn.operations],
        "rejected": None if outcome.error is None else str(outcome.error),
        "summary": [] if outcome.report is None else render_turn(outcome.report, dmap, agents),
        "changed": changed,
        "svg": svg[svg.index("<svg") :],
        "records": {record: _answers(verifier, record) for record in dmap.records},
        "epistemic": _epistemic(verifier, agents),
    }


@icontract.require(lambda trace: len(trace.turns) > 0, "a trace with turns")
@icontract.require(
    lambda trace, start: start is None or start in {t.number for t in trace.turns},
    "the page opens at one of the trace's turns",
)
@icontract.ensure(lambda result: _DATA_SLOT not in result, "the data is written into the page")
def explorer_page(trace: Trace, start: int | None = None) -> str:
    """The self-contained HTML page stepping through every turn of ``trace``.

    The page opens at the turn numbered ``start`` (default: the first).
    """
    numbers = [t.number for t in trace.turns]
    steps = [step_data(map_at(trace, number)) for number in numbers]
    opening = 0 if start is None else numbers.index(start)
    data = {
        "name": trace.name,
        "description": trace.description,
        "start": opening,
        "steps": steps,
    }
    # Inside <script>, "</" could close the element early; JSON allows "<\/".
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    template = resources.files("gcv").joinpath("explorer.html").read_text("utf-8")
    return template.replace(_DATA_SLOT, payload)


def main(argv: list[str]) -> int:
    """See ``gcv explore --help``."""
    parser = argparse.ArgumentParser(prog="gcv explore", description=__doc__.split("\n\n")[0])
    add_trace_arguments(parser)
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    args = parser.parse_args(argv)

    def explore(replayed: Replay) -> int:
        write_output(explorer_page(replayed.trace, args.at), args.output)
        return 0

    return run_on_map(args, explore)
