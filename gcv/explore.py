"""``gcv explore TRACE -o conversation.html``: one offline page that steps through the turns.

The page has one step before the first turn and one per turn offered, a rejected
turn included (with its error).  For every step it shows the map D_t, the turn's
text and operations, the renderer's summary (Section 3), and, where the trace has
an epistemic layer, |W_t| and each agent's beliefs and open abductive problems
(Definition A.2).  Each record shows its standing and whether the Verify walk
accepts it now (Lemma 2.1), as ``gcv draw`` does; clicking it shows its Affected*
(Definition 2.3) or its Verify walk.

Every answer is computed here, by the reference, and written into the page as JSON;
the page's script only puts the steps together and shows them.  The map is laid out
once (by Graphviz's ``dot`` or graphviz-pure, :mod:`gcv.layout`), with every record the
conversation ever has (Args_t only grows).  The page is built in one pass over the
turns, and each step holds only what its turn changed, so the page grows with what the
conversation changes rather than with the square of its length:

- the records and links the turn added, and the Dep links whose support it moved out
  of S_t;
- each record whose look, lines or Verify walk the turn changed, with the fields that
  changed (:func:`changed_views`);
- the members Affected* gained (:func:`affected_growth`): Args_t and Dep only grow, so
  Affected* only grows, and the page keeps its members as a set;
- |W_t|, the beliefs and the open problems, when they changed.

The page's script (``explorer.html``, its template; ``stateAt``) replays the steps up to
the one shown.  The page loads nothing: its picture, style and script are inline.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources

import icontract

from gcv.draw import (
    BOX_LEGEND,
    NO_ONE_COMMITTED,
    affected_caption,
    draw_dot,
    find_highlight,
    look_of,
    people_line,
    render_image,
    status_line,
)
from gcv.history import initial_verifier, prefix
from gcv.layout import MISSING, find_layout_program
from gcv.mapview import (
    GROUNDED,
    add_trace_arguments,
    grounding_of,
    rejection_unmarked,
    run_on_trace,
    write_output,
)
from gcv.options import EXIT_BAD_INPUT
from gcv.reference.closure import names_of, reverse_closure
from gcv.reference.depmap import (
    AttackAdded,
    Committed,
    DependencyAdded,
    DissentRecorded,
    ModelReplaced,
    RecordAdded,
    Retracted,
    StandingChanged,
)
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.errors import GcvError
from gcv.reference.records import GOOD_STANDING
from gcv.reference.render import render_turn
from gcv.reference.verifier import TurnReport, Verifier
from gcv.trace import Trace, TraceTurn

__all__ = [
    "affected_growth",
    "changed_views",
    "explorer_page",
    "main",
    "record_view",
    "steps_of",
    "walk_view",
]

_DATA_SLOT = "/*GCV-DATA*/null"
_STYLE_SLOT = "/*GCV-STYLE*/"
_TITLE_SLOT = "<!--GCV-TITLE-->"


@icontract.ensure(
    lambda verifier, record, result: result["look"] == look_of(verifier.state, record),
    "the record looks as gcv draw draws it",
    enabled=icontract.SLOW,  # a second Verify walk: O(|Dep*(record)|), not the answer's size
)
def walk_view(verifier: Verifier, record: str, agents: Mapping[str, str]) -> dict[str, object]:
    """What the page shows of ``record`` now but its Affected*: its look, status and
    people lines, and its Verify walk (Lemma 2.1) with the walk's sentence."""
    dmap = verifier.state
    walk = find_highlight(verifier, f"verify:{record}")
    # A rejecting walk has a path to its witness out of S_t; an accepting one none.
    grounding = grounding_of(dmap, record) if walk.path else GROUNDED
    return {
        "look": look_of(dmap, record, grounding),
        "status": status_line(dmap, record, grounding),
        "people": people_line(dmap, record, agents) or NO_ONE_COMMITTED,
        "verify": list(walk.marked),
        "path": list(walk.path),
        "sentence": walk.caption,
    }


def record_view(verifier: Verifier, record: str, agents: Mapping[str, str]) -> dict[str, object]:
    """Everything the page shows of ``record`` now: :func:`walk_view`, with Affected*
    (Definition 2.3) as a sorted list (the page marks it as a set) and its caption."""
    affected = sorted(verifier.affected_star(record))
    return {
        **walk_view(verifier, record, agents),
        "affected": affected,
        "affected_caption": affected_caption(record, affected),
    }


def _dep_star(verifier: Verifier, record: str) -> tuple[str, ...]:
    """Dep*(record) without ``record`` (unless on a cycle): the records it rests on,
    whatever their standing."""
    n = verifier.state.numbering
    return names_of(reverse_closure(n.supports, n.number[record]), n.name)


@dataclass
class _Shown:
    """What the steps so far give the page: each record's :func:`walk_view`, its
    Affected*, and the last epistemic section (the page's script holds the same)."""

    views: dict[str, dict[str, object]] = field(default_factory=dict)
    # Ordered sets (dicts), so the page is the same whatever PYTHONHASHSEED.
    affected: dict[str, dict[str, None]] = field(default_factory=dict)
    model: PlausibilityModel | None = None
    beliefs: list[dict[str, object]] = field(default_factory=list)
    epistemic: dict[str, object] | None = None


