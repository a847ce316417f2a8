"""The reference engine of the Grounded Continuation runtime verifier.

The public API: a :class:`Verifier` over one conversation, the eight operations,
:class:`Turn`, the query answers and the typed errors; a conversation kept in an
SQLite store (:func:`create_session`, :func:`open_session`), a :class:`TraceWriter`
for an in-memory history, and :func:`load_scenario` for the built-in traces.
"""

from reference.closure import Grounding
from reference.errors import GcvError
from reference.history import TraceWriter
from reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from reference.records import Kind, Standing
from reference.scenarios import load_scenario
from reference.store import StoredSession, create_session, import_trace, open_session
from reference.verifier import Turn, TurnReport, Verifier

__all__ = [
    "ExpandAwareness",
    "GcvError",
    "Grounding",
    "Hypothesize",
    "Kind",
    "Observe",
    "Operation",
    "Question",
    "Resolve",
    "Revise",
    "Standing",
    "StoredSession",
    "Support",
    "TraceWriter",
    "Turn",
    "TurnReport",
    "Undermine",
    "Verifier",
    "create_session",
    "import_trace",
    "load_scenario",
    "open_session",
]
