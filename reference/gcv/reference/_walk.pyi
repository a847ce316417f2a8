# The compiled walks of _walk.c; gcv.reference.closure.Queries states what each answers.
from collections.abc import Sequence

from gcv.reference.closure import Grounding, Links

def walk(supports: Links, good: Sequence[int], name: Sequence[str], start: int) -> Grounding: ...
def affected_star(dependents: Links, name: Sequence[str], withdrawn: int) -> tuple[str, ...]: ...
def affected_star_active(
    dependents: Links, good: Sequence[int], name: Sequence[str], withdrawn: int
) -> tuple[str, ...]: ...
