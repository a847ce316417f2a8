"""The explorer's steps hold only what each turn changed; replayed in order they give, at
every step, what a page computing everything afresh would show (fast: no browser)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from gcv.cli import main
from gcv.explore import record_view, steps_of
from gcv.history import initial_verifier
from gcv.reference.errors import GcvError
from gcv.scenarios import read_trace
from gcv.trace import Trace
from tests.test_draw import phase2_resting_on_h2

pytestmark = pytest.mark.slow  # every record's answers afresh at every step, contracts on


def _afresh(trace: Trace) -> list[dict[str, object]]:
    """Each step's views of every record, computed from scratch after each turn."""
    verifier = initial_verifier(trace)
    agents = dict(trace.agents)
    shown: list[dict[str, object]] = [{}]
    for trace_turn in trace.turns:
        with contextlib.suppress(GcvError):  # a rejected turn leaves D_t as it was
            verifier.apply_turn(trace_turn.turn)
        shown.append({r: record_view(verifier, r, agents) for r in verifier.state.records})
    return shown


def _check(trace: Trace) -> None:
    steps, _ = steps_of(trace)
    views: dict[str, object] = {}
    for index, (step, expected) in enumerate(zip(steps, _afresh(trace), strict=True)):
        update = step["views"]
        assert isinstance(update, dict)
        views.update(update)
        assert views == expected, f"step {index}"


@pytest.mark.parametrize("name", ["phase2-debugging", "phase3-deliberation"])
def test_the_changes_rebuild_every_step(name: str) -> None:
    _check(read_trace(name))


def test_with_rejected_turns_and_a_record_resting_on_one_abandoned(tmp_path: Path) -> None:
    path = phase2_resting_on_h2(tmp_path)
    document = json.loads(path.read_text("utf-8"))
    revise = {"op": "revise", "target": "nope"}
    document["turns"].insert(3, {"turn": 4, "speaker": "a", "operations": [revise]})
    document["turns"][3]["rejected"] = "unknown-record"
    path.write_text(json.dumps(document), encoding="utf-8")
    trace = read_trace(str(path))
    assert sum(t.rejected is not None for t in trace.turns) == 1
    _check(trace)


def test_a_conversation_with_no_turn_yet_has_the_one_step_before_it(tmp_path: Path) -> None:
    store = tmp_path / "new.gcv"
    assert main(["session", "new", "--db", str(store), "--agents", "a"]) == 0
    page = tmp_path / "page.html"
    assert main(["explore", "--db", str(store), "-o", str(page)]) == 0
    assert '"text": "(before the first turn)"' in page.read_text("utf-8")
