"""``gcv mcp``: serve sessions to agent hosts over MCP.

    gcv mcp [--sessions DIR|postgresql://...] [--max-open N]
            [--http [--host H] [--port N] [--workers N] [--allow-host NAME ...]
                    [--allow-origin ORIGIN ...] [--token-file FILE]]

Over standard input and output by default (what a host starts as a subprocess); with
``--http``, streamable HTTP on ``http://127.0.0.1:PORT/mcp`` (another address only when
``--host`` names it; ``--port 0``, the default, takes a free port, announced on
standard error once the socket listens), answered by ``--workers`` processes.  The
sessions come from ``--sessions`` or ``GCV_SESSIONS``: a folder of store files, or a
PostgreSQL database that every worker, on every machine, shares.

Every request's Host and Origin must be a loopback name or one ``--allow-host`` and
``--allow-origin`` name, whatever the address; off loopback every request must also
carry the bearer token, read from ``--token-file`` or ``GCV_MCP_TOKEN`` (never from the
command line, which other users of the machine can read).  Exit codes as for every
``gcv`` command; 2 when the ``mcp`` SDK is not installed, with the command that
installs it.  docs/agents.md has the threat model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import ipaddress
import os
import sys
from pathlib import Path

from gcv.hints import install_hint
from gcv.options import EXIT_BAD_INPUT, EXIT_OK, OptionParser, at_least

__all__ = ["ENV_SESSIONS", "ENV_TOKEN", "main"]

ENV_SESSIONS = "GCV_SESSIONS"
"""The environment variable naming the sessions when ``--sessions`` is not given."""
ENV_TOKEN = "GCV_MCP_TOKEN"
"""The environment variable holding the bearer token when ``--token-file`` is not given."""

LOOPBACK = "127.0.0.1"


def _parser() -> OptionParser:
    parser = OptionParser(
        prog="gcv mcp",
        description="Serve sessions to agent hosts (Model Context Protocol).",
    )
    parser.add_argument(
        "--sessions",
        metavar="DIR|URL",
        default=os.environ.get(ENV_SESSIONS),
        help=f"a folder of session stores, or a postgresql:// database (default: ${ENV_SESSIONS})",
    )
    parser.add_argument(
        "--max-open",
        type=at_least(1, 100_000),
        default=64,
        help="sessions a process keeps open; the least recently used close first (default 64)",
    )
    parser.add_argument(
        "--http", action="store_true", help="streamable HTTP instead of standard input/output"
    )
    parser.add_argument(
        "--host", default=LOOPBACK, help=f"the address to listen on (default {LOOPBACK})"
    )
    parser.add_argument(
        "--port", type=at_least(0, 65535), default=0, help="the port (default 0: a free one)"
    )
    parser.add_argument(
        "--workers", type=at_least(1, 256), default=1, help="worker processes (default 1)"
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host header value to accept besides the loopback names (repeatable)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="an Origin to accept besides the loopback ones, e.g. https://app.example (repeatable)",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help=f"a file holding the bearer token requests must carry (default: ${ENV_TOKEN})",
    )
    return parser


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or name.

    >>> is_loopback("127.0.0.2"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _token(token_file: str | None) -> str | None:
    """The bearer token: the file's first line, or the environment's; None when neither."""
    if token_file is not None:
        text = Path(token_file).read_text(encoding="utf-8")
        token = text.splitlines()[0].strip() if text.strip() else ""
    else:
        token = os.environ.get(ENV_TOKEN, "").strip()
    if token_file is not None and len(token) < 16:
        raise ValueError(f"{token_file}: the token is shorter than 16 characters")
    return token or None


def main(argv: list[str]) -> int:
    """Run ``gcv mcp`` with ``argv`` until the client leaves (or the process is stopped)."""
    args = _parser().parse_args(argv)
    if importlib.util.find_spec("mcp") is None:
        print(f"gcv mcp: needs the mcp SDK: {install_hint('mcp')}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.sessions is None:
        print(f"gcv mcp: give --sessions DIR or set {ENV_SESSIONS}", file=sys.stderr)
        return EXIT_BAD_INPUT
    import anyio

    from gcv.agent.folder import SessionFolder
    from gcv.agent.server import HttpSettings, serve_http, serve_http_workers, serve_stdio

    if not args.http:
        folder = SessionFolder(args.sessions, max_open=args.max_open)
        try:
            anyio.run(serve_stdio, folder)
        except KeyboardInterrupt:
            pass
        finally:
            folder.close()
        return EXIT_OK
    SessionFolder(args.sessions).close()  # a missing folder: gcv's entry point says so
    try:
        token = _token(args.token_file)
    except (OSError, ValueError) as error:
        print(f"gcv mcp: the token: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if token is None and not is_loopback(args.host):
        print(
            f"gcv mcp: off loopback ({args.host}) every request must carry a token: give "
            f"--token-file FILE or set {ENV_TOKEN}",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    settings = HttpSettings(
        sessions=str(args.sessions),
        host=args.host,
        port=args.port,
        workers=args.workers,
        allowed_hosts=tuple(args.allow_host),
        allowed_origins=tuple(args.allow_origin),
        token_sha256=None if token is None else hashlib.sha256(token.encode()).hexdigest(),
        max_open=args.max_open,
    )
    try:
        if args.workers == 1:
            anyio.run(serve_http, settings)
        else:
            serve_http_workers(settings)
    except KeyboardInterrupt:
        pass
    except OSError as error:  # the address is taken, or not one of this machine's
        print(f"gcv mcp: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK
