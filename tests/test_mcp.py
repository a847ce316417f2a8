"""``gcv mcp`` driven by the MCP SDK's own client: in process, over stdio, over HTTP.

The tools and their schemas; Phase 2 replayed turn by turn through
``append_turn``, every Verify and Affected answer at every turn equal to the
Verifier's and the final ones to ``gcv replay``'s; hostile arguments each a typed
error with the session unchanged; a server killed in the middle of an append
leaving a store that opens to a prefix; two servers on one session.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from gcv.agent.folder import SessionFolder
from gcv.agent.server import build_server
from gcv.agent.tools import MAX_ARGUMENT_BYTES, TOOLS
from gcv.cli import main
from gcv.history import initial_verifier
from gcv.jsoninput import SchemaValidator
from gcv.reference.render import render_turn
from gcv.replay import replay
from gcv.scenarios import load_scenario, scenario_text
from gcv.store import open_session

PHASE2 = "phase2-debugging"
RECORD_QUERIES = ("verify", "affected", "affected_star", "affected_star_active")


# -- connecting ----------------------------------------------------------------------


def _server_command(folder: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "gcv.cli", "mcp", "--sessions", str(folder), *extra]


@contextmanager
def _http_server(folder: Path) -> Iterator[str]:
    """``gcv mcp --http`` on a free loopback port; its URL once it says it listens."""
    process = subprocess.Popen(
        _server_command(folder, "--http", "--port", "0"), stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        announced = process.stderr.readline()  # the readiness handshake
        assert "listening on http://127.0.0.1:" in announced, announced
        yield announced.rsplit(" ", 1)[1].strip()
    finally:
        process.terminate()
        process.wait()
        if process.stderr is not None:
            process.stderr.close()


@asynccontextmanager
async def _client(transport: str, folder: Path) -> AsyncIterator[Client]:
    if transport == "memory":
        async with Client(build_server(SessionFolder(folder))) as client:
            yield client
    elif transport == "stdio":
        command = _server_command(folder)
        params = StdioServerParameters(command=command[0], args=command[1:])
        async with Client(params) as client:
            yield client
    else:
        with _http_server(folder) as url:
            async with Client(url) as client:
                yield client


def _run(test: Callable[[], Awaitable[None]]) -> None:
    anyio.run(test)


async def _call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, (tool, arguments, result.content)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def _error(client: Client, tool: str, arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, (tool, arguments, result.structured_content)
    assert isinstance(result.structured_content, dict)
    error: dict[str, Any] = result.structured_content["error"]
    assert error["message"] == result.content[0].text  # type: ignore[union-attr]
    return error


# -- the tools and their schemas -------------------------------------------------------


def test_tools_are_listed_with_their_schemas_and_errors(tmp_path: Path) -> None:
    async def check() -> None:
        async with _client("memory", tmp_path) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        names = ["open_session", "append_turn", "verify", "affected", "state_at", "explain"]
        assert list(listed) == names
        for tool in TOOLS:
            shown = listed[tool.name]
            for schema in (shown.input_schema, shown.output_schema):
                SchemaValidator.check_schema(schema)
                assert schema["type"] == "object"
            assert "session" in shown.input_schema["required"]
            assert shown.meta is not None and shown.meta["errors"] == list(tool.errors)
            assert all(code in (shown.description or "") for code in tool.errors)
        # The operations are the trace format's objects, from its own schema.
        operations = listed["append_turn"].input_schema["properties"]["operations"]
        assert operations["items"] == {"$ref": "#/$defs/operation"}
        assert "revise" in json.dumps(listed["append_turn"].input_schema["$defs"]["operation"])

    _run(check)


# -- Phase 2 through the server agrees with gcv replay --------------------------------


async def _phase2_agrees(client: Client) -> int:
    """Replay Phase 2 through append_turn; compare every answer; return the calls made."""
    trace = load_scenario(PHASE2)
    document = json.loads(scenario_text(PHASE2))
    replayed = replay(trace)  # what gcv replay answers
    assert replayed.ok
    local = initial_verifier(trace)
    opened = await _call(client, "open_session", session="p2", scenario=PHASE2)
    assert opened["created"] and opened["turn"] == 0
    calls, states = 1, {0: local.state.snapshot()}
    for written, outcome in zip(document["turns"], replayed.turns, strict=True):
        turn = {k: written[k] for k in ("speaker", "text", "operations") if k in written}
        answer = await _call(
            client, "append_turn", session="p2", expect_turn=written["turn"], **turn
        )
        report = local.apply_turn(outcome.trace_turn.turn)
        assert answer["turn"] == report.turn
        assert answer["summary"] == render_turn(report, local.state, trace.agents)
        states[report.turn] = local.state.snapshot()
        for record in local.state.records:
            verified = await _call(client, "verify", session="p2", record=record)
            grounding = local.verify(record)
            expected = (grounding.grounded, sorted(grounding.closure), grounding.witness)
            got = (verified["grounded"], verified["closure"], verified["witness"])
            assert got == expected, (report.turn, record)
            assert verified["path"] == list(grounding.path), (report.turn, record)
            touched = await _call(client, "affected", session="p2", record=record)
            for query in RECORD_QUERIES[1:]:
                answer_set = touched[query]
                assert answer_set == sorted(getattr(local, query)(record)), (query, record)
            calls += 2
        calls += 1
    # Every final query of the trace, as gcv replay answered it.
    for check in replayed.final:
        e = check.expectation
        if e.query == "verify":
            verified = await _call(client, "verify", session="p2", record=e.subject)
            assert {k: verified[k] for k in check.actual} == check.actual  # type: ignore[attr-defined]
            assert check.ok
        elif e.query in RECORD_QUERIES:
            touched = await _call(client, "affected", session="p2", record=e.subject)
            assert frozenset(touched[e.query]) == check.actual == e.expected
        calls += 1
    # The state as of every turn N is D_N.
    for number, snapshot in states.items():
        state = await _call(client, "state_at", session="p2", at=number)
        # open_problems and grounding are views computed from D_N, beside its snapshot.
        shown = {k: v for k, v in state["state"].items() if k not in ("open_problems", "grounding")}
        assert shown == json.loads(json.dumps(snapshot)), number
        assert set(state["state"]["grounding"]) == {r["id"] for r in snapshot["records"]}, number
        calls += 1
    return calls


@pytest.mark.slow
def test_phase2_in_process_agrees_with_replay(tmp_path: Path) -> None:
    async def check() -> None:
        async with _client("memory", tmp_path) as client:
            assert await _phase2_agrees(client) > 300

    _run(check)


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_phase2_over_the_wire_agrees_with_replay(tmp_path: Path, transport: str) -> None:
    """Every answer of Phase 2 over stdio; over HTTP (whose requests are answered by the
    same tools, one stateless request each) its first turns, and the hostile calls."""

    async def check() -> None:
        async with _client(transport, tmp_path) as client:
            if transport == "stdio":
                await _phase2_agrees(client)
            else:
                await _phase2_begins(client)
            await _hostile_calls(client, wire=True)
        # What the server wrote is a store gcv itself opens, at the turn it reached.
        with open_session(tmp_path / "p2.gcv") as session:
            assert session.turn == (13 if transport == "stdio" else 3)

    _run(check)


async def _phase2_begins(client: Client) -> None:
    """Phase 2's first three turns through append_turn, each record's Verify after each."""
    trace = load_scenario(PHASE2)
    local = initial_verifier(trace)
    await _call(client, "open_session", session="p2", scenario=PHASE2)
    for written in json.loads(scenario_text(PHASE2))["turns"][:3]:
        turn = {k: written[k] for k in ("speaker", "text", "operations") if k in written}
        answer = await _call(client, "append_turn", session="p2", **turn)
        report = local.apply_turn(trace.turns[answer["turn"] - 1].turn)
        assert answer["summary"] == render_turn(report, local.state, trace.agents)
        for record in local.state.records:
            verified = await _call(client, "verify", session="p2", record=record)
            assert verified["grounded"] == local.verify(record).grounded, record


# -- hostile arguments -------------------------------------------------------------------

_OBSERVE = {"op": "observe", "id": "o1", "claim": "401s"}
_DEEP: Any = "x"
for _ in range(40):
    _DEEP = [_DEEP]

# (tool, arguments, the code, the field when the error names one); the session is "h".
HOSTILE: list[tuple[str, dict[str, Any], str, str | None]] = [
    ("verify", {"session": "../h", "record": "o1"}, "malformed-input", "session"),
    ("verify", {"session": "/etc/passwd", "record": "o1"}, "malformed-input", "session"),
    ("verify", {"session": "h/../../x", "record": "o1"}, "malformed-input", "session"),
    ("verify", {"session": "..", "record": "o1"}, "malformed-input", "session"),
    ("verify", {"session": "h.gcv", "record": "o1"}, "malformed-input", "session"),
    ("verify", {"session": "h\n", "record": "o1"}, "malformed-input", "session"),
    ("verify", {"session": "", "record": "o1"}, "malformed-input", "session"),
    ("verify", {"session": "x" * 65, "record": "o1"}, "malformed-input", "session"),
    ("verify", {"session": "nobody", "record": "o1"}, "store-missing", "session"),
    ("open_session", {"session": "h", "agents": {"z": "Zed"}}, "malformed-input", "agents"),
    ("open_session", {"session": "new", "scenario": "../../etc"}, "malformed-input", "scenario"),
    ("verify", {"session": 7, "record": "o1"}, "malformed-input", "session"),
    ("verify", {"session": "h", "record": 5}, "malformed-input", "record"),
    ("verify", {"session": "h", "record": "o1", "at": "1"}, "malformed-input", "at"),
    ("verify", {"session": "h", "record": "o1", "at": -1}, "malformed-input", "at"),
    ("verify", {"session": "h", "record": "o1", "at": 99}, "malformed-input", "at"),
    ("verify", {"session": "h", "record": "o1", "extra": 1}, "malformed-input", None),
    ("verify", {"session": "h"}, "malformed-input", None),
    ("verify", {"session": "h", "record": "nope"}, "unknown-record", None),
    ("affected", {"session": "h", "record": "nope"}, "unknown-record", None),
    ("explain", {"session": "h", "record": "nope"}, "unknown-record", None),
    ("explain", {"session": "h", "record": "o 1"}, "malformed-input", "record"),
    (
        "append_turn",
        {"session": "h", "speaker": "a", "operations": "observe"},
        "malformed-input",
        "operations",
    ),
    (
        "append_turn",
        {"session": "h", "speaker": ["a"], "operations": []},
        "malformed-input",
        "speaker",
    ),
    (
        "append_turn",
        {"session": "h", "speaker": "a", "operations": [{"op": "teleport"}]},
        "malformed-input",
        "operations[0].op",
    ),
    (
        "append_turn",
        {"session": "h", "speaker": "a", "operations": [{"op": "observe"}]},
        "malformed-input",
        "operations[0]",
    ),
    (
        "append_turn",
        {
            "session": "h",
            "speaker": "a",
            "operations": [{**_OBSERVE, "id": "o2", "claim": "\ud800"}],
        },
        "malformed-input",
        None,
    ),
    (
        "append_turn",
        {"session": "h", "speaker": "a", "text": _DEEP, "operations": []},
        "malformed-input",
        None,
    ),
    (
        "append_turn",
        {
            "session": "h",
            "speaker": "a",
            "operations": [{**_OBSERVE, "id": "o2", "claim": "x" * MAX_ARGUMENT_BYTES}],
        },
        "malformed-input",
        None,
    ),
    (
        "append_turn",
        {"session": "h", "speaker": "a", "operations": [_OBSERVE] * 40_000},
        "malformed-input",
        None,
    ),
    (
        "append_turn",
        {"session": "h", "speaker": "a", "operations": [_OBSERVE]},
        "duplicate-record",
        None,
    ),
    (
        "append_turn",
        {"session": "h", "speaker": "zed", "operations": []},
        "unknown-agent",
        "speaker",
    ),
    (
        "append_turn",
        {"session": "h", "speaker": "a", "operations": [{"op": "revise", "target": "nope"}]},
        "unknown-record",
        None,
    ),
    (
        "append_turn",
        {"session": "h", "speaker": "a", "operations": [], "expect_turn": 9},
        "out-of-sequence",
        "turn",
    ),
]


_SAID = {"session": "h", "speaker": "a", "utterance": "hello"}


async def _hostile_calls(client: Client, wire: bool = False) -> None:
    """Each hostile call is a typed error of its tool's list; the session is as it was.

    Over a wire the SDK's client cannot encode a lone surrogate, so that case is sent in
    process only.
    """
    listed = {t.name: t for t in (await client.list_tools()).tools}
    await _call(client, "open_session", session="h", agents={"a": "Alice", "b": "Bob"})
    await _call(client, "append_turn", session="h", speaker="a", operations=[_OBSERVE])
    before = await _call(client, "state_at", session="h")
    for tool, arguments, code, field in HOSTILE:
        if wire and "\\ud800" in json.dumps(arguments):
            continue
        error = await _error(client, tool, arguments)
        assert (error["code"], error["field"] if field else None) == (code, field), (
            tool,
            arguments if len(json.dumps(arguments)) < 300 else "(large)",
            error,
        )
        assert listed[tool].meta is not None and code in listed[tool].meta["errors"], (tool, code)
        assert await _call(client, "state_at", session="h") == before, (tool, code)
    # Not a tool, not a resource, not a prompt: JSON-RPC errors carrying the same object.
    for attempt, code in [
        (client.call_tool("format_disk", {}), "malformed-input"),
        (client.read_resource("gcv://sessions/../map.json"), "malformed-input"),
        (client.read_resource("file:///etc/passwd"), "malformed-input"),
        (client.read_resource("gcv://sessions/nobody/map.json"), "store-missing"),
        (client.get_prompt("interpret-telepathy", {}), "malformed-input"),
        (client.get_prompt("interpret-minimal", {"session": "h"}), "malformed-input"),
        (client.get_prompt("interpret-minimal", {**_SAID, "speaker": "zed"}), "unknown-agent"),
        (
            client.get_prompt("interpret-minimal", {**_SAID, "utterance": "x" * (3 << 19)}),
            "malformed-input",
        ),
    ]:
        with pytest.raises(MCPError) as raised:
            await attempt
        assert raised.value.code == -32602 and raised.value.data["code"] == code
    assert await _call(client, "state_at", session="h") == before


def test_hostile_arguments_are_typed_errors_and_change_nothing(tmp_path: Path) -> None:
    async def check() -> None:
        async with _client("memory", tmp_path) as client:
            await _hostile_calls(client)
        # A turn the engine rejects is logged as rejected, as a trace keeps it; none other is.
        with open_session(tmp_path / "h.gcv") as session:
            rejected = [e.rejected for e in session.log() if e.rejected is not None]
        assert rejected == ["duplicate-record", "unknown-agent", "unknown-record"]

    _run(check)


def test_links_out_of_the_folder_are_refused(tmp_path: Path) -> None:
    folder, outside = tmp_path / "sessions", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()

    async def check() -> None:
        async with _client("memory", outside) as client:
            await _call(client, "open_session", session="secret", agents={"a": "Alice"})
        (folder / "soft.gcv").symlink_to(outside / "secret.gcv")
        os.link(outside / "secret.gcv", folder / "hard.gcv")
        (folder / "wal.gcv").write_bytes((outside / "secret.gcv").read_bytes())
        (folder / "wal.gcv-wal").symlink_to(outside / "elsewhere")
        (folder / "dir.gcv").mkdir()
        async with _client("memory", folder) as client:
            for name in ("soft", "hard", "wal", "dir"):
                for tool in ("open_session", "state_at"):
                    error = await _error(client, tool, {"session": name})
                    assert error["code"] == "store-foreign", (name, error)
        assert not (outside / "elsewhere").exists()

    _run(check)


# -- explain: the operation, turn and speaker behind a standing --------------------------


def test_explain_names_the_attack_the_revision_and_the_withdrawn_premise(tmp_path: Path) -> None:
    async def check() -> None:
        async with _client("memory", tmp_path) as client:
            await _call(client, "open_session", session="p2", scenario=PHASE2)
            for written in json.loads(scenario_text(PHASE2))["turns"]:
                turn = {k: written[k] for k in ("speaker", "operations")}
                await _call(client, "append_turn", session="p2", **turn)
            # B.2: h2 is undermined at T7 by o9 and abandoned at T9; T12 revises it again.
            h2 = await _call(client, "explain", session="p2", record="h2")
            changes = [
                (e["turn"], e["speaker"], e["change"], e["operation"]["op"]) for e in h2["history"]
            ]
            assert changes == [
                (6, "c", "registered as hypothesis", "hypothesize"),
                (7, "a", "attacked by o9", "undermine"),
                (7, "a", "standing active -> weakened", "undermine"),
                (9, "a", "standing weakened -> abandoned", "revise"),
                (12, "c", "attacked by h4", "revise"),
            ]
            assert (h2["standing"], h2["grounded"], h2["witness"]) == ("abandoned", False, "h2")
            before = await _call(client, "explain", session="p2", record="h2", at=8)
            assert before["standing"] == "weakened" and len(before["history"]) == 3
            # Section 3's flag: a record resting on a withdrawn observation names it.
            await _call(client, "open_session", session="s", agents={"a": "Alice", "b": "Bob"})
            turns = [
                ("a", [{"op": "observe", "id": "o1", "claim": "401 errors"}]),
                (
                    "a",
                    [{"op": "hypothesize", "id": "h1", "claim": "token bug", "depends_on": ["o1"]}],
                ),
                ("b", [{"op": "revise", "target": "o1"}]),
            ]
            for speaker, operations in turns:
                await _call(
                    client, "append_turn", session="s", speaker=speaker, operations=operations
                )
            h1 = await _call(client, "explain", session="s", record="h1")
        assert (h1["grounded"], h1["witness"], h1["path"]) == (False, "o1", ["h1", "o1"])
        assert h1["message"] == "hypothesis h1 no longer grounded; affected by retraction of o1"
        assert [(e["turn"], e["speaker"], e["change"]) for e in h1["witness_history"]] == [
            (1, "a", "registered as observation"),
            (3, "b", "standing active -> abandoned"),
        ]

    _run(check)


def test_resources_and_prompts(tmp_path: Path) -> None:
    async def check() -> None:
        async with _client("memory", tmp_path) as client:
            await _call(client, "open_session", session="s", agents={"a": "Alice"})
            await _call(
                client,
                "append_turn",
                session="s",
                speaker="a",
                text="I see 401s.",
                operations=[_OBSERVE],
            )
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            assert uris == ["gcv://sessions/s/map.json", "gcv://sessions/s/map.mmd"]
            as_json = (await client.read_resource(uris[0])).contents[0]
            assert json.loads(as_json.text)["records"][0]["id"] == "o1"  # type: ignore[union-attr]
            mermaid = (await client.read_resource(uris[1])).contents[0]
            assert mermaid.text.startswith("flowchart")  # type: ignore[union-attr]
            prompts = [p.name for p in (await client.list_prompts()).prompts]
            assert prompts == [
                "interpret-minimal",
                "interpret-definitions",
                "interpret-state-augmented",
            ]
            arguments = {"session": "s", "speaker": "a", "utterance": "It was the token."}
            minimal = await client.get_prompt("interpret-minimal", arguments)
            state = await client.get_prompt("interpret-state-augmented", arguments)
        last = state.messages[-1].content.text  # type: ignore[union-attr]
        assert "T1 Alice: I see 401s." in last and "It was the token." in last
        assert 'o1 (observation, active; a at T1): "401s"' in last  # the rendered D_t
        assert "o1 (observation" not in minimal.messages[-1].content.text  # type: ignore[union-attr]

    _run(check)


# -- the command ---------------------------------------------------------------------------


def test_without_the_sdk_the_command_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # find_spec("mcp") is then None
    assert main(["mcp", "--sessions", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "pip install" in error and "[mcp]" in error


def test_the_command_needs_a_sessions_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GCV_SESSIONS", raising=False)
    assert main(["mcp"]) == 2
    assert "--sessions" in capsys.readouterr().err
    assert main(["mcp", "--sessions", str(tmp_path / "none")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_an_address_it_cannot_listen_on_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        assert main(["mcp", "--sessions", str(tmp_path), "--http", "--port", port]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


@pytest.mark.slow
def test_raw_lines_the_sdk_client_cannot_send_get_no_traceback(tmp_path: Path) -> None:
    """A lone surrogate and a 10^5-deep nesting straight on the wire: the server answers
    them with an error or not at all, never a traceback, and goes on serving."""

    def call(number: int, arguments: str) -> str:
        return (
            f'{{"jsonrpc": "2.0", "id": {number}, "method": "tools/call", '
            f'"params": {{"name": "state_at", "arguments": {arguments}}}}}'
        )

    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    lines = [
        json.dumps(hello),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call(2, '{"session": "h\\ud800"}'),
        call(3, '{"session": "h", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        call(4, '{"session": "h", "x": ' + "[" * 40 + "]" * 40 + "}"),
        call(5, '{"session": "nobody"}'),
    ]
    server = subprocess.Popen(
        _server_command(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write("\n".join(lines) + "\n")
    server.stdin.flush()
    answers: dict[int, Any] = {}
    while not {4, 5} <= answers.keys():  # the calls the server must answer
        answer = json.loads(server.stdout.readline())
        answers[answer["id"]] = answer
    written, said = server.communicate()
    assert server.returncode == 0 and "Traceback" not in written + said
    for number in (2, 3):  # not parsed by the SDK: an error, or no answer
        assert (
            number not in answers
            or "error" in answers[number]
            or answers[number]["result"]["isError"]
        )
    assert answers[4]["result"]["structuredContent"]["error"]["code"] == "malformed-input"
    assert answers[5]["result"]["structuredContent"]["error"]["code"] == "store-missing"


# -- killed mid-append; two servers on one session ---------------------------------------

# Runs gcv mcp with the store's row insert paused after the Nth row: it says so on a FIFO
# and waits there, inside the append's transaction, until it is killed.
_PAUSING_SERVER = """
import os, sys, threading
from gcv import store
from gcv.cli import main
insert, count = store.StoredSession._insert, [0]
def paused(self, entry):
    inserted = insert(self, entry)
    count[0] += 1
    if count[0] == int(os.environ["PAUSE_AFTER_ROWS"]):
        with open(os.environ["PAUSE_FIFO"], "w") as fifo:
            fifo.write(f"{os.getpid()}\\n")
        threading.Event().wait()
    return inserted
