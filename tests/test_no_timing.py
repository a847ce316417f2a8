"""Tests never measure the machine: no ``time.sleep`` to wait for another process, no
assertion on elapsed time, no timeout on a subprocess or a thread that a loaded machine can
reach (pytest-timeout, far above the slowest test, is the one bound).  Benchmarks live in
``tests/benchmarks/`` and print figures; the scripts beside the tests that report how long
a run took (mutation, table mutants, CrossHair, the refinement check) print, never assert.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CLOCKS = {"monotonic", "perf_counter", "time", "process_time", "thread_time"}
WAITS = {"run", "check_call", "check_output", "call", "wait", "communicate", "join"}
# Fields that hold a measured duration (a prover's or a run's ``seconds``): ordering one
# against a bound in an assertion is a timed test, whatever produced the figure.
DURATIONS = {"seconds", "elapsed", "duration", "wall_seconds", "cpu_seconds"}
ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)

# Each justified exception, with its reason: (file, the function that sleeps) -> why.
_FAKE = "the fake plays a slow or hung implementation: the sleep is the behaviour under test"
_POLL = "polls for a file the fake or the runner writes (pytest-timeout bounds it)"
ALLOWED = {
    ("conformance/fakes/fake_impl.py", "_hang"): _FAKE,
    ("conformance/fakes/fake_impl.py", "_answer"): _FAKE,
    ("conformance/test_runner_robustness.py", "_all_gone"): _POLL,
    ("conformance/test_runner_robustness.py", "_wait_until_hung"): _POLL,
    ("conformance/test_runner_robustness.py", "_wait_for_reports"): _POLL,
}


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(TESTS.rglob("*.py")):
        relative = path.relative_to(TESTS).as_posix()
        if not relative.startswith("benchmarks/"):
            yield relative, ast.parse(path.read_text(encoding="utf-8"), relative)


def _name(call: ast.Call) -> str:
    """``time.sleep`` for ``time.sleep(...)``, ``sleep`` for a bare ``sleep(...)``."""
    function = call.func
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
        return f"{function.value.id}.{function.attr}"
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else ""


def _is_clock(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _name(node).split(".")[-1] in CLOCKS


def _orders_a_duration(test: ast.expr) -> bool:
    return any(
        isinstance(compare, ast.Compare)
        and any(isinstance(op, ORDERINGS) for op in compare.ops)
        and any(
            (isinstance(n, ast.Attribute) and n.attr in DURATIONS)
            or (isinstance(n, ast.Name) and n.id in DURATIONS)
            for side in (compare.left, *compare.comparators)
            for n in ast.walk(side)
        )
        for compare in ast.walk(test)
    )


def _findings(relative: str, tree: ast.Module) -> Iterator[str]:
    # Names bound to a clock reading anywhere in the file: an assertion reading one of them
    # (or a clock itself) asserts on elapsed time.
    clock_names = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _is_clock(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    # The innermost function around each call (ast.walk visits outer functions first).
    owner = {
        id(call): function.name
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for call in ast.walk(function)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _name(node)
            allowed = (relative, owner.get(id(node), "")) in ALLOWED
            if name in {"time.sleep", "sleep"} and not allowed:
                yield f"{relative}:{node.lineno}: sleep"
            elif name.split(".")[-1] in WAITS and any(k.arg == "timeout" for k in node.keywords):
                yield f"{relative}:{node.lineno}: a timeout on {name}"
        if isinstance(node, ast.Assert):
            read = list(ast.walk(node.test))
            if (
                any(_is_clock(n) for n in read)
                or any(isinstance(n, ast.Name) and n.id in clock_names for n in read)
                or _orders_a_duration(node.test)
            ):
                yield f"{relative}:{node.lineno}: an assertion on elapsed time"


def test_no_test_measures_the_machine() -> None:
    found = [finding for relative, tree in _sources() for finding in _findings(relative, tree)]
    assert found == []


@pytest.mark.parametrize(
    ("source", "finding"),
    [
        ("import time\ntime.sleep(0.3)\n", "sleep"),
        ("started = time.monotonic()\nassert time.monotonic() - started < 5\n", "elapsed"),
        ("t = perf_counter()\nrun()\nassert perf_counter() - t < 1\n", "elapsed"),
        ("result = prove()\nassert result.seconds < 20\n", "elapsed"),
        ("assert 0 < report.elapsed\n", "elapsed"),
        ("subprocess.run(['git'], timeout=60)\n", "a timeout on subprocess.run"),
        ("process.wait(timeout=20)\n", "a timeout on process.wait"),
    ],
)
def test_the_check_finds_each_kind(source: str, finding: str) -> None:
    found = list(_findings("example.py", ast.parse(source)))
    assert len(found) == 1 and finding in found[0]


def test_an_allowed_function_allows_only_its_own_sleeps() -> None:
    source = "def _hang():\n    time.sleep(1)\ndef other():\n    time.sleep(1)\n"
    found = list(_findings("conformance/fakes/fake_impl.py", ast.parse(source)))
    assert found == ["conformance/fakes/fake_impl.py:4: sleep"]


def test_the_check_passes_polling_with_a_deadline() -> None:
    # A deadline guards a loop; it is not an assertion that the machine was fast.
    source = "deadline = time.monotonic() + 120\nwhile not ready():\n    wait_for_event()\n"
    assert list(_findings("example.py", ast.parse(source))) == []
