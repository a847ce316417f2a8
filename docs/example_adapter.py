"""A small example adapter: what an implementation writes to be checked by ``gcv conform``.

The protocol (spec/protocol/protocol.md) is JSON lines on standard input and
output: read a request, answer it with the same ``id``, flush, repeat.  This
adapter speaks it for an implementation whose Python API happens to be the
reference's (``reference.Verifier``); for your own implementation, replace the
marked calls with yours.  It declares only some queries, so the cases that
need the others are skipped, not failed:

    gcv conform -- python docs/example_adapter.py

Nothing but responses may be written to standard output; write diagnostics to
standard error, which the runner shows next to a failing case.
"""

import json
import sys

from gcv import GcvError, Turn, Verifier
from gcv.trace import operation_from_json

FEATURES = ["core", "query:verify", "query:affected", "query:affected_star", "query:standing"]


def handle(request, conversation):
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
    query, record = request["query"], request.get("record")
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


def main():
    conversation = {}
    for line in sys.stdin:
        request = json.loads(line)
        try:
            response = {"id": request["id"], "ok": True, "result": handle(request, conversation)}
        except GcvError as error:  # the error code is normative; the message is not
            response = {
                "id": request["id"],
                "ok": False,
                "error": {"code": error.code, "message": str(error)},
            }
        print(json.dumps(response), flush=True)
        if request["cmd"] == "shutdown":
            break


if __name__ == "__main__":
    main()
