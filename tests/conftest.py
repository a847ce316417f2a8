"""Shared test settings: contracts at full strength and the Hypothesis profiles.

``GCV_HYPOTHESIS_PROFILE=deep`` selects the deep profile (many more examples
and longer operation sequences); the default ``fast`` profile keeps the
README's test command within minutes.
"""

import os

# The costly postconditions (naive closure recomputation) run in the tests;
# icontract reads this when it is first imported.
os.environ.setdefault("ICONTRACT_SLOW", "1")

from hypothesis import settings

settings.register_profile("fast", max_examples=60, deadline=None, print_blob=True)
settings.register_profile(
    "deep", max_examples=3000, deadline=None, stateful_step_count=200, print_blob=True
)
settings.load_profile(os.environ.get("GCV_HYPOTHESIS_PROFILE", "fast"))
