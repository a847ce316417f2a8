"""Campaigns: verification work spread over processes or machines by Dask distributed.

A campaign is a driver that cuts its work into shards, runs each shard as one task on a
Dask cluster and merges what the shards return.  The cluster is a local one on this
machine's cores by default (no set-up: :class:`distributed.LocalCluster`, one
single-threaded worker process per core), or the scheduler at an address a user gives
(``--cluster tcp://host:8786``), whose workers run the same installed package.  Nothing
here schedules, queues or moves data: Dask does.

Why Dask distributed rather than Ray: every workload here is a bag of independent
pure-Python tasks whose results the driver merges (a level of the refinement's frontier,
a batch of mutants), which is ``Client.map``, ``submit`` and ``wait`` and nothing more;
``distributed`` is pure-Python wheels (tornado, msgpack, cloudpickle, psutil: a few MB,
every platform and Python CPython supports) where Ray is a large compiled wheel per
platform, with a daemon and an object store, that lags new Pythons; and a Dask cluster is
started with two commands (``dask scheduler``, ``dask worker ADDRESS``) or by any of its
deployers (SSH, Kubernetes, SLURM/PBS through dask-jobqueue), while CI runs the local one
in-process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

import dask
import icontract
from distributed import Client, LocalCluster, as_completed

__all__ = ["Campaign", "campaign", "local_workers"]

S = TypeVar("S")
R = TypeVar("R")


def local_workers() -> int:
    """The cores this process may run on: a local cluster's default number of workers."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass(frozen=True)
class Campaign:
    """A connection to a cluster's scheduler through which shards run as tasks."""

    client: Client

    @property
    def workers(self) -> int:
        """The workers the scheduler has now."""
        return len(self.client.scheduler_info(n_workers=-1)["workers"])

    @icontract.ensure(
        lambda shards, result: len(result) == len(shards), "one result for each shard"
    )
    def map(self, function: Callable[[S], R], shards: Sequence[S]) -> list[R]:
        """``function`` of each shard, run as one task on the cluster, in the shards' order.

        A task that raises re-raises its exception here (the other tasks are cancelled)."""
        # pure=False: two equal shards are two tasks (Dask would otherwise run one of them).
        futures = self.client.map(function, shards, pure=False)
        try:
            results: list[R] = self.client.gather(futures)
        finally:
            self.client.cancel(futures)
        return results

    def completed(
        self, function: Callable[[S], R], shards: Sequence[S]
    ) -> Generator[R, None, None]:
        """``function`` of each shard, run as one task on the cluster, in the order the
        tasks finish.

        A task that raises re-raises its exception here; closing the iterator (or leaving
        it by an exception) cancels the tasks not yet finished."""
        futures = self.client.map(function, shards, pure=False)
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            self.client.cancel(futures)


@contextmanager
@icontract.require(
    lambda workers: workers is None or workers >= 1, "a local cluster has at least one worker"
)
def campaign(
    workers: int | None = None, address: str | None = None, *, processes: bool = True
) -> Iterator[Campaign]:
    """A campaign on the scheduler at ``address``, or, without one, on a local cluster of
    ``workers`` single-threaded workers (default: :func:`local_workers`) closed on exit.

    ``processes=False`` runs the local workers as threads of this process: no start-up
    cost and no parallelism (the GIL), which is what a test of the merging wants; more
    than one only for work that may share an interpreter (Z3's context may not).

    Raises :class:`ConnectionError` naming ``address`` when no scheduler answers there.
    """
    if address is not None:
        try:
            client = Client(address)
        except (OSError, ValueError) as unreachable:  # refused, timed out, or no address
            raise ConnectionError(
                f"no Dask scheduler answers at {address}: {unreachable}"
            ) from None
        with client:
            yield Campaign(client)
        return
    # A local worker starved of CPU on a shared machine misses its heartbeats, and the
    # scheduler would drop it after worker-ttl with the shard it holds; its nanny
    # watches the process instead.
    with (
        dask.config.set({"distributed.scheduler.worker-ttl": None}),
        LocalCluster(
            n_workers=workers or local_workers(),
            threads_per_worker=1,
            processes=processes,
            # Its status pages (on a free port: several campaigns may run at once).
            dashboard_address=":0",
            # No memory limit a worker: Dask would pause or restart a worker near it,
            # losing a level's shard; a mutation batch limits its own processes.
            memory_limit=0,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield Campaign(client)
