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

from reference.conformance.protocol import PROTOCOL
from reference.conformance.session import Session, error_response
from reference.conformance.stored import StoredProtocolSession
from reference.errors import MalformedRequest

__all__ = ["main", "serve"]

MAX_LINE_BYTES = 64 * 1024 * 1024


def _parse(line: bytes) -> tuple[Any, MalformedRequest | None]:
    if len(line) > MAX_LINE_BYTES:
        return None, MalformedRequest(f"a request line is at most {MAX_LINE_BYTES} bytes")
    try:
        return json.loads(line), None
    except RecursionError:
        return None, MalformedRequest("the JSON is nested too deeply")
    except (ValueError, UnicodeDecodeError) as error:
        return None, MalformedRequest(f"not valid JSON: {error}")


def serve(lines: Iterable[bytes], out: IO[str], session: Session | None = None) -> int:
    """Answer each request line on ``out`` until ``shutdown`` or the end of ``lines``; return 0.

    >>> import io
    >>> out = io.StringIO()
    >>> serve([b'{"id": 1, "cmd": "shutdown"}', b'{"id": 2, "cmd": "shutdown"}'], out)
    0
    >>> out.getvalue()
    '{"id":1,"ok":true,"result":{}}\\n'
    """
    session = session if session is not None else Session()
    for line in lines:
        if not line.strip():
            continue
        request, error = _parse(line)
        response = session.handle(request) if error is None else error_response(None, error)
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
    lines = iter(sys.stdin.buffer.readline, b"")
    if args.db is None:
        return serve(lines, sys.stdout)
    stored = StoredProtocolSession(args.db)
    try:
        return serve(lines, sys.stdout, stored)
    finally:
        stored.close()
