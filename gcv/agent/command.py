"""``gcv mcp``: serve a folder of sessions to an agent host over MCP.

    gcv mcp [--sessions DIR] [--http [--host H] [--port N]]

Over standard input and output by default (what a host starts as a
subprocess); with ``--http``, streamable HTTP on ``http://127.0.0.1:PORT/mcp``
(another host only when ``--host`` names it; ``--port 0``, the default, takes a
free port, announced on standard error once the socket listens).  The folder
comes from ``--sessions`` or the environment (``GCV_SESSIONS``), as the
Interpreter's endpoint comes from ``--endpoint`` or ``GCV_ENDPOINT``.  Exit
codes as for every ``gcv`` command; 2 when the ``mcp`` SDK is not installed,
with the command that installs it.
"""

from __future__ import annotations

import importlib.util
import os
import sys

from gcv.hints import install_hint
from gcv.options import EXIT_BAD_INPUT, EXIT_OK, OptionParser, at_least

__all__ = ["ENV_SESSIONS", "main"]

ENV_SESSIONS = "GCV_SESSIONS"
"""The environment variable naming the sessions folder when ``--sessions`` is not given."""

LOOPBACK = "127.0.0.1"


def _parser() -> OptionParser:
    parser = OptionParser(
        prog="gcv mcp",
        description="Serve a folder of sessions to an agent host (Model Context Protocol).",
    )
    parser.add_argument(
        "--sessions",
        metavar="DIR",
        default=os.environ.get(ENV_SESSIONS),
        help=f"the folder of session stores (default: ${ENV_SESSIONS})",
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
    return parser


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
    from gcv.agent.server import serve_http, serve_stdio

    folder = SessionFolder(args.sessions)  # a missing folder: gcv's entry point says so
    try:
        if args.http:
            anyio.run(serve_http, folder, args.host, args.port)
        else:
            anyio.run(serve_stdio, folder)
    except KeyboardInterrupt:
        pass
    except OSError as error:  # the address is taken, or not one of this machine's
        print(f"gcv mcp: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        folder.close()
    return EXIT_OK
