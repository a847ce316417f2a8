"""``gcv draw TRACE [--at N] [--highlight verify:R|affected:R] --format F``: a picture of D_t.

Records are boxes labelled with their id, kind, shortened claim, standing and
grounding (whether the Verify walk accepts them now, Lemma 2.1), with the
agents committed to them (Cm) and dissenting from them.  They are filled by
standing, except a record in good standing that rests on something out of
standing: it has a fill and a red border of its own, and names the record that
breaks it.  Dep links are solid arrows labelled "rests on" (orange where the
record rested on is out of standing), attacks dashed red arrows labelled
"attacks"; a legend says so on the picture.  A highlighted query marks its
answer: Verify's closure Dep*(alpha) (Lemma 2.1) with the witness path of an
ungrounded walk, or Affected*(beta) (Definition 2.3).

``dot`` and ``mermaid`` are text and need nothing else; ``svg`` and ``png`` are
laid out and rendered by Graphviz's ``dot`` program (Debian: ``graphviz``) or, without
it, by graphviz-pure (the ``pictures`` extra): :mod:`gcv.layout`.

Whole, at about 610 lines: it is one picture in three notations (Graphviz, Mermaid, and the
model of M_t in Graphviz) and the command that writes them; the look of a record
(:func:`look_of`, :func:`status_line`, its fill and label) is shared by all of them, so
changing how a record looks is one edit here.
"""

from __future__ import annotations

import argparse
import math
import textwrap
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import icontract

from gcv.errors import Unsupported
from gcv.layout import lay_out
from gcv.mapview import (
    GROUNDED,
    GROUNDINGS,
    NOT_GROUNDED,
    MapAt,
    add_trace_arguments,
    committed_by,
    grounding_of,
    groundings,
    run_on_map,
    walk_of,
    write_output,
)
from gcv.reference.depmap import DependencyMap
from gcv.reference.errors import MalformedInput
from gcv.reference.records import GOOD_STANDING, Standing
from gcv.reference.render import render_grounding, render_value
from gcv.reference.verifier import Verifier

if TYPE_CHECKING:
    # Imported where a graph is built: the commands that only read a record's lines
    # (gcv session show, the MCP tools) skip the import.
    import graphviz

__all__ = [
    "BOX_LEGEND",
    "FORMATS",
    "LINE_LEGEND",
    "MAX_DRAWN_WORLDS",
    "NO_ONE_COMMITTED",
    "Highlight",
    "affected_caption",
    "draw_dot",
    "draw_mermaid",
    "draw_model",
    "fill_of",
    "find_highlight",
    "look_of",
    "main",
    "people_line",
    "render_image",
    "status_line",
]

FORMATS = ("dot", "mermaid", "svg", "png")
_QUERIES = ("verify", "affected")

_FILL = {
    Standing.ACTIVE: "#d8f0d8",
    Standing.RESOLVED: "#cfe0ff",
    Standing.WEAKENED: "#ffe2b0",
    Standing.ABANDONED: "#e4e4e4",
}
_NOT_GROUNDED_FILL = "#f6c3c3"
_NOT_GROUNDED_BORDER = "#c0392b"
_MARK = "#7b2cbf"
_ATTACK = "#c0392b"
_DEP = "#444444"
_BROKEN_DEP = "#e67e22"
_CLAIM_WIDTH = 34
NO_ONE_COMMITTED = "no one committed"
"""The people line of a record no agent is committed to, where every line is drawn."""
MAX_DRAWN_WORLDS = 64
"""The largest M_t ``gcv draw --model`` draws world by world."""


@dataclass(frozen=True, slots=True)
class Highlight:
    """A query drawn over the map: its record, the records it marks, and a caption.

    ``marked`` is Affected*(beta) for ``affected``; for ``verify`` it is
    Dep*(alpha) when alpha is grounded, else ``path``, the Dep links from alpha
    to the witness outside S_t (the walk reports no closure when it rejects).
    """

    query: str
    record: str
    marked: tuple[str, ...]
    path: tuple[str, ...]
    caption: str


