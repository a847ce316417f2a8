"""``gcv export TRACE [--at N] --format F``: the map in the formats its neighbours read.

- ``iccma23``, ``iccma-apx`` and ``iccma-tgf``: the argumentation framework
  AF_t = (Args_t, Att_t) for argumentation solvers (the ICCMA 2023 format,
  ``p af N`` and one ``i j`` line per attack over the records numbered 1 to N in
  registration order, with the name map in ``#`` comment lines beside it;
  ASPARTIX facts; Trivial Graph Format, records then ``#`` then attacks).  A
  record's standing is not an extension of AF_t: it is what the eight operations
  labelled it (Definition 2.1), so a solver's grounded or preferred extension may
  differ from S_t.
- ``graphml`` and ``node-link``: the Dep graph with Att_t for networkx (one
  multigraph, edge keys ``dep`` and ``attack``, repeated as the edge attribute
  ``kind``, which GraphML keeps as data; see :mod:`gcv.mapview`), written by
  networkx itself.
- ``json``: the map's canonical snapshot (``DependencyMap.snapshot``).
"""

from __future__ import annotations

import argparse
import io
import json

import icontract
import networkx as nx

from gcv.mapview import MapAt, add_trace_arguments, dependency_graph, run_on_map, write_output
from gcv.reference.depmap import DependencyMap

__all__ = ["FORMATS", "export", "main", "to_apx", "to_iccma23", "to_tgf"]

_NOT_AN_EXTENSION = (
    "standing is not an extension: the records' labels come from the operations "
    "(Definition 2.1), not from a Dung semantics"
)


def _attacks(dmap: DependencyMap) -> list[tuple[str, str]]:
    return [(a, t) for a in dmap.records for t in dmap.att.get(a, ())]


@icontract.ensure(
    lambda dmap, result: (
        sum(line.startswith("arg(") for line in result.splitlines()) == len(dmap.records)
    ),
    "one arg/1 fact per record of Args_t",
)
def to_apx(dmap: DependencyMap) -> str:
    """AF_t as ASPARTIX facts: ``arg(a).`` per record, ``att(a,b).`` per attack.

    Examples
    --------
    >>> from gcv.reference.operations import Observe, Hypothesize, Undermine
    >>> from gcv.reference.verifier import Turn, Verifier
    >>> v = Verifier(["a"])
    >>> _ = v.apply_turn(Turn("a", (Hypothesize("h1", "token bug"), Observe("o2", "no token"))))
    >>> _ = v.apply_turn(Turn("a", (Undermine("h1", "o2"),)))
    >>> print(to_apx(v.state), end="")  # doctest: +ELLIPSIS
    % AF_t at T2; standing is not an extension: ...
    arg(o2).
    arg(h1).
    att(o2,h1).
    """
    lines = [f"% AF_t at T{dmap.turn}; {_NOT_AN_EXTENSION}"]
    lines += [f"arg({record})." for record in dmap.records]
    lines += [f"att({a},{t})." for a, t in _attacks(dmap)]
    return "\n".join(lines) + "\n"


@icontract.ensure(
    lambda dmap, result: result.startswith(f"p af {len(dmap.records)}\n"),
    "the header counts Args_t",
)
@icontract.ensure(
    lambda dmap, result: (
        sum(not line.startswith(("p ", "#")) for line in result.splitlines()) == len(_attacks(dmap))
    ),
    "one line per attack of Att_t",
)
def to_iccma23(dmap: DependencyMap) -> str:
    """AF_t in the ICCMA 2023 format: ``p af N``, then ``i j`` per attack, the records
    numbered 1 to N in registration order; ``# i id`` comment lines name each number.

    Examples
    --------
    >>> from gcv.reference.operations import Observe, Hypothesize, Undermine
    >>> from gcv.reference.verifier import Turn, Verifier
    >>> v = Verifier(["a"])
    >>> _ = v.apply_turn(Turn("a", (Hypothesize("h1", "token bug"), Observe("o2", "no token"))))
    >>> _ = v.apply_turn(Turn("a", (Undermine("h1", "o2"),)))
    >>> print(to_iccma23(v.state), end="")  # doctest: +ELLIPSIS
    p af 2
    # AF_t at T2; standing is not an extension: ...
    # 1 o2
    # 2 h1
    1 2
    """
    number = {record: i for i, record in enumerate(dmap.records, start=1)}
    lines = [f"p af {len(number)}", f"# AF_t at T{dmap.turn}; {_NOT_AN_EXTENSION}"]
    lines += [f"# {i} {record}" for record, i in number.items()]
    lines += [f"{number[a]} {number[t]}" for a, t in _attacks(dmap)]
    return "\n".join(lines) + "\n"


@icontract.ensure(
    lambda dmap, result: result.splitlines().index("#") == len(dmap.records),
    "one node line per record of Args_t before the separator",
)
def to_tgf(dmap: DependencyMap) -> str:
    """AF_t in Trivial Graph Format: one record per line, ``#``, one attack per line.

    TGF has no comments, so the note that standing is not an extension is only
    in ``gcv export --help``.
    """
    lines = [*dmap.records, "#"]
    lines += [f"{a} {t}" for a, t in _attacks(dmap)]
    return "\n".join(lines) + "\n"


def _graphml(dmap: DependencyMap) -> str:
    buffer = io.BytesIO()
    nx.write_graphml(dependency_graph(dmap), buffer)
    return buffer.getvalue().decode("utf-8")


def _node_link(dmap: DependencyMap) -> str:
    data = nx.node_link_data(dependency_graph(dmap), edges="edges")
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _snapshot(dmap: DependencyMap) -> str:
    return json.dumps(dmap.snapshot(), indent=2, ensure_ascii=False) + "\n"


FORMATS = {
    "iccma23": to_iccma23,
    "iccma-apx": to_apx,
    "iccma-tgf": to_tgf,
    "graphml": _graphml,
    "node-link": _node_link,
    "json": _snapshot,
}
"""Each format's writer, from the map to its text."""


def export(dmap: DependencyMap, form: str) -> str:
    """The map written in format ``form`` (a key of :data:`FORMATS`)."""
    return FORMATS[form](dmap)


def main(argv: list[str]) -> int:
    """See ``gcv export --help``."""
    parser = argparse.ArgumentParser(
        prog="gcv export",
        description="Write the dependency map D_t in a standard format. " + _NOT_AN_EXTENSION,
    )
    add_trace_arguments(parser)
    parser.add_argument("--format", required=True, choices=list(FORMATS), help="what to write")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    args = parser.parse_args(argv)

    def write(shown: MapAt) -> int:
        write_output(export(shown.verifier.state, args.format), args.output)
        return 0

    return run_on_map(args, write)
