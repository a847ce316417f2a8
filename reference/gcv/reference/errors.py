"""Typed errors of the verifier.

Every error the engine raises is a :class:`GcvError`.  Each subclass has a
stable, machine-readable ``code`` (normative for the conformance protocol) and
carries its witness: the turn, the operation (its position in the turn as
written and its kind), the field and the record that were wrong.  Messages are
for people and are not normative.  The errors only the tools meet (files, traces,
the conformance protocol, session stores, the Interpreter's endpoint) extend these in
:mod:`gcv.errors`.
"""

from __future__ import annotations

from typing import ClassVar

MAX_DETAIL_CHARS = 1000
"""The longest message detail kept: an error quotes at most this much of its input."""

__all__ = [
    "AlreadyAware",
    "AttackedTarget",
    "DuplicateAtom",
    "DuplicateRecord",
    "GcvError",
    "MalformedFormula",
    "MalformedInput",
    "MalformedOperation",
    "ModelTooLarge",
    "NoSurvivingWorld",
    "PreconditionViolation",
    "SelfReference",
    "UnknownAgent",
    "UnknownAtom",
    "UnknownRecord",
    "UnknownWorld",
    "WrongStanding",
]


class GcvError(Exception):
    """Base class of every error the verifier raises."""

    code: ClassVar[str] = "gcv-error"

    def __init__(
        self,
        detail: str,
        *,
        field: str | None = None,
        record: str | None = None,
    ) -> None:
        if len(detail) > MAX_DETAIL_CHARS:
            omitted = len(detail) - MAX_DETAIL_CHARS
            detail = f"{detail[:MAX_DETAIL_CHARS]}... ({omitted} more characters)"
        super().__init__(detail)
        self.detail = detail
        self.field = field
        self.record = record
        self.turn: int | None = None
        self.operation_index: int | None = None
        self.operation: str | None = None

    def locate(
        self, *, turn: int, operation_index: int | None = None, operation: str | None = None
    ) -> GcvError:
        """Attach the turn and the operation the error arose in, and return ``self``."""
        self.turn = turn
        self.operation_index = operation_index
        self.operation = operation
        return self

    def __str__(self) -> str:
        where = []
        if self.turn is not None:
            where.append(f"turn {self.turn}")
        if self.operation_index is not None:
            where.append(f"operation {self.operation_index} ({self.operation})")
        if self.field is not None:
            where.append(f"field {self.field!r}")
        prefix = ", ".join(where)
        return f"[{self.code}] {prefix + ': ' if prefix else ''}{self.detail}"

    def as_dict(self) -> dict[str, object]:
        """The error as plain data (the conformance protocol's error object)."""
        return {
            "code": self.code,
            "turn": self.turn,
            "operation_index": self.operation_index,
            "operation": self.operation,
            "field": self.field,
            "record": self.record,
            "message": str(self),
        }


class MalformedInput(GcvError):
    """Input is not well formed, before any state is consulted."""

    code = "malformed-input"


class MalformedOperation(MalformedInput):
    """An operation is not well formed: a missing, mistyped or contradictory field."""

    code = "malformed-operation"


class PreconditionViolation(GcvError):
    """An operation's precondition (Table 3) does not hold in the current state."""

    code = "precondition"


class UnknownRecord(PreconditionViolation):
    """A field names a record that is not in Args_t."""

    code = "unknown-record"


class DuplicateRecord(PreconditionViolation):
    """An operation registers a record under an identifier already in Args_t."""

    code = "duplicate-record"


class UnknownAgent(PreconditionViolation):
    """A speaker or a named agent is not in Ags."""

    code = "unknown-agent"


class WrongStanding(PreconditionViolation):
    """A record's standing label is not one the operation accepts."""

    code = "wrong-standing"


class AttackedTarget(PreconditionViolation):
    """Resolve names a target with a recorded incoming attack (Table 3, Lemma 2.2)."""

    code = "attacked-target"


class SelfReference(PreconditionViolation):
    """An operation uses its target as its own evidence, attacker, premise or subsumed record."""

    code = "self-reference"


class AlreadyAware(PreconditionViolation):
    """Expand-Awareness names an atom every named agent is already aware of."""

    code = "already-aware"


# -- the epistemic layer (M_t: formulas, the plausibility model, its updates) ----------


class MalformedFormula(MalformedInput):
    """A formula's text does not parse, is too long, or is nested too deeply."""

    code = "malformed-formula"


class UnknownAtom(PreconditionViolation):
    """A formula, a world or an expectation names an atom that is not in Prop_t."""

    code = "unknown-atom"


class DuplicateAtom(PreconditionViolation):
    """An operation introduces an atom that is already in Prop_t."""

    code = "duplicate-atom"


class NoSurvivingWorld(PreconditionViolation):
    """A hard announcement [!psi] would eliminate every world: psi holds nowhere in W_t."""

    code = "no-surviving-world"


class UnknownWorld(PreconditionViolation):
    """A query names a world (a valuation) that is not in W_t."""

    code = "unknown-world"


class ModelTooLarge(PreconditionViolation):
    """Materialising or refining M_t would exceed the reference's bound on |W|."""

    code = "model-too-large"
