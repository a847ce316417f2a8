"""What the model-based state machines share: the starting vocabulary, the profile's
settings with each machine's cap, and the broken-engine hunt's settings.

``tests/test_machine_dependency_map.py`` runs :class:`DependencyMapMachine` (the Verifier
against Table 3 and Section 2's queries) and ``tests/test_machine_epistemic.py`` runs
:class:`EpistemicMachine` (M_t against the brute-force semantics of ``spec/gcv/spec/epistemic.py``);
``tests/broken_engines.py`` keeps the engines with planted bugs each machine must catch.
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings

__all__ = ["AGENTS", "ATOMS", "DEEP_EXAMPLES", "HUNT", "machine_settings"]

AGENTS = ("a", "b", "c")
ATOMS = ("p",)

DEEP_EXAMPLES = 250
"""Each machine's examples at most, whatever the profile asks: the ``deep`` profile's 3,000
would take the dependency-map machine alone about 55 minutes on 2 cores, while these keep
both machines together near 10 (docs/verification.md has the rates).  The ``fast`` profile
asks for fewer, so the README's test command runs exactly what it did."""


def machine_settings() -> settings:
    """The active profile (``fast``, or ``deep`` via GCV_HYPOTHESIS_PROFILE), with the
    machine's examples capped at :data:`DEEP_EXAMPLES`."""
    profile = settings.default
    assert profile is not None, "tests/conftest.py loads a profile"
    return settings(profile, max_examples=min(profile.max_examples, DEEP_EXAMPLES))


HUNT = settings(
    max_examples=300,
    stateful_step_count=40,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: a find is enough
    suppress_health_check=list(HealthCheck),
    database=None,
)
"""The broken-engine hunts: a find is enough, however long the search takes."""
