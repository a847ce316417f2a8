"""The exhaustive refinement check (tests/refinement.py) as a campaign (gcv/campaign.py):
its breadth-first exploration spread over a cluster's workers, level by level.

The driver keeps the set of states seen, each as a fingerprint of its canonical form (up
to renaming, :func:`tests.refinement.canonical`), and the frontier, each state as the
turns that reach it from D_0.  A level's frontier is split into shards by its states'
fingerprints (a state's shard is its fingerprint modulo the number of shards: the
partition by hash that distributed model checkers such as TLC's make); a worker replays
each state of its shard (:meth:`Explorer.node_at`), takes every step from it exactly as
the sequential exploration does (:meth:`Explorer.expand`, comparing engine, spec and
encoding), and returns its counts and, for each state, the fingerprints of the classes it
reached with the turn that reached each.  The driver merges the counts and, in the
frontier's order, keeps the first state reached of each class not seen before: the
states, their order and their representatives are the sequential exploration's, so every
count is too, whatever the number of workers or shards.

A fingerprint is 128 bits of BLAKE2b over the canonical form's ``repr``: the chance that
two of n states share one is below n^2 / 2^129 (about 10^-27 for a million states),
where the canonical forms themselves would cost the driver hundreds of bytes a state.

After each level the driver can write a checkpoint (the seen set, the frontier, the
counts), from which ``--resume`` carries on: a campaign too long for one sitting is run in
several.

    python -m tests.refinement --records 3 --workers 2
    python -m tests.refinement --records 4 --workers 2 --checkpoint /tmp/r4.ckpt --resume
    python -m tests.refinement --records 4 --cluster tcp://scheduler:8786
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from gcv.campaign import Campaign
from gcv.reference.verifier import Turn
from tests.refinement import Counts, Explorer, Key, Scope, canonical

Path_ = tuple[Turn, ...]
"""A state, as the turns that reach it from D_0."""

SHARDS_PER_WORKER = 4
"""Shards a level is cut into for each worker, so that a slow shard does not hold the
others' workers idle."""


def fingerprint(key: Key) -> bytes:
    """128 bits of BLAKE2b over ``repr(key)`` (deterministic: no hash seed enters it)."""
    return hashlib.blake2b(repr(key).encode(), digest_size=16).digest()


@dataclass(frozen=True)
class Shard:
    """Part of a level's frontier: each state's number in breadth-first order and its path."""

    scope: Scope
    states: tuple[tuple[int, Path_], ...]


@dataclass
class Expanded:
    """What a worker saw expanding a shard: the counts, and for each state (by number) the
    classes reached (fingerprint and turn), each once, in the order the steps reached them."""

    counts: Counts
    reached: dict[int, list[tuple[bytes, Turn]]] = field(default_factory=dict)
    cpu: float = 0.0


_explorers = threading.local()
"""Each worker thread's explorers, by scope (building one enumerates the scope's operation
pool); thread-local because an explorer's counts are its own."""


def _explorer(scope: Scope) -> Explorer:
    cached: dict[Scope, Explorer] = _explorers.__dict__.setdefault("by_scope", {})
    if scope not in cached:
        cached[scope] = Explorer(scope)
    return cached[scope]


def expand_shard(shard: Shard) -> Expanded:
    """Every step from every state of ``shard`` (a task run on a worker)."""
    began = time.thread_time()
    explorer = _explorer(shard.scope)
    explorer.counts = result = Counts()
    seen: set[Key] = set()  # classes reached in this shard: only the first reach matters
    expanded = Expanded(result)
    for number, path in shard.states:
        found = explorer.expand(explorer.node_at(path), seen, number)
        expanded.reached[number] = [
            (fingerprint(canonical(node.concrete, node.spec, shard.scope)), node.path[-1])
            for node in found
        ]
    expanded.cpu = time.thread_time() - began
    return expanded


