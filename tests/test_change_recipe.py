"""The change recipe of docs/layout.md holds: a throwaway change made in a copy of the tree.

Two changes the issue that shaped the layout tried by hand: a precondition added to Revise
(one that reads a part of D_t the engine's checks did not see before, the record's
speaker) and a field added to Support (``commits``: false leaves the speaker uncommitted
to its evidence).  Each is written here as the few edits the recipe names, applied to a
copy of the layers and the tools; the generated files are then regenerated as their
commands do (``gcv normative``, ``gcv schemas``), and a fresh interpreter that imports the
copy checks that the change is whole: the engine and the spec transition both make it,
alike, the trace format reads the new field, and the encoding of Table 3 still equals its
second statement (the precondition reads a part the encoding does not model).  The test
then compares the copy with the checkout, file by file: the files that differ, besides the
generated ones, are the ones the recipe names, and there are at most three.

The tests and the conformance kit a real change also touches (its tests; a paper clause's
engine that breaks it, a choice's alternative; the vectors, regenerated) are listed in
docs/layout.md beside the recipe; they are not part of the count.
"""

from __future__ import annotations

import filecmp
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("spec", "reference", "proofs", "gcv")
GENERATED = {
    "spec/gcv/spec/normative.md",
    "spec/gcv/spec/trace.schema.json",
    "spec/gcv/spec/protocol/request.schema.json",
}
"""What ``gcv normative`` and ``gcv schemas`` write."""


@dataclass(frozen=True)
class Edit:
    """Insert ``text`` after the first line of ``path`` that contains ``anchor`` (before it
    when ``before``)."""

    path: str
    anchor: str
    text: str
    before: bool = False


PRECONDITION = (
    Edit(
        "spec/gcv/spec/clauses.py",
        'rule="Revise\'s target may carry any label",\n)',
        """
REVISE_OWN_RECORD = clause(
    "T3.revise.own-record",
    PAPER,
    place="a throwaway clause of tests/test_change_recipe.py",
    rule="a speaker revises only a record it registered (precondition, field target)",
)
""",
    ),
    Edit(
        "spec/gcv/spec/transition.py",
        "from gcv.spec.ledger import",
        "from gcv.spec.clauses import REVISE_OWN_RECORD\n",
    ),
    Edit(
        "spec/gcv/spec/transition.py",
        "    ledger.note(REVISE_TARGET)",
        """    _require(
        state.records[op["target"]].speaker == speaker,
        REVISE_OWN_RECORD,
        "precondition",
        field="target",
        record=op["target"],
    )
""",
    ),
    Edit(
        "reference/gcv/reference/rules/revise.py",
        "        shared.target(view, op, row),",
        """        # T3.revise.own-record
        _own_record(view, op, speaker),
""",
    ),
    Edit(
        "reference/gcv/reference/rules/revise.py",
        "def realisation(op: Revise)",
        """def _own_record(
    view: StateView, op: Revise, speaker: AgentId
) -> PreconditionViolation | None:
    if view.records[op.target].speaker != speaker:
        return PreconditionViolation(
            f"{speaker!r} did not register {op.target!r}", field="target", record=op.target
        )
    return None


""",
        before=True,
    ),
)
"""A precondition of Revise: the rule module, the spec's process_revise, the clause row."""

FIELD = (
    Edit(
        "reference/gcv/reference/rules/support.py",
        "    ] = False",
        """    commits: form.Flag = True
""",
    ),
    Edit(
        "reference/gcv/reference/rules/support.py",
        "    shared.register_evidence(dmap, op, speaker)",
        """    if not op.commits:
        dmap.retract(speaker, op.evidence)
""",
    ),
    Edit(
        "spec/gcv/spec/transition.py",
        "    _evidence(state, op, speaker, ledger)\n    _check_formula(state, op, ledger)\n"
        "    ledger.note(SUPPORT_DEP, SUPPORT_NO_LABEL)",
        """    if not op.get("commits", True):
        state.commitments[speaker].discard(op["evidence"])
""",
    ),
)
"""A field of Support: its value (in its rule module), its effect there, the spec."""

