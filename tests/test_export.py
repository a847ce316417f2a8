"""``gcv export``: every format read back by the library that owns it, and compared with D_t.

The expected values are read from the dependency map itself (its records,
standing, Dep, Att_t and Cm), never from the exporter's own graph.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from argumentation.interop import iccma

from gcv.cli import main
from gcv.export import export
from gcv.mapview import map_at
from gcv.options import EXIT_BAD_INPUT, EXIT_OK
from gcv.reference.depmap import DependencyMap
from gcv.scenarios import builtin_scenarios, read_trace
from gcv.spec import core
from gcv.translate import spec_map

# Every scenario's final map, and Phase 2 after T7 (h2 weakened by o9's attack).
MAPS = [(name, None) for name in builtin_scenarios()] + [("phase2-debugging", 7)]


def _map(name: str, at: int | None) -> DependencyMap:
    return map_at(read_trace(name), at).verifier.state


def _dep(dmap: DependencyMap) -> set[tuple[str, str]]:
    return {(r, s) for r, supports in dmap.dep.items() for s in supports}


def _att(dmap: DependencyMap) -> set[tuple[str, str]]:
    return {(a, t) for a, targets in dmap.att.items() for t in targets}


def _grounding(dmap: DependencyMap, record: str) -> str:
    """By the spec's definitions: out of S_t, or Dep* inside S_t (Lemma 2.1), or not."""
    oracle = spec_map(dmap)
    if record not in core.get_active_set(oracle):
        return "out-of-standing"
    return "grounded" if core.is_grounded(oracle, record) else "not-grounded"


def _expected_nodes(dmap: DependencyMap) -> dict[str, dict[str, object]]:
    nodes: dict[str, dict[str, object]] = {}
    for record in dmap.records.values():
        holders = [a for a in dmap.agents if record.id in dmap.commitments(a)]
        nodes[record.id] = {
            "kind": record.kind.value,
            "claim": record.claim,
            "speaker": record.speaker,
            "turn": record.turn,
            "standing": dmap.standing[record.id].value,
            "grounding": _grounding(dmap, record.id),
            "committed_by": ",".join(holders),
            "dissent": ",".join(dmap.dissenters(record.id)),
        }
    return nodes


def _assert_same_graph(graph: nx.MultiDiGraph, dmap: DependencyMap) -> None:
    assert dict(graph.nodes(data=True)) == _expected_nodes(dmap)
    edges = {(u, v, k) for u, v, k in graph.edges(keys=True)}
    expected = {(*e, "dep") for e in _dep(dmap)} | {(*e, "attack") for e in _att(dmap)}
    assert edges == expected, (edges - expected, expected - edges)
    kinds = {(u, v, kind) for u, v, kind in graph.edges(data="kind")}
    assert kinds == expected, "the kind is edge data, not only the key"
    assert graph.graph["turn"] == dmap.turn


@pytest.mark.parametrize(("name", "at"), MAPS)
def test_iccma_exports_read_back_as_the_map_af(name: str, at: int | None) -> None:
    dmap = _map(name, at)
    for form, parse in (("iccma-apx", iccma.parse_apx), ("iccma-tgf", iccma.parse_tgf)):
        framework = parse(export(dmap, form))
        assert framework.arguments == frozenset(dmap.records), form
        assert framework.defeats == frozenset(_att(dmap)), form


@pytest.mark.slow
@pytest.mark.parametrize(("name", "at"), MAPS)
def test_graphml_reads_back_with_networkx(name: str, at: int | None) -> None:
    dmap = _map(name, at)
    text = export(dmap, "graphml")
    graph = nx.read_graphml(io.BytesIO(text.encode()), force_multigraph=True)
    _assert_same_graph(graph, dmap)


@pytest.mark.parametrize(("name", "at"), MAPS)
def test_node_link_reads_back_with_networkx(name: str, at: int | None) -> None:
    dmap = _map(name, at)
    graph = nx.node_link_graph(json.loads(export(dmap, "node-link")), edges="edges")
    assert graph.is_multigraph() and graph.is_directed()
    _assert_same_graph(graph, dmap)


