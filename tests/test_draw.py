"""``gcv draw``: the pictures show the map and the highlighted query's answer.

The SVG is read back as XML: Graphviz writes each record as a ``g`` element
titled with its id and carrying the classes ``gcv draw`` gave it.  Expected
sets are the paper's (B.2, B.3), not the drawing code's.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gcv.cli import EXIT_BAD_INPUT, EXIT_OK, main
from gcv.mapview import map_at
from gcv.scenarios import read_trace, trace_text

SVG = "{http://www.w3.org/2000/svg}"


def _svg(tmp_path: Path, *words: str) -> ET.Element:
    target = tmp_path / "map.svg"
    assert main(["draw", *words, "--format", "svg", "-o", str(target)]) == EXIT_OK
    return ET.parse(target).getroot()


def _titled(root: ET.Element, kind: str, css: str) -> set[str]:
    """The titles of the ``kind`` elements (node, edge) whose classes include ``css``."""
    found = set()
    for group in root.iter(f"{SVG}g"):
        classes = group.get("class", "").split()
        if kind in classes and css in classes:
            title = group.find(f"{SVG}title")
            assert title is not None and title.text is not None
            found.add(title.text.replace("&#45;", "-"))
    return found


def test_phase2_t13_affected_o5_marks_the_retraction_path(tmp_path: Path) -> None:
    root = _svg(tmp_path, "phase2-debugging", "--at", "13", "--highlight", "affected:o5")
    dmap = map_at(read_trace("phase2-debugging"), 13).verifier.state
    assert _titled(root, "node", "record") == set(dmap.records)
    # B.2: retracting o5 reaches h3, then h4 (which rests on h3), then h1 (which rests on h4).
    assert _titled(root, "node", "marked") == {"h3", "h4", "h1"}
    assert _titled(root, "node", "subject") == {"o5"}
    dep = {f"{r}->{s}" for r, supports in dmap.dep.items() for s in supports}
    att = {f"{a}->{t}" for a, targets in dmap.att.items() for t in targets}
    assert _titled(root, "edge", "dep") == dep
    assert _titled(root, "edge", "attack") == att
    assert "o9->h2" in att, "B.2 T7: o9 undermines h2"
    assert "Affected*(o5) = {h1, h3, h4}" in ET.tostring(root, encoding="unicode")


def test_phase3_verify_decision_draws_the_witness_path(tmp_path: Path) -> None:
    # B.3: a3 is retracted, so the decision's walk fails at a3.
    root = _svg(tmp_path, "phase3-deliberation", "--highlight", "verify:P3")
    assert _titled(root, "edge", "path") == {"P3->a3"}
    assert _titled(root, "node", "marked") == {"P3", "a3"}
    text = ET.tostring(root, encoding="unicode")
    assert "no longer grounded; affected by retraction of a3" in text
    assert "dissent: Bob" in text, "P3 shows Bob's dissent, by his name"


def test_png_is_a_png(tmp_path: Path) -> None:
    target = tmp_path / "map.png"
    assert main(["draw", "phase2-debugging", "--format", "png", "-o", str(target)]) == EXIT_OK
    assert target.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_mermaid_lists_every_record_link_and_the_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    words = ["draw", "phase2-debugging", "--at", "13", "--highlight", "affected:o5"]
    assert main([*words, "--format", "mermaid"]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    dmap = map_at(read_trace("phase2-debugging"), 13).verifier.state
    name = {record: f"n{i}" for i, record in enumerate(dmap.records)}
    nodes = [line for line in lines if line.startswith("  n") and '["' in line]
    assert len(nodes) == len(dmap.records)
    assert sum("-->" in line for line in lines) == sum(len(s) for s in dmap.dep.values())
    assert sum("-.->|attacks|" in line for line in lines) == sum(len(t) for t in dmap.att.values())
    assert sum("-->|rests on|" in line for line in lines) == sum(len(s) for s in dmap.dep.values())
    marked = next(line for line in lines if line.endswith(" marked") and "class " in line)
    assert set(marked.split()[1].split(",")) == {name["h3"], name["h4"], name["h1"]}


@pytest.mark.parametrize(
    ("highlight", "message"),
    [("affected:nope", "[unknown-record]"), ("grounded:h1", "verify:RECORD or affected:RECORD")],
)
def test_bad_highlight_is_exit_2(
    highlight: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    words = ["draw", "phase2-debugging", "--highlight", highlight, "--format", "dot"]
    assert main(words) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err


def test_muddy_children_m2_has_the_worlds_with_two_or_more_muddy(tmp_path: Path) -> None:
    root = _svg(tmp_path, "phase1-muddy-children", "--at", "4", "--model")
    # B.1: W_2 = {MMM, MMC, MCM, CMM}; in W_2 only Carol confuses MMC with MMM.
    worlds = {"m_a m_b m_c", "m_a m_b ¬m_c", "m_a ¬m_b m_c", "¬m_a m_b m_c"}
    assert _titled(root, "node", "world") == worlds
    edges: dict[str, str | None] = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "edge":
            title, label = group.find(f"{SVG}title"), group.find(f"{SVG}text")
            assert title is not None and label is not None
            edges[str(title.text).replace("&#45;", "-")] = label.text
    assert edges["m_a m_b m_c--m_a m_b ¬m_c"] == "c"
    assert len(edges) == 3, "each of the three two-muddy worlds is one child's doubt from MMM"


def test_a_model_too_large_to_draw_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["draw", "phase2-debugging", "--model", "--format", "dot"]) == EXIT_BAD_INPUT
    assert "256 worlds" in capsys.readouterr().err


def phase2_resting_on_h2(folder: Path) -> Path:
    """Phase 2 through T9 (B.2: Alice's Revise abandons h2), then a turn resting h5 on h2
    and h6 on h5 and o8: h2's dependents, in good standing but not grounded (Lemma 2.1)."""
    document = json.loads(trace_text("phase2-debugging"))
    turns = document["turns"][:9]
    assert turns[-1]["turn"] == 9 and turns[-1]["operations"] == [{"op": "revise", "target": "h2"}]
    rest = {"turn": 10, "speaker": "c", "text": "Suppose h2 holds anyway."}
    rest["operations"] = [
        {"op": "hypothesize", "id": "h5", "claim": "auth outage", "depends_on": ["h2"]},
        {"op": "hypothesize", "id": "h6", "claim": "fix Redis first", "depends_on": ["h5", "o8"]},
    ]
    document["turns"] = [*turns, rest]
    document.pop("expectations", None)
    path = folder / "phase2-resting-on-h2.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


# Lemma 2.1 by hand: h2 is abandoned (B.2 T9), so the walks from h5 and h6 reach it.
NOT_GROUNDED = {"h5", "h6"}


def test_phase2_after_t9_marks_h2_and_its_dependents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = str(phase2_resting_on_h2(tmp_path))
    records = set(map_at(read_trace(trace), None).verifier.state.records)
    root = _svg(tmp_path, trace)
    assert _titled(root, "node", "not-grounded") == NOT_GROUNDED
    assert _titled(root, "node", "out-of-standing") == {"h2"}
    assert _titled(root, "node", "grounded") == records - NOT_GROUNDED - {"h2"}
    assert _titled(root, "edge", "broken") == {"h5->h2"}, "the link to what left S_t"
    text = ET.tostring(root, encoding="unicode")
    assert text.count("NOT GROUNDED: rests on h2 (abandoned)") == 2
    assert "legend" in _titled(root, "node", "legend")

    assert main(["draw", trace, "--format", "dot"]) == EXIT_OK
    dot = capsys.readouterr().out
    for record in records:
        (line,) = [x for x in dot.splitlines() if x.startswith(f"\t{record} [")]
        classes = re.search(r'class="([^"]*)"', line)
        assert classes is not None, line
        expected = "not-grounded" if record in NOT_GROUNDED else "grounded"
        assert (expected in classes.group(1).split()) == (record != "h2"), line
    assert "legend" in dot and 'label="rests on"' in dot

    assert main(["draw", trace, "--format", "mermaid"]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    dmap = map_at(read_trace(trace), None).verifier.state
    name = {record: f"n{i}" for i, record in enumerate(dmap.records)}
    (members,) = [x for x in lines if x.startswith("  class ") and x.endswith(" notgrounded")]
    assert set(members.split()[1].split(",")) - {"legend_notgrounded"} == {
        name[r] for r in NOT_GROUNDED
    }
    assert any(line.startswith('  subgraph legend["legend"]') for line in lines)