@icontract.ensure(
    lambda verifier, result: (
        result.query != "affected" or result.marked == verifier.affected_star(result.record)
    ),
    "affected:R marks Affected*(R) (Definition 2.3)",
    enabled=icontract.SLOW,  # the query again
)
@icontract.ensure(
    lambda verifier, result: (
        result.query != "verify"
        or result.marked
        == (verifier.verify(result.record).closure or verifier.verify(result.record).path)
    ),
    "verify:R marks Dep*(R) when R is grounded, else the path to the witness (Lemma 2.1)",
    enabled=icontract.SLOW,  # the walk twice again: beyond the answer's size when it rejects
)
def find_highlight(verifier: Verifier, spec: str) -> Highlight:
    """Answer ``spec`` (``verify:R`` or ``affected:R``) on the verifier's map.

    Raises
    ------
    MalformedInput
        ``spec`` is not ``QUERY:RECORD`` with a known query.
    UnknownRecord
        ``R`` is not a record of Args_t.
    """
    query, _, record = spec.partition(":")
    if query not in _QUERIES or not record:
        raise MalformedInput(f"{spec!r} is not verify:RECORD or affected:RECORD", field="highlight")
    verifier.standing(record)  # an unknown record is bad input, not an ungrounded candidate
    if query == "verify":
        grounding = verifier.verify(record)
        path = () if grounding.grounded else tuple(grounding.path)
        caption = render_grounding(grounding, verifier.state)
        return Highlight(query, record, tuple(grounding.closure) or path, path, caption)
    found = verifier.affected_star(record)
    return Highlight(query, record, found, (), affected_caption(record, found))


def affected_caption(record: str, affected: Collection[str]) -> str:
    """The caption of ``affected:R``: Affected*(R) written as a set, its members sorted
    (:func:`gcv.reference.render.render_value`).

    >>> affected_caption("o5", ("h3", "h4", "h1"))
    'Affected*(o5) = {h1, h3, h4}'
    """
    return f"Affected*({record}) = {render_value(frozenset(affected))}"


def fill_of(dmap: DependencyMap, record: str, grounding: str | None = None) -> str:
    """The record's fill: its standing's, or the not-grounded fill when it is in good
    standing but Verify rejects it (Lemma 2.1); ``grounding``, when known, is the
    record's (:func:`gcv.mapview.groundings`)."""
    return BOX_LEGEND[look_of(dmap, record, grounding)][0]


@icontract.ensure(
    lambda dmap, record, result: (
        ("NOT GROUNDED" in result) == (grounding_of(dmap, record) == NOT_GROUNDED)
    ),
    "in good standing yet rejected by the Verify walk (Lemma 2.1) is said so",
    enabled=icontract.SLOW,  # a second Verify walk: O(|Dep*(record)|), not the line's size
)
def status_line(dmap: DependencyMap, record: str, grounding: str | None = None) -> str:
    """The record's standing and whether Verify accepts it now, in words; ``grounding``,
    when known, is the record's (:func:`gcv.mapview.groundings`), and only a record not
    grounded is walked, for its witness.

    >>> from gcv.reference.operations import Observe, Hypothesize, Revise
    >>> from gcv.reference.verifier import Turn, Verifier
    >>> v = Verifier(["a"])
    >>> _ = v.apply_turn(Turn("a", (Observe("o1", "401s"),
    ...     Hypothesize("h1", "token bug", depends_on=("o1",)))))
    >>> _ = v.apply_turn(Turn("a", (Revise("o1"),)))
    >>> status_line(v.state, "h1"), status_line(v.state, "o1")
    ('active · NOT GROUNDED: rests on o1 (abandoned)', 'abandoned · not grounded')
    """
    standing = dmap.standing[record]
    if standing not in GOOD_STANDING:
        return f"{standing.value} · not grounded"
    if grounding == GROUNDED:
        return f"{standing.value} · grounded"
    walk = walk_of(dmap, record)
    if walk.grounded:
        return f"{standing.value} · grounded"
    assert walk.witness is not None, "a rejected walk from a record names its witness"
    out = dmap.standing[walk.witness].value
    return f"{standing.value} · NOT GROUNDED: rests on {walk.witness} ({out})"


