"""The protocol's ``render`` request: the renderer's text for D_t or for the last turn."""

from __future__ import annotations

from typing import Any

from gcv.conformance.protocol import response_problem
from gcv.conformance.session import Session
from gcv.reference.operations import Hypothesize, Observe, Undermine
from gcv.reference.render import render_state, render_turn
from gcv.reference.verifier import Turn, Verifier


def _answer(session: Session, request: dict[str, Any]) -> dict[str, Any]:
    response = session.handle(request)
    assert response_problem(request, response) is None, response
    return response


def test_render_gives_the_renderers_lines_for_the_map_and_the_last_turn() -> None:
    session = Session()
    assert _answer(session, {"id": 0, "cmd": "render"})["error"]["code"] == "malformed-request"
    _answer(session, {"id": 1, "cmd": "start", "agents": ["a", "b"]})
    assert _answer(session, {"id": 2, "cmd": "render", "what": "turn"})["result"] == {"lines": []}
    observe = {"op": "observe", "id": "o9", "claim": "401 not 503"}
    hypothesize = {"op": "hypothesize", "id": "h2", "claim": "Redis -> auth"}
    undermine = {"op": "undermine", "target": "h2", "evidence": "o9"}
    _answer(
        session, {"id": 3, "cmd": "apply", "speaker": "a", "operations": [observe, hypothesize]}
    )
    _answer(session, {"id": 4, "cmd": "apply", "speaker": "b", "operations": [undermine]})
    # The same turns through a Verifier, rendered directly.
    twin = Verifier(["a", "b"])
    twin.apply_turn(Turn("a", (Observe("o9", "401 not 503"), Hypothesize("h2", "Redis -> auth"))))
    last = twin.apply_turn(Turn("b", (Undermine("h2", "o9"),)))
    turn = _answer(session, {"id": 5, "cmd": "render", "what": "turn"})["result"]["lines"]
    assert turn == render_turn(last, twin.state)
    # Table 3: Undermine attacks and weakens the target, and commits the speaker to the evidence.
    assert turn == ["attacks: o9 -> h2", "standing: h2 active -> weakened", "b commits to o9"]
    state = _answer(session, {"id": 6, "cmd": "render"})["result"]["lines"]
    assert state == render_state(twin.state) and "attacked by o9" in state[2]
    # A rejected turn leaves the last accepted one as the turn rendered.
    bad = {"op": "revise", "target": "nope"}
    _answer(session, {"id": 7, "cmd": "apply", "speaker": "a", "operations": [bad]})
    assert _answer(session, {"id": 8, "cmd": "render", "what": "turn"})["result"]["lines"] == turn
    wrong = _answer(session, {"id": 9, "cmd": "render", "what": "everything"})
    assert wrong["error"]["code"] == "malformed-request"
