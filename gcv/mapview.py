"""The dependency map at a turn, as data for pictures and exports.

``gcv export`` and ``gcv draw`` start from the map D_t after turn N (:class:`MapAt`,
:func:`run_on_map`): a trace's, replayed (:func:`map_at`), or a session store's, as the
store keeps it (its sealed snapshot and the turns after it: the log is neither exported
nor replayed again).  ``gcv explore`` starts from the whole conversation
(:func:`run_on_trace`) and replays it itself, once.  The exports read the map through
:func:`dependency_graph`: one networkx multigraph whose nodes are Args_t and
whose edges are Dep (key ``"dep"``, from a record to what it rests on) and
Att_t (key ``"attack"``, from the attacker to its target).

Every picture shows each record's grounding (:func:`grounding_of`): whether the
Verify walk (Lemma 2.1) accepts it now, and, when it does not, whether that is
because the record itself left S_t or because something it rests on did.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import icontract

from gcv.errors import MalformedTrace
from gcv.history import prefix, trace_document
from gcv.options import DB_VARIABLE, EXIT_BAD_INPUT, default_db
from gcv.reference.closure import Grounding, dependency_walk
from gcv.reference.depmap import DependencyMap
from gcv.reference.errors import GcvError
from gcv.reference.records import GOOD_STANDING
from gcv.reference.verifier import Verifier
from gcv.replay import Replay, replay
from gcv.scenarios import read_trace
from gcv.trace import Trace, TraceTurn, trace_from_document

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "ATTACK",
    "DEP",
    "GROUNDED",
    "GROUNDINGS",
    "NOT_GROUNDED",
    "OUT_OF_STANDING",
    "MapAt",
    "add_trace_arguments",
    "committed_by",
    "dependency_graph",
    "grounding_of",
    "groundings",
    "map_at",
    "rejection_unmarked",
    "run_on_map",
    "run_on_trace",
    "walk_of",
    "write_output",
]

DEP, ATTACK = "dep", "attack"

GROUNDED, NOT_GROUNDED, OUT_OF_STANDING = "grounded", "not-grounded", "out-of-standing"
GROUNDINGS = {
    GROUNDED: "in good standing and grounded: Verify accepts it",
    NOT_GROUNDED: "in good standing but resting on a record out of standing: Verify rejects it",
    OUT_OF_STANDING: "weakened or abandoned: out of S_t, so Verify rejects it",
}
"""Each record's grounding, as the pictures name it, with what it means (Lemma 2.1)."""


@icontract.require(lambda dmap, record: record in dmap.records, "a record of Args_t")
@icontract.ensure(
    lambda dmap, result: (
        set(result.closure) <= dmap.active_set()
        if result.grounded
        else result.witness not in dmap.active_set()
    ),
    "Lemma 2.1: grounded iff Dep*(record) lies in S_t (else a witness outside it)",
    enabled=icontract.SLOW,  # builds S_t: O(|Args|) per record drawn or shown
)
def walk_of(dmap: DependencyMap, record: str) -> Grounding:
    """The Verify walk (Lemma 2.1) from ``record`` on the map itself, as ``Verifier.verify``."""
    n = dmap.numbering
    return dependency_walk(n.supports, n.good, n.number[record]).named(record, n.name)


@icontract.require(lambda dmap, record: record in dmap.records, "a record of Args_t")
@icontract.ensure(
    lambda dmap, record, result: (
        (result == OUT_OF_STANDING) == (dmap.standing[record] not in GOOD_STANDING)
    ),
    "out of standing iff outside S_t (Definition 2.1)",
)
def grounding_of(dmap: DependencyMap, record: str) -> str:
    """Whether the Verify walk accepts ``record`` now (Lemma 2.1: grounded iff Dep*(record)
    lies in S_t), and if not, whether the record itself or something it rests on is out.

    Examples
    --------
    >>> from gcv.reference.operations import Observe, Hypothesize, Revise
    >>> from gcv.reference.verifier import Turn, Verifier
    >>> v = Verifier(["a"])
    >>> _ = v.apply_turn(Turn("a", (Observe("o1", "401s"),
    ...     Hypothesize("h1", "token bug", depends_on=("o1",)))))
    >>> grounding_of(v.state, "h1")
    'grounded'
    >>> _ = v.apply_turn(Turn("a", (Revise("o1"),)))
    >>> grounding_of(v.state, "o1"), grounding_of(v.state, "h1")
    ('out-of-standing', 'not-grounded')
    """
    if dmap.standing[record] not in GOOD_STANDING:
        return OUT_OF_STANDING
    return GROUNDED if walk_of(dmap, record).grounded else NOT_GROUNDED


