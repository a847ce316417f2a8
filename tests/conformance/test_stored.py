"""``gcv serve --db``: the protocol's conversation kept in a session store, across servers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gcv.conformance.stored import StoredProtocolSession
from gcv.store import open_session

ROOT = Path(__file__).resolve().parents[2]


def _serve(store: Path, *requests: dict[str, object]) -> list[dict[str, object]]:
    """Run ``gcv serve --db store`` in a process of its own; its responses, in order."""
    feed = "".join(json.dumps({"id": k, **r}) + "\n" for k, r in enumerate(requests))
    done = subprocess.run(
        [sys.executable, "-m", "gcv.cli", "serve", "--db", str(store)],
        input=feed,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.slow
def test_a_served_conversation_outlives_its_server(tmp_path: Path) -> None:
    store = tmp_path / "served.gcv"
    observe = {"op": "observe", "id": "o1", "claim": "401 errors"}
    rests = {"op": "hypothesize", "id": "h1", "claim": "token bug", "depends_on": ["o1"]}
    first = _serve(
        store,
        {"cmd": "start", "agents": ["a", "b"], "atoms": ["p"]},
        {"cmd": "apply", "speaker": "a", "operations": [observe, rests]},
        {"cmd": "apply", "speaker": "b", "operations": [{"op": "revise", "target": "nope"}]},
        {"cmd": "shutdown"},
    )
    assert [r["ok"] for r in first] == [True, True, False, True]
    assert first[2]["error"]["code"] == "unknown-record"  # type: ignore[index]
    second = _serve(
        store,
        {"cmd": "query", "query": "verify", "record": "h1"},
        {"cmd": "apply", "speaker": "b", "operations": [{"op": "revise", "target": "o1"}]},
        {"cmd": "render", "what": "turn"},
        {"cmd": "start", "agents": ["a"]},
    )
    assert second[0]["result"]["grounded"] is True  # type: ignore[index]
    assert second[1]["result"] == {"turn": 2}
    # Revise abandons o1; b, who never committed to it, has no commitment to retract.
    assert second[2]["result"] == {"lines": ["standing: o1 active -> abandoned"]}
    assert second[3]["error"]["code"] == "store-exists"  # type: ignore[index]
    with open_session(store) as session:
        assert [(e.number, e.rejected) for e in session.log()] == [
            (1, None),
            (2, "unknown-record"),
            (2, None),
        ]
        assert not session.verifier.verify("h1").grounded
        assert session.verifier.is_aware("b", "p")  # start's Prop_0 is the store's


def test_a_start_the_store_cannot_take_leaves_no_conversation(tmp_path: Path) -> None:
    served = StoredProtocolSession(tmp_path / "no-such-folder" / "served.gcv")
    refused = served.handle({"id": 1, "cmd": "start", "agents": ["a"]})
    assert not refused["ok"]
    apply = {"id": 2, "cmd": "apply", "speaker": "a", "operations": []}
    assert served.handle(apply)["error"]["code"] == "malformed-request"
