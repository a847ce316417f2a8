"""The README stays true: its two set-up commands, CI running the test command, its example."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _first_block() -> list[str]:
    block = README.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_opens_with_the_two_set_up_commands() -> None:
    run_main, run_tests = _first_block()
    assert run_main.endswith("gcv replay") and "pip install -e ." in run_main
    assert "python -m pytest" in run_tests and ".[test]" in run_tests


def test_ci_runs_the_readmes_test_command_verbatim() -> None:
    _, run_tests = _first_block()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert run_tests in ci


def test_the_python_example_runs() -> None:
    example = re.search(r"```python\n(.*?)```", README, re.DOTALL)
    assert example is not None
    namespace: dict[str, object] = {}
    exec(compile(example.group(1), "README.md", "exec"), namespace)
    verifier = namespace["v"]
    assert verifier.affected_star("o1") == ("h1",)  # type: ignore[attr-defined]
