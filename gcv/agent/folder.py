"""The folder of session stores that ``gcv mcp`` serves, confined to itself.

A session is named by the client; its store is ``<folder>/<name>.gcv``.  A name
is a plain word (letters, digits, ``-`` and ``_``, no dot, no separator), so no
name reaches outside the folder, and a store (or the ``-wal``, ``-shm`` and
``-journal`` files SQLite keeps beside it) that is a symbolic link, or a file
with a second hard link, is refused before SQLite opens it: the server reads
and writes the folder's stores and nothing else.  spec/normative.md, "The MCP
server", records these choices.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import icontract

from gcv.errors import StoreExists, StoreForeign, StoreMissing
from gcv.history import header_of
from gcv.reference.errors import MalformedInput
from gcv.scenarios import builtin_scenarios, scenario_text
from gcv.store import StoredSession, create_session, open_session

__all__ = [
    "SESSION_NAME_PATTERN",
    "SUFFIX",
    "SessionFolder",
    "is_session_name",
    "scenario_header",
]

SESSION_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
"""A session's name: one plain word, so ``<folder>/<name>.gcv`` stays in the folder."""
SUFFIX = ".gcv"
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
    """The session stores under one folder, each opened once and kept open.

    Raises
    ------
    MalformedInput
        ``folder`` is not an existing directory (field ``sessions``).
    """

    def __init__(self, folder: str | Path) -> None:
        path = Path(folder)
        if not path.is_dir():
            raise MalformedInput(f"{folder}: not a folder", field="sessions")
        self.path = path.resolve()
        self._open: dict[str, StoredSession] = {}

    @icontract.ensure(lambda self, result: result.parent == self.path, "inside the folder")
    def store_path(self, name: str) -> Path:
        """The store of session ``name``, checked to be a plain file of the folder (or absent).

        Raises
        ------
        MalformedInput
            ``name`` is not a session name (field ``session``).
        StoreForeign
            The store or a file SQLite keeps beside it is a link.
        """
        if not is_session_name(name):
            shown = name[:40] if isinstance(name, str) else type(name).__name__
            raise MalformedInput(
                f"session {shown!r} is not a session name ({SESSION_NAME_PATTERN})",
                field="session",
            )
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
        return path

    @icontract.ensure(lambda result: all(is_session_name(n) for n in result), "names only")
    def names(self) -> list[str]:
        """The sessions in the folder, by name, sorted."""
        found = []
        for entry in os.scandir(self.path):
            name = entry.name.removesuffix(SUFFIX)
            if entry.name.endswith(SUFFIX) and is_session_name(name) and entry.is_file():
                found.append(name)
        return sorted(found)

    def session(self, name: str) -> StoredSession:
        """Session ``name``, caught up with the turns other processes appended.

        Raises
        ------
        StoreMissing
            No session of that name.
        """
        opened = self._open.get(name)
        if opened is None:
            opened = open_session(self.store_path(name))
            self._open[name] = opened
        opened.refresh()
        return opened

    @icontract.ensure(
        lambda self, name, result: result[0].path == str(self.store_path(name)),
        "the session's store is its name's, in the folder",
    )
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
        path = self.store_path(name)
        created = False
        if header is not None and not path.exists():
            try:
                create_session(path, header).close()
                created = True
            except StoreExists:  # another client created it first: open theirs
                pass
        if header is None and not path.exists():
            raise StoreMissing(
                f"no session {name!r}; give agents or a scenario to create it", field="session"
            )
        session = self.session(name)
        agents = None if header is None or created else header.get("agents")
        if agents is not None and dict(session.header["agents"]) != dict(agents):
            raise MalformedInput(
                f"session {name!r} exists with agents {sorted(session.header['agents'])}",
                field="agents",
            )
        return session, created

    def close(self) -> None:
        """Close every store opened (idempotent)."""
        for session in self._open.values():
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
