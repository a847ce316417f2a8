"""``gcv explore TRACE -o conversation.html``: one offline page that steps through the turns.

The page has one step before the first turn and one per turn offered, a rejected
turn included (with its error).  For every step it shows the map D_t, the turn's
text and operations, the renderer's summary (Section 3), and, where the trace has
an epistemic layer, |W_t| and each agent's beliefs and open abductive problems
(Definition A.2).  Each record shows its standing and whether the Verify walk
accepts it now (Lemma 2.1), as ``gcv draw`` does; clicking it shows its Affected*
(Definition 2.3) or its Verify walk.

Every answer is computed here, by the reference, and written into the page
as JSON; the page's script only shows them.  The page is built in one pass over
the turns: the map is laid out once, by Graphviz's ``dot``, with every record the
conversation ever has (Args_t only grows), and each step stores only what the turn
changed: the records and links it added, and the looks and answers of the records
whose Verify walk or Affected* it can change (those it touched, what they rest on,
and what rests on them).  The page loads nothing: its picture, style and script
are inline (``explorer.html`` is its template).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Mapping
from importlib import resources

import icontract

from gcv.draw import (
    BOX_LEGEND,
    NO_ONE_COMMITTED,
    draw_dot,
    find_highlight,
    look_of,
    people_line,
    render_image,
    status_line,
)
from gcv.history import initial_verifier, prefix
from gcv.mapview import add_trace_arguments, run_on_map, write_output
from gcv.reference.closure import names_of, reverse_closure
from gcv.reference.depmap import (
    AttackAdded,
    Change,
    Committed,
    DependencyAdded,
    DissentRecorded,
    RecordAdded,
    Retracted,
    StandingChanged,
)
from gcv.reference.errors import GcvError
from gcv.reference.records import GOOD_STANDING
from gcv.reference.render import render_turn
from gcv.reference.verifier import TurnReport, Verifier
from gcv.replay import Replay
from gcv.trace import Trace, TraceTurn

__all__ = ["explorer_page", "main", "record_view", "steps_of", "touched_by"]

_DATA_SLOT = "/*GCV-DATA*/null"
_STYLE_SLOT = "/*GCV-STYLE*/"


@icontract.ensure(
    lambda verifier, record, result: result["look"] == look_of(verifier.state, record),
    "the record looks as gcv draw draws it",
)
def record_view(verifier: Verifier, record: str, agents: Mapping[str, str]) -> dict[str, object]:
    """What the page shows of ``record`` now: its look, status and people lines, and its
    answers (Affected*, Definition 2.3; the Verify walk, Lemma 2.1)."""
    dmap = verifier.state
    affected = find_highlight(verifier, f"affected:{record}")
    walk = find_highlight(verifier, f"verify:{record}")
    return {
        "look": look_of(dmap, record),
        "status": status_line(dmap, record),
        "people": people_line(dmap, record, agents) or NO_ONE_COMMITTED,
        "affected": list(affected.marked),
        "affected_caption": affected.caption,
        "verify": list(walk.marked),
        "path": list(walk.path),
        "sentence": walk.caption,
    }


def _mentioned(change: Change) -> Iterable[str]:
    match change:
        case RecordAdded(record=record):
            yield record.id
        case StandingChanged(record=record) | Committed(record=record) | Retracted(record=record):
            yield record
        case DissentRecorded(record=record):
            yield record
        case DependencyAdded(record=record, support=support):
            yield from (record, support)
        case AttackAdded(attacker=attacker, target=target):
            yield from (attacker, target)


@icontract.ensure(
    lambda report, result: {r for c in report.changes for r in _mentioned(c)} <= set(result),
    "every record a change names",
)
def touched_by(verifier: Verifier, report: TurnReport) -> list[str]:
    """The records whose view (:func:`record_view`) the turn can have changed.

    A record's Verify walk reads Dep*(record) and the standing of its members, and its
    Affected* reads the records with a Dep path to it (Lemma 2.1, Definition 2.3); so
    the records a change names, with what they rest on and what rests on them, hold
    every record whose answers moved.
    """
    numbering = verifier.state.numbering
    touched = dict.fromkeys(r for change in report.changes for r in _mentioned(change))
    for record in list(touched):
        start = numbering.number[record]
        for links in (numbering.dependents, numbering.supports):
            touched.update(dict.fromkeys(names_of(reverse_closure(links, start), numbering.name)))
    return list(touched)


def _epistemic(verifier: Verifier, agents: Mapping[str, str]) -> dict[str, object] | None:
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


def _links_added(report: TurnReport) -> list[str]:
    links = [
        f"dep-{c.record}-{c.support}" for c in report.changes if isinstance(c, DependencyAdded)
    ]
    links += [
        f"attack-{c.attacker}-{c.target}" for c in report.changes if isinstance(c, AttackAdded)
    ]
    return links


def _broken_links(verifier: Verifier, records: Iterable[str]) -> dict[str, bool]:
    """Whether each Dep link into ``records`` now rests on a record out of standing."""
    dmap = verifier.state
    return {
        f"dep-{dependent}-{support}": dmap.standing[support] not in GOOD_STANDING
        for support in records
        for dependent in dmap.rdep.get(support, ())
    }


def _unchanged_step(number: int, accepted: int, speaker: str, text: str) -> dict[str, object]:
    """A step that changes nothing on the map (the start, or a rejected turn's so far)."""
    return {
        "number": number,
        "accepted": accepted,
        "speaker": speaker,
        "text": text,
        "operations": [],
        "rejected": None,
        "summary": [],
        "added": [],
        "links": [],
        "changed": [],
        "views": {},
        "broken": {},
    }


def _step(
    verifier: Verifier, trace_turn: TraceTurn, agents: Mapping[str, str], accepted: int
) -> dict[str, object]:
    """Apply one turn to ``verifier`` and return what changed on the page."""
    turn = trace_turn.turn
    speaker = agents.get(turn.speaker, turn.speaker)
    step = _unchanged_step(trace_turn.number, accepted, speaker, turn.text)
    step["operations"] = [op.name for op in turn.operations]
    try:
        report = verifier.apply_turn(turn)
    except GcvError as error:
        step["rejected"] = f"rejected: {error}"
        step["epistemic"] = _epistemic(verifier, agents)
        return step
    touched = touched_by(verifier, report)
    step["number"] = report.turn
    step["accepted"] = accepted + 1
    step["summary"] = render_turn(report, verifier.state, agents)
    step["added"] = [c.record.id for c in report.changes if isinstance(c, RecordAdded)]
    step["links"] = _links_added(report)
    step["changed"] = [
        r for r in dict.fromkeys(_mentioned_by_label(report.changes)) if r in verifier.state.records
    ]
    step["views"] = {record: record_view(verifier, record, agents) for record in touched}
    step["broken"] = _broken_links(verifier, touched)
    step["epistemic"] = _epistemic(verifier, agents)
    return step


def _mentioned_by_label(changes: Iterable[Change]) -> Iterable[str]:
    """The records a turn added or relabelled (outlined on the page)."""
    for change in changes:
        if isinstance(change, RecordAdded):
            yield change.record.id
        elif isinstance(change, StandingChanged):
            yield change.record


@icontract.ensure(
    lambda trace, result: len(result[0]) == len(trace.turns) + 1,
    "a step before the first turn, then one per turn offered, rejected ones included",
)
def steps_of(trace: Trace) -> tuple[list[dict[str, object]], Verifier]:
    """Every step of the page, in one pass over the turns, and the final verifier."""
    agents = dict(trace.agents)
    verifier = initial_verifier(trace)
    start = _unchanged_step(0, 0, "", "(before the first turn)")
    start["epistemic"] = _epistemic(verifier, agents)
    steps = [start]
    for trace_turn in trace.turns:
        accepted = steps[-1]["accepted"]
        assert isinstance(accepted, int)
        steps.append(_step(verifier, trace_turn, agents, accepted))
    return steps, verifier


def _style() -> str:
    """The page's fills by look, from the drawing's legend (:data:`gcv.draw.BOX_LEGEND`)."""
    return "\n".join(
        f"  #map g.node.look-{look} > path, #map g.node.look-{look} > polygon {{ fill: {fill}; }}"
        for look, (fill, _) in BOX_LEGEND.items()
    )


@icontract.require(
    lambda trace, start: (
        start is None or 0 <= start <= sum(t.rejected is None for t in trace.turns)
    ),
    "the page opens after one of the trace's accepted turns, or before the first",
)
@icontract.ensure(lambda result: _DATA_SLOT not in result, "the data is written into the page")
def explorer_page(trace: Trace, start: int | None = None) -> str:
    """The self-contained HTML page stepping through every turn of ``trace``.

    The page opens after the accepted turn numbered ``start`` (0: before the first
    turn; default: after the last turn offered).
    """
    steps, verifier = steps_of(trace)
    title = f"{trace.name}: every record of the conversation"
    graph = draw_dot(verifier.state, title=title, agents=dict(trace.agents), every_line=True)
    svg = render_image(graph, "svg").decode("utf-8")
    opening = len(steps) - 1
    if start is not None:
        opening = min(i for i, step in enumerate(steps) if step["accepted"] == start)
    data = {
        "name": trace.name,
        "description": trace.description,
        "start": opening,
        "svg": svg[svg.index("<svg") :],
        "steps": steps,
    }
    # Inside <script>, "</" could close the element early; JSON allows "<\/".
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    template = resources.files("gcv").joinpath("explorer.html").read_text("utf-8")
    return template.replace(_STYLE_SLOT, _style()).replace(_DATA_SLOT, payload)


def main(argv: list[str]) -> int:
    """See ``gcv explore --help``."""
    parser = argparse.ArgumentParser(prog="gcv explore", description=__doc__.split("\n\n")[0])
    add_trace_arguments(parser)
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    args = parser.parse_args(argv)
    at, args.at = args.at, None  # the page holds every turn; --at only says where it opens

    def explore(replayed: Replay) -> int:
        if at is not None:
            prefix(replayed.trace, at)  # an --at the trace does not reach is bad input
        write_output(explorer_page(replayed.trace, at), args.output)
        return 0

    return run_on_map(args, explore)
