"""``gcv mcp`` driven by the MCP SDK's own client: in process, over stdio, over HTTP.

The tools and their schemas; Phase 2 replayed turn by turn through
``append_turn``, every Verify and Affected answer at every turn equal to the
Verifier's and the final ones to ``gcv replay``'s; hostile arguments each a typed
error with the session unchanged; raw lines over the server's stdio transport answered
byte for byte as over the SDK's; a server killed in the middle of an append leaving a
store that opens to a prefix; two servers on one session.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import anyio
import jsonschema_rs
import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types.methods import serialize_server_result
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS
from opentelemetry import trace

from gcv.agent import server, stdio
from gcv.agent.folder import SessionFolder
from gcv.agent.server import build_server
from gcv.agent.tools import MAX_ARGUMENT_BYTES, TOOLS, _validator, tool_named
from gcv.cli import main
from gcv.history import initial_verifier
from gcv.jsoninput import SchemaValidator
from gcv.reference.errors import UnknownRecord
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


def test_a_tool_result_is_sent_as_the_sdks_typed_result_would_be() -> None:
    """The server returns a call's result in its wire form; for every protocol version the
    SDK sends exactly what it sends for the SDK's typed CallToolResult (the reference)."""
    answer = {"session": "s", "record": "h4", "closure": ["o1", "h4"], "message": "ünï \u2713"}
    error = UnknownRecord("record 'x' is not registered", record="x")
    pairs = [
        (
            server._tool_answer(answer),
            types.CallToolResult(
                content=[types.TextContent(text=json.dumps(answer, ensure_ascii=False))],
                structured_content=answer,
            ),
        ),
        (
            server._tool_error(error),
            types.CallToolResult(
                content=[types.TextContent(text=str(error))],
                structured_content={"error": error.as_dict()},
                is_error=True,
            ),
        ),
    ]
    for version in SUPPORTED_PROTOCOL_VERSIONS:
        for wire, typed in pairs:
            dumped = typed.model_dump(by_alias=True, mode="json", exclude_none=True)
            sent, reference = (
                serialize_server_result("tools/call", version, result) for result in (wire, dumped)
            )
            assert json.dumps(sent) == json.dumps(reference), version  # byte for byte


def test_a_span_per_message_only_when_a_tracer_provider_records_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert build_server(SessionFolder(tmp_path)).middleware == []
    # As opentelemetry-instrument installs one: the SDK's middleware stays.
    monkeypatch.setattr(trace, "get_tracer_provider", trace.NoOpTracerProvider)
    assert len(build_server(SessionFolder(tmp_path)).middleware) == 1


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


# -- the arguments' schema check: the native one agrees with the reference -------------------


_TURN = ("speaker", "text", "operations")


def _valid_calls() -> dict[str, list[dict[str, Any]]]:
    """Arguments each tool accepts: Phase 2's turns, and a call of every other kind."""
    turns = json.loads(scenario_text(PHASE2))["turns"]
    return {
        "open_session": [
            {"session": "s", "agents": {"a": "Alice", "b": "Bob"}, "atoms": ["p", "q"]},
            {"session": "s", "scenario": PHASE2},
            {"session": "s"},
        ],
        "append_turn": [
            {"session": "s", "expect_turn": t["turn"], **{k: t[k] for k in _TURN if k in t}}
            for t in turns
        ],
        "verify": [{"session": "s", "record": "h4", "at": 3}, {"session": "s", "record": None}],
        "affected": [{"session": "s", "record": "o5"}, {"session": "s", "record": "o5", "at": 0}],
        "state_at": [{"session": "s"}, {"session": "s", "at": 13}],
        "explain": [{"session": "s", "record": "h2", "at": 7}],
    }


def _seeds(tool: str) -> list[Any]:
    """The valid calls of ``tool`` and its hostile ones small enough to walk."""
    hostile = [a for t, a, *_ in HOSTILE if t == tool and len(json.dumps(a)) < 10_000]
    return [*_valid_calls()[tool], *hostile]


@cache
def _native(tool: str) -> Any:
    return jsonschema_rs.Draft202012Validator(dict(tool_named(tool).input_schema))


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value inside ``value``, its own (the empty path) first."""
    yield path
    if isinstance(value, dict | list):
        for key, inner in value.items() if isinstance(value, dict) else enumerate(value):
            yield from _places(inner, (*path, key))


_SCHEMA_WORDS = sorted(
    {
        word
        for tool in TOOLS
        for word in re.findall(r'"([a-z_]+)"', json.dumps(dict(tool.input_schema)))
    }
)
_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-2, max_value=3)
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.sampled_from(["x" * n for n in (63, 64, 65, 127, 128, 129)])  # the bounds' edges
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(_SCHEMA_WORDS)
    | st.text(alphabet="ab01_-.:' \n\u0661\u00e9", max_size=9)
)
_JSON = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(_SCHEMA_WORDS), inner, max_size=3)
    ),
    max_leaves=6,
)


def test_the_native_schema_check_agrees_on_the_shipped_and_hostile_calls() -> None:
    for tool in TOOLS:
        for arguments in _seeds(tool.name):
            expected = _validator(tool.name).is_valid(arguments)
            assert _native(tool.name).is_valid(arguments) == expected, (tool.name, arguments)


@given(st.data())
def test_the_native_schema_check_agrees_with_the_reference_on_mutations(data: Any) -> None:
    """Whatever jsonschema-rs accepts the reference accepts, and the other way round: a
    value of a call, shipped or hostile, replaced, removed, or given a new member."""
    tool = data.draw(st.sampled_from([t.name for t in TOOLS]))
    document = copy.deepcopy(data.draw(st.sampled_from(_seeds(tool))))
    path = data.draw(st.sampled_from(list(_places(document))))
    value = data.draw(_JSON)
    if not path:
        document = value
    else:
        parent = document
        for key in path[:-1]:
            parent = parent[key]
        change = data.draw(st.sampled_from(["replace", "remove", "add"]))
        if change == "replace":
            parent[path[-1]] = value
        elif change == "remove":
            del parent[path[-1]]
        elif isinstance(parent[path[-1]], dict):
            parent[path[-1]][data.draw(st.sampled_from(_SCHEMA_WORDS))] = value
    expected = _validator(tool).is_valid(document)
    assert _native(tool).is_valid(document) == expected, (tool, document)


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


# Runs gcv mcp over the SDK's own stdio transport (TRANSPORT=sdk) or the server's, each
# tool call printing to standard output first, as a careless library might.
_STRAY_SERVER = """
import os, sys
import gcv.agent.server
from gcv.cli import main
if os.environ["TRANSPORT"] == "sdk":
    from mcp.server.stdio import stdio_server
    gcv.agent.server.stdio_streams = stdio_server