def _new_links(report: TurnReport) -> list[DependencyAdded]:
    return [c for c in report.changes if isinstance(c, DependencyAdded)]


def _added(report: TurnReport) -> list[str]:
    return [c.record.id for c in report.changes if isinstance(c, RecordAdded)]


@icontract.ensure(
    lambda verifier, report, affected, result: all(
        set(members).isdisjoint(affected.get(record, ())) for record, members in result.items()
    ),
    "only new members",
)
def affected_growth(
    verifier: Verifier, report: TurnReport, affected: Mapping[str, Collection[str]]
) -> dict[str, list[str]]:
    """The members Affected* (Definition 2.3) gained in the turn of ``report``, by record,
    for the records before it; ``affected`` is each one's Affected* before the turn.

    Args_t and Dep only grow, so a record z that reaches y only now does so by a path
    with a new link on it; let (a, s) be the first.  Before it the path is old, so z is
    a or was in Affected*(a) (a record the turn added had no link to it), and after it
    s reaches y now.  Conversely each such z reaches such a y now.  So the records that
    gained are those of {s} | Dep*(s) for a new link (a, s), read after the turn, and
    each gained what it lacked of {a} | Affected*(a), read before the turn.
    """
    added = set(_added(report))
    growth: dict[str, dict[str, None]] = {}

    def grow(sources: Collection[str], ends: Iterable[str]) -> None:
        for end in ends:
            if end not in added:
                before = affected[end]
                found = growth.setdefault(end, {})
                found.update((a, None) for a in sources if a not in before)

    links = _new_links(report)
    for record in dict.fromkeys(link.record for link in links if link.record in added):
        # Each link of a new record is new: one walk covers them all.
        grow((record,), _dep_star(verifier, record))
    for link in links:
        if link.record not in added:
            sources = (link.record, *affected[link.record])
            grow(sources, (link.support, *_dep_star(verifier, link.support)))
    return {record: list(members) for record, members in growth.items() if members}


def _walks_changed(verifier: Verifier, report: TurnReport) -> dict[str, None]:
    """The records whose :func:`walk_view` the turn can have changed.

    A record's look, lines and Verify walk read its own standing, its people, Dep*(record)
    and the standing of its members (Lemma 2.1).  So: the records the turn added or
    (un)committed or relabelled; those with a Dep path to a record that left S_t or
    changed its label outside it (Affected*, Definition 2.3); and those whose Dep* a new
    link grew ({a} | Affected*(a) for a new link (a, s)).
    """
    changed: dict[str, None] = dict.fromkeys(_added(report))
    for change in report.changes:
        match change:
            case Committed(record=record) | Retracted(record=record):
                changed[record] = None
            case DissentRecorded(record=record):
                changed[record] = None
            case StandingChanged(record=record, after=after):
                changed[record] = None
                if after not in GOOD_STANDING:  # between good labels, Dep*'s walks keep
                    changed.update(dict.fromkeys(verifier.affected_star(record)))
            case DependencyAdded(record=record):
                changed[record] = None
                changed.update(dict.fromkeys(verifier.affected_star(record)))
    return changed


def changed_views(
    verifier: Verifier,
    report: TurnReport,
    agents: Mapping[str, str],
    views: Mapping[str, Mapping[str, object]],
) -> dict[str, dict[str, object]]:
    """The fields of :func:`walk_view` the turn of ``report`` changed, by record (every
    field of a record it added); ``views`` are the records' views before the turn."""
    found = {}
    for record in _walks_changed(verifier, report):
        now = walk_view(verifier, record, agents)
        before = views.get(record, {})
        fields = {key: value for key, value in now.items() if before.get(key) != value}
        if fields:
            found[record] = fields
    return found


def _beliefs(verifier: Verifier, agents: Mapping[str, str]) -> list[dict[str, object]]:
    """Each agent's beliefs about the atoms it is aware of: they read M_t alone."""
    dmap = verifier.state
    minds: list[dict[str, object]] = []
    for agent in dmap.agents:
        aware = sorted(dmap.awareness(agent))
        minds.append(
            {
                "agent": agents.get(agent, agent),
                "believes": [a for a in aware if verifier.believes(agent, a)],
                "disbelieves": [a for a in aware if verifier.believes(agent, f"~{a}")],
            }
        )
    return minds


def _epistemic(
    verifier: Verifier, agents: Mapping[str, str], shown: _Shown
) -> dict[str, object] | None:
    """|W_t|, and each agent's beliefs and open problems (Definition A.2); the beliefs are
    computed again only when M_t is another model."""
    dmap = verifier.state
    if not dmap.atoms:
        return None
    if dmap.model is not shown.model:
        shown.model, shown.beliefs = dmap.model, _beliefs(verifier, agents)
    minds = [
        {**mind, "open": [f"{p.source}: {p.formula}" for p in verifier.unexplained(agent)]}
        for agent, mind in zip(dmap.agents, shown.beliefs, strict=True)
    ]
    return {"worlds": dmap.model.size, "agents": minds}


