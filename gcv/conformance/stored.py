"""``gcv serve --db FILE``: a protocol session whose conversation lives in a session store.

The first ``start`` creates the store from its agents, atoms and M_0; every
accepted ``apply`` is appended to it (a rejected one is logged with its error),
so the conversation outlives the server.  A server started on an existing
store resumes its conversation: ``apply``, ``query`` and ``render`` work at
once, and ``start``, which would discard it, is refused with ``store-exists``
(spec/gcv/spec/normative.md, "Session stores").
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gcv.conformance.session import Session
from gcv.errors import StoreExists
from gcv.reference.verifier import Turn, TurnReport, Verifier
from gcv.store import StoredSession, create_session, open_session

__all__ = ["StoredProtocolSession"]


class StoredProtocolSession(Session):
    """A :class:`~gcv.conformance.session.Session` kept in the store at ``path``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "served.gcv"
    >>> served = StoredProtocolSession(path)
    >>> served.handle({"id": 1, "cmd": "start", "agents": ["a"]})["ok"]
    True
    >>> op = {"op": "observe", "id": "o1", "claim": "401 errors"}
    >>> served.handle({"id": 2, "cmd": "apply", "speaker": "a", "operations": [op]})["result"]
    {'turn': 1}
    >>> served.close()
    >>> again = StoredProtocolSession(path)
    >>> again.handle({"id": 3, "cmd": "query", "query": "standing", "record": "o1"})["result"]
    'active'
    >>> again.handle({"id": 4, "cmd": "start", "agents": ["a"]})["error"]["code"]
    'store-exists'
    >>> again.close()
    """

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.store: StoredSession | None = None
        if self.path.exists():
            self.store = open_session(self.path)
            self.verifier = self.store.verifier

    def _dispatch(self, request: Mapping[str, Any]) -> Any:
        if request["cmd"] == "start":
            if self.store is not None or self.path.exists():
                raise StoreExists(
                    f"{self.path}: the store holds a conversation; start would discard it",
                    field="db",
                )
            result = super()._dispatch(request)  # checks Ags, Prop_0 and M_0 first
            header: dict[str, Any] = {
                "agents": {agent: agent for agent in request["agents"]},
                "atoms": list(request.get("atoms", [])),
            }
            if "model" in request:
                header["model"] = request["model"]
            try:
                self.store = create_session(self.path, header)
            except BaseException:
                self.verifier = None  # no store, so no conversation either
                raise
            self.verifier = self.store.verifier
            return result
        return super()._dispatch(request)

    def _commit(self, verifier: Verifier, turn: Turn) -> TurnReport:
        assert self.store is not None, "a started or resumed conversation has a store"
        try:
            return self.store.append(turn)
        finally:
            # The store reloads its map after a failed write: answer from the one it holds.
            self.verifier = self.store.verifier

    def close(self) -> None:
        """Close the store (if a conversation was started or resumed)."""
        if self.store is not None:
            self.store.close()
