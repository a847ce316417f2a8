"""No ``assert`` is used as a check where ``python -O`` would remove it.

An assert disappears under ``python -O`` (and ``PYTHONOPTIMIZE``), so a check written as
one is a check some users never run.  The scan reads every module of ``gcv/``,
``reference/`` and ``spec/`` and accepts two forms only:

- narrowing for the type checker: ``assert isinstance(x, T)`` or ``assert x is not None``
  (and conjunctions of these), stating what the code's construction already guarantees;
- in ``spec/`` only, a definition's precondition or a statement the paper proves, written
  as STYLE.md asks: directly under a ``# Verify ...`` comment (a block of asserts may share
  one).  The spec is the oracle: a failed assert there means "outside the definition", and
  the verdicts the console scripts print come from ``reference/``, which has none.

Anything else is a check, and raises a typed error instead.  The scan is shown to fail
on a planted assert of each kind it refuses.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("gcv", "reference", "spec")


def _narrows(test: ast.expr) -> bool:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return all(_narrows(value) for value in test.values)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        return test.func.id == "isinstance"
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


def _under_verify_comment(lines: list[str], line: int) -> bool:
    """Whether the assert on ``line`` (1-based) opens or continues a ``# Verify`` block."""
    above = line - 2
    while above >= 0 and lines[above].strip().startswith("assert "):
        above -= 1
    return above >= 0 and lines[above].strip().startswith("# Verify")


def refused_asserts(source: str, in_spec: bool) -> list[int]:
    """The lines of the asserts of ``source`` used as checks."""
    lines = source.splitlines()
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assert)
        and not _narrows(node.test)
        and not (in_spec and _under_verify_comment(lines, node.lineno))
    ]


def test_no_assert_is_used_as_a_check() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for folder in SCANNED
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line in refused_asserts(path.read_text("utf-8"), folder == "spec")
    ]
    assert found == [], "raise a typed error instead: " + ", ".join(found)


@pytest.mark.parametrize(
    ("source", "in_spec"),
    [
        ("def f(x):\n    assert x > 0\n", False),
        ("def f(x):\n    assert x is None, 'misuse'\n", False),
        ("def f(x):\n    # Verify that x is positive\n    assert x > 0\n", False),
        ("def f(x):\n    y = x\n    assert x > 0\n", True),
    ],
)
def test_the_scan_refuses_a_planted_check(source: str, in_spec: bool) -> None:
    assert refused_asserts(source, in_spec) != []


@pytest.mark.parametrize(
    ("source", "in_spec"),
    [
        ("def f(x):\n    assert isinstance(x, int) and x is not None\n", False),
        ("def f(x):\n    # Verify that x is positive\n    assert x > 0\n    assert x < 9\n", True),
    ],
)
def test_the_scan_accepts_narrowing_and_the_specs_preconditions(source: str, in_spec: bool) -> None:
    assert refused_asserts(source, in_spec) == []
