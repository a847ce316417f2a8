"""``gcv mcp``'s binding to the Model Context Protocol (the official ``mcp`` SDK).

The tools are :data:`gcv.agent.tools.TOOLS`; this module lists them with their
schemas, answers their calls, and adds two resources per session (its map as
JSON and as Mermaid) and the Interpreter's three prompt conditions (Table 2), so
that an agent can be its own Interpreter.

Failures are typed, never a traceback on the wire.  A tool's failure is a
result with ``isError`` set, its text the error's message and its
``structuredContent`` ``{"error": {...}}``, the error object of
:meth:`~gcv.reference.errors.GcvError.as_dict` (a stable ``code``, the
``field`` and ``record``), which the model reads to correct its call (the MCP
specification asks tool errors to be reported in the result).  A resource, a
prompt or a tool that does not exist is a JSON-RPC error: ``-32602`` (invalid
params) for the caller's mistakes, ``-32603`` for the store's, with the same
error object as ``data``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from opentelemetry import trace

from gcv import __version__
from gcv.agent.folder import DEFAULT_MAX_OPEN, SessionFolder
from gcv.agent.stdio import stdio_streams
from gcv.agent.tools import MAX_ARGUMENT_BYTES, TOOLS, call_tool, tool_named
from gcv.draw import draw_mermaid
from gcv.errors import StoreMissing
from gcv.export import export
from gcv.interpret.prompts import build_messages, load_prompts
from gcv.interpret.protocol import Condition, Request
from gcv.jsoninput import parse_json
from gcv.reference.errors import GcvError, MalformedInput, PreconditionViolation, UnknownAgent
from gcv.reference.render import render_state

__all__ = [
    "LOOPBACK_HOSTS",
    "RESOURCE_TEMPLATES",
    "HttpSettings",
    "build_server",
    "http_app",
    "serve_http",
    "serve_http_workers",
    "serve_stdio",
    "worker_app",
]

RESOURCE_TEMPLATES = {
    "map.json": ("application/json", "The session's map D_t as JSON (gcv export --format json)."),
    "map.mmd": ("text/vnd.mermaid", "The session's map D_t as a Mermaid flowchart (gcv draw)."),
}
_URI_PREFIX = "gcv://sessions/"
_PROMPT_PREFIX = "interpret-"


def _error_data(error: GcvError) -> dict[str, object]:
    return error.as_dict()


def _protocol_error(error: GcvError) -> MCPError:
    # The caller's mistake (a bad name, an unknown session or record) is invalid params.
    input_fault = isinstance(error, MalformedInput | PreconditionViolation | StoreMissing)
    code = types.INVALID_PARAMS if input_fault else types.INTERNAL_ERROR
    return MCPError(code, str(error), _error_data(error))


def _tool_result(structured: dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    """A ``CallToolResult`` as the wire writes it: the SDK checks it against the protocol's
    schema for the connection's version either way, so a typed model built here would
    only be built and dumped once more per call."""
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": is_error,
        "resultType": "complete",  # required from 2026-07-28; older versions' schemas drop it
    }


def _tool_answer(answer: Mapping[str, Any]) -> dict[str, Any]:
    return _tool_result(dict(answer), json.dumps(answer, ensure_ascii=False), False)


def _tool_error(error: GcvError) -> dict[str, Any]:
    return _tool_result({"error": _error_data(error)}, str(error), True)


def _split_uri(uri: str) -> tuple[str, str]:
    """(session, resource) of ``gcv://sessions/<session>/<resource>``."""
    session, _, resource = uri.removeprefix(_URI_PREFIX).partition("/")
    if not uri.startswith(_URI_PREFIX) or resource not in RESOURCE_TEMPLATES:
        raise MalformedInput(
            f"{uri[:80]!r} is not a resource of this server "
            f"({_URI_PREFIX}<session>/{{{','.join(RESOURCE_TEMPLATES)}}})",
            field="uri",
        )
    return session, resource


def _prompt_condition(name: str) -> Condition:
    try:
        return Condition(name.removeprefix(_PROMPT_PREFIX))
    except ValueError:
        raise MalformedInput(f"no prompt {name[:40]!r}", field="name") from None