store.StoredSession._insert = paused
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_server_killed_mid_append_leaves_a_prefix(tmp_path: Path) -> None:
    fifo = tmp_path / "paused"
    os.mkfifo(fifo)
    folder = tmp_path / "sessions"
    folder.mkdir()
    env = {"PAUSE_AFTER_ROWS": "3", "PAUSE_FIFO": str(fifo)}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", _PAUSING_SERVER, "mcp", "--sessions", str(folder)],
        env=env,
    )
    turns = [[{"op": "observe", "id": f"o{k}", "claim": f"fact {k}"}] for k in range(1, 4)]
    killed: list[int] = []

    def kill_when_paused() -> None:
        with open(fifo) as said:  # blocks until the server is inside the third append
            pid = int(said.readline())
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    async def drive() -> None:
        with pytest.raises(Exception):  # noqa: B017 - the connection dies with the server
            async with Client(params) as client:
                await _call(client, "open_session", session="k", agents={"a": "Alice"})
                for operations in turns:
                    await _call(
                        client, "append_turn", session="k", speaker="a", operations=operations
                    )

    watcher = threading.Thread(target=kill_when_paused)
    watcher.start()
    _run(drive)
    watcher.join()
    assert killed
    with open_session(folder / "k.gcv") as session:
        assert session.turn == 2  # the third turn's row was written, never committed
        assert sorted(session.verifier.state.records) == ["o1", "o2"]


@pytest.mark.slow
def test_two_servers_on_one_session_are_serialised(tmp_path: Path) -> None:
    async def check() -> None:
        async with _client("stdio", tmp_path) as first, _client("stdio", tmp_path) as second:
            await _call(first, "open_session", session="both", agents={"a": "Alice", "b": "Bob"})
            await _call(second, "open_session", session="both", agents={"a": "Alice", "b": "Bob"})
            for k in range(1, 7):
                client, speaker = (first, "a") if k % 2 else (second, "b")
                operations = [{"op": "observe", "id": f"o{k}", "claim": f"fact {k}"}]
                answer = await _call(
                    client,
                    "append_turn",
                    session="both",
                    speaker=speaker,
                    operations=operations,
                    expect_turn=k,
                )
                assert answer["turn"] == k
            # Each sees the other's turns; a stale expectation is refused, not applied twice.
            for client in (first, second):
                state = await _call(client, "state_at", session="both")
                assert state["at"] == 6 and len(state["state"]["records"]) == 6
            error = await _error(
                client,
                "append_turn",
                {"session": "both", "speaker": "a", "operations": [], "expect_turn": 6},
            )
            assert error["code"] == "out-of-sequence"

    _run(check)