answer = gcv.agent.server.call_tool
def stray(*args):
    print("stray print", flush=True)
    os.write(1, b"stray write\\n")
    return answer(*args)
gcv.agent.server.call_tool = stray
sys.exit(main(sys.argv[1:]))
"""


def _raw_session(folder: Path, transport: str, lines: list[str], last: int) -> dict[int, bytes]:
    """Each answer line of a server sent ``lines``, by id, until the answer to ``last``."""
    server = subprocess.Popen(
        [sys.executable, "-c", _STRAY_SERVER, "mcp", "--sessions", str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TRANSPORT": transport},
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(("\n".join(lines) + "\n").encode())
    server.stdin.flush()
    answers: dict[int, bytes] = {}
    while last not in answers:
        line = server.stdout.readline()
        answers[json.loads(line)["id"]] = line
    written, said = server.communicate()
    assert server.returncode == 0 and b"Traceback" not in written + said, said[-2000:]
    assert not written and b"stray print" in said and b"stray write" in said
    return answers


@pytest.mark.slow
def test_raw_lines_get_the_sdk_transports_answers_and_no_traceback(tmp_path: Path) -> None:
    """A session sent line by line, with a lone surrogate and a 10^5-deep nesting the SDK's
    client cannot send: every answer is byte for byte the one the SDK's own stdio
    transport gives (the tool list among them), none is a traceback, the server goes on
    serving, and what a tool prints while it runs reaches neither wire."""

    def call(number: int, tool: str, arguments: str) -> str:
        return (
            f'{{"jsonrpc": "2.0", "id": {number}, "method": "tools/call", '
            f'"params": {{"name": "{tool}", "arguments": {arguments}}}}}'
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
        json.dumps({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}),
        call(11, "open_session", '{"session": "h", "agents": {"a": "Alice"}}'),
        call(
            12,
            "append_turn",
            json.dumps({"session": "h", "speaker": "a", "operations": [_OBSERVE]}),
        ),
        call(2, "state_at", '{"session": "h\\ud800"}'),
        call(3, "state_at", '{"session": "h", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        call(4, "state_at", '{"session": "h", "x": ' + "[" * 40 + "]" * 40 + "}"),
        call(5, "state_at", '{"session": "nobody"}'),
        call(13, "verify", '{"session": "h", "record": "o1"}'),
        call(14, "affected", '{"session": "h", "record": "nope"}'),
        call(15, "format_disk", "{}"),
        "not json",
        json.dumps({"jsonrpc": "2.0", "id": 16, "method": "resources/list"}),
        json.dumps({"jsonrpc": "2.0", "id": 17, "method": "prompts/list"}),
    ]
    folder = tmp_path / "sessions"
    heard = {}
    for transport in ("gcv", "sdk"):  # one folder, so that the messages naming it agree
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        heard[transport] = _raw_session(folder, transport, lines, last=17)
    answers, reference = heard["gcv"], heard["sdk"]
    assert answers == reference
    parsed = {number: json.loads(line) for number, line in answers.items()}
    for number in (2, 3):  # not parsed by the SDK: an error, or no answer
        assert (
            number not in parsed or "error" in parsed[number] or parsed[number]["result"]["isError"]
        )
    assert [t["name"] for t in parsed[10]["result"]["tools"]] == [t.name for t in TOOLS]
    assert parsed[4]["result"]["structuredContent"]["error"]["code"] == "malformed-input"
    assert parsed[5]["result"]["structuredContent"]["error"]["code"] == "store-missing"
    assert parsed[13]["result"]["structuredContent"]["grounded"] is True
    assert parsed[14]["result"]["structuredContent"]["error"]["code"] == "unknown-record"
    assert parsed[15]["error"]["data"]["code"] == "malformed-input"


def test_only_pipes_sockets_and_terminals_are_read_by_the_loop(tmp_path: Path) -> None:
    """What the event loop cannot poll (a regular file) is served by the SDK's transport."""
    read_end, write_end = os.pipe()
    left, right = socket.socketpair()
    with open(tmp_path / "requests", "wb") as regular, open(os.devnull, "rb") as device:
        try:
            assert stdio.is_pipe_or_terminal(read_end) and stdio.is_pipe_or_terminal(write_end)
            assert stdio.is_pipe_or_terminal(left.fileno())
            assert stdio.is_pipe_or_terminal(device.fileno())
            assert not stdio.is_pipe_or_terminal(regular.fileno())
        finally:
            for fd in (read_end, write_end):
                os.close(fd)
            left.close()
            right.close()


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
