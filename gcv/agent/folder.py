"""The sessions ``gcv mcp`` serves: a folder of store files, or a PostgreSQL database.

A session is named by the client.  In a folder its store is ``<folder>/<name>.gcv``; a
name is a plain word (letters, digits, ``-`` and ``_``, no dot, no separator), so no
name reaches outside the folder, and a store (or the ``-wal``, ``-shm`` and
``-journal`` files SQLite keeps beside it) that is a symbolic link, or a file with a
second hard link, is refused before SQLite opens it: the server reads and writes the
folder's stores and nothing else.  In a database (``postgresql://...``) the name is the
session's key, and every worker of a service sees the same sessions.

Open sessions are bounded: at most ``max_open`` per process, the least recently used
closed first, and any left unused for ``idle_seconds`` closed at the next call, so one
client opening thousands of sessions holds a bounded number of file descriptors and
connections.  A create that fails leaves nothing behind (the store appears whole or not
at all).  spec/gcv/spec/normative.md, "The MCP server", records these choices.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import icontract

from gcv.errors import StoreExists, StoreForeign, StoreMissing
from gcv.history import header_of
from gcv.reference.errors import MalformedInput
from gcv.scenarios import builtin_scenarios, scenario_text
from gcv.store import StoredSession, create_session, is_database_url, open_session

__all__ = [
    "DEFAULT_IDLE_SECONDS",
    "DEFAULT_MAX_OPEN",
    "SESSION_NAME_PATTERN",
    "SUFFIX",
    "SessionFolder",
    "is_session_name",
    "scenario_header",
]

SESSION_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
"""A session's name: one plain word, so ``<folder>/<name>.gcv`` stays in the folder."""
SUFFIX = ".gcv"
DEFAULT_MAX_OPEN = 64
"""Sessions a process keeps open at most (an SQLite session holds three descriptors)."""
DEFAULT_IDLE_SECONDS = 300.0
"""A session unused for this long is closed at the next call (and reopened when asked)."""
_NAME = re.compile(SESSION_NAME_PATTERN.replace("$", r"\Z"))
# SQLite's files beside a store: each would be written through a link as well.
_COMPANIONS = ("", "-wal", "-shm", "-journal")


def is_session_name(name: object) -> bool:
    """Whether ``name`` is a session name (:data:`SESSION_NAME_PATTERN`).

    >>> is_session_name("incident-42"), is_session_name("../etc/passwd"), is_session_name("a.b")
    (True, False, False)
    """
    return isinstance(name, str) and _NAME.match(name) is not None


