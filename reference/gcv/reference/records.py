"""Records (arguments) of the dependency map and their standing labels (Definition 2.1)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gcv.reference.epistemic.formula import Formula
from gcv.reference.identifiers import AgentId, RecordId

__all__ = [
    "GOOD_STANDING",
    "MAX_CLAIM_LENGTH",
    "Kind",
    "Record",
    "Standing",
]

MAX_CLAIM_LENGTH = 10_000


class Standing(enum.Enum):
    """The standing label st_t(alpha) of Definition 2.1."""

    ACTIVE = "active"
    WEAKENED = "weakened"
    ABANDONED = "abandoned"
    RESOLVED = "resolved"


GOOD_STANDING = frozenset({Standing.ACTIVE, Standing.RESOLVED})
"""The labels of S_t := {alpha in Args_t : st_t(alpha) in {active, resolved}}."""


class Kind(enum.Enum):
    """What kind of utterance registered a record (Section 3's o_i, h_i, a_i, ...).

    A *decision* is not a kind: it is the role of a record resolved by an
    authoritative Resolve (see spec/gcv/spec/normative.md, "Resolve").
    """

    OBSERVATION = "observation"
    PREMISE = "premise"
    HYPOTHESIS = "hypothesis"
    POSITION = "position"
    EVIDENCE = "evidence"


@dataclass(frozen=True, slots=True)
class Record:
    """An argument of Args_t: its identifier and the facts fixed when it was registered.

    The standing label is not part of the record: it changes, and it lives in
    the dependency map.  ``formula`` is the claim as a formula over Prop_t, when
    the operation that registered the record gave one.
    """

    id: RecordId
    claim: str
    speaker: AgentId
    turn: int
    kind: Kind
    formula: Formula | None = None
