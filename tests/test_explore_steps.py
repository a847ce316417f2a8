"""The explorer's steps hold only what each turn changed; put together as the page's script
puts them, they give, at every step, what a page computing everything afresh would show.

``_decoded`` is the page script's ``stateAt`` written again in Python, read from the page's
data as JSON; the Node test runs the page's own ``stateAt`` on the same data and checks that
the two agree at every step.  No browser (``tests/test_explore.py`` opens the page).
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from gcv.cli import main
from gcv.draw import affected_caption
from gcv.explore import record_view, steps_of
from gcv.history import TraceWriter, initial_verifier
from gcv.reference.errors import GcvError
from gcv.reference.operations import Revise
from gcv.reference.records import GOOD_STANDING
from gcv.reference.verifier import Turn, Verifier
from gcv.scenarios import read_trace
from gcv.trace import Trace, load_trace
from tests.benchmarks.conversation import AGENTS, PHASE2_ATOMS, Conversation
from tests.programs import require_programs
from tests.test_draw import phase2_resting_on_h2

pytestmark = pytest.mark.slow  # every record's answers afresh at every step, contracts on

Shown = dict[str, Any]


def _epistemic_afresh(verifier: Verifier, agents: dict[str, str]) -> object:
    """|W_t|, each agent's beliefs about the atoms it is aware of, and its open problems."""
    dmap = verifier.state
    if not dmap.atoms:
        return None
    minds = []
    for agent in dmap.agents:
        aware = sorted(dmap.awareness(agent))
        minds.append(
            {
                "agent": agents.get(agent, agent),
                "believes": [a for a in aware if verifier.believes(agent, a)],
                "disbelieves": [a for a in aware if verifier.believes(agent, f"~{a}")],
                "open": [f"{p.source}: {p.formula}" for p in verifier.unexplained(agent)],
            }
        )
    return {"worlds": dmap.model.size, "agents": minds}


def _shown_afresh(verifier: Verifier, agents: dict[str, str]) -> Shown:
    dmap = verifier.state
    links = [(d, s) for d, supports in dmap.dep.items() for s in supports]
    attacks = [f"attack-{a}-{t}" for a, targets in dmap.att.items() for t in targets]
    return {
        "views": {r: record_view(verifier, r, agents) for r in dmap.records},
        "broken": {f"dep-{d}-{s}": dmap.standing[s] not in GOOD_STANDING for d, s in links},
        "present": sorted([*(f"dep-{d}-{s}" for d, s in links), *attacks]),
        "epistemic": _epistemic_afresh(verifier, agents),
    }


def _afresh(trace: Trace) -> list[Shown]:
    """What each step shows, computed from scratch after each turn."""
    verifier = initial_verifier(trace)
    agents = dict(trace.agents)
    shown = [_shown_afresh(verifier, agents)]
    for trace_turn in trace.turns:
        with contextlib.suppress(GcvError):  # a rejected turn leaves D_t as it was
            verifier.apply_turn(trace_turn.turn)
        shown.append(_shown_afresh(verifier, agents))
    return shown


def _decoded(steps: Sequence[dict[str, Any]], index: int) -> Shown:
    """The page script's ``stateAt(steps, index)``, in Python."""
    views: dict[str, dict[str, Any]] = {}
    affected: dict[str, set[str]] = {}
    broken: dict[str, bool] = {}
    present: set[str] = set()
    epistemic = None
    for step in steps[: index + 1]:
        for record, fields in step["views"].items():
            views[record] = {**views.get(record, {}), **fields}
        for record, members in step["affected"].items():
            affected.setdefault(record, set()).update(members)
        broken.update(step["broken"])
        present.update(step["links"])
        if "epistemic" in step:
            epistemic = step["epistemic"]
    for record, view in views.items():
        view["affected"] = sorted(affected.get(record, ()))
        view["affected_caption"] = affected_caption(record, view["affected"])
    return {"views": views, "broken": broken, "present": sorted(present), "epistemic": epistemic}


def _page_steps(trace: Trace) -> list[dict[str, Any]]:
    """The steps as the page holds them: JSON."""
    steps, _ = steps_of(trace)
    loaded: list[dict[str, Any]] = json.loads(json.dumps(steps, ensure_ascii=False))
    return loaded


def _with_rejected_turns(folder: Path) -> Trace:
    """Phase 2 through T9, h5 and h6 resting on the abandoned h2, and a rejected turn."""
    path = phase2_resting_on_h2(folder)
    document = json.loads(path.read_text("utf-8"))
    revise = {"op": "revise", "target": "nope"}
    document["turns"].insert(3, {"turn": 4, "speaker": "a", "operations": [revise]})
    document["turns"][3]["rejected"] = "unknown-record"
    path.write_text(json.dumps(document), encoding="utf-8")
    trace = read_trace(str(path))
    assert sum(t.rejected is not None for t in trace.turns) == 1
    return trace


def generated(turns: int) -> Trace:
    """A realistic conversation (tests/benchmarks/conversation.py): supports with existing
    evidence and resolutions that subsume (new Dep links from existing records, cycles),
    revisions, awareness expansions; with a rejected turn after every 8th."""
    conversation = Conversation(seed=2)
    conversation.grow_to(turns)
    agents = {a: a for a in AGENTS}
    writer = TraceWriter({"name": "generated", "agents": agents, "atoms": list(PHASE2_ATOMS)})
    for number, turn in enumerate(conversation.log, start=1):
        writer.apply_turn(turn)
        if number % 8 == 0:
            with contextlib.suppress(GcvError):
                writer.apply_turn(Turn("a", (Revise(f"missing{number}"),)))
    return load_trace(json.dumps(writer.document()))


