"""Which of the reference's choices a step's expected outcome depends on: its profile.

A step belongs to the ``paper`` profile when no chosen clause of ``spec/gcv/spec/transition.py``
decides its outcome, and to the ``reference`` profile otherwise.  What a chosen clause's
alternative could change is its ``affects`` (:data:`gcv.spec.clauses.Affects`), so a step
depends on:

- an ``apply`` step: the choices its own turn exercised that could change whether the
  turn is accepted or which error it reports (``outcome``, ``error``); every ``outcome``
  choice of an earlier turn (its alternative could have left another D_t); and every
  ``model`` choice of an earlier turn when the turn acts on M_t;
- a query: every ``outcome`` choice of an earlier turn, and the earlier choices that
  change what the query reads (``commitments`` for Cm_t, ``dissent`` for the recorded
  dissent, ``record-fields`` for the state dump's kinds and turn numbers, ``model`` for
  the queries on M_t, and ``problems`` too for ``unexplained``).

A refused turn carries its choices forward too (its alternative might have accepted it),
except those that only pick its error.  One query is finer: until the next turn, the
``standing`` of a record that no operation of the last turn could register or relabel does
not depend on that turn's own choices (Table 3: only Undermine, Revise and Resolve relabel,
their target; Support changes no label), so the alternative reading of a Support of a
weakened record leaves the record's standing to the paper.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gcv.conformance.protocol import RECORD_SET_QUERIES
from gcv.spec.clauses import CHOSEN, CLAUSES, UNREGISTERED_RECORD, Affects
from gcv.trace import EPISTEMIC_QUERIES

__all__ = ["ChoiceHistory", "labelled_by"]

# What each query reads besides the records, their standing, Dep and Att.
_READS: Mapping[str, frozenset[Affects]] = {
    "commitments": frozenset({"commitments"}),
    "dissenters": frozenset({"dissent"}),
    "state": frozenset({"commitments", "record-fields", "dissent"}),
    **{query: frozenset({"model"}) for query in EPISTEMIC_QUERIES},
    "unexplained": frozenset({"model", "problems"}),
}


# The operations that label their target (Table 3); every operation labels what it registers.
_RELABELLING = frozenset({"undermine", "revise", "resolve"})


def labelled_by(operations: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The records a turn's operations could register or relabel, under any reading."""
    named: set[str] = set()
    for op in operations:
        fields = ("id", "evidence", *(("target",) if op.get("op") in _RELABELLING else ()))
        named |= {op[f] for f in fields if isinstance(op.get(f), str)}
    return frozenset(named)


class ChoiceHistory:
    """The chosen clauses a case's turns so far have exercised, by what they affect."""

    def __init__(self) -> None:
        self._carried: dict[str, Affects] = {}
        # The choices carried before the last turn, and the records that turn could label.
        self._before_last: dict[str, Affects] = {}
        self._last_labelled: frozenset[str] = frozenset()

    def _earlier(
        self, reads: Iterable[Affects], carried: Mapping[str, Affects] | None = None
    ) -> set[str]:
        wanted = {"outcome", *reads}
        pool = self._carried if carried is None else carried
        return {c for c, affects in pool.items() if affects in wanted}

    def turn(
        self, clauses: Iterable[str], *, on_model: bool, labelled: frozenset[str] = frozenset()
    ) -> tuple[str, ...]:
        """The choices an ``apply`` step depends on, given the clauses its turn exercised
        (``on_model``: the turn carries formulas or acts on records that do; ``labelled``:
        the records its operations could register or relabel, :func:`labelled_by`)."""
        own = {c: CLAUSES[c].affects for c in clauses if CLAUSES[c].source == CHOSEN}
        depends = {c for c, affects in own.items() if affects in ("outcome", "error")}
        depends |= self._earlier(("model",) if on_model else ())
        self._before_last = dict(self._carried)
        self._last_labelled = labelled
        self._carried |= {c: affects for c, affects in own.items() if affects != "error"}
        return tuple(sorted(depends))

    def query(
        self, query: str, record: str | None = None, *, registered: bool = True
    ) -> tuple[str, ...]:
        """The choices a query step depends on (``record``: the record it asks about;
        ``registered``: whether it is in Args_t).  A set query about an unregistered
        record rests on ``query.record-registered`` too."""
        reads = _READS.get(query, frozenset())
        own = {UNREGISTERED_RECORD} if query in RECORD_SET_QUERIES and not registered else set()
        if query == "standing" and record not in self._last_labelled:
            return tuple(sorted(self._earlier(reads, self._before_last) | own))
        return tuple(sorted(self._earlier(reads) | own))