@icontract.ensure(
    lambda dmap, result: all(grounding_of(dmap, r) == result[r] for r in dmap.records),
    "each record's grounding is its own Verify walk's (Lemma 2.1)",
    enabled=icontract.SLOW,  # one walk per record: the definition, O(sum of |Dep*|)
)
def groundings(dmap: DependencyMap) -> dict[str, str]:
    """:func:`grounding_of` for every record of Args_t at once, in O(|Args| + |Dep|).

    A record in S_t is grounded iff no record out of S_t lies in its Dep* (Lemma 2.1),
    that is iff no Dep path leads from it to one: so one search backwards along Dep,
    from every record out of S_t together, finds every record that is not grounded.
    One walk per record (``grounding_of``) costs the sum of the |Dep*| instead, which
    grows with the square of a conversation whose records rest on recent ones.

    Examples
    --------
    >>> from gcv.reference.operations import Observe, Hypothesize, Revise
    >>> from gcv.reference.verifier import Turn, Verifier
    >>> v = Verifier(["a"])
    >>> _ = v.apply_turn(Turn("a", (Observe("o1", "401s"), Observe("o2", "502s"),
    ...     Hypothesize("h1", "token bug", depends_on=("o1",)))))
    >>> _ = v.apply_turn(Turn("a", (Revise("o1"),)))
    >>> groundings(v.state)
    {'o1': 'out-of-standing', 'o2': 'grounded', 'h1': 'not-grounded'}
    """
    n = dmap.numbering
    reached = [not good for good in n.good]
    frontier = [i for i, out in enumerate(reached) if out]
    while frontier:
        record = frontier.pop()
        for dependent in n.dependents[record]:
            if not reached[dependent]:
                reached[dependent] = True
                frontier.append(dependent)
    return {
        name: OUT_OF_STANDING if not good else NOT_GROUNDED if out else GROUNDED
        for name, good, out in zip(n.name, n.good, reached, strict=True)
    }


def _edges(graph: nx.MultiDiGraph, key: str) -> set[tuple[str, str]]:
    return {(u, v) for u, v, k in graph.edges(keys=True) if k == key}


def committed_by(dmap: DependencyMap, record: str) -> tuple[str, ...]:
    """The agents i with ``record`` in Cm(i), in the map's agent order."""
    return tuple(agent for agent in dmap.agents if dmap.is_committed(agent, record))


@icontract.ensure(
    lambda dmap, result: set(result.nodes) == set(dmap.records), "the nodes are Args_t"
)
@icontract.ensure(
    lambda dmap, result: (
        _edges(result, DEP) == {(r, s) for r, supports in dmap.dep.items() for s in supports}
    ),
    "the dep edges are Dep (Definition 2.1)",
)
@icontract.ensure(
    lambda dmap, result: (
        _edges(result, ATTACK) == {(a, t) for a, targets in dmap.att.items() for t in targets}
    ),
    "the attack edges are Att_t (Definition 2.1)",
)
def dependency_graph(dmap: DependencyMap) -> nx.MultiDiGraph:
    """D_t's records, Dep and Att_t as one networkx multigraph.

    Each node carries the record's ``kind``, ``claim``, ``speaker``, ``turn``,
    ``standing``, its ``grounding`` (:func:`grounding_of`), and the agents committed
    to it and dissenting from it (``committed_by``, ``dissent``: comma-separated, so
    GraphML can hold them); each edge its ``kind``; the graph the map's ``turn``.

    Examples
    --------
    >>> from gcv.reference.operations import Observe, Hypothesize, Undermine
    >>> from gcv.reference.verifier import Turn, Verifier
    >>> v = Verifier(["a"])
    >>> _ = v.apply_turn(Turn("a", (Observe("o1", "401s"), Hypothesize("h1", "token bug",
    ...     depends_on=("o1",)), Observe("o2", "no token"))))
    >>> _ = v.apply_turn(Turn("a", (Undermine("h1", "o2"),)))
    >>> sorted(dependency_graph(v.state).edges(keys=True))
    [('h1', 'o1', 'dep'), ('o2', 'h1', 'attack')]
    """
    import networkx as nx  # here: the commands that never build the graph skip its import

    graph = nx.MultiDiGraph(turn=dmap.turn)
    for record in dmap.records.values():
        graph.add_node(
            record.id,
            kind=record.kind.value,
            claim=record.claim,
            speaker=record.speaker,
            turn=record.turn,
            standing=dmap.standing[record.id].value,
            grounding=grounding_of(dmap, record.id),
            committed_by=",".join(committed_by(dmap, record.id)),
            dissent=",".join(dmap.dissenters(record.id)),
        )
    # The kind is also an edge attribute: GraphML keeps a multigraph's key only as the
    # edge's id, which a plain networkx.read_graphml does not read back as data.
    for dependent, supports in dmap.dep.items():
        graph.add_edges_from((dependent, support, DEP, {"kind": DEP}) for support in supports)
    for attacker, targets in dmap.att.items():
        graph.add_edges_from((attacker, target, ATTACK, {"kind": ATTACK}) for target in targets)
    return graph


