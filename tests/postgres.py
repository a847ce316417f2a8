"""A throwaway PostgreSQL server for the tests: a cluster made by ``initdb`` in a
temporary folder, listening on a Unix socket there and nowhere else.

:func:`start_cluster` makes and starts it; :func:`stop_cluster` stops it and removes the
folder.  PostgreSQL's programs refuse to run as root, so where the tests run as root (as
CI does) the cluster's folder is given to the user ``nobody`` and the programs run as
that user (``runuser``); a normal user runs them as itself.  Each test then gets a schema
of its own in the cluster's database (:func:`fresh_schema`), so tests never share tables.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

__all__ = ["Cluster", "fresh_schema", "start_cluster", "stop_cluster"]

_NOBODY = 65534


@dataclass(frozen=True)
class Cluster:
    """A running server: its folder (data, socket, log) and the URL of its database."""

    folder: Path
    pg_ctl: str
    as_user: tuple[str, ...]

    @property
    def url(self) -> str:
        """The database as a libpq URL (the socket's folder as its host)."""
        return f"postgresql:///postgres?host={quote(str(self.folder), safe='')}&user=gcv"


def _run(cluster_user: tuple[str, ...], *argv: str | Path) -> None:
    done = subprocess.run(
        [*cluster_user, *map(str, argv)], capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stderr or done.stdout}")


def start_cluster(initdb: str, pg_ctl: str) -> Cluster:
    """Make a cluster in a new temporary folder and start its server (``pg_ctl -w``
    returns once it accepts connections)."""
    folder = Path(tempfile.mkdtemp(prefix="gcv-pg-"))
    as_user: tuple[str, ...] = ()
    if os.geteuid() == 0:
        os.chown(folder, _NOBODY, _NOBODY)
        as_user = ("runuser", "-u", "nobody", "--")
    data = folder / "data"
    # Page checksums, as the store's docs advise; no fsync: a test cluster dies with the run.
    _run(
        as_user,
        initdb,
        "-D",
        data,
        "-U",
        "gcv",
        "--auth=trust",
        "-E",
        "UTF8",
        "--data-checksums",
        "--no-sync",
    )
    options = f"-k {folder} -c listen_addresses='' -c fsync=off -c max_connections=200"
    _run(as_user, pg_ctl, "-D", data, "-o", options, "-l", folder / "server.log", "-w", "start")
    return Cluster(folder, pg_ctl, as_user)


def stop_cluster(cluster: Cluster) -> None:
    """Stop the server at once and remove its folder."""
    try:
        _run(
            cluster.as_user,
            cluster.pg_ctl,
            "-D",
            cluster.folder / "data",
            "-m",
            "immediate",
            "stop",
        )
    finally:
        shutil.rmtree(cluster.folder, ignore_errors=True)


def fresh_schema(cluster: Cluster) -> str:
    """A new, empty schema in the cluster's database; the URL whose tables live there."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(cluster.url, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {name}")
    return f"{cluster.url}&options={quote(f'-csearch_path={name}', safe='')}"
