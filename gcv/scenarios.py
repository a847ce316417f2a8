"""The built-in scenario traces (``spec/gcv/spec/scenarios``), listed and loaded by name."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

import icontract

from gcv.errors import MalformedTrace, UnreadableFile
from gcv.jsoninput import read_file
from gcv.reference.errors import MalformedInput
from gcv.trace import MAX_TRACE_BYTES, Trace, load_trace

__all__ = ["builtin_scenarios", "load_scenario", "read_trace", "scenario_text", "trace_text"]


def builtin_scenarios() -> list[str]:
    """The names of the scenario traces shipped in ``spec/gcv/spec/scenarios``, sorted."""
    folder = resources.files("gcv.spec").joinpath("scenarios")
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
    return resources.files("gcv.spec").joinpath("scenarios", f"{name}.json").read_bytes()


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
    UnreadableFile
        Neither a built-in scenario nor a file (the message lists the scenarios), a
        directory, or a file that cannot be read.
    MalformedTrace
        The file is larger than a trace may be.
    """
    if name_or_path in builtin_scenarios():
        return scenario_text(name_or_path)
    if not Path(name_or_path).exists():
        known = ", ".join(builtin_scenarios())
        raise UnreadableFile(f"{name_or_path}: no such file or built-in scenario ({known})")
    return read_file(name_or_path, MAX_TRACE_BYTES, MalformedTrace, "a trace")


def read_trace(name_or_path: str) -> Trace:
    """The trace a ``TRACE`` argument names: a built-in scenario, else a trace file."""
    if name_or_path in builtin_scenarios():
        return load_scenario(name_or_path)
    return load_trace(trace_text(name_or_path))