@dataclass(frozen=True, slots=True)
class MapAt:
    """D_N of a conversation (``verifier.state``), with its name and its agents' display
    names, for a command that shows it."""

    name: str
    agents: Mapping[str, str]
    verifier: Verifier


def rejection_unmarked(trace_turn: TraceTurn, error: GcvError) -> MalformedTrace:
    """The error for a turn the verifier rejected though its trace does not mark it rejected."""
    return MalformedTrace(
        f"T{trace_turn.number} was rejected, and the trace does not mark it rejected "
        f'(add "rejected": "{error.code}" if that is meant): {error}',
        field="turns",
    )


def map_at(trace: Trace, at: int | None) -> Replay:
    """Replay ``trace`` through its turn numbered ``at`` (every turn when ``at`` is None).

    ``at`` = 0 is the state before the first turn: the empty map and M_0.

    Raises
    ------
    MalformedInput
        ``at`` is not one of the trace's turn numbers.
    MalformedTrace
        A turn the trace does not mark rejected was rejected (the message names
        the turn and carries the turn's own error).
    """
    result = replay(trace if at is None else prefix(trace, at))
    for outcome in result.turns:
        if outcome.error is not None and outcome.trace_turn.rejected is None:
            raise rejection_unmarked(outcome.trace_turn, outcome.error) from outcome.error
    return result


def add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``TRACE | --db FILE`` and ``--at N`` arguments shared by the commands that show a
    map."""
    source = parser.add_mutually_exclusive_group(required=default_db() is None)
    source.add_argument(
        "trace", metavar="TRACE", nargs="?", help="a trace file or built-in scenario name"
    )
    source.add_argument(
        "--db",
        metavar="FILE",
        default=default_db(),
        help=f"a session store (gcv session) instead (default: ${DB_VARIABLE})",
    )
    parser.add_argument(
        "--at",
        type=int,
        metavar="N",
        help="the state after turn N; 0 is before the first (default: after the last turn)",
    )


def _bad_input_exits_2(body: Callable[[], int]) -> int:
    """``body()``; a bad input (an unknown trace, turn or record, a malformed trace) is
    printed on stderr with its code, as ``gcv``'s own commands do, and exits 2."""
    try:
        return body()
    except (GcvError, FileNotFoundError) as error:
        print(f"gcv: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


def run_on_map(args: argparse.Namespace, body: Callable[[MapAt], int]) -> int:
    """Run ``body`` on the map of ``args.trace`` (replayed) or of the store ``args.db`` (its
    map, as the store keeps it) at ``args.at``; bad input exits 2.

    A TRACE named on the command line wins over the store $GCV_DB names.
    """

    def shown() -> int:
        if args.trace is not None:
            replayed = map_at(read_trace(args.trace), args.at)
            trace = replayed.trace
            return body(MapAt(trace.name, dict(trace.agents), replayed.verifier))
        from gcv.store import open_session

        with open_session(args.db) as session:
            verifier = session.verifier if args.at is None else session.state_at(args.at)
            header = session.header
        return body(MapAt(header.get("name", ""), dict(header["agents"]), verifier))

    return _bad_input_exits_2(shown)


def run_on_trace(args: argparse.Namespace, body: Callable[[Trace], int]) -> int:
    """Run ``body`` on the whole conversation of ``args.trace``, or of the store ``args.db``
    (its log, rejected turns marked), not replayed; bad input exits 2."""
    return _bad_input_exits_2(
        lambda: body(read_trace(args.trace) if args.trace is not None else _stored_trace(args.db))
    )


def _stored_trace(db: str) -> Trace:
    """The conversation of the store ``db`` as a trace (its log, rejected turns marked).

    The store validated each turn when it was appended: its log is not validated again.
    """
    from gcv.store import open_session

    with open_session(db) as session:
        header, log = session.header, session.log()
    turns = tuple(TraceTurn(e.number, e.turn, rejected=e.rejected, why=e.error) for e in log)
    return dataclasses.replace(trace_from_document(trace_document(header, ())), turns=turns)


def write_output(content: str | bytes, output: str | None) -> None:
    """Write ``content`` to the file ``output``, or to stdout when it is None."""
    if output is not None:
        target = Path(output)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    elif isinstance(content, bytes):
        sys.stdout.buffer.write(content)
    else:
        sys.stdout.write(content)
