"""Which of the reference's choices a step's expected outcome depends on: its profile.

A step belongs to the ``paper`` profile when no chosen clause of ``spec/transition.py``
decides its outcome, and to the ``reference`` profile otherwise.  What a chosen clause's
alternative could change is its ``affects`` (:data:`spec.clauses.Affects`), so a step
depends on:

- an ``apply`` step: the choices its own turn exercised that could change whether the
  turn is accepted or which error it reports (``outcome``, ``error``); every ``outcome``
  choice of an earlier turn (its alternative could have left another D_t); and every
  ``model`` choice of an earlier turn when the turn acts on M_t;
- a query: every ``outcome`` choice of an earlier turn, and the earlier choices that
  change what the query reads (``commitments`` for Cm_t, ``record-fields`` for the state
  dump's kinds and turn numbers, ``model`` for the queries on M_t, and ``problems`` too
  for ``unexplained``).

A refused turn carries its choices forward too (its alternative might have accepted it),
except those that only pick its error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reference.conformance.protocol import EPISTEMIC_QUERIES
from spec.clauses import CHOSEN, CLAUSES, Affects

__all__ = ["ChoiceHistory"]

# What each query reads besides the records, their standing, Dep and Att.
_READS: Mapping[str, frozenset[Affects]] = {
    "commitments": frozenset({"commitments"}),
    "state": frozenset({"commitments", "record-fields"}),
    **{query: frozenset({"model"}) for query in EPISTEMIC_QUERIES},
    "unexplained": frozenset({"model", "problems"}),
}


class ChoiceHistory:
    """The chosen clauses a case's turns so far have exercised, by what they affect."""

    def __init__(self) -> None:
        self._carried: dict[str, Affects] = {}

    def _earlier(self, reads: Iterable[Affects]) -> set[str]:
        wanted = {"outcome", *reads}
        return {c for c, affects in self._carried.items() if affects in wanted}

    def turn(self, clauses: Iterable[str], *, on_model: bool) -> tuple[str, ...]:
        """The choices an ``apply`` step depends on, given the clauses its turn exercised
        (``on_model``: the turn carries formulas or acts on records that do)."""
        own = {c: CLAUSES[c].affects for c in clauses if CLAUSES[c].source == CHOSEN}
        depends = {c for c, affects in own.items() if affects in ("outcome", "error")}
        depends |= self._earlier(("model",) if on_model else ())
        self._carried |= {c: affects for c, affects in own.items() if affects != "error"}
        return tuple(sorted(depends))

    def query(self, query: str) -> tuple[str, ...]:
        """The choices a query step depends on."""
        return tuple(sorted(self._earlier(_READS.get(query, frozenset()))))
