"""The dependency map's read-only views are made once; a copy must get views of its own."""

from __future__ import annotations

import copy
import pickle

import pytest

from gcv import Hypothesize, Observe, Revise, Standing, Turn, Verifier


def _small() -> Verifier:
    v = Verifier(["a", "b"])
    v.apply_turn(
        Turn("a", (Observe("o1", "401s"), Hypothesize("h1", "token bug", depends_on=("o1",))))
    )
    return v


def test_views_follow_the_map_as_it_changes() -> None:
    v = _small()
    rdep, standing = v.state.rdep, v.state.standing
    v.apply_turn(Turn("b", (Hypothesize("h2", "retry storm", depends_on=("o1",)), Revise("h1"))))
    assert set(rdep["o1"]) == {"h1", "h2"}
    assert standing["h1"] is Standing.ABANDONED


def test_views_are_read_only() -> None:
    with pytest.raises(TypeError):
        _small().state.standing["o1"] = Standing.ABANDONED  # type: ignore[index]


@pytest.mark.parametrize(
    "duplicate",
    [copy.deepcopy, lambda v: pickle.loads(pickle.dumps(v))],
    ids=["deepcopy", "pickle"],
)
def test_a_copy_reads_its_own_state(duplicate: object) -> None:
    original = _small()
    twin: Verifier = duplicate(original)  # type: ignore[operator]
    twin.apply_turn(Turn("b", (Hypothesize("h2", "retry storm", depends_on=("o1",)), Revise("h1"))))
    assert original.affected_star("o1") == ("h1",)
    assert set(twin.affected_star("o1")) == {"h1", "h2"}
    assert original.standing("h1") is Standing.ACTIVE
    assert twin.state.standing["h1"] is Standing.ABANDONED
    assert "h2" not in original.state.records and "h2" in twin.state.records
    assert original.state.dep is not twin.state.dep
