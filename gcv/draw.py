"""``gcv draw TRACE [--at N] [--highlight verify:R|affected:R] --format F``: a picture of D_t.

Records are boxes labelled with their id, kind, shortened claim and standing,
filled by standing, with the agents committed to them (Cm) and dissenting
from them; Dep links are solid arrows from a record to what it rests on,
attacks dashed red arrows from the attacker.  A highlighted query marks its
answer: Verify's closure Dep*(alpha) (Lemma 2.1) with the witness path of an
ungrounded walk, or Affected*(beta) (Definition 2.3).

``dot`` and ``mermaid`` are text and need nothing else; ``svg`` and ``png`` are
laid out and rendered by Graphviz's ``dot`` program (Debian: ``graphviz``).
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import graphviz
import icontract

from gcv.mapview import add_trace_arguments, committed_by, run_on_map, write_output
from gcv.reference.depmap import DependencyMap
from gcv.reference.errors import MalformedInput, Unsupported
from gcv.reference.records import Standing
from gcv.reference.render import render_grounding, render_value
from gcv.reference.verifier import Verifier
from gcv.replay import Replay

__all__ = [
    "FORMATS",
    "MAX_DRAWN_WORLDS",
    "Highlight",
    "draw_dot",
    "draw_mermaid",
    "draw_model",
    "find_highlight",
    "main",
    "render_image",
]

FORMATS = ("dot", "mermaid", "svg", "png")
_QUERIES = ("verify", "affected")

_FILL = {
    Standing.ACTIVE: "#d8f0d8",
    Standing.RESOLVED: "#cfe0ff",
    Standing.WEAKENED: "#ffe2b0",
    Standing.ABANDONED: "#e4e4e4",
}
_MARK = "#7b2cbf"
_ATTACK = "#c0392b"
_CLAIM_WIDTH = 34
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
)
@icontract.ensure(
    lambda verifier, result: (
        result.query != "verify"
        or result.marked
        == (verifier.verify(result.record).closure or verifier.verify(result.record).path)
    ),
    "verify:R marks Dep*(R) when R is grounded, else the path to the witness (Lemma 2.1)",
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
    caption = f"Affected*({record}) = {render_value(frozenset(found))}"
    return Highlight(query, record, found, (), caption)


def _label_lines(dmap: DependencyMap, record: str) -> list[str]:
    r = dmap.records[record]
    claim = textwrap.wrap(r.claim, _CLAIM_WIDTH, max_lines=2, placeholder=" ...")
    lines = [f"{record} · {r.kind.value}", *claim, dmap.standing[record].value]
    holders = committed_by(dmap, record)
    if holders:
        lines.append(f"Cm: {', '.join(holders)}")
    dissent = dmap.dissenters(record)
    if dissent:
        lines.append(f"dissent: {', '.join(dissent)}")
    return lines


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
) -> graphviz.Digraph:
    """The map as a Graphviz digraph (DOT source: ``.source``).

    Each record's SVG element is ``node-<id>`` with the classes ``record``,
    its standing, and ``marked``, ``subject`` or ``changed`` when they apply, so
    a page can find and restyle it; edges have the class ``dep`` (``dep path``
    on the witness path) or ``attack``.  ``changed`` lists records to outline
    as changed by the last turn; ``title`` heads the picture, above the caption.
    """
    marked = set(highlight.marked) if highlight else set()
    on_path = _path_edges(highlight)
    caption_lines = [part for part in (title, highlight.caption if highlight else "") if part]
    graph = graphviz.Digraph(
        graph_attr={
            "rankdir": "TB",
            "label": _dot_text(caption_lines),
            "labelloc": "t",
            "fontname": "DejaVu Sans",
            "nodesep": "0.3",
            # Records no link reaches are packed around the linked ones, not in one long row.
            "pack": "true",
            "packmode": "graph",
        },
        node_attr={"shape": "box", "style": "rounded,filled", "fontname": "DejaVu Sans"},
        edge_attr={"fontname": "DejaVu Sans", "arrowsize": "0.7"},
    )
    for record in dmap.records:
        standing = dmap.standing[record]
        classes = ["record", standing.value]
        attributes = {"fillcolor": _FILL[standing], "color": "#555555"}
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
            _dot_text(_label_lines(dmap, record)),
            id=f"node-{record}",
            **{"class": " ".join(classes)},
            **attributes,
        )
    for dependent in dmap.records:
        for support in dmap.dep.get(dependent, ()):
            bold = (dependent, support) in on_path
            graph.edge(
                dependent,
                support,
                color=_MARK if bold else "#444444",
                penwidth="3" if bold else "1",
                **{"class": "dep path" if bold else "dep"},
            )
    for attacker in dmap.records:
        for target in dmap.att.get(attacker, ()):
            graph.edge(
                attacker,
                target,
                color=_ATTACK,
                style="dashed",
                constraint="false",
                **{"class": "attack"},
            )
    return graph


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


def draw_mermaid(dmap: DependencyMap, highlight: Highlight | None = None) -> str:
    """The map as a Mermaid flowchart, for Markdown that renders Mermaid.

    Nodes are ``n0``, ``n1``, ... in registration order (record ids may hold
    characters Mermaid reserves), each labelled as in :func:`draw_dot`.
    """
    node = {record: f"n{i}" for i, record in enumerate(dmap.records)}
    lines = ["flowchart TB"]
    if highlight is not None:
        lines.append(f"  %% {highlight.caption}")
    for record, name in node.items():
        label = "<br/>".join(_mermaid_text(line) for line in _label_lines(dmap, record))
        lines.append(f'  {name}["{label}"]')
    links: list[tuple[str, str, str]] = [
        (dependent, support, "dep")
        for dependent in dmap.records
        for support in dmap.dep.get(dependent, ())
    ]
    links += [(a, t, "attack") for a in dmap.records for t in dmap.att.get(a, ())]
    for source, target, relation in links:
        arrow = "-->" if relation == "dep" else "-. attacks .->"
        lines.append(f"  {node[source]} {arrow} {node[target]}")
    for standing, fill in _FILL.items():
        lines.append(f"  classDef {standing.value} fill:{fill},stroke:#555555")
        members = [node[r] for r in dmap.records if dmap.standing[r] is standing]
        if members:
            lines.append(f"  class {','.join(members)} {standing.value}")
    for index, (_, _, relation) in enumerate(links):
        if relation == "attack":
            lines.append(f"  linkStyle {index} stroke:{_ATTACK}")
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
    """Lay out and render ``graph`` with Graphviz's ``dot`` (``form``: svg or png).

    Raises
    ------
    Unsupported
        The ``dot`` program is not installed.
    """
    try:
        image: bytes = graph.pipe(format=form)
    except graphviz.ExecutableNotFound:
        raise Unsupported(
            f"--format {form} needs Graphviz's dot program (Debian: apt-get install graphviz); "
            "--format dot and mermaid work without it",
            field="format",
        ) from None
    return image


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

    def draw(replayed: Replay) -> int:
        verifier = replayed.verifier
        title = f"{replayed.trace.name} at T{verifier.state.turn}"
        if args.model:
            return _draw_model(verifier, title, args.format, args.output)
        highlight = None if args.highlight is None else find_highlight(verifier, args.highlight)
        if args.format == "mermaid":
            write_output(draw_mermaid(verifier.state, highlight), args.output)
            return 0
        graph = draw_dot(verifier.state, highlight, title=title)
        if args.format == "dot":
            write_output(graph.source, args.output)
        else:
            write_output(render_image(graph, args.format), args.output)
        return 0

    return run_on_map(args, draw)
