"""Mutation testing of the engine with mutmut, contracts included.

    git clone . /tmp/gcv-mutation && cd /tmp/gcv-mutation
    python3 -m venv .venv && .venv/bin/pip install -q -e '.[test,mutation]'
    .venv/bin/python -m tests.mutation run --max-children 2
    .venv/bin/python -m tests.mutation results --all true
    .venv/bin/python -m tests.mutation score             # per module, from mutants/*.meta

A module too large for one sitting is measured on a uniform sample of its mutants (the
names exist once a first ``run`` has generated them; the seed makes the sample repeatable):

    .venv/bin/python -m tests.mutation sample 'gcv.reference.epistemic.*' 100 --seed 0 \
        | xargs .venv/bin/python -m tests.mutation run --max-children 1

Run it in a clone: mutmut writes its mutants under ``mutants/`` next to the sources, and
the runner first copies ``spec/``, ``reference/`` and ``proofs/`` to ``gcv/spec``,
``gcv/reference`` and ``gcv/proofs`` (:func:`lay_out_as_installed`), the layout the wheel
installs: mutmut names a mutant's module by its file's path and switches the mutant on
only inside that module, so a mutant of ``reference/gcv/reference/verifier.py`` would belong to
``reference.verifier``, which no test imports (every test imports ``gcv.reference``).
The configuration (which modules, which tests) is ``[tool.mutmut]`` in pyproject.toml.

mutmut 3 leaves every decorated function alone, because a decorator may have side
effects when a function is copied.  Most of the engine's functions carry icontract
contracts, which have none: this wrapper lets mutmut mutate a function whose
decorators are all ``icontract.*`` (the contracts themselves are not mutated; every
copy, mutant or original, keeps them), and otherwise runs mutmut unchanged.  It
relies on mutmut's ``MutationVisitor._skip_node_and_children``, hence the exact pin
in the ``mutation`` extra.  mutmut forks every test run from this process, so the
Hypothesis profile registered here (:data:`MUTATION_PROFILE`) is the one the tests load.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import random
import shutil
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _is_contract(decorator: Any) -> bool:
    """``@icontract.require(...)``, ``@icontract.ensure(...)`` or ``@icontract.invariant(...)``."""
    import libcst as cst

    call = decorator.decorator
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value == "icontract"
    )


def allow_contract_decorators() -> None:
    """Let mutmut mutate functions whose only decorators are icontract contracts."""
    import libcst as cst
    from libcst.metadata import PositionProvider
    from mutmut.mutation import file_mutation

    visitor = file_mutation.MutationVisitor
    original = visitor._skip_node_and_children

    def skip(self: Any, node: Any) -> bool:
        if not (
            isinstance(node, cst.FunctionDef)
            and node.decorators
            and all(_is_contract(d) for d in node.decorators)
        ):
            return bool(original(self, node))
        # The checks mutmut makes before its decorator rule, for this function.
        position = self.get_metadata(PositionProvider, node, None)
        if position and position.start.line in self._ignored_node_lines:
            self.ignored_functions.add(node.name.value)
            return True
        return node.name.value in file_mutation.NEVER_MUTATE_FUNCTION_NAMES

    visitor._skip_node_and_children = skip


MUTATION_PROFILE: dict[str, Any] = {
    "max_examples": 20,
    "stateful_step_count": 30,
    "deadline": None,
    # A mutant is killed by the first failure: shrinking it would only cost time.
    "phases": ("explicit", "reuse", "generate"),
    "report_multiple_bugs": False,
}
"""The Hypothesis settings every mutant's tests run under, unless GCV_HYPOTHESIS_PROFILE
names another profile.  About a third of the ``fast`` profile's work and no shrinking,
so that a thousand mutants fit in about an hour on 2 cores; a mutant these settings let
live might still die under ``fast``, so the measured score is a lower bound for the
default test run."""


def use_mutation_profile() -> None:
    """Register the ``mutation`` profile; tests/conftest.py loads it in every forked run."""
    from hypothesis import Phase, settings

    profile = dict(MUTATION_PROFILE, phases=[Phase[name] for name in MUTATION_PROFILE["phases"]])
    settings.register_profile("mutation", **profile)
    os.environ.setdefault("GCV_HYPOTHESIS_PROFILE", "mutation")


MEMORY_LIMIT = 5 * 10**9
"""Bytes of address space for this process and every mutant's run forked from it.  A mutant
that makes a walk loop forever can fill memory faster than mutmut's timeout ends it; under
the limit its run fails with MemoryError, and the mutant counts as killed."""


def limit_memory() -> None:
    """Lower RLIMIT_AS to :data:`MEMORY_LIMIT` (never raise it)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft > MEMORY_LIMIT:
        ceiling = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT, hard)
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))


