"""Identifiers of records, agents and atoms (Definition 2.1's Args_t and Ags, Prop_t).

Kept apart from the records so formulas, which are built from identifiers, and records,
whose claims are formulas, import in one direction.
"""

from __future__ import annotations

import re
from collections.abc import Collection

__all__ = ["AgentId", "RecordId", "is_identifier", "name_list_problem"]

RecordId = str
"""A record's unique identifier; distinct identifiers stay distinct even when claims coincide."""

AgentId = str
"""An agent of Ags."""

_IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:'\-]{0,127}")


def is_identifier(text: object) -> bool:
    """Check that ``text`` is a well-formed record, agent or atom identifier."""
    return isinstance(text, str) and _IDENTIFIER.fullmatch(text) is not None


def name_list_problem(names: Collection[object]) -> str | None:
    """What keeps ``names`` from being a list of distinct identifiers (Ags, Prop_t, an
    operation's record lists), or None.

    >>> name_list_problem(["a", "b"]) is None
    True
    >>> name_list_problem(["a", "b c"])
    "'b c' is not a well-formed identifier"
    >>> name_list_problem(["a", "a"])
    "repeats a name: ['a', 'a']"
    """
    for name in names:
        if not is_identifier(name):
            return f"{name!r} is not a well-formed identifier"
    if len(set(names)) != len(names):
        return f"repeats a name: {list(names)!r}"
    return None