@dataclass
class Progress:
    """A campaign's state between levels: what a checkpoint holds."""

    scope: Scope
    seen: set[bytes]
    frontier: list[tuple[bytes, Path_]]
    counts: Counts = field(default_factory=Counts)
    expanded: int = 0
    """States expanded so far: the number the frontier's first state has."""
    cpu: float = 0.0
    """CPU seconds the workers spent on the shards so far."""

    @classmethod
    def start(cls, scope: Scope) -> Progress:
        root = Explorer(scope).root
        first = fingerprint(canonical(root.concrete, root.spec, scope))
        return cls(scope, {first}, [(first, ())])

    def save(self, checkpoint: Path) -> None:
        """Write this progress to ``checkpoint`` whole or not at all (a rename)."""
        partial = checkpoint.with_name(checkpoint.name + ".partial")
        partial.write_bytes(pickle.dumps(self))
        os.replace(partial, checkpoint)

    @classmethod
    def load(cls, checkpoint: Path, scope: Scope) -> Progress:
        progress = pickle.loads(checkpoint.read_bytes())
        if not isinstance(progress, Progress) or progress.scope != scope:
            raise SystemExit(f"{checkpoint} is not a checkpoint of this scope ({scope})")
        return progress


def shards(progress: Progress, parts: int) -> list[Shard]:
    """The frontier cut into at most ``parts`` shards by its states' fingerprints."""
    split: list[list[tuple[int, Path_]]] = [[] for _ in range(parts)]
    for offset, (print_, path) in enumerate(progress.frontier):
        split[int.from_bytes(print_[:8], "big") % parts].append((progress.expanded + offset, path))
    return [Shard(progress.scope, tuple(states)) for states in split if states]


def explore_level(progress: Progress, campaign: Campaign) -> None:
    """Expand the frontier on the campaign's workers and put the next level in its place."""
    results = campaign.map(expand_shard, shards(progress, SHARDS_PER_WORKER * campaign.workers))
    reached: dict[int, list[tuple[bytes, Turn]]] = {}
    for result in results:
        progress.counts.add(result.counts)
        progress.cpu += result.cpu
        reached.update(result.reached)
    following: list[tuple[bytes, Path_]] = []
    for offset, (_, path) in enumerate(progress.frontier):
        for print_, turn in reached[progress.expanded + offset]:
            if print_ not in progress.seen:
                progress.seen.add(print_)
                following.append((print_, (*path, turn)))
    progress.expanded += len(progress.frontier)
    bound = progress.scope.depth
    if bound is not None and following and len(following[0][1]) > bound:
        progress.counts.beyond, following = len(following), []
    progress.frontier = following


def explore(
    scope: Scope,
    campaign: Campaign,
    *,
    checkpoint: Path | None = None,
    resume: bool = False,
    log: Callable[[str], None] = lambda line: None,
) -> tuple[Counts, float]:
    """Explore ``scope`` on ``campaign``'s workers (from ``checkpoint`` when resuming and it
    exists, writing it after each level); the counts, and the workers' CPU seconds.
    Raises :class:`tests.refinement.Divergence` at a disagreement, as the sequential
    exploration does."""
    began = time.perf_counter()
    if resume and checkpoint is not None and checkpoint.exists():
        progress = Progress.load(checkpoint, scope)
        log(f"resumed at {progress.expanded} states expanded, frontier {len(progress.frontier)}")
    else:
        progress = Progress.start(scope)
    while progress.frontier:
        level = len(progress.frontier[0][1])
        explore_level(progress, campaign)
        if checkpoint is not None:
            progress.save(checkpoint)
        log(
            f"level {level} done: {progress.expanded} states expanded, "
            f"{progress.counts.transitions} transitions, next frontier "
            f"{len(progress.frontier)}; workers' CPU {progress.cpu:.0f} s, "
            f"wall {time.perf_counter() - began:.0f} s"
        )
    progress.counts.seconds = time.perf_counter() - began
    return progress.counts, progress.cpu


def run(
    scope: Scope,
    workers: int | None,
    address: str | None,
    checkpoint: Path | None,
    resume: bool,
) -> Counts:
    """``python -m tests.refinement --workers K | --cluster ADDRESS``: explore ``scope`` as a
    campaign, printing each level's progress on stderr, and return the counts."""
    from gcv.campaign import campaign

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    cpu_before = time.process_time()
    with ExitStack() as stack:
        try:
            running = stack.enter_context(campaign(workers, address))
        except ConnectionError as unreachable:
            raise SystemExit(f"python -m tests.refinement: {unreachable}") from None
        log(f"campaign on {running.workers} workers ({address or 'local cluster'})")
        counts, cpu = explore(scope, running, checkpoint=checkpoint, resume=resume, log=log)
    driver = time.process_time() - cpu_before
    print(f"workers' CPU {cpu:.1f} s, the driver's {driver:.1f} s")
    return counts