def _turn(number: int, *operations: dict[str, object]) -> dict[str, object]:
    return {"turn": number, "speaker": "ab"[number % 2], "operations": list(operations)}


def _observe(record: str, *on: str) -> dict[str, object]:
    return {"op": "observe", "id": record, "claim": record, "depends_on": list(on)}


def _guess(record: str, *on: str) -> dict[str, object]:
    return {"op": "hypothesize", "id": record, "claim": record, "depends_on": list(on)}


LINKS_TO_EXISTING = {
    "format": "gcv-trace/1",
    "name": "links-to-existing",
    "agents": {"a": "Alice", "b": "Bob"},
    "turns": [
        _turn(1, _observe("o1"), _guess("h1", "o1"), _guess("h2", "h1"), _guess("h3", "h2")),
        # h1 gains a link to new evidence resting on o2: Dep*(h2), Dep*(h3) grow.
        _turn(2, _observe("o2")),
        _turn(
            3,
            {
                "op": "support",
                "target": "h1",
                "evidence": "e1",
                "evidence_claim": "e1",
                "evidence_depends_on": ["o2"],
            },
        ),
        # ... and to an existing record: o2 and o3 gain h1, h2, h3 in Affected*.
        _turn(4, _observe("o3"), {"op": "support", "target": "h1", "evidence": "o3"}),
        # h1 weakened, then abandoned: h2 and h3 rest on it, first weakened, then abandoned.
        _turn(5, {"op": "undermine", "target": "h1", "evidence": "e2", "evidence_claim": "e2"}),
        _turn(6, {"op": "revise", "target": "h1"}),
        # A resolution subsuming h4 (A.3): h4 rests on h5, which rests on h4, a cycle.
        _turn(7, _guess("h4", "o2"), _guess("h5", "h4")),
        _turn(8, {"op": "resolve", "target": "h5", "subsumes": ["h4"]}),
    ],
}
"""New Dep links from existing records, and a record leaving S_t in two steps."""


@cache
def _trace(name: str) -> Trace:
    if name == "generated":
        return generated(40)
    if name == "links-to-existing":
        return load_trace(json.dumps(LINKS_TO_EXISTING))
    return read_trace(name)


TRACES = [
    "phase1-muddy-children",
    "phase2-debugging",
    "phase3-deliberation",
    "links-to-existing",
    "generated",
]


def _check(trace: Trace) -> None:
    steps = _page_steps(trace)
    for index, expected in enumerate(_afresh(trace)):
        assert _decoded(steps, index) == expected, f"step {index}"


@pytest.mark.parametrize("name", TRACES)
def test_the_changes_rebuild_every_step(name: str) -> None:
    _check(_trace(name))


def test_with_rejected_turns_and_records_resting_on_an_abandoned_one(tmp_path: Path) -> None:
    _check(_with_rejected_turns(tmp_path))


def test_the_generated_trace_has_what_it_is_for() -> None:
    trace = _trace("generated")
    assert sum(t.rejected is not None for t in trace.turns) >= 4
    steps = _page_steps(trace)
    kinds = {op for step in steps for op in step["operations"]}
    assert {"support", "resolve", "revise", "expand-awareness"} <= kinds, kinds
    final = _decoded(steps, len(steps) - 1)["views"]
    # A subsumed record rests on the decision that subsumes it (A.3): a cycle.
    assert any(record in view["affected"] for record, view in final.items())
    assert any(not view["verify"] == view["path"] == [] for view in final.values())


def _stated_by_node(steps: list[dict[str, Any]]) -> list[Shown]:
    """The page script's ``stateAt`` at every step, run by Node on the page's data."""
    (node,) = require_programs("node")
    template = resources.files("gcv").joinpath("explorer.html").read_text("utf-8")
    found = re.search(r'<script id="gcv-replay">(.*?)</script>', template, re.DOTALL)
    assert found is not None, "the page's stateAt"
    program = found.group(1) + (
        "const steps = JSON.parse(require('fs').readFileSync(0, 'utf-8'));"
        "console.log(JSON.stringify(steps.map((_, i) => {"
        "  const shown = stateAt(steps, i);"
        "  return { ...shown, present: [...shown.present].sort() };"
        "})));"
    )
    done = subprocess.run(
        [node, "-e", program], input=json.dumps(steps), capture_output=True, text=True, check=True
    )
    stated: list[Shown] = json.loads(done.stdout)
    return stated


@pytest.mark.parametrize("name", TRACES)
def test_the_page_script_puts_the_steps_together_as_python_does(name: str) -> None:
    steps = _page_steps(_trace(name))
    stated = _stated_by_node(steps)
    assert len(stated) == len(steps)
    for index, shown in enumerate(stated):
        assert shown == _decoded(steps, index), f"step {index}"


def test_a_conversation_with_no_turn_yet_has_the_one_step_before_it(tmp_path: Path) -> None:
    store = tmp_path / "new.gcv"
    assert main(["session", "new", "--db", str(store), "--agents", "a"]) == 0
    page = tmp_path / "page.html"
    assert main(["explore", "--db", str(store), "-o", str(page)]) == 0
    assert '"text": "(before the first turn)"' in page.read_text("utf-8")
