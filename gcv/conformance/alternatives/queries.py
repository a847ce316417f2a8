"""Readings of the chosen clauses on the queries: ``query.record-registered``."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from gcv.conformance.alternatives.patching import VERIFIER, decided, together, wrapped
from gcv.conformance.protocol import RECORD_SET_QUERIES


def unregistered_record_answers_empty(name: str, making: bool) -> AbstractContextManager[None]:
    """A set query about an unregistered record answers the empty set."""

    def wrap(original: Any) -> Any:
        def answer(self: Any, record: Any) -> Any:
            if record in self.state.records:
                return original(self, record)
            decided(name, record)
            return () if making else original(self, record)

        return answer

    return together(*(lambda q=q: wrapped(VERIFIER, q, wrap) for q in sorted(RECORD_SET_QUERIES)))
