"""``gcv session`` and ``--db``/``--at``: the command line over a store, with real processes.

The crash test appends Phase 2 through the command line, then kills a second
appending process with SIGKILL at seeded random moments (15 kills),
reopening the store after each, and finally checks every ``gcv verify`` and
``gcv affected`` answer against ``gcv replay``'s for the same prefix.
"""

from __future__ import annotations

import io
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gcv.cli import main
from gcv.history import LoggedTurn, header_of, prefix, trace_document, turn_to_json
from gcv.reference.operations import Hypothesize, Observe, Operation, Revise
from gcv.reference.verifier import Turn
from gcv.replay import replay
from gcv.scenarios import builtin_scenarios, load_scenario, scenario_text
from gcv.store import open_session
from gcv.trace import load_trace

ROOT = Path(__file__).resolve().parent.parent
GCV = [sys.executable, "-m", "gcv.cli"]
KILLS = 15
CONTINUATION = 3000  # generated turns after Phase 2: more than the killed writers reach


def _gcv(
    *argv: object, feed: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``gcv`` in a process of its own."""
    words = [str(word) for word in argv]
    return subprocess.run(
        [*GCV, *words], input=feed, capture_output=True, text=True, cwd=ROOT, env=env, check=False
    )


def _answer(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """Run ``gcv`` in this process (no start-up cost): its exit code, stdout and stderr."""
    code = main([str(word) for word in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _phase2_lines() -> list[str]:
    document = json.loads(scenario_text("phase2-debugging"))
    kept = ("turn", "speaker", "text", "operations")
    return [json.dumps({k: t[k] for k in kept if k in t}) for t in document["turns"]]


def _continuation() -> list[Turn]:
    """Turns that apply after Phase 2 by construction: a chain of hypotheses resting on h1
    (so on o5) and on fresh observations, with every fourth turn revising an earlier one."""
    turns = []
    for k in range(CONTINUATION):
        previous = f"x{k - 1}" if k else "h1"
        ops: tuple[Operation, ...] = (
            Observe(f"y{k}", f"reading {k}"),
            Hypothesize(f"x{k}", f"step {k}", depends_on=(previous, f"y{k}")),
        )
        if k % 4 == 3:
            ops += (Revise(f"x{k - 2}"),)
        turns.append(Turn("abc"[k % 3], ops, f"turn {k}"))
    return turns


# The killed writers run without the slow postconditions (the naive closures), so that
# their appends are as quick as an integrator's; the test's own reads keep them.
FAST_ENV = {k: v for k, v in os.environ.items() if k != "ICONTRACT_SLOW"}


# Prints, for each prefix N, N and the digests of D_N by replay of the trace and by the store.
_DIGESTS = """
import sys
from pathlib import Path
from gcv.history import prefix
from gcv.replay import replay
from gcv.store import open_session
from gcv.trace import load_trace
trace = load_trace(Path(sys.argv[1]).read_bytes())
with open_session(sys.argv[2]) as session:
    for n in map(int, sys.argv[3:]):
        by_replay = replay(prefix(trace, n)).verifier.state.digest()
        print(n, by_replay, session.state_at(n).state.digest())
"""


def _logged_turns(store: Path) -> list[Turn]:
    with open_session(store) as session:
        log = session.log()
    assert all(entry.rejected is None for entry in log), "no turn of the test is rejected"
    assert [entry.number for entry in log] == list(range(1, len(log) + 1))
    return [entry.turn for entry in log]


@pytest.mark.slow
def test_phase2_appended_through_the_command_line_survives_sigkill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "session.gcv"
    created = _gcv(
        "session", "new", "--db", store, "--trace", "phase2-debugging", "--snapshot-every", 40
    )
    assert created.returncode == 0, created.stderr
    for number, line in enumerate(_phase2_lines(), start=1):
        appended = _gcv("session", "append", "--db", store, "--json", feed=line)
        assert appended.returncode == 0, appended.stderr
        assert json.loads(appended.stdout) == {
            **json.loads(appended.stdout),
            "turn": number,
            "accepted": True,
        }

    # The second writer appends a generated continuation and is killed mid-stream.
    expected = [t.turn for t in load_scenario("phase2-debugging").turns] + _continuation()
    lines = [json.dumps(turn_to_json(LoggedTurn(n, t))) for n, t in enumerate(expected, start=1)]
    rng = random.Random(19)
    kills = mid_stream = 0
    reached = 13
    feed = tmp_path / "continuation.jsonl"
    moments: list[tuple[int, int]] = []  # (turns the writer reported committed, turns logged)
    started = time.perf_counter()
    while kills < KILLS:
        feed.write_text("\n".join(lines[reached:]) + "\n")
        writer = subprocess.Popen(
            [*GCV, "session", "append", "--db", str(store), "--json", str(feed)],
            cwd=ROOT,
            env=FAST_ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert writer.stdout is not None
        # The kill moment, drawn from the seeded generator: after the writer reports its
        # k-th committed turn, so somewhere in the turns that follow; for one kill in five
        # k = 0, at once (starting up, opening, recovering the last kill's WAL).
        committed = 0 if kills % 5 == 4 else rng.randint(1, 8)
        for _ in range(committed):
            writer.stdout.readline()
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
        kills += 1
        # Reopen: the log is a prefix of what was sent, each turn whole, none twice.
        logged = _logged_turns(store)
        moments.append((committed, len(logged)))
        assert logged == expected[: len(logged)], f"after kill {kills}: {moments}"
        assert reached + committed <= len(logged) < len(expected), moments
        mid_stream += committed > 0
        reached = len(logged)
    elapsed = time.perf_counter() - started

    # Every Verify and Affected* answer of every Phase 2 prefix is replay's: through the
    # API for every record, through the command line for the last registered one (each
    # command opens the store, which checks the whole log first).
    trace = load_scenario("phase2-debugging")
    with open_session(store) as session:
        for n in range(14):
            replayed = replay(prefix(trace, n)).verifier
            stored = session.state_at(n)
            for record in replayed.state.records:
                assert stored.verify(record) == replayed.verify(record), (record, n)
                assert stored.affected_star(record) == replayed.affected_star(record), n
            for record in [*list(replayed.state.records)[-1:], "never-registered"]:
                for query in ("verify", "affected"):
                    from_store = _answer(capsys, query, record, "--db", store, "--at", n, "--json")
                    from_trace = _answer(capsys, query, record, "--at", n, "--json")
                    assert from_store == from_trace, (query, record, n)

    checked = time.perf_counter()

    # Beyond Phase 2, the whole map at a few prefixes: equal digests, so equal answers to
    # every query.  Replaying the long continuation runs without the slow postconditions.
    whole = tmp_path / "whole.json"
    document = trace_document(
        header_of(json.loads(scenario_text("phase2-debugging"))),
        [LoggedTurn(n, t) for n, t in enumerate(expected[:reached], start=1)],
    )
    whole.write_text(json.dumps(document))
    prefixes = [14, (13 + reached) // 2, reached]
    digests = subprocess.run(
        [sys.executable, "-c", _DIGESTS, str(whole), str(store), *map(str, prefixes)],
        cwd=ROOT,
        env=FAST_ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in digests.stdout.splitlines():
        n, from_replay, from_store = line.split()
        assert from_replay == from_store, f"the maps differ as of turn {n}"
    assert len(digests.stdout.splitlines()) == len(prefixes)
    print(
        f"{kills} SIGKILLs ({mid_stream} mid-stream) in {elapsed:.1f} s; {reached} turns; "
        f"Phase 2 answers {checked - started - elapsed:.1f} s, "
        f"the rest {time.perf_counter() - checked:.1f} s"
    )


def _observations(speaker: str, count: int) -> str:
    return "".join(
        json.dumps(
            {
                "speaker": speaker,
                "operations": [{"op": "observe", "id": f"{speaker}{k}", "claim": f"note {k}"}],
            }
        )
        + "\n"
        for k in range(count)
    )


@pytest.mark.slow
def test_two_processes_appending_at_once_lose_and_repeat_nothing(tmp_path: Path) -> None:
    store = tmp_path / "session.gcv"
    assert _gcv("session", "new", "--db", store, "--agents", "a,b").returncode == 0
    feeds = []
    for speaker in ("a", "b"):
        feed = tmp_path / f"{speaker}.jsonl"
        feed.write_text(_observations(speaker, 60))
        feeds.append(feed)
    writers = [
        subprocess.Popen(
            [*GCV, "session", "append", "--db", str(store), str(feed)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for feed in feeds
    ]
    for writer in writers:
        assert writer.wait() == 0, writer.stderr.read() if writer.stderr else ""
    logged = _logged_turns(store)
    ids = [op.id for turn in logged for op in turn.operations]  # type: ignore[attr-defined]
    for speaker in ("a", "b"):
        assert [i for i in ids if i.startswith(speaker)] == [f"{speaker}{k}" for k in range(60)]
    assert len(ids) == 120


@pytest.mark.slow
def test_a_writer_that_cannot_get_the_lock_is_refused_and_logs_nothing(tmp_path: Path) -> None:
    store = tmp_path / "session.gcv"
    assert _gcv("session", "new", "--db", store, "--agents", "a").returncode == 0
    holder = sqlite3.connect(store, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        refused = _gcv(
            "session", "append", "--db", store, "--wait", "0.2", feed=_observations("a", 1)
        )
    finally:
        holder.close()
    assert refused.returncode == 2 and "[store-busy]" in refused.stderr
    assert _logged_turns(store) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", builtin_scenarios())
def test_export_then_replay_reproduces_every_expectation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    store, exported = tmp_path / "s.gcv", tmp_path / "exported.json"
    assert _answer(capsys, "session", "import", name, "--db", store)[0] == 0
    assert _answer(capsys, "session", "export", "--db", store, "--output", exported)[0] == 0
    original: dict[str, Any] = json.loads(scenario_text(name))
    document = json.loads(exported.read_text())
    assert len(document["turns"]) == len(original["turns"])
    # The store keeps turns, not expectations: put the original's back on the exported turns.
    for turn, source in zip(document["turns"], original["turns"], strict=True):
        turn["expect"] = source.get("expect", [])
    document["expect"] = original.get("expect", [])
    result = replay(load_trace(json.dumps(document)))
    assert result.ok and len(result.checks) == len(replay(load_scenario(name)).checks) > 0
    assert [t.trace_turn.turn for t in result.turns] == [t.turn for t in load_scenario(name).turns]


def test_append_stops_at_a_rejected_turn_unless_told_to_keep_going(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, turns = tmp_path / "s.gcv", tmp_path / "turns.jsonl"
    assert _answer(capsys, "session", "new", "--db", store, "--agents", "a=Alice,b")[0] == 0
    bad = {"speaker": "b", "operations": [{"op": "revise", "target": "nope"}]}
    turns.write_text(_observations("a", 1) + json.dumps(bad) + "\n" + _observations("b", 1))
    code, out, _ = _answer(capsys, "session", "append", "--db", store, turns)
    assert code == 2 and out.splitlines()[0] == "T1 Alice:"
    assert "T2 rejected (line 2): [unknown-record]" in out and "T2 b:" not in out
    code, out, _ = _answer(
        capsys, "session", "append", "--db", store, turns, "--keep-going", "--json"
    )
    replies = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and [r["accepted"] for r in replies] == [False, False, True]
    assert replies[0]["error"]["code"] == "duplicate-record"
    # Two rejected turns in a row share the number the next turn takes: each names its line.
    assert [(r["turn"], r.get("line")) for r in replies] == [
        (2, "line 1"),
        (2, "line 2"),
        (2, None),
    ]
    with open_session(store) as session:
        assert [(e.number, e.rejected) for e in session.log()] == [
            (1, None),
            (2, "unknown-record"),
            (2, "duplicate-record"),
            (2, "unknown-record"),
            (2, None),
        ]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(turns.read_bytes())))
    assert _answer(capsys, "session", "append", "--db", store)[0] == 2
    not_json = tmp_path / "not.jsonl"
    not_json.write_text("observe o1\n")
    code, _, err = _answer(capsys, "session", "append", "--db", store, not_json)
    assert code == 2 and "line 1: a turn line is not valid JSON" in err
    unknown = {"speaker": "a", "operations": [{"op": "observe", "id": "x", "claim": "y", "to": 1}]}
    not_a_turn = tmp_path / "fifth.jsonl"
    fine = [
        {"speaker": "a", "operations": [{"op": "observe", "id": f"f{k}", "claim": "z"}]}
        for k in range(4)
    ]
    not_a_turn.write_text("".join(json.dumps(t) + "\n" for t in [*fine, unknown]))
    code, _, err = _answer(capsys, "session", "append", "--db", store, not_a_turn)
    assert code == 2, err
    assert "line 5: operation 0 (observe): unknown field 'to'; observe allows: claim," in err, err


def test_show_prints_the_map_as_of_a_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s.gcv"
    assert _answer(capsys, "session", "import", "phase2-debugging", "--db", store)[0] == 0
    code, out, _ = _answer(capsys, "session", "show", "--db", store, "--at", 7, "--json")
    expected = replay(prefix(load_scenario("phase2-debugging"), 7)).verifier.state.snapshot()
    shown = json.loads(out)
    shown.pop("grounding")  # tests/test_session_show.py checks it
    assert code == 0 and shown.pop("open_problems") == [] and shown == expected
    code, out, _ = _answer(capsys, "session", "show", "--db", store)
    assert code == 0 and "13 turns accepted, 0 rejected; as of turn 13" in out
    assert "  h4 (decision, resolved; c at T12)" in out
    code, _, err = _answer(capsys, "session", "show", "--db", store, "--at", 14)
    assert code == 2 and "[malformed-input] field 'at'" in err
