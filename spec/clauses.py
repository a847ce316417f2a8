"""Where each rule of the transition comes from: the paper, or a choice of the reference.

Every precondition, effect and ordering rule of :mod:`gcv.spec.transition` is a
:class:`Clause` with a stable identifier.  A clause's ``source`` is ``paper``
(``place`` cites the section, table, proof or scenario turn that states it) or
``chosen`` (``place`` gives the reason, and ``alternative`` names the reading
a paper-faithful implementation could make instead, where one exists).

The registry fills as :mod:`gcv.spec.transition` is imported (each clause is declared
beside the check or effect that cites it).  ``spec/normative.md`` has one entry per
clause, headed by its identifier;
``tests/test_transition.py`` checks that the two list the same clauses with the
same sources.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

__all__ = ["CHOSEN", "CLAUSES", "PAPER", "Affects", "Clause", "Source", "clause"]

Source = Literal["paper", "chosen"]
PAPER: Source = "paper"
CHOSEN: Source = "chosen"

Affects = Literal["outcome", "error", "commitments", "record-fields", "model", "problems", "answer"]
"""What a choice's alternative could change: ``outcome``, whether the turn is accepted and
so everything after it; ``error``, only which error a refused turn reports (it is refused,
and D_t unchanged, either way); ``commitments``, Cm_t; ``record-fields``, a record's kind
or turn number; ``model``, M_t (and so the problem queue); ``problems``, only the queue of
abductive problems; ``answer``, only the answer of the query that exercises it (a query
changes nothing)."""


@dataclass(frozen=True)
class Clause:
    """One rule of the transition and where it comes from.

    Attributes
    ----------
    id:
        Stable identifier, ``<part>.<operation or topic>.<rule>``, e.g.
        ``T3.undermine.target-standing``.
    source:
        ``paper`` or ``chosen``.
    place:
        For ``paper``, where the text states it; for ``chosen``, why the reference chose it.
    rule:
        What the clause requires or does, in one sentence.
    alternative:
        For ``chosen``: the other reading an implementation faithful to the paper may make.
    affects:
        For ``chosen``: what the alternative could change (:data:`Affects`).
    """

    id: str
    source: Source
    place: str
    rule: str
    alternative: str | None = None
    affects: Affects = "outcome"


_REGISTRY: dict[str, Clause] = {}

CLAUSES: Mapping[str, Clause] = MappingProxyType(_REGISTRY)
"""Every clause of the transition, by identifier."""


def clause(
    id: str,
    source: Source,
    place: str,
    rule: str,
    alternative: str | None = None,
    affects: Affects = "outcome",
) -> str:
    """Register a clause and return its identifier (for the check or effect that cites it)."""
    assert id not in _REGISTRY, f"clause {id} is declared twice"
    assert (alternative is None) or source == CHOSEN, f"{id}: only a choice has an alternative"
    _REGISTRY[id] = Clause(id, source, place, rule, alternative, affects)
    return id