@icontract.ensure(
    lambda dmap, record, agents, result: all(
        _short(agents.get(agent, agent)) in result for agent in committed_by(dmap, record)
    ),
    "every agent i with the record in Cm(i) is named (Definition 2.1)",
)
def people_line(dmap: DependencyMap, record: str, agents: Mapping[str, str]) -> str:
    """Who is committed to the record (Cm) and who dissents from it, by display name
    without its parenthesised role (``Alice`` for ``Alice (backend engineer)``, so a box
    stays narrow); empty when no one is."""
    holders = [_short(agents.get(a, a)) for a in committed_by(dmap, record)]
    dissent = [_short(agents.get(a, a)) for a in dmap.dissenters(record)]
    parts = [f"committed: {', '.join(holders)}"] if holders else []
    if dissent:
        parts.append(f"dissent: {', '.join(dissent)}")
    return "; ".join(parts)


def _short(name: str) -> str:
    return name.split(" (", 1)[0] or name


def _label_lines(
    dmap: DependencyMap,
    record: str,
    agents: Mapping[str, str],
    every_line: bool = False,
    grounding: str | None = None,
) -> list[str]:
    r = dmap.records[record]
    claim = textwrap.wrap(r.claim, _CLAIM_WIDTH, max_lines=2, placeholder=" ...")
    people = people_line(dmap, record, agents) or (NO_ONE_COMMITTED if every_line else "")
    return [
        f"{record} · {r.kind.value}",
        *claim,
        status_line(dmap, record, grounding),
        *[people][: bool(people)],
    ]


BOX_LEGEND = {
    Standing.ACTIVE.value: (_FILL[Standing.ACTIVE], "active: " + GROUNDINGS[GROUNDED]),
    Standing.RESOLVED.value: (_FILL[Standing.RESOLVED], "resolved: settled, in good standing"),
    NOT_GROUNDED: (_NOT_GROUNDED_FILL, GROUNDINGS[NOT_GROUNDED] + " (red border)"),
    Standing.WEAKENED.value: (_FILL[Standing.WEAKENED], "weakened: out of S_t"),
    Standing.ABANDONED.value: (_FILL[Standing.ABANDONED], "abandoned: out of S_t (dashed)"),
}
"""What fills a record's box, by its look (a standing, or not grounded), with its meaning."""

LINE_LEGEND = (
    (_DEP, "——>", "rests on (Dep): from a record to what it rests on"),
    (_BROKEN_DEP, "——>", "rests on a record out of standing (thick)"),
    (_ATTACK, "- - >", "attacks (Att): from the attacker to its target (dashed)"),
)
"""Each kind of arrow: its colour, its look, its meaning."""


@icontract.ensure(lambda result: result in BOX_LEGEND, "every look is in the legend")
def look_of(dmap: DependencyMap, record: str, grounding: str | None = None) -> str:
    """The record's key in :data:`BOX_LEGEND`: not grounded, else its standing;
    ``grounding``, when known, is the record's (:func:`gcv.mapview.groundings`)."""
    grounded = (grounding or grounding_of(dmap, record)) != NOT_GROUNDED
    return dmap.standing[record].value if grounded else NOT_GROUNDED


def _legend_label() -> str:
    rows = [
        f'<tr><td bgcolor="{fill}" width="28" border="1"> </td>'
        f'<td align="left">{_html(meaning)}</td></tr>'
        for fill, meaning in BOX_LEGEND.values()
    ]
    rows += [
        f'<tr><td width="28"><font color="{colour}">{_html(arrow)}</font></td>'
        f'<td align="left">{_html(meaning)}</td></tr>'
        for colour, arrow, meaning in LINE_LEGEND
    ]
    head = '<tr><td colspan="2" align="left"><b>legend</b></td></tr>'
    return f'<<table border="0" cellspacing="2" cellpadding="2">{head}{"".join(rows)}</table>>'


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _dot_text(lines: list[str]) -> str:
    # DOT's escString: a backslash escapes, "\\n" breaks a centred line.
    return "\\n".join(line.replace("\\", "\\\\") for line in lines)


def _path_edges(highlight: Highlight | None) -> set[tuple[str, str]]:
    if highlight is None:
        return set()
    return set(zip(highlight.path, highlight.path[1:], strict=False))