def test_json_export_lists_the_map() -> None:
    dmap = _map("phase2-debugging", 13)
    data = json.loads(export(dmap, "json"))
    assert [r["id"] for r in data["records"]] == sorted(dmap.records)
    assert {tuple(pair) for pair in data["dep"]} == _dep(dmap)
    assert {tuple(pair) for pair in data["att"]} == _att(dmap)
    assert data["turn"] == 13


def test_phase2_af_at_t7_has_o9_attacking_h2() -> None:
    # B.2 T7: Undermine(h2) by o9 ("401 not 503"); the paper's own attack.
    framework = iccma.parse_apx(export(_map("phase2-debugging", 7), "iccma-apx"))
    assert ("o9", "h2") in framework.defeats


def test_export_writes_a_file(tmp_path: Path) -> None:
    target = tmp_path / "map.graphml"
    assert main(["export", "phase2-debugging", "--format", "graphml", "-o", str(target)]) == 0
    assert "o5" in nx.read_graphml(target)


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["phase2-debugging", "--at", "99"], "turn 99 is not in the trace"),
        (["no-such-scenario"], "no such file"),
    ],
)
def test_export_bad_input_is_exit_2(
    words: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", *words, "--format", "json"]) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err


def test_export_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "phase3-deliberation", "--format", "iccma-tgf"]) == EXIT_OK
    assert "#" in capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("command", ["export", "draw"])
def test_a_session_store_shows_the_same_map_as_its_trace(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "phase2.gcv"
    assert main(["session", "import", "phase2-debugging", "--db", str(store)]) == EXIT_OK
    capsys.readouterr()
    fmt = "json" if command == "export" else "dot"
    for at in (["--at", "7"], []):
        assert main([command, "phase2-debugging", *at, "--format", fmt]) == EXIT_OK
        from_trace = capsys.readouterr().out
        assert main([command, "--db", str(store), *at, "--format", fmt]) == EXIT_OK
        assert capsys.readouterr().out == from_trace


@pytest.mark.parametrize(("name", "at"), MAPS)
def test_graphml_keeps_the_edge_kind_for_a_plain_read(name: str, at: int | None) -> None:
    dmap = _map(name, at)
    graph = nx.read_graphml(io.BytesIO(export(dmap, "graphml").encode()))
    kinds = {(u, v): kind for u, v, kind in graph.edges(data="kind")}
    # A plain DiGraph keeps one edge per pair; no pair of Phase 2 is both kinds.
    assert kinds == {e: "dep" for e in _dep(dmap)} | {e: "attack" for e in _att(dmap)}


def _name_map(text: str) -> dict[str, str]:
    """The ``# i id`` comment lines of an iccma23 export: number -> record."""
    pairs = (line.split()[1:] for line in text.splitlines() if line.startswith("# "))
    return {pair[0]: pair[1] for pair in pairs if len(pair) == 2 and pair[0].isdigit()}


@pytest.mark.parametrize(("name", "at"), MAPS)
def test_iccma23_reads_back_as_the_map_af(name: str, at: int | None) -> None:
    dmap = _map(name, at)
    text = export(dmap, "iccma23")
    framework = iccma.parse_af(text)
    named = _name_map(text)
    assert sorted(named.values()) == sorted(dmap.records)
    assert {(named[a], named[t]) for a, t in framework.defeats} == _att(dmap)


@pytest.mark.slow
def test_iccma_cli_solves_the_iccma23_export(tmp_path: Path) -> None:
    target = tmp_path / "phase2.af"
    assert main(["export", "phase2-debugging", "--format", "iccma23", "-o", str(target)]) == 0
    # formal-argumentation's iccma-cli (the test extra), as its console script runs it.
    cli = [sys.executable, "-m", "argumentation.solving.iccma_cli"]
    solved = subprocess.run(
        [*cli, "-p", "SE-GR", "-f", str(target)], capture_output=True, text=True, check=False
    )
    assert solved.returncode == 0, solved.stderr
    named = _name_map(target.read_text())
    word, *members = solved.stdout.split()
    assert word == "w"
    # Dung's grounded extension of B.2's AF at T13: h2 is the only attacked record, and its
    # attacker o9 is unattacked, so every record but h2 is in it.
    assert {named[m] for m in members} == set(named.values()) - {"h2"}
