"""Grounded Continuation: the formal reference of a runtime verifier for LLM conversations.

One import package.  Its layers: :mod:`gcv.spec` (what holds), :mod:`gcv.reference` (the
engine that computes it), :mod:`gcv.proofs` (why it holds); the modules directly under
``gcv`` are the tools that join them (the ``gcv`` command, sessions on disk, trace I/O,
the conformance kit, the paper registry).

The public API: a :class:`Verifier` over one conversation, the eight operations,
:class:`Turn`, the query answers and the typed errors; a conversation kept in an
SQLite store (:func:`create_session`, :func:`open_session`), a :class:`TraceWriter`
for an in-memory history, and :func:`load_scenario` for the built-in traces.
"""

from importlib.metadata import version

import gcv.reference
from gcv.history import TraceWriter
from gcv.reference import *  # noqa: F403  (the engine's API is the package's)
from gcv.scenarios import load_scenario
from gcv.store import StoredSession, create_session, import_trace, open_session

__version__ = version("grounded-continuation")

__all__ = [
    "StoredSession",
    "TraceWriter",
    "__version__",
    "create_session",
    "import_trace",
    "load_scenario",
    "open_session",
]
__all__ += gcv.reference.__all__
