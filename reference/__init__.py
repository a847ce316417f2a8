"""The reference engine of the Grounded Continuation runtime verifier.

The public API: a :class:`Verifier` over one conversation, the eight operations,
:class:`Turn`, the query answers and the typed errors.
"""

from reference.closure import Grounding
from reference.errors import GcvError
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
    "Support",
    "Turn",
    "TurnReport",
    "Undermine",
    "Verifier",
]
