"""Grounded Continuation: the formal reference of a runtime verifier for LLM conversations.

One import package.  Its layers: :mod:`gcv.spec` (what holds), :mod:`gcv.reference` (the
engine that computes it), :mod:`gcv.proofs` (why it holds); the modules directly under
``gcv`` are the tools that join them (the ``gcv`` command, sessions on disk, trace I/O,
the conformance kit, the paper registry).

The public API: a :class:`Verifier` over one conversation, the eight operations,
:class:`Turn`, the query answers and the typed errors; a conversation kept in a
store, SQLite or PostgreSQL (:func:`create_session`, :func:`open_session`,
:func:`copy_session`), a :class:`TraceWriter`
for an in-memory history, and :func:`load_scenario` for the built-in traces.
"""

import importlib
import pkgutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what the checkers see; at run time __getattr__ below imports them
    from gcv.history import TraceWriter as TraceWriter
    from gcv.reference import *  # noqa: F403  (the engine's API is the package's)
    from gcv.reference.operations import *  # noqa: F403  (the operations, by their order)
    from gcv.scenarios import load_scenario as load_scenario
    from gcv.store import StoredSession as StoredSession
    from gcv.store import copy_session as copy_session
    from gcv.store import create_session as create_session
    from gcv.store import import_trace as import_trace
    from gcv.store import open_session as open_session

if TYPE_CHECKING:
    __version__: str

# The layers' portions, spec/gcv, reference/gcv and proofs/gcv, when their folders are
# on the path (the tests' pythonpath; the wheel puts everything in one folder).
__path__ = pkgutil.extend_path(__path__, __name__)  # noqa: F405

# Where each public name lives.  They are imported on first use, so that importing one
# layer (``gcv.spec.core``, say) loads neither the engine nor the tools.
_TOOLS = {
    "StoredSession": "gcv.store",
    "TraceWriter": "gcv.history",
    "copy_session": "gcv.store",
    "create_session": "gcv.store",
    "import_trace": "gcv.store",
    "load_scenario": "gcv.scenarios",
    "open_session": "gcv.store",
}
_ENGINE = (
    "ORDER",
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
    "Support",
    "Turn",
    "TurnReport",
    "Undermine",
    "Verifier",
)

__all__ = ["__version__", *_TOOLS, *_ENGINE]


def __getattr__(name: str) -> object:
    """The public name ``name``, imported from its module on first use (PEP 562); the
    version read from the installed distribution's metadata on first use too."""
    if name == "__version__":
        value: object = importlib.import_module("importlib.metadata").version(
            "grounded-continuation"
        )
        globals()[name] = value
        return value
    home = _TOOLS.get(name) or ("gcv.reference" if name in _ENGINE else None)
    if home is None:
        raise AttributeError(f"module 'gcv' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
