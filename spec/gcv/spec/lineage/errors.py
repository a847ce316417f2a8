"""Typed errors of the lineage-quotient spec module.

Every error raised on bad input is a :class:`LineageError` (a ``ValueError``).
Each subclass has a stable, machine-readable ``code`` and a message that names
what was wrong (the strength, the occurrence, the node, the class, the cycle).
Errors carry their witness as attributes where there is one.  No function of
the module mutates what it was given, so nothing needs undoing after a raise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

__all__ = [
    "CycleError",
    "IncompatibleClassError",
    "IneligibleExtensionError",
    "LineageError",
    "MalformedProfileError",
    "MalformedQBAFError",
    "StrengthError",
]


class LineageError(ValueError):
    """Base class of every error the lineage spec module raises on bad input."""

    code: ClassVar[str] = "lineage-error"


class StrengthError(LineageError):
    """A strength or base score lies outside [0, 1] (or is not a real number)."""

    code: ClassVar[str] = "strength"


class MalformedProfileError(LineageError):
    """A profile is malformed: an empty field, or an occurrence aimed at an unknown claim."""

    code: ClassVar[str] = "malformed-profile"


class MalformedQBAFError(LineageError):
    """A QBAF is malformed: unknown node, self-loop, an edge both support and attack."""

    code: ClassVar[str] = "malformed-qbaf"


class IncompatibleClassError(LineageError):
    """A class of the lifting's partition is malformed (Section 6, compatibility).

    Equivalent occurrences must have the same signed neighbourhood after
    quotienting; ``members`` are two members whose neighbourhoods differ.
    """

    code: ClassVar[str] = "incompatible-class"

    def __init__(self, message: str, members: tuple[str, str] = ("", "")) -> None:
        super().__init__(message)
        self.members = members


class CycleError(LineageError):
    """A graph that must be acyclic has a cycle; ``cycle`` lists it, first node repeated last."""

    code: ClassVar[str] = "cycle"

    def __init__(self, message: str, cycle: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.cycle = tuple(cycle)


class IneligibleExtensionError(LineageError):
    """An extension is not of the kind a principle quantifies over.

    For example a "replica" that opens a new root, a "fresh" report whose root
    is already represented, or a matched pair that differs in a judged field.
    """

    code: ClassVar[str] = "ineligible-extension"