def draw_dot(
    dmap: DependencyMap,
    highlight: Highlight | None = None,
    changed: Collection[str] = (),
    title: str = "",
    agents: Mapping[str, str] | None = None,
    every_line: bool = False,
) -> graphviz.Digraph:
    """The map as a Graphviz digraph (DOT source: ``.source``), with its legend.

    Each record's SVG element is ``node-<id>`` with the classes ``record``,
    its standing, its grounding (:data:`gcv.mapview.GROUNDINGS`), and ``marked``,
    ``subject`` or ``changed`` when they apply, so a page can find and restyle it;
    edges are ``dep-<record>-<support>`` with the class ``dep`` (``dep broken`` when
    the support is out of standing, ``dep path`` on the witness path) or
    ``attack-<attacker>-<target>`` with the class ``attack``.  ``changed`` lists
    records to outline as changed by the last turn; ``title`` heads the picture,
    above the caption; ``agents`` gives the agents' display names.  With
    ``every_line``, each label ends with its status line and its people line (written
    :data:`NO_ONE_COMMITTED` when empty), so a page can rewrite both.
    """
    names = {} if agents is None else agents
    marked = set(highlight.marked) if highlight else set()
    on_path = _path_edges(highlight)
    caption_lines = [part for part in (title, highlight.caption if highlight else "") if part]
    import graphviz

    graph = graphviz.Digraph(
        graph_attr={
            "rankdir": "TB",
            "label": _dot_text(caption_lines),
            "labelloc": "t",
            "fontname": "DejaVu Sans",
            "nodesep": "0.3",
        },
        node_attr={"shape": "box", "style": "rounded,filled", "fontname": "DejaVu Sans"},
        edge_attr={"fontname": "DejaVu Sans", "arrowsize": "0.7", "fontsize": "9"},
    )
    graph.node(
        "legend", _legend_label(), shape="plain", style="", id="legend", **{"class": "legend"}
    )
    _stack_unlinked(graph, dmap)
    known = groundings(dmap)  # every record's at once: one walk each would be quadratic
    for record in dmap.records:
        standing = dmap.standing[record]
        grounding = known[record]
        classes = ["record", standing.value, grounding]
        attributes = {"fillcolor": fill_of(dmap, record, grounding), "color": "#555555"}
        if grounding == NOT_GROUNDED:
            attributes.update(color=_NOT_GROUNDED_BORDER, penwidth="2.5")
        if standing is Standing.ABANDONED:
            attributes.update(style="rounded,filled,dashed", fontcolor="#666666")
        if record in marked:
            classes.append("marked")
            attributes.update(color=_MARK, penwidth="3")
        if highlight is not None and record == highlight.record:
            classes.append("subject")
            attributes.update(peripheries="2", color=_MARK)
        if record in changed:
            classes.append("changed")
            attributes["penwidth"] = "3"
        graph.node(
            record,
            _dot_text(_label_lines(dmap, record, names, every_line, grounding)),
            id=f"node-{record}",
            **{"class": " ".join(classes)},
            **attributes,
        )
    # Each kind of link's attributes are stated once, as the defaults of the edges after
    # them (DOT's "edge [...]"), and each link states only what differs: a map has about
    # two links per record, and the DOT writer quotes every attribute of every statement.
    graph.attr("edge", **_DEP_LINK)
    for dependent in dmap.records:
        for support in dmap.dep.get(dependent, ()):
            bold = (dependent, support) in on_path
            broken = dmap.standing[support] not in GOOD_STANDING
            odd = {}
            if bold or broken:
                colour = _MARK if bold else _BROKEN_DEP
                kind = "dep path" if bold else "dep broken"
                odd = {"color": colour, "fontcolor": colour, "penwidth": "3", "class": kind}
            graph.edge(dependent, support, id=f"dep-{dependent}-{support}", **odd)
    graph.attr("edge", **_ATTACK_LINK)
    for attacker in dmap.records:
        for target in dmap.att.get(attacker, ()):
            graph.edge(attacker, target, id=f"attack-{attacker}-{target}")
    return graph


_DEP_LINK = {
    "label": "rests on",
    "color": _DEP,
    "fontcolor": _DEP,
    "penwidth": "1",
    "class": "dep",
}
"""A Dep link's attributes in :func:`draw_dot`, where it is not broken nor on the path."""
_ATTACK_LINK = {
    "label": "attacks",
    "color": _ATTACK,
    "fontcolor": _ATTACK,
    "style": "dashed",
    "constraint": "false",
    "class": "attack",
}
"""An attack's attributes in :func:`draw_dot` (penwidth 1 stays from the Dep links')."""


