"""Examples per second of the state machines under a Hypothesis profile.

    .venv/bin/python -m tests.benchmarks.state_machine_rate [EXAMPLES] [--epistemic]
    GCV_HYPOTHESIS_PROFILE=deep .venv/bin/python -m tests.benchmarks.state_machine_rate 20

Runs ``DependencyMapMachine`` (or, with ``--epistemic``, ``EpistemicMachine``) with the
profile's step count and EXAMPLES examples (by default the count the test runs under the
profile, :func:`tests.machines.machine_settings`), with contracts at full
strength as in the tests, and prints examples, steps, the largest map (records, or worlds
of W) and the rate.
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("ICONTRACT_SLOW", "1")

from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

import tests.conftest  # noqa: F401  (loads the profile)
from tests.machines import machine_settings
from tests.test_machine_dependency_map import DependencyMapMachine
from tests.test_machine_epistemic import EpistemicMachine


def main(argv: list[str]) -> int:
    """Run the machine and print the figures."""
    epistemic = "--epistemic" in argv
    numbers = [a for a in argv if a != "--epistemic"]
    base: type[RuleBasedStateMachine] = EpistemicMachine if epistemic else DependencyMapMachine
    chosen = machine_settings()
    examples = int(numbers[0]) if numbers else chosen.max_examples
    runs: list[tuple[int, int]] = []

    class MeasuredMap(DependencyMapMachine):
        def teardown(self) -> None:
            runs.append((self.steps, len(self.model.records)))

    class MeasuredModel(EpistemicMachine):
        def teardown(self) -> None:
            runs.append((self.steps, self.largest))

    machine = MeasuredModel if epistemic else MeasuredMap
    start = time.perf_counter()
    run_state_machine_as_test(
        machine, settings=settings(chosen, max_examples=examples, database=None)
    )
    elapsed = time.perf_counter() - start
    steps = sum(s for s, _ in runs)
    print(
        f"machine={base.__name__} "
        f"profile={os.environ.get('GCV_HYPOTHESIS_PROFILE', 'fast')} "
        f"stateful_step_count={chosen.stateful_step_count} examples={len(runs)} "
        f"steps={steps} largest={'worlds' if epistemic else 'records'}:"
        f"{max(r for _, r in runs)} "
        f"time={elapsed:.1f}s examples/s={len(runs) / elapsed:.2f} steps/s={steps / elapsed:.0f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