def _interpreter_request(folder: SessionFolder, arguments: Mapping[str, str]) -> Request:
    """The Interpreter's request for the next utterance of a session (Section 3)."""
    missing = [k for k in ("session", "speaker", "utterance") if k not in arguments]
    if missing:
        raise MalformedInput(f"the prompt needs {', '.join(missing)}", field=missing[0])
    parse_json(json.dumps(dict(arguments)), MAX_ARGUMENT_BYTES, MalformedInput, "the arguments")
    session = folder.session(arguments["session"])
    agents = session.header["agents"]
    if arguments["speaker"] not in agents:
        raise UnknownAgent(f"speaker {arguments['speaker'][:40]!r} is not in Ags", field="speaker")
    history = tuple((e.turn.speaker, e.turn.text) for e in session.log() if e.rejected is None)
    # Every call is a checkpoint: the state the model reads is D_t as it stands.
    state = "\n".join(render_state(session.verifier.state, agents))
    return Request(
        len(history), arguments["speaker"], arguments["utterance"], agents, history, state
    )


def build_server(folder: SessionFolder) -> Server[Any]:
    """The MCP server answering for the sessions of ``folder``."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=tool.name,
                    description=tool.description,
                    input_schema=dict(tool.input_schema),
                    output_schema=dict(tool.output_schema),
                    _meta={"errors": list(tool.errors)},
                )
                for tool in TOOLS
            ]
        )

    async def call(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> dict[str, Any]:
        try:
            tool_named(params.name)
        except GcvError as error:  # no such tool: a protocol error, not the tool's
            raise _protocol_error(error) from None
        try:
            return _tool_answer(call_tool(folder, params.name, params.arguments))
        except GcvError as error:
            return _tool_error(error)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=f"{_URI_PREFIX}{name}/{resource}",
                    name=f"{name}/{resource}",
                    mime_type=mime,
                    description=description,
                )
                for name in folder.names()
                for resource, (mime, description) in RESOURCE_TEMPLATES.items()
            ]
        )

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=f"{_URI_PREFIX}{{session}}/{resource}",
                    name=resource,
                    mime_type=mime,
                    description=description,
                )
                for resource, (mime, description) in RESOURCE_TEMPLATES.items()
            ]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        try:
            name, resource = _split_uri(str(params.uri))
            dmap = folder.session(name).verifier.state
        except GcvError as error:
            raise _protocol_error(error) from None
        text = export(dmap, "json") if resource == "map.json" else draw_mermaid(dmap)
        mime = RESOURCE_TEMPLATES[resource][0]
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, mime_type=mime, text=text)]
        )

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        arguments = [
            types.PromptArgument(name="session", description="the session", required=True),
            types.PromptArgument(name="speaker", description="the speaker's id", required=True),
            types.PromptArgument(name="utterance", description="what was said", required=True),
        ]
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=f"{_PROMPT_PREFIX}{condition.value}",
                    description=f"The Interpreter's prompt, {condition.value} condition "
                    "(Table 2): the operations of the next utterance, as JSON.",
                    arguments=arguments,
                )
                for condition in Condition
            ]
        )

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        try:
            condition = _prompt_condition(params.name)
            request = _interpreter_request(folder, params.arguments or {})
        except GcvError as error:
            raise _protocol_error(error) from None
        # MCP prompts have no system role: the condition's system prompt comes first.
        messages = build_messages(load_prompts(), condition, request)
        return types.GetPromptResult(
            description=f"Interpreter prompt, {condition.value}",
            messages=[
                types.PromptMessage(role="user", content=types.TextContent(text=m["content"]))
                for m in messages
            ],
        )

    server: Server[Any] = Server(
        "gcv",
        version=__version__,
        instructions=(
            "Grounded Continuation verifier. Send each utterance's operations to append_turn; "
            "before using a continuation, verify its record; when a premise is withdrawn, ask "
            "affected. explain says why a record stands as it does."
        ),
        on_list_tools=list_tools,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
    # Registered as a plain request handler, whose result may be the wire's own dict.
    server.add_request_handler("tools/call", types.CallToolRequestParams, call)
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        # No tracer provider is installed (as opentelemetry-instrument installs one), so
        # the SDK's default OpenTelemetry middleware would open a span that records
        # nothing around every message; the SDK's documented opt-out is to drop it.
        server.middleware.clear()
    return server


async def serve_stdio(folder: SessionFolder) -> None:
    """Serve ``folder``'s sessions over standard input and output until the client leaves."""
    server = build_server(folder)
    async with stdio_streams() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