def _stack_unlinked(graph: graphviz.Digraph, dmap: DependencyMap) -> None:
    """Lay the legend and the records no link reaches out in columns, not in one long row.

    Graphviz's ``pack`` would do it, but it drops edge labels (Graphviz 2.43); invisible
    edges from each of these to the one a column's width later stack them instead.
    """
    linked = {r for r, supports in dmap.dep.items() if supports}
    linked |= {s for supports in dmap.dep.values() for s in supports}
    linked |= {a for a, targets in dmap.att.items() if targets}
    linked |= {t for targets in dmap.att.values() for t in targets}
    unlinked = ["legend", *(r for r in dmap.records if r not in linked)]
    columns = max(1, math.isqrt(len(unlinked) - 1) + 1)
    for above, below in zip(unlinked, unlinked[columns:], strict=False):
        graph.edge(above, below, style="invis")


def _world_name(world: frozenset[str], atoms: Sequence[str]) -> str:
    return " ".join(atom if atom in world else f"¬{atom}" for atom in atoms)


def _model_links(verifier: Verifier) -> dict[tuple[str, str], list[str]]:
    """Each pair of distinct worlds some agent cannot tell apart (w ~_i w'), with those agents."""
    atoms = sorted(verifier.state.atoms)
    links: dict[tuple[str, str], list[str]] = {}
    for agent in verifier.state.agents:
        for cell in verifier.plausibility(agent):
            names = sorted(_world_name(w, atoms) for layer in cell for w in layer)
            for i, world in enumerate(names):
                for other in names[i + 1 :]:
                    links.setdefault((world, other), []).append(agent)
    return links


@icontract.require(
    lambda verifier: verifier.state.model.size <= MAX_DRAWN_WORLDS,
    "a model small enough to draw world by world",
)
def draw_model(verifier: Verifier, title: str = "") -> graphviz.Graph:
    """M_t as a Graphviz graph: one node per world of W_t, one edge per w ~_i w'.

    Worlds are named by their valuation over Prop_t (``¬p`` where p is false);
    an edge is labelled with the agents who cannot tell its worlds apart
    (Appendix A's indistinguishability).  The plausibility order inside a
    cell is not drawn.
    """
    size = verifier.state.model.size
    atoms = sorted(verifier.state.atoms)
    import graphviz

    graph = graphviz.Graph(
        graph_attr={
            "label": _dot_text([f"{title}: |W| = {size}" if title else f"|W| = {size}"]),
            "labelloc": "t",
            "fontname": "DejaVu Sans",
            "layout": "neato",
            "overlap": "false",
            "sep": "+12",
        },
        node_attr={
            "shape": "box",
            "style": "rounded,filled",
            "fillcolor": "#eef3fb",
            "fontname": "DejaVu Sans",
        },
        edge_attr={"fontname": "DejaVu Sans", "fontsize": "11", "color": "#555555"},
    )
    for world in verifier.worlds():
        graph.node(_world_name(world, atoms), **{"class": "world"})
    for (first, second), agents in _model_links(verifier).items():
        graph.edge(first, second, label=", ".join(agents))
    return graph


def _mermaid_text(text: str) -> str:
    # Mermaid's entity codes keep quotes and angle brackets out of its own syntax.
    return text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def _mermaid_class(look: str) -> str:
    return look.replace("-", "")


