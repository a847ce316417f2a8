"""Machine-readable output: ``gcv replay --json`` and ``--junit``, ``gcv scenarios --json``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import pytest

from gcv.cli import main
from gcv.options import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from gcv.scenarios import builtin_scenarios

# One accepted turn, one the trace says is rejected, one rejected unexpectedly, and a final
# expectation that fails: the four kinds of case a report lists.
TRACE = {
    "format": "gcv-trace/1",
    "name": "t",
    "agents": {"a": "Alice"},
    "turns": [
        {"turn": 1, "speaker": "a", "operations": [{"op": "observe", "id": "o1", "claim": "x"}]},
        {
            "turn": 2,
            "speaker": "a",
            "rejected": "unknown-record",
            "operations": [{"op": "revise", "target": "nope"}],
        },
        {"turn": 2, "speaker": "a", "operations": [{"op": "revise", "target": "o2"}]},
    ],
    "expect": [
        {"query": "standing", "record": "o1", "equals": "abandoned"},
        {"query": "affected_star", "record": "o1", "equals": []},
    ],
}


@pytest.fixture
def trace(tmp_path: Path) -> str:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(TRACE))
    return str(path)


def test_replay_json_lists_every_turn_and_expectation(
    trace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", trace, "--json"]) == EXIT_FAILED
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and data["failures"] == 2 and data["expectations"] == 2
    assert [t["turn"] for t in data["turns"]] == [1, 2, 2]
    expected, unexpected = data["turns"][1]["rejection"], data["turns"][2]["rejection"]
    assert expected["ok"] and expected["actual"] == "unknown-record"
    assert not unexpected["ok"] and unexpected["expected"] is None
    standing, affected = data["final"]
    assert standing == {
        "query": "standing(o1)",
        "expected": "abandoned",
        "actual": "active",
        "ok": False,
        "why": "",
    }
    assert affected["ok"] and affected["actual"] == []


def test_a_query_on_a_trace_with_an_unmarked_rejection_names_the_turn(
    trace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for words in (["verify", "o1", "--trace", trace], ["export", trace, "--format", "json"]):
        assert main(words) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert "T2 was rejected, and the trace does not mark it rejected" in err
        assert '"rejected": "unknown-record"' in err and "'o2'" in err


def test_replay_junit_has_a_case_per_expectation(trace: str, tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    assert main(["replay", trace, "--junit", str(report), "--quiet"]) == EXIT_FAILED
    suite = ET.parse(report).getroot()
    cases = [(c.get("classname"), c.get("name"), c.find("failure")) for c in suite]
    names = [(classname, name) for classname, name, _ in cases]
    assert names == [
        ("t.T2", "rejection"),
        ("t.T2", "rejection"),
        ("t.final", "standing(o1)"),
        ("t.final", "affected_star(o1)"),
    ]
    failed = [failure.get("message") for _, _, failure in cases if failure is not None]
    assert failed == [
        "rejected unexpectedly: [unknown-record] turn 2, operation 0 (revise), field 'target': "
        "record 'o2' is not registered",
        "expected abandoned; got active",
    ]
    assert suite.get("tests") == "4" and suite.get("failures") == "2"


def test_several_traces_each_replay_and_the_worst_decides(
    trace: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unreadable = tmp_path / "broken.json"
    unreadable.write_text("{")
    held = ["phase2-debugging", "phase3-deliberation"]
    assert main(["replay", *held, "--quiet"]) == EXIT_OK
    assert capsys.readouterr().out.rstrip().endswith("2 traces: 2 hold, 0 FAILED, 0 unreadable")
    assert main(["replay", held[0], trace, "--quiet"]) == EXIT_FAILED
    assert "1 hold, 1 FAILED" in capsys.readouterr().out
    report = tmp_path / "report.xml"
    words = ["replay", trace, str(unreadable), held[0], "--junit", str(report), "--quiet"]
    assert main(words) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert f"gcv: {unreadable}: [malformed-trace]" in err
    assert out.rstrip().endswith("3 traces: 1 hold, 1 FAILED, 1 unreadable")
    suites = ET.parse(report).getroot()
    assert suites.tag == "testsuites"
    counted = [(s.get("name"), s.get("tests"), s.get("failures"), s.get("errors")) for s in suites]
    assert counted == [
        ("t", "4", "2", "0"),
        (held[0], "37", "0", "0"),
        (str(unreadable), "1", "0", "1"),
    ]
    assert main(["replay", trace, str(unreadable), "--json"]) == EXIT_BAD_INPUT
    data = json.loads(capsys.readouterr().out)
    assert [(d["trace"], d["ok"]) for d in data] == [("t", False), (str(unreadable), False)]
    assert data[1]["error"].startswith("[malformed-trace]")


@pytest.mark.slow
@pytest.mark.parametrize("name", builtin_scenarios())
def test_replay_json_of_each_scenario_holds(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", name, "--json"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    checks = [c for t in data["turns"] for c in t["checks"]] + data["final"]
    assert data["ok"] and len(checks) == data["expectations"] > 0
    assert all(c["ok"] for c in checks)


def test_scenarios_json_gives_each_description(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", "--json"]) == EXIT_OK
    listed = json.loads(capsys.readouterr().out)
    folder = resources.files("gcv.spec").joinpath("scenarios")
    for entry in listed:
        source = json.loads(folder.joinpath(f"{entry['name']}.json").read_text("utf-8"))
        assert entry["description"] == source["description"]
    assert [entry["name"] for entry in listed] == builtin_scenarios()


@pytest.mark.slow
def test_vectors_check_json_reports_the_suite(capsys: pytest.CaptureFixture[str]) -> None:
    # A small spec bound keeps this quick; the bound changes no vector.
    assert main(["vectors", "--check", "--json", "--spec-worlds", "8"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    manifest = json.loads(
        resources.files("gcv.spec").joinpath("vectors", "manifest.json").read_text("utf-8")
    )
    assert data["current"] is True and data["stale"] == []
    assert data["cases"] == manifest["cases"] == sum(len(f["cases"]) for f in manifest["files"])
    assert data["spec_transition"]["bound_worlds"] == 8


def test_paper_json_lists_every_claim(capsys: pytest.CaptureFixture[str]) -> None:
    from gcv.claims import CLAIMS, Status

    assert main(["paper", "--json", "--check"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in data["claims"]] == [c.id for c in CLAIMS]
    assert data["dangling"] == [] and data["stale"] is False
    statuses = {c["status"] for c in data["claims"]}
    assert statuses <= {s.value for s in Status}, "each status is one of the registry's"
