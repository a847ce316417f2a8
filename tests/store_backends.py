"""The two store backends as pytest fixtures: SQLite files, and a throwaway PostgreSQL.

``store_db`` is parametrised over both: a function from a session's name to its store
(``<tmp>/<name>.gcv``, or ``postgresql://...#<name>`` in a schema of the test's own).
The PostgreSQL server is one per test process (:mod:`tests.postgres`), started when a
test first asks for it and stopped at the end; its tests carry
``needs_program("initdb", "pg_ctl")``, so a machine without PostgreSQL skips them, naming
the package, and CI fails them.  Import the fixtures into a test module to use them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.postgres import Cluster, fresh_schema, start_cluster, stop_cluster
from tests.programs import require_programs

__all__ = ["BACKENDS", "StoreDb", "postgres_cluster", "postgres_url", "store_db"]

StoreDb = Callable[[str], str]

BACKENDS = [
    "sqlite",
    pytest.param("postgresql", marks=pytest.mark.needs_program("initdb", "pg_ctl")),
]


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """One PostgreSQL server for the whole test process."""
    initdb, pg_ctl = require_programs("initdb", "pg_ctl")
    cluster = start_cluster(initdb, pg_ctl)
    yield cluster
    stop_cluster(cluster)


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> str:
    """A database URL whose tables live in a schema of this test's own."""
    return fresh_schema(postgres_cluster)


@pytest.fixture(params=BACKENDS)
def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> StoreDb:
    """A session's store by name, on each backend."""
    if request.param == "sqlite":
        return lambda name: str(tmp_path / f"{name}.gcv")
    url = request.getfixturevalue("postgres_url")
    return lambda name: f"{url}#{name}"