def draw_mermaid(
    dmap: DependencyMap, highlight: Highlight | None = None, agents: Mapping[str, str] | None = None
) -> str:
    """The map as a Mermaid flowchart, for Markdown that renders Mermaid, with its legend.

    Nodes are ``n0``, ``n1``, ... in registration order (record ids may hold
    characters Mermaid reserves), each labelled as in :func:`draw_dot` and given
    the class of its standing, or ``notgrounded`` when it is in good standing
    but Verify rejects it; the legend is the subgraph ``legend``.
    """
    names = {} if agents is None else agents
    node = {record: f"n{i}" for i, record in enumerate(dmap.records)}
    known = groundings(dmap)
    lines = ["flowchart TB"]
    if highlight is not None:
        lines.append(f"  %% {highlight.caption}")
    for record, name in node.items():
        shown = _label_lines(dmap, record, names, grounding=known[record])
        label = "<br/>".join(_mermaid_text(line) for line in shown)
        lines.append(f'  {name}["{label}"]')
    links: list[tuple[str, str, str]] = [
        (dependent, support, "dep")
        for dependent in dmap.records
        for support in dmap.dep.get(dependent, ())
    ]
    links += [(a, t, "attack") for a in dmap.records for t in dmap.att.get(a, ())]
    for source, target, relation in links:
        arrow = "-->|rests on|" if relation == "dep" else "-.->|attacks|"
        lines.append(f"  {node[source]} {arrow} {node[target]}")
    lines.append('  subgraph legend["legend"]')
    for look, (_, meaning) in BOX_LEGEND.items():
        lines.append(f'    legend_{_mermaid_class(look)}["{_mermaid_text(meaning)}"]')
    lines.append("  end")
    for look, (fill, _) in BOX_LEGEND.items():
        border = f"{_NOT_GROUNDED_BORDER},stroke-width:3px" if look == NOT_GROUNDED else "#555555"
        lines.append(f"  classDef {_mermaid_class(look)} fill:{fill},stroke:{border}")
    members: dict[str, list[str]] = {
        look: [f"legend_{_mermaid_class(look)}"] for look in BOX_LEGEND
    }
    for record in dmap.records:
        members[look_of(dmap, record, known[record])].append(node[record])
    lines += [
        f"  class {','.join(names)} {_mermaid_class(look)}" for look, names in members.items()
    ]
    for index, (_, target, relation) in enumerate(links):
        if relation == "attack":
            lines.append(f"  linkStyle {index} stroke:{_ATTACK},color:{_ATTACK}")
        elif dmap.standing[target] not in GOOD_STANDING:
            lines.append(f"  linkStyle {index} stroke:{_BROKEN_DEP},stroke-width:3px")
    if highlight is not None:
        lines.append(f"  classDef marked stroke:{_MARK},stroke-width:4px")
        if highlight.marked:
            lines.append(f"  class {','.join(node[r] for r in highlight.marked)} marked")
        lines.append(f"  style {node[highlight.record]} stroke:{_MARK},stroke-width:6px")
        on_path = _path_edges(highlight)
        for index, (source, target, relation) in enumerate(links):
            if relation == "dep" and (source, target) in on_path:
                lines.append(f"  linkStyle {index} stroke:{_MARK},stroke-width:3px")
    return "\n".join(lines) + "\n"


def render_image(graph: graphviz.Graph | graphviz.Digraph, form: str) -> bytes:
    """Lay out and render ``graph`` (``form``: svg or png) with :func:`gcv.layout.lay_out`.

    Raises
    ------
    Unsupported
        No layout program is installed.
    """
    return lay_out(graph.source, form)


def _draw_model(verifier: Verifier, title: str, form: str, output: str | None) -> int:
    size = verifier.state.model.size
    if size > MAX_DRAWN_WORLDS:
        raise Unsupported(
            f"M_t has {size} worlds; --model draws at most {MAX_DRAWN_WORLDS}", field="model"
        )
    if form == "mermaid":
        raise Unsupported("--model is drawn as dot, svg or png", field="format")
    graph = draw_model(verifier, title)
    write_output(graph.source if form == "dot" else render_image(graph, form), output)
    return 0


def main(argv: list[str]) -> int:
    """See ``gcv draw --help``."""
    parser = argparse.ArgumentParser(prog="gcv draw", description=__doc__.split("\n\n")[0])
    add_trace_arguments(parser)
    parser.add_argument(
        "--highlight",
        metavar="QUERY:RECORD",
        help="mark verify:R (Dep* and the witness path) or affected:R (Affected*)",
    )
    parser.add_argument(
        "--model",
        action="store_true",
        help=f"draw the plausibility model M_t instead (at most {MAX_DRAWN_WORLDS} worlds)",
    )
    parser.add_argument("--format", required=True, choices=FORMATS, help="what to write")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    args = parser.parse_args(argv)

    def draw(shown: MapAt) -> int:
        verifier, agents = shown.verifier, shown.agents
        title = f"{shown.name} at T{verifier.state.turn}"
        if args.model:
            return _draw_model(verifier, title, args.format, args.output)
        highlight = None if args.highlight is None else find_highlight(verifier, args.highlight)
        if args.format == "mermaid":
            write_output(draw_mermaid(verifier.state, highlight, agents), args.output)
            return 0
        graph = draw_dot(verifier.state, highlight, title=title, agents=agents)
        if args.format == "dot":
            write_output(graph.source, args.output)
        else:
            write_output(render_image(graph, args.format), args.output)
        return 0

    return run_on_map(args, draw)
