"""A fault-injecting implementation of gcv-conform/1, for testing the runner.

``python fake_impl.py MODE`` is the reference's session with one fault:

- ``hang``: never answers an affected_star query;
- ``crash``: writes to stderr and exits with status 3 on an attackers query;
- ``crash-on-start``: exits on every start request (after a good handshake);
- ``garbage``: answers standing queries with a line that is not JSON;
- ``wrong-id``: answers verify queries with the wrong id;
- ``bad-shape``: answers aware queries with a string, off the schema;
- ``wrong-commitments``: answers every commitments query with the empty set;
- ``wrong-code``: rejects turns with unknown-record whatever the cause;
- ``one-step``: answers Affected*(beta) with the one-step Affected(beta);
- ``ignore-standing``: a Verify walk that ignores standing (grounded iff the record exists);
- ``knows-as-believes``: answers K_i phi with B_i phi (knowledge read at the most plausible
  worlds of the cell instead of all of them);
- ``no-epistemic``: declares every feature but the epistemic layer and its queries;
- ``partial``: declares only core and the standing query;
- ``unsupported``: declares every feature but answers unsupported to state queries;
- ``noisy``: correct, but writes 200 lines to stderr per request;
- ``dies``: exits before the handshake;
- ``refuses``: refuses the handshake.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from reference.conformance.session import Session


def _is_query(request: Any, name: str) -> bool:
    return isinstance(request, dict) and request.get("query") == name


def _dep_star(session: Session, record: str) -> list[str]:
    assert session.verifier is not None
    dep = session.verifier.state.dep
    reached, frontier = {record}, [record]
    while frontier:
        for support in dep.get(frontier.pop(), ()):
            if support not in reached:
                reached.add(support)
                frontier.append(support)
    return sorted(reached)


def _answer(mode: str, session: Session, request: Any) -> dict[str, Any] | str:
    cmd = request.get("cmd") if isinstance(request, dict) else None
    if mode == "hang" and _is_query(request, "affected_star"):
        time.sleep(3600)
    if mode == "crash" and _is_query(request, "attackers"):
        print("fake: crashing on purpose at an attackers query", file=sys.stderr, flush=True)
        os._exit(3)
    if mode == "crash-on-start" and cmd == "start":
        print("fake: cannot start a conversation", file=sys.stderr, flush=True)
        os._exit(4)
    if mode == "garbage" and _is_query(request, "standing"):
        return "this is not json"
    if mode == "deep-handshake" and cmd == "handshake":
        deep: list[Any] = []
        for _ in range(400):  # two equal lists in a uniqueItems array: the schema recursed
            deep = [deep]
        return json.dumps({"id": request["id"], "ok": True, "result": {"features": [deep, deep]}})
    if mode == "refuses" and cmd == "handshake":
        return json.dumps(
            {"id": request["id"], "ok": False, "error": {"code": "unsupported", "message": "no"}}
        )
    if mode == "unsupported" and _is_query(request, "state"):
        return json.dumps({"id": request["id"], "ok": False, "error": {"code": "unsupported"}})
    if mode == "noisy":
        for n in range(200):
            print(f"fake: noise line {n} for request {request.get('id')}", file=sys.stderr)
    response = session.handle(request)
    if not response["ok"]:
        if mode == "wrong-code" and cmd == "apply":
            response["error"]["code"] = "unknown-record"
        return response
    result: Any = response.get("result")
    if cmd == "handshake":
        result["name"] = f"fake-{mode}"
        if mode == "partial":
            result["features"] = ["core", "query:standing"]
        if mode == "no-epistemic":
            epistemic = ("epistemic", "query:holds", "query:knows", "query:believes")
            epistemic += ("query:worlds", "query:ordered", "query:unexplained")
            result["features"] = [f for f in result["features"] if f not in epistemic]
    elif mode == "wrong-id" and _is_query(request, "verify"):
        response["id"] = request["id"] + 1
    elif mode == "bad-shape" and _is_query(request, "aware"):
        response["result"] = "yes" if result else "no"
    elif mode == "wrong-commitments" and _is_query(request, "commitments"):
        response["result"] = []
    elif mode == "one-step" and _is_query(request, "affected_star"):
        assert session.verifier is not None
        response["result"] = list(session.verifier.affected(request["record"]))
    elif mode == "knows-as-believes" and _is_query(request, "knows"):
        assert session.verifier is not None
        at = request.get("at")
        response["result"] = session.verifier.believes(request["agent"], request["formula"], at=at)
    elif mode == "ignore-standing" and _is_query(request, "verify"):
        record = request["record"]
        known = session.verifier is not None and record in session.verifier.state.records
        closure = _dep_star(session, record) if known else []
        response["result"] = {"grounded": known, "closure": closure, "witness": None}
    return response


def main(mode: str) -> int:
    if mode == "dies":
        print("fake: dying before the handshake", file=sys.stderr, flush=True)
        return 5
    session = Session()
    for line in sys.stdin:
        request = json.loads(line)
        answer = _answer(mode, session, request)
        text = answer if isinstance(answer, str) else json.dumps(answer)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        if session.closed:
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