CHECK = """
import importlib.util, os, sys
root = sys.argv[1]
sys.path.insert(0, root)
import gcv
for layer in ("spec", "reference", "proofs"):
    # the layer's folder (or, laid out as its import path, the folder's gcv/<layer>)
    nested = f"{root}/{layer}/gcv/{layer}"
    folder = nested if os.path.isdir(nested) else f"{root}/{layer}"
    found = importlib.util.spec_from_file_location(
        f"gcv.{layer}", f"{folder}/__init__.py", submodule_search_locations=[folder]
    )
    module = importlib.util.module_from_spec(found)
    sys.modules[found.name] = module
    found.loader.exec_module(module)
    setattr(gcv, layer, module)

from gcv.reference.errors import GcvError
from gcv.reference.operations import Observe, Revise
from gcv.reference.verifier import Turn, Verifier
from gcv.spec import transition as spec
from gcv.trace import operation_from_json, _validate
assert gcv.spec.__file__.startswith(root), gcv.spec.__file__

def engine(turns):
    v = Verifier(["a", "b"])
    for speaker, ops in turns:
        try:
            v.apply_turn(Turn(speaker, tuple(ops)))
        except GcvError as error:
            return v, error.code
    return v, None

def specified(turns):
    state = spec.State.start(["a", "b"])
    for speaker, ops in turns:
        try:
            state = spec.process_turn(state, spec.Turn(speaker, tuple(ops))).state
        except spec.Rejected as refused:
            return state, (refused.code, refused.clause)
    return state, None

if sys.argv[2] == "precondition":
    observed = ("a", [Observe("o1", "c")])
    for speaker, expected in (("b", "precondition"), ("a", None)):
        _, code = engine([observed, (speaker, [Revise("o1")])])
        assert code == expected, (speaker, code)
        _, refused = specified([("a", [{"op": "observe", "id": "o1", "claim": "c"}]),
                                (speaker, [{"op": "revise", "target": "o1"}])])
        clause = "T3.revise.own-record"
        assert refused == (None if expected is None else (expected, clause)), refused
    from gcv.proofs.obligations.table3 import checks
    from gcv.proofs.registry import Budget
    assert all(c.result.outcome.value == "proved" for c in checks(Budget(timeout_ms=60_000)))
else:
    data = {"op": "support", "target": "o1", "evidence": "e1", "evidence_claim": "e",
            "commits": False}
    observe = {"op": "observe", "id": "o1", "claim": "c"}
    trace = {"format": "gcv-trace/1", "agents": {"a": "A"},
             "turns": [{"turn": 1, "speaker": "a", "operations": [observe, data]}]}
    _validate(trace)
    op = operation_from_json(data)
    assert op.commits is False, op
    v, code = engine([("a", [Observe("o1", "c"), op])])
    state, refused = specified([("a", [observe, data])])
    assert code is None and refused is None, (code, refused)
    assert v.commitments("a") == ("o1",) and state.commitments["a"] == {"o1"}
print("whole")
"""


def _apply(root: Path, edits: tuple[Edit, ...]) -> None:
    for edit in edits:
        path = root / edit.path
        text = path.read_text(encoding="utf-8")
        at = text.find(edit.anchor)
        assert at >= 0, f"{edit.path}: the recipe's anchor {edit.anchor!r} moved; update it here"
        if edit.before:
            cut = text.rindex("\n", 0, at) + 1
        else:
            cut = text.index("\n", at + len(edit.anchor)) + 1
        path.write_text(text[:cut] + edit.text + text[cut:], encoding="utf-8")


def _regenerate(root: Path) -> None:
    """What gcv normative and gcv schemas write, made from the copy in a fresh interpreter."""
    script = CHECK.split("from gcv.reference.errors")[0] + (
        "import json\n"
        "from gcv.normative import render_page\n"
        "from gcv.schemas import render_request_schema, render_trace_schema\n"
        "from gcv.spec.clauses import CLAUSES\n"
        "from pathlib import Path\n"
        "page = Path(root, 'spec/gcv/spec/normative.md')\n"
        "page.write_text(render_page(page.read_text(), CLAUSES.values()))\n"
        "for name, render in (('spec/gcv/spec/trace.schema.json', render_trace_schema),"
        " ('spec/gcv/spec/protocol/request.schema.json', render_request_schema)):\n"
        "    path = Path(root, name)\n"
        "    path.write_text(render(json.loads(path.read_text())))\n"
    )
    subprocess.run([sys.executable, "-c", script, str(root)], check=True, cwd=root)


def _changed(root: Path) -> Iterator[str]:
    for folder in COPIED:
        for path in sorted((root / folder).rglob("*")):
            relative = path.relative_to(root)
            if path.is_file() and not filecmp.cmp(path, ROOT / relative, shallow=False):
                yield relative.as_posix()


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    ignored = shutil.ignore_patterns("__pycache__", "vectors", "*.so")
    for folder in COPIED:
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=ignored)
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize(
    ("change", "edits", "files"),
    [
        (
            "precondition",
            PRECONDITION,
            {
                "reference/gcv/reference/rules/revise.py",
                "spec/gcv/spec/transition.py",
                "spec/gcv/spec/clauses.py",
            },
        ),
        (
            "field",
            FIELD,
            {"reference/gcv/reference/rules/support.py", "spec/gcv/spec/transition.py"},
        ),
    ],
)
def test_a_change_touches_only_the_files_the_recipe_names(
    copy: Path, change: str, edits: tuple[Edit, ...], files: set[str]
) -> None:
    _apply(copy, edits)
    _regenerate(copy)
    checked = subprocess.run(
        [sys.executable, "-c", CHECK, str(copy), change],
        cwd=copy,
        capture_output=True,
        text=True,
    )
    assert checked.stdout.strip() == "whole", checked.stderr
    changed = set(_changed(copy))
    assert changed - GENERATED == files and len(files) <= 3, sorted(changed)
    if change == "field":  # the schema, made from the value, now names the field
        schema = json.loads((copy / "spec/gcv/spec/trace.schema.json").read_text(encoding="utf-8"))
        assert schema["$defs"]["support"]["properties"]["commits"] == {"type": "boolean"}
    else:  # the clause's entry, made from its row
        assert "T3.revise.own-record" in (copy / "spec/gcv/spec/normative.md").read_text(
            encoding="utf-8"
        )
