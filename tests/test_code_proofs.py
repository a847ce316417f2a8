"""``gcv prove --code`` without its verifier: what the test command can afford.

Nagini's runs (minutes of CPU) are a step of ``.ci/run``; here, cheaply: the program Nagini
is given is woven from the source as it is, and weaving fails when the source leaves the
shape the proof is written for; every twin's change still occurs in the source; the
module-level bindings hold, and each planted binding change is found.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

import gcv.reference.closure
from gcv.proofs.code import nagini, suite, walks
from gcv.proofs.code.bindings import binding_problems
from gcv.proofs.code.weave import WeavingError, weave

ROOT = Path(__file__).resolve().parents[1]
PATH = gcv.reference.closure.__file__
SOURCE = Path(PATH).read_text()


def _function(program: str, name: str) -> ast.FunctionDef:
    module = ast.parse(program)
    return next(n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == name)


def _without_proof(function: ast.FunctionDef) -> list[str]:
    """The statements of a woven function less the proof's: what the source computes."""
    proof = {"Requires", "Ensures", "Invariant"}
    out = []
    for node in ast.walk(function):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            called = node.value.func
            if isinstance(called, ast.Name) and called.id in proof:
                continue
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Return | ast.If):
            text = ast.unparse(node).splitlines()[0]
            if "ghost_" not in text:
                out.append(text)
    return out


_SOURCE = {"Set[": "set[", "List[": "list[", "Dict[": "dict[", "as_tuple(": "tuple("}
_WOVEN = "|".join(re.escape(k) for k in _SOURCE)


@pytest.mark.parametrize("spec", walks.WALKS, ids=lambda s: s.function)
def test_the_woven_function_computes_what_the_source_does(spec: walks.Annotated) -> None:
    """Less the contract, the invariants and the ghosts, the woven function's statements
    are the source's (the stated builtins aside)."""
    woven = _function(weave(SOURCE, walks.PRELUDE, walks.WALKS), spec.function)
    as_source = [
        re.sub(
            _WOVEN,
            lambda m: _SOURCE[m[0]],
            re.sub(r"reversed_tuple\((\w+)\)", r"tuple(reversed(\1))", line),
        )
        for line in _without_proof(woven)
    ]
    assert as_source == _without_proof(_function(SOURCE, spec.function))


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        (
            "        head += 1\n        for support",
            "        head += 1\n        for _ in [0]:\n            pass\n        for support",
            "loop",
        ),
        (
            "def reverse_closure(dependents: Links, withdrawn: int)",
            "def reverse_closure(links: Links, withdrawn: int)",
            "parameters",
        ),
        (
            "                seen.add(dependent)\n",
            "                seen.add(dependent)\n                seen.add(dependent)\n",
            "anchor",
        ),
        (
            "    seen: set[int] = set()\n",
            "    seen: set[int] = set()\n    ghost_parent = 1\n",
            "ghost",
        ),
    ],
)
def test_weaving_fails_when_the_source_leaves_the_proofs_shape(
    old: str, new: str, error: str
) -> None:
    assert SOURCE.count(old) == 1, old
    with pytest.raises(WeavingError, match=error):
        weave(SOURCE.replace(old, new), walks.PRELUDE, walks.WALKS)


def test_every_proved_function_has_a_twin() -> None:
    assert {t.function for t in suite.TWINS} == {s.function for s in walks.WALKS}


@pytest.mark.parametrize("planted", [*suite.TWINS, *suite.BINDING_TWINS], ids=lambda t: t.what)
def test_every_twin_still_changes_the_source(planted: suite.Planted) -> None:
    changed = planted.applied(SOURCE)
    assert changed is not None and changed != SOURCE, planted.old
    if planted.function != "module":
        weave(changed, walks.PRELUDE, walks.WALKS)  # the change weaves: Nagini must judge it


def test_the_bindings_hold() -> None:
    """On every map of up to 2 records (gcv prove --code: 3)."""
    assert binding_problems(SOURCE, PATH, records=2) == []


@pytest.mark.parametrize("planted", suite.BINDING_TWINS, ids=lambda t: t.what)
def test_a_planted_binding_change_is_found(planted: suite.Planted) -> None:
    changed = planted.applied(SOURCE)
    assert changed is not None
    assert binding_problems(changed, PATH, records=2), planted.what


def test_the_proofs_environment_holds_the_dependency_group() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert tuple(pyproject["dependency-groups"]["proofs"]) == nagini.REQUIREMENTS


def test_the_proofs_environment_is_found_from_any_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(nagini.ENV_VARIABLE, raising=False)
    assert nagini.environment() == Path(".venv-proofs").absolute()
    monkeypatch.setenv(nagini.ENV_VARIABLE, "somewhere")
    assert nagini.environment() == Path("somewhere").absolute()


def test_a_missing_proofs_environment_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="gcv prove --code --setup"):
        nagini.verify("", "reverse_closure", tmp_path / "absent")
