"""The built-in scenario traces (``spec/scenarios``), listed and loaded by name."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

import icontract

from reference.errors import MalformedInput
from reference.trace import Trace, load_trace

__all__ = ["builtin_scenarios", "load_scenario", "scenario_text", "trace_text"]


def builtin_scenarios() -> list[str]:
    """The names of the scenario traces shipped in ``spec/scenarios``, sorted."""
    folder = resources.files("spec").joinpath("scenarios")
    return sorted(
        p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json")
    )


def scenario_text(name: str) -> bytes:
    """The ``gcv-trace/1`` document of the built-in scenario ``name``, as stored.

    Raises
    ------
    MalformedInput
        ``name`` is not a built-in scenario (the message lists them).
    """
    known = builtin_scenarios()
    if name not in known:
        raise MalformedInput(
            f"{name!r} is not a built-in scenario ({', '.join(known)})", field="scenario"
        )
    return resources.files("spec").joinpath("scenarios", f"{name}.json").read_bytes()


@icontract.ensure(lambda name, result: result.name == name, "a scenario is named for its file")
@cache
def load_scenario(name: str) -> Trace:
    """The built-in scenario ``name``, parsed and validated (once per process: traces are frozen).

    >>> trace = load_scenario("phase2-debugging")
    >>> len(trace.turns), list(trace.agents)
    (13, ['a', 'b', 'c'])
    """
    return load_trace(scenario_text(name))


def trace_text(name_or_path: str) -> bytes:
    """The document of a built-in scenario named ``name_or_path``, else of the file at that path.

    Raises
    ------
    FileNotFoundError
        Neither a built-in scenario nor a file (the message lists the scenarios), or a
        directory.
    """
    if name_or_path in builtin_scenarios():
        return scenario_text(name_or_path)
    path = Path(name_or_path)
    if path.is_dir():
        raise FileNotFoundError(f"{name_or_path} is a directory, not a trace file")
    if not path.is_file():
        known = ", ".join(builtin_scenarios())
        raise FileNotFoundError(f"{name_or_path}: no such file or built-in scenario ({known})")
    return path.read_bytes()
