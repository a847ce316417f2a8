"""A small example adapter: what an implementation writes to be checked by ``gcv conform``.

The protocol (``protocol/protocol.md``) is JSON lines on standard input and output: read a
request, answer it with the same ``id``, flush, repeat.  This adapter speaks it for an
implementation whose Python API happens to be the reference's (``gcv.Verifier``); for your
own implementation, replace the marked calls with yours.  It declares only some queries,
so the cases that need the others are skipped, not failed:

    gcv conform -- python examples/adapter.py

Nothing but responses may be written to standard output; write diagnostics to standard
error, which the runner shows next to a failing case.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from gcv import GcvError, Turn, Verifier
from gcv.trace import operation_from_json

FEATURES = ["core", "query:verify", "query:affected", "query:affected_star", "query:standing"]


def handle(request: dict[str, Any], conversation: dict[str, Verifier]) -> Any:
    """Answer one request; ``conversation`` holds the current one under "v"."""
    cmd = request["cmd"]
    if cmd == "handshake":
        return {
            "protocol": "gcv-conform/1",
            "name": "example-adapter",
            "version": "1.0",
            "features": FEATURES,
        }
    if cmd == "start":
        conversation["v"] = Verifier(request["agents"], request.get("atoms", []))  # yours here
        return {}
    if cmd == "shutdown":
        return {}
    v = conversation["v"]
    if cmd == "apply":
        operations = tuple(operation_from_json(op) for op in request["operations"])
        v.apply_turn(Turn(request["speaker"], operations))  # all or none; raises on rejection
        return {}
    query: str = request["query"]
    record: Any = request.get("record")  # None for verify with no associated record
    if query == "verify":
        grounding = v.verify(record)
        return {"grounded": grounding.grounded, "closure": list(grounding.closure)}
    if query == "affected":
        return list(v.affected(record))
    if query == "affected_star":
        return list(v.affected_star(record))
    if query == "standing":
        return v.standing(record).value
    raise ValueError(f"query {query} is not declared")  # the runner never sends it


def respond(line: str, conversation: dict[str, Verifier]) -> dict[str, Any]:
    """The response to one request line."""
    try:
        request = json.loads(line)
    except ValueError:
        return {"id": None, "ok": False, "error": {"code": "malformed-request", "message": line}}
    try:
        return {"id": request["id"], "ok": True, "result": handle(request, conversation)}
    except GcvError as error:  # the error code is normative; the message is not
        return {
            "id": request["id"],
            "ok": False,
            "error": {"code": error.code, "message": str(error)},
        }


def main() -> None:
    """Answer request lines until ``shutdown`` or the end of standard input."""
    conversation: dict[str, Verifier] = {}
    for line in sys.stdin:
        response = respond(line, conversation)
        print(json.dumps(response), flush=True)
        if response["ok"] and json.loads(line)["cmd"] == "shutdown":
            break


if __name__ == "__main__":
    main()
