"""The engine of the Grounded Continuation runtime verifier (Definitions 2.1-2.3).

A :class:`Verifier` over one conversation, the eight operations, :class:`Turn`, the
query answers and the typed errors.  The engine imports nothing from :mod:`gcv.spec` or
:mod:`gcv.proofs` and does no I/O; sessions on disk and traces are :mod:`gcv`'s tools.
"""

from gcv.reference.closure import Grounding
from gcv.reference.errors import GcvError
from gcv.reference.operations import (
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
from gcv.reference.records import Kind, Standing
from gcv.reference.verifier import Turn, TurnReport, Verifier

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
    "Support",
    "Turn",
    "TurnReport",
    "Undermine",
    "Verifier",
]
