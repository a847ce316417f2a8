"""Typed predicates that the conformance package's contracts forward to.

Each states, in one function mypy can check, what a contract's lambda claims.  The
ones that replay a conversation or re-parse a file run only under ``icontract.SLOW``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from reference.records import GOOD_STANDING, RecordId, Standing
from reference.replay import replay
from reference.trace import load_trace
from spec import core

__all__ = [
    "has_unique_ids",
    "is_one_outcome",
    "is_ordered_subset",
    "is_outside_good_standing",
    "is_rebuilt_by",
    "is_round_trip",
]


def is_outside_good_standing(
    members: Collection[RecordId], standing: Mapping[RecordId, Standing]
) -> bool:
    """Check that no member lies in S_t."""
    return all(standing[m] not in GOOD_STANDING for m in members)


def is_one_outcome(expect: Mapping[str, Any]) -> bool:
    """Check that an expectation states exactly one outcome: accepted, rejected, result or error."""
    return len(expect) == 1 and set(expect) <= {"accepted", "rejected", "result", "error"}


def is_ordered_subset(chosen: Sequence[Any], pool: Sequence[Any]) -> bool:
    """Check that ``chosen`` is ``pool`` with some members left out, in ``pool``'s order."""
    members = iter(pool)
    return all(any(item is other for other in members) for item in chosen)


def has_unique_ids(cases: Sequence[Any]) -> bool:
    """Check that no two cases share an id."""
    return len({c.id for c in cases}) == len(cases)


def is_round_trip(text: str, cases: Sequence[Any]) -> bool:
    """Check that the vector file ``text`` holds exactly ``cases`` (parsed back, as JSON)."""
    parsed: list[Any] = json.loads(text)["cases"]
    return parsed == [json.loads(json.dumps(c.to_json())) for c in cases]


def is_rebuilt_by(trace: Mapping[str, Any], d: core.DependencyMap) -> bool:
    """Check that replaying ``trace`` from D_0 ends in exactly the map ``d``."""
    result = replay(load_trace(json.dumps(trace)))
    if any(t.error is not None for t in result.turns):
        return False
    state = result.verifier.state
    rebuilt = core.DependencyMap(
        args=frozenset(state.records),
        att=frozenset((a, t) for a, ts in state.att.items() for t in ts),
        standing={r: s.value for r, s in state.standing.items()},
        dep=frozenset((r, s) for r, ss in state.dep.items() for s in ss),
    )
    return rebuilt == d
