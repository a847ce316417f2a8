"""The layers import one way, and nothing imports in a circle (docs/layout.md).

``gcv.spec`` imports nothing else of the package; the engine ``gcv.reference`` imports
only itself and does no I/O; ``gcv.proofs`` reads the spec and the engine's operation
table.  The tools directly under ``gcv`` join them.  Every import counts, including
those under ``TYPE_CHECKING`` and those inside functions: a cycle through either still
ties the modules together for a reader.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from fnmatch import fnmatch
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gcv"
# The folders setup.py installs as gcv.spec, gcv.reference and gcv.proofs (package_dir).
LAYER_FOLDERS = {f"gcv.{f}": ROOT / f / "gcv" / f for f in ("spec", "reference", "proofs")}

# What each layer may import of the package, besides itself.
ALLOWED: Mapping[str, frozenset[str]] = {
    "gcv.spec": frozenset(),
    "gcv.reference": frozenset(),
    "gcv.proofs": frozenset({"gcv.spec", "gcv.reference", "gcv.progress", "gcv.options"}),
}
# Leaf utilities a layer may use: they import nothing of the package themselves.
LEAVES = frozenset({"gcv.progress", "gcv.options"})
# Standard-library modules that read or write the outside world: not in the engine.
INPUT_OUTPUT = frozenset(
    {"io", "os", "pathlib", "sqlite3", "subprocess", "socket", "shutil", "tempfile", "urllib"}
    | {"http", "logging", "sys", "select", "signal"}
)
# What makes a command line: not in the spec, which holds definitions (gcv/audits/ runs them).
COMMAND_LINE = frozenset({"argparse", "tqdm", "gcv.progress", "gcv.cli"})
# The runner third parties use reads the protocol, the vectors and the comparison rules:
# it finds the vector files and schemas in gcv.spec's folder, and loads no spec module.
NOT_FOR_THE_RUNNER = (
    "gcv.spec.",
    "gcv.proofs",
    "gcv.conformance.cases",
    "gcv.conformance.generate",
)


def _modules() -> dict[str, Path]:
    """Every module of the package, by name, with its file: the layers' from their folders."""
    found = {}
    for prefix, folder in {"gcv": PACKAGE, **LAYER_FOLDERS}.items():
        for path in folder.rglob("*.py"):
            parts = (*prefix.split("."), *path.relative_to(folder).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imported(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def import_graph() -> nx.DiGraph:
    """Module -> module it imports, for every module of the package."""
    modules = _modules()
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name, tree=ast.parse(path.read_text(encoding="utf-8")))
    for name in modules:
        for target in _imported(graph.nodes[name]["tree"]):
            if target in modules and target != name:
                graph.add_edge(name, target)
    return graph


def _layer(module: str) -> str | None:
    return next((x for x in ALLOWED if module == x or module.startswith(x + ".")), None)


def back_edges(graph: nx.DiGraph) -> list[str]:
    """The imports a layer may not make."""
    wrong = []
    for source, target in graph.edges:
        layer = _layer(source)
        if layer is None or _layer(target) == layer:
            continue
        if not any(target == a or target.startswith(a + ".") for a in ALLOWED[layer]):
            wrong.append(f"{source} imports {target}")
    return wrong


@pytest.mark.slow
def test_each_layer_imports_only_what_is_below_it() -> None:
    assert back_edges(import_graph()) == []


@pytest.mark.slow
def test_no_module_imports_in_a_circle() -> None:
    cycles = [" -> ".join(c) for c in nx.simple_cycles(import_graph())]
    assert cycles == []


@pytest.mark.slow
def test_the_leaves_import_nothing_of_the_package() -> None:
    graph = import_graph()
    assert [leaf for leaf in LEAVES if list(graph.successors(leaf))] == []


@pytest.mark.slow
def test_the_engine_does_no_input_or_output() -> None:
    graph = import_graph()
    found = []
    for name in graph.nodes:
        if _layer(name) != "gcv.reference":
            continue
        tree = graph.nodes[name]["tree"]
        found += [f"{name} imports {m}" for m in _imported(tree) if m.split(".")[0] in INPUT_OUTPUT]
        found += [
            f"{name} calls {node.func.id}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"open", "print", "input"}
        ]
    assert found == []


def test_the_checks_see_a_planted_back_edge_and_cycle() -> None:
    graph = nx.DiGraph([("gcv.reference.closure", "gcv.spec.core"), ("gcv.cli", "gcv.store")])
    graph.add_edge("gcv.store", "gcv.cli")
    assert back_edges(graph) == ["gcv.reference.closure imports gcv.spec.core"]
    assert list(nx.simple_cycles(graph))


def _loaded_for_the_runner(*modules: str) -> list[str]:
    """The modules a fresh interpreter loads for ``modules`` that the runner may not load."""
    loaded = subprocess.run(
        [sys.executable, "-c", f"import sys, {', '.join(modules)}; print(*sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return sorted(m for m in loaded if m.startswith(NOT_FOR_THE_RUNNER))


@pytest.mark.slow
@pytest.mark.parametrize("module", ["gcv.conformance.runner", "gcv.conformance.server"])
def test_the_runner_and_the_server_load_neither_the_spec_nor_the_generator(module: str) -> None:
    assert _loaded_for_the_runner(module) == []


@pytest.mark.slow
def test_the_runner_check_sees_a_planted_spec_import() -> None:
    assert "gcv.spec.core" in _loaded_for_the_runner("gcv.conformance.runner", "gcv.spec.core")


def test_importing_a_layer_loads_neither_the_engine_nor_the_tools() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, gcv.spec.core; print(*sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert sorted(m for m in loaded if m.startswith("gcv")) == ["gcv", "gcv.spec", "gcv.spec.core"]


def test_the_package_offers_the_engines_whole_api_and_the_tools() -> None:
    import gcv
    import gcv.reference
    from gcv.reference import operations

    assert sorted(gcv.reference.__all__) == sorted(gcv._ENGINE)
    assert set(operations.__all__) <= set(gcv.reference.__all__), "every operation is offered"
    assert all(getattr(gcv, name) is not None for name in gcv.__all__)
    assert all(getattr(gcv.reference, name) is not None for name in gcv.reference.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = gcv.nothing  # type: ignore[attr-defined]


def _mutmut_module(path: str) -> str:
    """The module name mutmut gives the mutants of the file at ``path`` (the path's parts)."""
    return path.removesuffix(".py").replace("/", ".")


def test_the_mutation_selection_names_the_modules_the_tests_import() -> None:
    """mutmut switches a mutant on only inside the module its path names; a file selected as
    reference/gcv/reference/verifier.py makes mutants of reference.verifier, which no test imports,
    and the run finds no test for any of them.  The runner lays the layers out as installed
    (tests/mutation.py), and the selection names them there."""
    import tomllib
    from glob import glob

    import gcv.reference.verifier
    from tests.mutation import installed_path

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    sources = glob("reference/gcv/reference/**/*.py", root_dir=ROOT, recursive=True)
    sources += glob("proofs/gcv/proofs/**/*.py", root_dir=ROOT, recursive=True)
    files = [
        installed_path(f)
        for f in sources
        if any(fnmatch(installed_path(f), pattern) for pattern in config["only_mutate"])
    ]
    assert "gcv/reference/verifier.py" in files, files
    assert _mutmut_module("gcv/reference/verifier.py") == gcv.reference.verifier.__name__
    for file in files:
        assert _mutmut_module(file).startswith("gcv."), file
        assert any(file.startswith(source) for source in config["source_paths"]), file


# -- one namespace, without links ---------------------------------------------------------


def test_the_tree_holds_no_link_and_gcv_no_copy_of_a_layer() -> None:
    """A checkout without symlink support gets the same tree; and a layer copied under gcv/
    (python -m tests.mutation does, in its clone) would shadow the folder setup.py maps."""
    skipped = {".git", ".venv", ".venv-lowest", ".venv-proofs", "build", "dist", "mutants"} | {
        "__pycache__"
    }
    links = []
    for folder, folders, files in os.walk(ROOT):
        folders[:] = [f for f in folders if f not in skipped and not f.endswith("_cache")]
        links += [os.path.join(folder, f) for f in folders + files if Path(folder, f).is_symlink()]
    assert links == []
    assert [layer for layer in LAYER_FOLDERS if (ROOT / layer.replace(".", "/")).exists()] == []


@pytest.mark.parametrize("layer", ["spec", "reference", "proofs"])
def test_a_layer_imported_by_its_folders_name_fails_naming_its_package(layer: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import gcv.{layer}; import {layer}.gcv.{layer}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done
    assert done.stderr.splitlines()[-1] == (
        f"ImportError: import gcv.{layer}, not {layer}.gcv.{layer}: "
        f"{layer}/ is installed as gcv.{layer}"
    )


# -- each layer holds only its own ----------------------------------------------------------


@pytest.mark.slow
def test_every_engine_error_is_one_the_engine_raises() -> None:
    """reference/gcv/reference/errors.py holds the engine's errors only: each is imported by another
    engine module.  An error only the tools meet (a file, a store, an endpoint) is in gcv.errors."""
    import gcv.reference.errors

    graph = import_graph()
    imported = {
        alias.name
        for module in graph.nodes
        if _layer(module) == "gcv.reference" and module != "gcv.reference.errors"
        for node in ast.walk(graph.nodes[module]["tree"])
        if isinstance(node, ast.ImportFrom) and node.module == "gcv.reference.errors"
        for alias in node.names
    }
    assert sorted(set(gcv.reference.errors.__all__) - imported) == []


@pytest.mark.slow
def test_the_spec_holds_no_command_line_and_imports_no_tool() -> None:
    """gcv.spec imports nothing of the package but itself (ALLOWED), and no argument parser
    or progress bar: the audits' command lines are gcv/audits/, the claims registry
    gcv/claims.py."""
    graph = import_graph()
    found = [
        f"{name} imports {target}"
        for name in graph.nodes
        if _layer(name) == "gcv.spec"
        for target in _imported(graph.nodes[name]["tree"])
        if target.split(".")[0] in COMMAND_LINE
        or target in COMMAND_LINE
        or (target.startswith("gcv.") and _layer(target) != "gcv.spec")
    ]
    assert found == []


# -- one operation, one registration -------------------------------------------------------------


def _named(tree: ast.AST) -> tuple[set[str], set[str]]:
    """What a module's code names: its identifiers (names, attributes, what it imports) and
    its string constants that are not docstrings (an operation's name, "revise")."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    identifiers: set[str] = set(_imported(tree))
    strings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            identifiers.add(node.id)
        elif isinstance(node, ast.Attribute):
            identifiers.add(node.attr)
        elif isinstance(node, ast.alias):
            identifiers.update({node.name, node.asname or node.name})
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            strings.add(node.value)
    return identifiers, strings


def registrations(modules: Mapping[str, ast.AST]) -> dict[str, set[str]]:
    """Operation -> the engine modules besides its home that name it in code: its value's
    class, its rule, its home module, or its name as a string (docstrings, which only tell
    of it, aside)."""
    from gcv.reference.operations import ORDER

    found: dict[str, set[str]] = {}
    for rule in ORDER:
        home = rule.value.__module__
        identifiers = {rule.value.__name__, home, home.rpartition(".")[2].upper()}
        found[rule.name] = set()
        for module, tree in modules.items():
            named, strings = _named(tree)
            if module != home and (identifiers & named or rule.name in strings):
                found[rule.name].add(module)
    return found


def _engine_trees() -> dict[str, ast.AST]:
    return {
        name: ast.parse(path.read_text(encoding="utf-8"))
        for name, path in _modules().items()
        if name == "gcv.reference" or name.startswith("gcv.reference.")
    }


def test_each_operation_is_registered_once_in_the_order() -> None:
    """An operation lives in its home (reference/gcv/reference/rules/<operation>.py); the one other
    engine module that names it is the order of a turn, gcv.reference.operations.  No dispatcher,
    table or match elsewhere in the engine lists the operations."""
    found = registrations(_engine_trees())
    assert found == {name: {"gcv.reference.operations"} for name in found}, found


def test_a_dispatcher_naming_an_operation_is_found() -> None:
    """The check above fails on an engine module that matches over operation kinds."""
    trees = _engine_trees()
    trees["gcv.reference.dispatch"] = ast.parse(
        "def go(op):\n    match op:\n        case Revise():\n            return 1\n"
    )
    trees["gcv.reference.by_name"] = ast.parse("NAMES = ('observe',)\n")
    found = registrations(trees)
    assert "gcv.reference.dispatch" in found["revise"]
    assert "gcv.reference.by_name" in found["observe"]
