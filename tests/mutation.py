"""Mutation testing of the engine with mutmut, contracts included.

    git clone . /tmp/gcv-mutation && cd /tmp/gcv-mutation
    python3 -m venv .venv && .venv/bin/pip install -q -e '.[test,mutation]'
    .venv/bin/python -m tests.mutation run --max-children 2
    .venv/bin/python -m tests.mutation results --all true

Run it in a clone: mutmut writes its mutants under ``mutants/`` next to the sources.
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

import os
import sys
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


def main(argv: list[str]) -> int:
    """Run mutmut's command line with contract-decorated functions mutated too."""
    allow_contract_decorators()
    use_mutation_profile()
    limit_memory()
    from mutmut.__main__ import cli

    return int(
        cli.main(args=argv, prog_name="python -m tests.mutation", standalone_mode=False) or 0
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
