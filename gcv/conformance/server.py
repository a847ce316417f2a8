"""``gcv serve``: the reference verifier speaking ``gcv-conform/1`` over standard I/O.

One JSON request per line on standard input, one JSON response per line on
standard output, flushed after each; nothing else is written to standard
output.  The loop ends after ``shutdown`` or at the end of input.

    gcv conform -- gcv serve      # the reference checked against its own vectors
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import IO, Any

from gcv.conformance.protocol import PROTOCOL
from gcv.conformance.session import Session, error_response
from gcv.conformance.stored import StoredProtocolSession
from gcv.errors import MalformedRequest
from gcv.jsoninput import parse_json, read_lines

__all__ = ["MAX_LINE_BYTES", "main", "serve"]

MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest request line read (protocol.md); a longer one is skipped unread and refused."""


def _answer(line: bytes | None, session: Session) -> dict[str, Any]:
    if line is None:
        refused = MalformedRequest(f"a request line is at most {MAX_LINE_BYTES} bytes")
        return error_response(None, refused)
    try:
        request = parse_json(line, MAX_LINE_BYTES, MalformedRequest, "a request line")
    except MalformedRequest as error:
        return error_response(None, error)
    return session.handle(request)


def serve(lines: Iterable[bytes | None], out: IO[str], session: Session | None = None) -> int:
    """Answer each request line on ``out`` until ``shutdown`` or the end of ``lines``; return 0.

    A line given as ``None`` is one :func:`~gcv.jsoninput.read_lines` found too long.

    >>> import io
    >>> out = io.StringIO()
    >>> serve([b'{"id": 1, "cmd": "shutdown"}', b'{"id": 2, "cmd": "shutdown"}'], out)
    0
    >>> out.getvalue()
    '{"id":1,"ok":true,"result":{}}\\n'
    """
    session = session if session is not None else Session()
    for line in lines:
        if line is not None and not line.strip():
            continue
        response = _answer(line, session)
        out.write(json.dumps(response, separators=(",", ":")) + "\n")
        out.flush()
        if session.closed:
            break
    return 0


def main(argv: list[str]) -> int:
    """Run ``gcv serve``."""
    parser = argparse.ArgumentParser(
        prog="gcv serve",
        description=f"Answer {PROTOCOL} requests (JSON lines) on standard input and output.",
    )
    parser.add_argument(
        "--db", help="keep the conversation in this session store (created by start, or resumed)"
    )
    args = parser.parse_args(argv)
    # Binary input, so that bad bytes become a malformed-request answer, not a crash.
    lines = read_lines(sys.stdin.buffer, MAX_LINE_BYTES)
    if args.db is None:
        return serve(lines, sys.stdout)
    stored = StoredProtocolSession(args.db)
    try:
        return serve(lines, sys.stdout, stored)
    finally:
        stored.close()