def _exit_codes(mutants: Path) -> dict[Path, dict[str, int | None]]:
    """Each mutated source file's mutants, by name, with mutmut's exit code (None: not run)."""
    return {
        meta.relative_to(mutants).with_suffix(""): json.loads(meta.read_text())["exit_code_by_key"]
        for meta in sorted(mutants.rglob("*.py.meta"))
    }


def sample(names: list[str], pattern: str, size: int, seed: int) -> list[str]:
    """``size`` of the ``names`` that match the glob ``pattern``, drawn uniformly without
    replacement by ``random.Random(seed)``, in name order (all of them if fewer match)."""
    matching = sorted(fnmatch.filter(names, pattern))
    return sorted(random.Random(seed).sample(matching, min(size, len(matching))))


# mutmut's exit codes (mutmut.stats.status_by_exit_code): a failing test kills; 33 and 5
# mean no test reaches the mutated function; 24, 36, 152, 255 and -24 are its timeouts.
KILLED = frozenset({1, 3})
SURVIVED = frozenset({0})
NO_TESTS = frozenset({5, 33})
TIMEOUT = frozenset({24, -24, 36, 152, 255})


@dataclass(frozen=True)
class Score:
    """One module's mutants: how many there are and what became of those that were run.

    A timeout counts as killed (the mutant made the tests loop), a mutant no test reaches
    as survived: the score is the share of the run mutants some test catches."""

    mutants: int
    killed: int
    timeout: int
    survived: int
    no_tests: int
    other: int

    @property
    def run(self) -> int:
        return self.killed + self.timeout + self.survived + self.no_tests + self.other

    @property
    def caught(self) -> int:
        return self.killed + self.timeout

    def interval(self) -> tuple[float, float]:
        """Wilson's 95% interval for the module's score, the run mutants taken as a uniform
        sample of all of them (as ``sample`` draws them; not a run stopped part-way, since
        mutmut runs the fastest mutants first); the point itself when all were run."""
        n, z = self.run, 1.96
        if n == 0:
            return (0.0, 1.0)
        share = self.caught / n
        if n == self.mutants:
            return (share, share)
        centre = (share + z * z / (2 * n)) / (1 + z * z / n)
        spread = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - spread), min(1.0, centre + spread))


def score(exit_codes: Mapping[str, int | None], only: frozenset[str] | None = None) -> Score:
    """Tally one module's mutants by what their run ended with: those named in ``only``
    (a sample) if given, the others not counted as run."""
    ran = Counter(
        code
        for name, code in exit_codes.items()
        if code is not None and (only is None or name in only)
    )

    def count(codes: frozenset[int]) -> int:
        return sum(ran[code] for code in codes)

    known = count(KILLED) + count(TIMEOUT) + count(SURVIVED) + count(NO_TESTS)
    return Score(
        mutants=len(exit_codes),
        killed=count(KILLED),
        timeout=count(TIMEOUT),
        survived=count(SURVIVED),
        no_tests=count(NO_TESTS),
        other=ran.total() - known,
    )


def report(mutants: Path, only: frozenset[str] | None = None) -> str:
    """The per-module table ``score`` prints (of the mutants in ``only``, if given), with a
    row for each package of several modules: a sample drawn over a package is uniform over
    the package, so its interval is the one to read."""
    modules = {
        path: codes for path, codes in _exit_codes(mutants).items() if score(codes, only).run
    }
    packages: dict[Path, dict[str, int | None]] = {}
    for path, codes in modules.items():
        if sum(other.parent == path.parent for other in modules) > 1:
            packages.setdefault(path.parent, {}).update(codes)
    lines = [
        "module                              mutants   run  killed  timeout  survived  "
        "no-tests  other  score (95%)"
    ]
    rows = [
        *((str(path), codes) for path, codes in modules.items()),
        *((f"{folder}/ (all)", codes) for folder, codes in packages.items()),
    ]
    for name, codes in rows:
        tally = score(codes, only)
        low, high = tally.interval()
        shown = f"{low:.0%}" if low == high else f"{low:.0%}-{high:.0%}"
        lines.append(
            f"{name:35} {tally.mutants:7} {tally.run:5} {tally.killed:7} {tally.timeout:8} "
            f"{tally.survived:9} {tally.no_tests:9} {tally.other:6}  {shown}"
        )
    return "\n".join(lines)


