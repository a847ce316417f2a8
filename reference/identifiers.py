"""Identifiers of records, agents and atoms (Definition 2.1's Args_t and Ags, Prop_t).

Kept apart from the records so formulas, which are built from identifiers, and records,
whose claims are formulas, import in one direction.
"""

from __future__ import annotations

import re

__all__ = ["AgentId", "RecordId", "is_identifier"]

RecordId = str
"""A record's unique identifier; distinct identifiers stay distinct even when claims coincide."""

AgentId = str
"""An agent of Ags."""

_IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:'\-]{0,127}")


def is_identifier(text: object) -> bool:
    """Check that ``text`` is a well-formed record, agent or atom identifier."""
    return isinstance(text, str) and _IDENTIFIER.fullmatch(text) is not None