def _left_or_joined(change: StandingChanged) -> bool:
    return (change.before in GOOD_STANDING) != (change.after in GOOD_STANDING)


def _broken_links(verifier: Verifier, report: TurnReport) -> dict[str, bool]:
    """Whether each Dep link the turn added, or whose support it relabelled in or out of
    S_t, now rests on a record out of standing."""
    dmap = verifier.state
    links = {(link.record, link.support) for link in _new_links(report)}
    for change in report.changes:
        if isinstance(change, StandingChanged) and _left_or_joined(change):
            links.update((d, change.record) for d in dmap.rdep.get(change.record, ()))
    return {
        f"dep-{dependent}-{support}": dmap.standing[support] not in GOOD_STANDING
        for dependent, support in sorted(links)
    }


def _links_added(report: TurnReport) -> list[str]:
    links = [f"dep-{c.record}-{c.support}" for c in _new_links(report)]
    links += [
        f"attack-{c.attacker}-{c.target}" for c in report.changes if isinstance(c, AttackAdded)
    ]
    return links


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
        "affected": {},
        "broken": {},
    }


def _relabelled(report: TurnReport) -> list[str]:
    """The records the turn added or relabelled (outlined on the page)."""
    changed = [c.record for c in report.changes if isinstance(c, StandingChanged)]
    return list(dict.fromkeys([*_added(report), *changed]))


def _step(
    verifier: Verifier, trace_turn: TraceTurn, agents: Mapping[str, str], shown: _Shown
) -> dict[str, object]:
    """Apply one turn to ``verifier``; return what it changed on the page, and add that to
    ``shown``.  The key ``epistemic`` is there only when that section changed."""
    turn = trace_turn.turn
    accepted = verifier.state.turn
    step = _unchanged_step(
        trace_turn.number, accepted, agents.get(turn.speaker, turn.speaker), turn.text
    )
    step["operations"] = [op.name for op in turn.operations]
    try:
        report = verifier.apply_turn(turn)
    except GcvError as error:
        if trace_turn.rejected is None:
            raise rejection_unmarked(trace_turn, error) from error
        step["rejected"] = f"rejected: {error}"
        return step  # D_t as it was, and so M_t
    step["number"] = report.turn
    step["accepted"] = accepted + 1
    step["summary"] = render_turn(report, verifier.state, agents)
    step["added"] = added = _added(report)
    step["links"] = _links_added(report)
    step["changed"] = _relabelled(report)
    views = changed_views(verifier, report, agents, shown.views)
    growth = affected_growth(verifier, report, shown.affected)
    for record in added:
        # A new record's Affected* whole: only links the turn added can reach it.
        growth[record] = list(verifier.affected_star(record))
        shown.affected[record] = {}
    for record, fields in views.items():
        shown.views.setdefault(record, {}).update(fields)
    for record, members in growth.items():
        shown.affected[record].update(dict.fromkeys(members))
    step["views"], step["affected"] = views, {r: m for r, m in growth.items() if m}
    step["broken"] = _broken_links(verifier, report)
    # M_t and its problem queue change only by a ModelReplaced, and a problem is open while
    # no hypothesis that solved it is in S_t (Definition A.2): only a label can reopen it.
    if any(isinstance(c, ModelReplaced | StandingChanged) for c in report.changes):
        epistemic = _epistemic(verifier, agents, shown)
        if epistemic != shown.epistemic:
            step["epistemic"] = shown.epistemic = epistemic
    return step


@icontract.ensure(
    lambda trace, result: len(result[0]) == len(trace.turns) + 1,
    "a step before the first turn, then one per turn offered, rejected ones included",
)
def steps_of(trace: Trace) -> tuple[list[dict[str, object]], Verifier]:
    """Every step of the page, in one pass over the turns, and the final verifier."""
    agents = dict(trace.agents)
    verifier = initial_verifier(trace)
    shown = _Shown()
    start = _unchanged_step(0, 0, "", "(before the first turn)")
    start["epistemic"] = shown.epistemic = _epistemic(verifier, agents, shown)
    return [start, *(_step(verifier, t, agents, shown) for t in trace.turns)], verifier


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
    # The tab names the trace (escaped: a trace's name is the user's text).
    page = template.replace(_TITLE_SLOT, f"{html.escape(trace.name)}: ")
    return page.replace(_STYLE_SLOT, _style()).replace(_DATA_SLOT, payload)


def main(argv: list[str]) -> int:
    """See ``gcv explore --help``."""
    parser = argparse.ArgumentParser(prog="gcv explore", description=__doc__.split("\n\n")[0])
    add_trace_arguments(parser)
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    args = parser.parse_args(argv)
    if find_layout_program() is None:
        print(f"gcv explore: the page's map {MISSING}", file=sys.stderr)
        return EXIT_BAD_INPUT

    def explore(trace: Trace) -> int:
        if args.at is not None:  # the page holds every turn; --at says where it opens
            prefix(trace, args.at)  # an --at the trace does not reach is bad input
        write_output(explorer_page(trace, args.at), args.output)
        return 0

    return run_on_trace(args, explore)
