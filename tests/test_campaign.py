"""The campaign engine (gcv/campaign.py) on a local cluster, and the refinement check as a
campaign (tests/refinement_campaign.py) against the sequential exploration.

A local cluster of one worker runs it as a thread of this process (``processes=False``),
which starts in a fraction of a second; two workers are two processes, as a campaign runs
them (Z3's context is one per process, not safe to share between threads), so that the
shards cross a process boundary.
"""

from __future__ import annotations

import dataclasses
import pickle
import sys
from pathlib import Path

import pytest

from gcv.campaign import campaign
from tests.refinement import SMALL, Counts, Explorer
from tests.refinement_campaign import (
    Progress,
    expand_shard,
    explore,
    explore_level,
    shards,
)

pytestmark = pytest.mark.slow

SCOPE = dataclasses.replace(SMALL, pair_records=(), enumerate_every=3, depth=2)
"""Two records within two turns of D_0, the solver enumerating from every third state:
under a second of CPU an exploration, with a bound, so the states past it are counted too."""


def _figures(counts: Counts) -> dict[str, object]:
    """Every count but the time taken."""
    return {k: v for k, v in dataclasses.asdict(counts).items() if k != "seconds"}


@pytest.fixture(scope="module")
def sequential() -> dict[str, object]:
    """The sequential exploration's counts: the independent path the campaign is held to."""
    return _figures(Explorer(SCOPE).run())


@pytest.mark.parametrize("workers", [1, 2])
def test_a_campaign_counts_what_the_sequential_exploration_counts(
    workers: int, sequential: dict[str, object]
) -> None:
    with campaign(workers, processes=workers > 1) as running:
        assert running.workers == workers
        counts, _ = explore(SCOPE, running)
    assert _figures(counts) == sequential
    assert counts.beyond and counts.enumerated > 1, "the bound and the enumeration were reached"


def test_a_resumed_campaign_ends_with_the_same_counts(
    tmp_path: Path, sequential: dict[str, object]
) -> None:
    checkpoint = tmp_path / "refinement.ckpt"
    with campaign(1, processes=False) as running:
        progress = Progress.start(SCOPE)
        for _ in range(2):
            explore_level(progress, running)
        progress.save(checkpoint)
        lines: list[str] = []
        counts, _ = explore(SCOPE, running, checkpoint=checkpoint, resume=True, log=lines.append)
    assert lines[0].startswith(f"resumed at {progress.expanded} states expanded")
    assert _figures(counts) == sequential
    other = dataclasses.replace(SCOPE, depth=1)
    with pytest.raises(SystemExit, match="not a checkpoint of this scope"):
        Progress.load(checkpoint, other)


def test_a_level_is_split_by_fingerprint_and_its_shards_pickle() -> None:
    progress = Progress.start(SCOPE)
    with campaign(1, processes=False) as running:
        explore_level(progress, running)
        explore_level(progress, running)  # a frontier of several states
    cut = shards(progress, 4)
    numbers = sorted(number for shard in cut for number, _ in shard.states)
    assert numbers == list(range(progress.expanded, progress.expanded + len(progress.frontier)))
    assert len(cut) > 1, "the states fall in several shards"
    assert shards(progress, 4) == cut, "the split depends on the states only"
    # What a worker process receives and returns goes through pickle.
    shard = pickle.loads(pickle.dumps(cut[0]))
    result = pickle.loads(pickle.dumps(expand_shard(shard)))
    assert set(result.reached) == {number for number, _ in cut[0].states}


def test_without_the_extra_the_command_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tests
    from tests import refinement

    monkeypatch.setitem(sys.modules, "distributed", None)  # its import fails: not installed
    for module in ("gcv.campaign", "tests.refinement_campaign"):
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.delattr(tests, "refinement_campaign")
    with pytest.raises(SystemExit) as stopped:
        refinement.main(["--records", "1", "--workers", "1"])
    assert stopped.value.code == 2
    assert "[campaign]" in capsys.readouterr().err
