"""A fault-injecting implementation of gcv-conform/1, for testing the runner.

``python fake_impl.py MODE`` is the reference's session with one fault:

- ``hang``: never answers an affected_star query (``GCV_FAKE_EVENTS``: see ``_hang``);
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
- ``refuses``: refuses the handshake;
- ``unsupported-everything``: declares every feature but answers unsupported to every start;
- ``declares-nothing``: declares no feature at all;
- ``hang-on-start``: never answers a start request;
- ``slow``: correct, but takes 50 ms over each start;
- ``long-line``: answers standing queries with a 60 MiB line that is not JSON;
- ``huge-answer``: answers affected_star with a valid set of 5,000,000 members (about 50 MB);
- ``repeats``: answers Affected*(beta) with its members, each repeated 200,000 times;
- ``flood``: correct, but writes 32 MiB to stderr at the first turn, then ``fake: last words``;
- ``belief-over-w``: answers B_i phi (and B_i(phi | psi)) at the most plausible worlds of all
  of W (by i's ranks) instead of those of i's cell;
- ``believed-solves``: Definition A.2 without "M_t does not satisfy B_i gamma": a hypothesis
  already believed may close a problem;
- ``hypothesis-commits``: makes the paper-compatible alternative of the choice
  ``T3.hypothesize.no-commitment``: a Hypothesize commits its speaker;
- ``paper-alternatives``: makes the paper-compatible alternative of every chosen clause at
  once (``gcv.conformance.alternatives.all_alternatives``);
- ``one-namespace``: makes the alternative of ``T3.question.issue-ids-apart``: records and
  issues share one namespace;
- ``support-revives-weakened``: a Support of a weakened record labels it active again (run
  it under ``python -O``: the reference's contracts would stop it);
- ``no-visited-set``: a Verify walk that pushes every support it meets, seen or not (correct
  answers, but exponential time on a map with shared subgraphs);
- ``paper-bug WHAT``: the engine of ``paper_bugs.PAPER_BUGS[WHAT]``, which breaks one paper
  clause (``paper-bug "Support recording no Dep link"``).

Any other mode is the reference's session unchanged.  With ``GCV_FAKE_SIGTERM_AT`` set to N,
the fake sends SIGTERM to its parent (the runner) on its N-th request, then answers it: a
signal at a moment the test chooses, with no clock involved.  With ``GCV_FAKE_PIDS`` set to a file,
the fake starts a child (``sleep``) in its process group, and appends its own pid and the
child's to that file, one a line: the runner must end both.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from gcv.conformance.session import Session


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


LONG_LINE_BYTES = 60 * 1024 * 1024
HUGE_ANSWER_MEMBERS = 5_000_000
"""A valid set answer of about 50 MB."""
FLOOD_BYTES = 32 * 1024 * 1024


def _flood() -> None:
    line = b"fake: flooding standard error " + b"x" * 993 + b"\n"  # 1 KiB
    for _ in range(FLOOD_BYTES // len(line)):
        sys.stderr.buffer.write(line)
    sys.stderr.buffer.write(b"fake: last words\n")
    sys.stderr.flush()


def _hang() -> None:
    """Never answer.  With ``GCV_FAKE_EVENTS`` set to a file, first append ``hung`` to it (the
    tests' handshake: the runner has written its reports of the cases before), then append
    every further request line as it arrives (a shutdown request sent to a hung fake)."""
    events = os.environ.get("GCV_FAKE_EVENTS")
    if events:

        def record(text: str) -> None:
            with open(events, "a", encoding="utf-8") as file:
                file.write(text)

        def record_requests() -> None:
            for line in sys.stdin:
                record(line)

        threading.Thread(target=record_requests, daemon=True).start()
        record("hung\n")
    time.sleep(3600)


def _answer(mode: str, session: Session, request: Any) -> dict[str, Any] | str:
    cmd = request.get("cmd") if isinstance(request, dict) else None
    if mode in ("hang-on-start", "slow") and cmd == "start":
        time.sleep(3600 if mode == "hang-on-start" else 0.05)
    if mode == "unsupported-everything" and cmd == "start":
        return json.dumps({"id": request["id"], "ok": False, "error": {"code": "unsupported"}})
    if mode == "long-line" and _is_query(request, "standing"):
        return "x" * LONG_LINE_BYTES
    if mode == "flood" and cmd == "apply" and session.verifier and not session.verifier.state.turn:
        _flood()
    if mode == "hang" and _is_query(request, "affected_star"):
        _hang()
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
        if mode == "declares-nothing":
            result["features"] = []
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
    elif mode == "huge-answer" and _is_query(request, "affected_star"):
        response["result"] = [f"r{k}" for k in range(HUGE_ANSWER_MEMBERS)]
    elif mode == "repeats" and _is_query(request, "affected_star"):
        response["result"] = [member for member in result for _ in range(200_000)]
    elif mode == "one-step" and _is_query(request, "affected_star"):
        assert session.verifier is not None
        response["result"] = list(session.verifier.affected(request["record"]))
    elif mode == "knows-as-believes" and _is_query(request, "knows"):
        assert session.verifier is not None
        at = request.get("at")
        response["result"] = session.verifier.believes(request["agent"], request["formula"], at=at)
    elif mode == "no-visited-set" and _is_query(request, "verify") and result["grounded"]:
        assert session.verifier is not None
        dep = session.verifier.state.dep
        frontier = [request["record"]]
        while frontier:
            frontier.extend(dep.get(frontier.pop(), ()))
    elif mode == "belief-over-w" and _is_query(request, "believes"):
        response["result"] = _believed_over_w(session, request)
    elif mode == "ignore-standing" and _is_query(request, "verify"):
        record = request["record"]
        known = session.verifier is not None and record in session.verifier.state.records
        closure = _dep_star(session, record) if known else []
        response["result"] = {"grounded": known, "closure": closure, "witness": None}
    return response


def _believed_over_w(session: Session, request: dict[str, Any]) -> bool:
    """phi at the rank-minimal worlds of W (of those where psi holds, given psi)."""
    assert session.verifier is not None
    verifier, model = session.verifier, session.verifier.state.model
    given = request.get("given")
    worlds = [
        w for w in model.worlds if given is None or verifier.holds(given, at=model.valuation(w))
    ]
    ranks = model.ranks(request["agent"])
    best = min((ranks[w] for w in worlds), default=0)
    top = [w for w in worlds if ranks[w] == best]
    return all(verifier.holds(request["formula"], at=model.valuation(w)) for w in top)


def _solve_believed_hypotheses() -> None:
    import gcv.reference.epistemic.abduction as abduction

    original = abduction.check_solution

    def check_solution(current: Any, problem: Any, gamma: Any, literal: bool = False) -> Any:
        verdict = original(current, problem, gamma, literal=literal)
        trivial = gamma == problem.formula or gamma == abduction.TOP
        return abduction.Verdict(verdict.consistent, verdict.explanatory, not trivial)

    abduction.check_solution = check_solution  # type: ignore[assignment]


def _revive_supported() -> None:
    import gcv.reference.apply
    from gcv.reference.operations import Support
    from gcv.reference.records import Standing

    original = gcv.reference.apply.apply_operation

    def apply_operation(dmap: Any, op: Any, speaker: str, **options: Any) -> None:
        original(dmap, op, speaker, **options)
        if isinstance(op, Support) and dmap.standing[op.target] is Standing.WEAKENED:
            dmap.set_standing(op.target, Standing.ACTIVE)

    gcv.reference.apply.apply_operation = apply_operation  # type: ignore[assignment]


def main(mode: str, bug: str = "") -> int:
    if mode == "dies":
        print("fake: dying before the handshake", file=sys.stderr, flush=True)
        return 5
    pids = os.environ.get("GCV_FAKE_PIDS")
    if pids:
        child = subprocess.Popen(["sleep", "600"])
        with open(pids, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n{child.pid}\n")
    if mode == "support-revives-weakened":
        _revive_supported()
    # The sibling modules, imported as pytest imports them: from the repository's root.
    sys.path.append(str(Path(__file__).parents[3]))
    from gcv.conformance import alternatives as choices
    from tests.conformance.fakes import paper_bugs

    alternatives = contextlib.ExitStack()
    if mode == "hypothesis-commits":
        alternatives.enter_context(choices.ALTERNATIVES["T3.hypothesize.no-commitment"]())
    if mode == "paper-alternatives":
        alternatives.enter_context(choices.all_alternatives())
    if mode == "one-namespace":
        alternatives.enter_context(choices.ALTERNATIVES["T3.question.issue-ids-apart"]())
    if mode == "paper-bug":
        alternatives.enter_context(paper_bugs.PAPER_BUGS[bug].patch())
    if mode == "believed-solves":
        _solve_believed_hypotheses()
    session = Session()
    signal_at = int(os.environ.get("GCV_FAKE_SIGTERM_AT", "0"))
    for count, line in enumerate(sys.stdin, start=1):
        if count == signal_at:
            os.kill(os.getppid(), signal.SIGTERM)
        request = json.loads(line)
        answer = _answer(mode, session, request)
        text = answer if isinstance(answer, str) else json.dumps(answer)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        if session.closed:
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:3]))