def _own_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutation")
    commands = parser.add_subparsers(dest="command", required=True)
    drawn = commands.add_parser("sample", help="print a uniform sample of the mutants' names")
    drawn.add_argument("pattern", help="a glob over mutant names, e.g. 'gcv.proofs.encode.*'")
    drawn.add_argument("size", type=int)
    drawn.add_argument("--seed", type=int, default=0)
    scored = commands.add_parser("score", help="each module's score, of the mutants run")
    scored.add_argument(
        "--names",
        type=argparse.FileType(),
        help="count only these mutants, one name a line (a sample): others run are left out",
    )
    arguments = parser.parse_args(argv)
    mutants = Path("mutants")
    if not mutants.is_dir():
        parser.error("no mutants/ here: run mutmut once (python -m tests.mutation run) first")
    if arguments.command == "score":
        only = None if arguments.names is None else frozenset(arguments.names.read().split())
        print(report(mutants, only))
        return 0
    names = [name for codes in _exit_codes(mutants).values() for name in codes]
    print("\n".join(sample(names, arguments.pattern, arguments.size, arguments.seed)))
    return 0


LAYERS = ("spec", "reference", "proofs")
"""The top-level folders setup.py installs as ``gcv.<folder>``."""


def installed_path(source: str) -> str:
    """Where the checkout's file ``source`` lies once installed (``reference/x.py`` is
    ``gcv/reference/x.py``); a file outside the layers is where it is."""
    layer = source.split("/", 1)[0]
    inside = layer in LAYERS and source.startswith(f"{layer}/gcv/")
    return source.removeprefix(f"{layer}/") if inside else source


def lay_out_as_installed(root: Path) -> None:
    """Copy each layer's folder under ``root`` (those it has) to ``root/gcv/<layer>``,
    replacing an earlier copy, so that mutmut's paths name the modules the tests import."""
    for layer in (layer for layer in LAYERS if (root / layer).is_dir()):
        copy = root / "gcv" / layer
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(
            root / layer / "gcv" / layer, copy, ignore=shutil.ignore_patterns("__pycache__")
        )


def at_least_one(text: str) -> int:
    """A count given on the command line (``--workers``, ``--batch``): a whole number of at
    least one."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count (1 or more)")
    return int(text)


def _campaign(argv: list[str]) -> int:
    """``campaign``: mutmut's ``run`` with the mutants on a Dask cluster."""
    # mutmut runs the stats and the clean tests in this process, and icontract reads the
    # switch once, on import (as tests/conftest.py sets it, before gcv imports icontract).
    os.environ.setdefault("ICONTRACT_SLOW", "1")
    parser = argparse.ArgumentParser(
        prog="python -m tests.mutation campaign",
        description="mutmut's run, each mutant's tests a task on a Dask cluster "
        "(tests/mutation_campaign.py). Needs the campaign and mutation extras.",
    )
    parser.add_argument("names", nargs="*", help="mutants or globs (default: every mutant)")
    parser.add_argument("--workers", type=at_least_one, metavar="K", help="mutants at once here")
    parser.add_argument("--cluster", metavar="ADDRESS", help="the Dask scheduler at ADDRESS")
    parser.add_argument("--batch", type=at_least_one, default=16, help="mutants a task runs")
    arguments = parser.parse_args(argv)
    try:
        from tests.mutation_campaign import run_campaign
    except ModuleNotFoundError as missing:
        # gcv only now: mutmut's stats run must import it first, from its mutants' copy.
        from gcv.hints import extra_missing, install_hint

        extra = extra_missing(missing) or ("mutation" if missing.name == "mutmut" else None)
        if extra is None:
            raise
        parser.exit(2, f"a campaign needs {missing.name}: {install_hint(extra)}\n")
    lay_out_as_installed(Path.cwd())
    allow_contract_decorators()
    return run_campaign(arguments.names, arguments.workers, arguments.cluster, arguments.batch)


def main(argv: list[str]) -> int:
    """Run mutmut's command line with contract-decorated functions mutated too."""
    if argv[:1] in (["sample"], ["score"]):
        return _own_command(argv)
    use_mutation_profile()
    limit_memory()
    if argv[:1] == ["batch"]:  # a campaign's task (tests/mutation_campaign.py)
        from tests.mutation_campaign import Mutant, run_mutants

        batch = [Mutant(name, tuple(tests), limit) for name, tests, limit in json.load(sys.stdin)]
        print(json.dumps(run_mutants(batch)))
        return 0
    if argv[:1] == ["campaign"]:
        return _campaign(argv[1:])
    lay_out_as_installed(Path.cwd())
    allow_contract_decorators()
    from mutmut.__main__ import cli

    return int(
        cli.main(args=argv, prog_name="python -m tests.mutation", standalone_mode=False) or 0
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
