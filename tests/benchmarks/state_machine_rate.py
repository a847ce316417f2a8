"""Examples per second of the dependency-map state machine under a Hypothesis profile.

    .venv/bin/python -m tests.benchmarks.state_machine_rate [EXAMPLES]
    GCV_HYPOTHESIS_PROFILE=deep .venv/bin/python -m tests.benchmarks.state_machine_rate 20

Runs ``DependencyMapMachine`` with the profile's step count and EXAMPLES examples (the
profile's own count by default), with contracts at full strength as in the tests, and
prints examples, steps, map sizes and the rate.
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("ICONTRACT_SLOW", "1")

from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

import tests.conftest  # noqa: F401  (loads the profile)
from tests.test_state_machine import DependencyMapMachine


def main(argv: list[str]) -> int:
    """Run the machine and print the figures."""
    examples = int(argv[0]) if argv else settings.default.max_examples
    runs: list[tuple[int, int]] = []

    class Measured(DependencyMapMachine):
        def teardown(self) -> None:
            runs.append((self.steps, len(self.model.records)))

    start = time.perf_counter()
    run_state_machine_as_test(Measured, settings=settings(max_examples=examples, database=None))
    elapsed = time.perf_counter() - start
    steps = sum(s for s, _ in runs)
    print(
        f"profile={os.environ.get('GCV_HYPOTHESIS_PROFILE', 'fast')} "
        f"stateful_step_count={settings.default.stateful_step_count} examples={len(runs)} "
        f"steps={steps} max_records={max(r for _, r in runs)} "
        f"time={elapsed:.1f}s examples/s={len(runs) / elapsed:.2f} steps/s={steps / elapsed:.0f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