class SessionFolder:
    """The sessions of one folder of store files, or of one PostgreSQL database.

    Raises
    ------
    MalformedInput
        ``place`` is neither an existing directory nor a ``postgresql://`` URL (field
        ``sessions``).
    """

    @icontract.require(lambda max_open: max_open >= 1)
    def __init__(
        self,
        place: str | Path,
        *,
        max_open: int = DEFAULT_MAX_OPEN,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
    ) -> None:
        self.database = str(place) if is_database_url(place) else None
        if self.database is not None:
            if "#" in self.database:
                raise MalformedInput("a sessions database names no session ('#')", field="sessions")
            self.path = Path()
        else:
            path = Path(place)
            if not path.is_dir():
                raise MalformedInput(f"{place}: not a folder", field="sessions")
            self.path = path.resolve()
        self.max_open = max_open
        self.idle_seconds = idle_seconds
        self._open: OrderedDict[str, tuple[StoredSession, float]] = OrderedDict()

    def _checked_name(self, name: str) -> str:
        if not is_session_name(name):
            shown = name[:40] if isinstance(name, str) else type(name).__name__
            raise MalformedInput(
                f"session {shown!r} is not a session name ({SESSION_NAME_PATTERN})",
                field="session",
            )
        return name

    @icontract.ensure(
        lambda self, result: self.database is not None or Path(result).parent == self.path,
        "inside the folder",
    )
    def store_of(self, name: str) -> str:
        """The store of session ``name``: in the folder, a plain file of it (or absent).

        Raises
        ------
        MalformedInput
            ``name`` is not a session name (field ``session``).
        StoreForeign
            The store or a file SQLite keeps beside it is a link.
        """
        self._checked_name(name)
        if self.database is not None:
            return f"{self.database}#{name}"
        path = self.path / f"{name}{SUFFIX}"
        for companion in _COMPANIONS:
            beside = path.with_name(path.name + companion)
            try:
                info = beside.lstat()
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(info.st_mode) or info.st_nlink > 1:
                raise StoreForeign(
                    f"session {name}: {beside.name} is a link; the server follows none",
                    field="session",
                )
            if not stat.S_ISREG(info.st_mode):
                raise StoreForeign(f"session {name}: {beside.name} is not a file", field="session")
        return str(path)

    @icontract.ensure(lambda result: all(is_session_name(n) for n in result), "names only")
    def names(self) -> list[str]:
        """The sessions, by name, sorted."""
        if self.database is not None:
            from gcv.store.postgres import session_names

            return [n for n in session_names(self.database) if is_session_name(n)]
        found = []
        for entry in os.scandir(self.path):
            name = entry.name.removesuffix(SUFFIX)
            if entry.name.endswith(SUFFIX) and is_session_name(name) and entry.is_file():
                found.append(name)
        return sorted(found)

    def _close_idle(self, now: float) -> None:
        while self._open:
            name, (session, used) = next(iter(self._open.items()))
            if len(self._open) < self.max_open and now - used < self.idle_seconds:
                return
            del self._open[name]
            session.close()

    def session(self, name: str) -> StoredSession:
        """Session ``name``, caught up with the turns other processes appended.

        Raises
        ------
        StoreMissing
            No session of that name.
        """
        now = time.monotonic()
        opened = self._open.pop(name, None)
        if opened is None:
            self._close_idle(now)  # room first: a refused open must not hold the rest
            session = open_session(self.store_of(name))
        else:
            session = opened[0]
            try:
                session.refresh()
            except BaseException:
                session.close()
                raise
            self._close_idle(now)
        self._open[name] = (session, now)
        return session

    def create_or_open(
        self, name: str, header: Mapping[str, Any] | None
    ) -> tuple[StoredSession, bool]:
        """Session ``name``, created with ``header`` when absent; and whether it was created.

        Raises
        ------
        StoreMissing
            No such session and no header to create it with.
        MalformedInput
            The session exists with other agents than ``header`` names.
        """
        created = False
        try:
            session = self.session(name)
        except StoreMissing:
            if header is None:
                raise StoreMissing(
                    f"no session {name!r}; give agents or a scenario to create it",
                    field="session",
                ) from None
            try:
                create_session(self.store_of(name), header).close()
                created = True
            except StoreExists:  # another client created it first: open theirs
                pass
            session = self.session(name)
        agents = None if header is None or created else header.get("agents")
        if agents is not None and dict(session.header["agents"]) != dict(agents):
            raise MalformedInput(
                f"session {name!r} exists with agents {sorted(session.header['agents'])}",
                field="agents",
            )
        return session, created

    @property
    def open_count(self) -> int:
        """How many sessions this process holds open now."""
        return len(self._open)

    def close(self) -> None:
        """Close every store opened (idempotent)."""
        for session, _ in self._open.values():
            session.close()
        self._open.clear()


@icontract.ensure(lambda result: bool(result["agents"]), "a header names Ags")
def scenario_header(name: str) -> dict[str, Any]:
    """The header (agents, Prop_0, M_0) of the built-in scenario ``name``.

    Raises
    ------
    MalformedInput
        No built-in scenario of that name (field ``scenario``).
    """
    if name not in builtin_scenarios():
        raise MalformedInput(
            f"{name[:40]!r} is not a built-in scenario ({', '.join(builtin_scenarios())})",
            field="scenario",
        )
    return header_of(json.loads(scenario_text(name)))