_WORKER_VARIABLE = "GCV_MCP_WORKER"


@dataclass(frozen=True)
class HttpSettings:
    """How ``gcv mcp --http`` serves: where the sessions are, who may call, how many workers."""

    sessions: str
    host: str = LOOPBACK_HOSTS[0]
    port: int = 0
    workers: int = 1
    allowed_hosts: tuple[str, ...] = ()
    """Host header values allowed beside the loopback names (``name`` or ``name:port``)."""
    allowed_origins: tuple[str, ...] = ()
    """Origin header values allowed beside the loopback origins."""
    token_sha256: str | None = None
    """The SHA-256 of the bearer token every request must carry (None: no token)."""
    max_open: int = DEFAULT_MAX_OPEN


def _security(settings: HttpSettings) -> TransportSecuritySettings:
    """Host and Origin checked on every bind address: the loopback names, and those named."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    for name in settings.allowed_hosts:
        hosts += [name] if ":" in name.rstrip("]") else [name, f"{name}:*"]
    origins += list(settings.allowed_origins)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


class _BearerToken:
    """ASGI middleware: a request without ``Authorization: Bearer <token>`` gets 401.

    The presented token's SHA-256 is compared with the expected one in constant time
    (:func:`hmac.compare_digest`), so the comparison says nothing of the token's prefix
    or length.
    """

    def __init__(self, app: Any, token_sha256: str) -> None:
        self.app = app
        self.expected = bytes.fromhex(token_sha256)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            presented = dict(scope["headers"]).get(b"authorization", b"")
            scheme, _, token = presented.partition(b" ")
            digest = hashlib.sha256(token.strip()).digest()
            if not (scheme.lower() == b"bearer" and hmac.compare_digest(digest, self.expected)):
                body = b'{"error": "a bearer token is required (Authorization: Bearer ...)"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="gcv"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(settings: HttpSettings) -> Any:
    """The ASGI application of one worker: streamable HTTP in the SDK's stateless mode.

    Stateless, so that any worker answers any request: the SDK's stateful mode keeps
    each MCP session in the memory of the process that opened it, and several workers
    behind one socket would need a router with session affinity.  The conversation's
    state is in the store, which every worker reads, so nothing is lost.
    """
    folder = SessionFolder(settings.sessions, max_open=settings.max_open)
    app = build_server(folder).streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=_security(settings),
        host=settings.host,
        max_request_body_size=2 * MAX_ARGUMENT_BYTES,
    )
    return app if settings.token_sha256 is None else _BearerToken(app, settings.token_sha256)


def worker_app() -> Any:
    """The application of a worker process, its settings from the environment (uvicorn's
    factory, ``gcv.agent.server:worker_app``)."""
    return http_app(HttpSettings(**json.loads(os.environ[_WORKER_VARIABLE])))


def _listener(host: str, port: int) -> socket.socket:
    listener = socket.create_server(
        (host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET
    )
    bound = listener.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"gcv mcp: listening on http://{shown}:{bound}/mcp", flush=True, file=sys.stderr)
    return listener


async def serve_http(settings: HttpSettings) -> None:
    """Serve the sessions over streamable HTTP at ``http://host:port/mcp``, in this process.

    The socket is bound and listening before the address is announced on standard
    error, so a client that reads the announcement can connect at once; port 0
    asks the system for a free port.
    """
    import uvicorn

    listener = _listener(settings.host, settings.port)
    config = uvicorn.Config(http_app(settings), log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[listener])


def serve_http_workers(settings: HttpSettings) -> None:
    """Serve with ``settings.workers`` worker processes on one socket (uvicorn's
    supervisor: it restarts a worker that dies, and stops them all on SIGINT or SIGTERM)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    listener = _listener(settings.host, settings.port)
    os.environ[_WORKER_VARIABLE] = json.dumps(dataclasses.asdict(settings))
    config = uvicorn.Config(
        "gcv.agent.server:worker_app",
        factory=True,
        workers=settings.workers,
        log_level="warning",
        lifespan="on",
    )
    Multiprocess(config, sockets=[listener]).run()
