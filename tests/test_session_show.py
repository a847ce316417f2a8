"""``gcv session show`` says which records Verify accepts now, and every command taking
``--db`` defaults to the store ``$GCV_DB`` names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcv.cli import main
from gcv.options import EXIT_FAILED, EXIT_OK

# Observe, hypothesize resting on it, support, revise the observation, ask a question.
FIVE_TURNS = [
    {"speaker": "a", "operations": [{"op": "observe", "id": "o1", "claim": "401 errors"}]},
    {
        "speaker": "b",
        "operations": [
            {"op": "hypothesize", "id": "h1", "claim": "token bug", "depends_on": ["o1"]}
        ],
    },
    {
        "speaker": "a",
        "operations": [
            {"op": "support", "target": "h1", "evidence": "e1", "evidence_claim": "expiry logs"}
        ],
    },
    {"speaker": "b", "operations": [{"op": "revise", "target": "o1"}]},
    {"speaker": "a", "operations": [{"op": "question", "id": "q1", "claim": "what now?"}]},
]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    db = tmp_path / "talk.gcv"
    assert main(["session", "new", "--db", str(db), "--agents", "a=Alice,b=Bob"]) == EXIT_OK
    turns = tmp_path / "turns.jsonl"
    turns.write_text("".join(json.dumps(t) + "\n" for t in FIVE_TURNS), encoding="utf-8")
    assert main(["session", "append", str(turns), "--db", str(db)]) == EXIT_OK
    return db


# Lemma 2.1 by hand: o1 is revised, so h1 (resting on o1 and e1) is in S_t, not grounded.
GROUNDING = {"o1": "out-of-standing", "h1": "not-grounded", "e1": "grounded"}


def test_show_says_h1_is_no_longer_grounded(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["session", "show", "--db", str(store)]) == EXIT_OK
    text = capsys.readouterr().out
    assert "  h1: active · NOT GROUNDED: rests on o1 (abandoned)" in text.splitlines()
    assert "  e1: active · grounded" in text.splitlines()
    assert main(["session", "show", "--db", str(store), "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["grounding"] == GROUNDING


def test_every_db_command_defaults_to_gcv_db(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GCV_DB", str(store))
    capsys.readouterr()
    assert main(["session", "show", "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["grounding"] == GROUNDING
    assert main(["verify", "h1"]) == EXIT_FAILED, "h1 rests on the revised o1"
    assert main(["verify", "e1"]) == EXIT_OK
    capsys.readouterr()
    assert main(["export", "--format", "iccma-tgf"]) == EXIT_OK
    assert capsys.readouterr().out.split("#")[0].split() == ["o1", "h1", "e1"]
    assert main(["draw", "--format", "dot"]) == EXIT_OK
    assert 'class="record active not-grounded"' in capsys.readouterr().out
    # A trace named on the command line wins over the store: B.2's h1 is grounded.
    assert main(["verify", "h1", "--trace", "phase2-debugging"]) == EXIT_OK
    assert main(["draw", "phase2-debugging", "--format", "dot"]) == EXIT_OK
    assert ' not-grounded"' not in capsys.readouterr().out
