"""Multi-label F1 and exact match over per-turn operation labels (Table 2).

Each turn contributes a pair (gold, predicted) of *label sets*: the names of
the operations the turn was interpreted as, without multiplicity (B.2's
"Observe x4" is one ``observe`` label; how many records a turn registers is
proposition extraction, not classification).  F1 is micro-averaged over all
(turn, label) decisions; exact match is the fraction of turns whose predicted
set equals the gold set.  The choices and their reasons are in
``docs/interpreter.md`` and ``spec/gcv/spec/normative.md`` ("Interpreter evaluation").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import icontract

__all__ = ["LabelPair", "Scores", "score"]

LabelPair = tuple[frozenset[str], frozenset[str]]
"""(gold labels, predicted labels) of one turn."""


@dataclass(frozen=True, slots=True)
class Scores:
    """The counts behind micro-F1 and exact match over a set of turns.

    ``true_positives`` counts (turn, label) pairs in both sets,
    ``false_positives`` those only predicted, ``false_negatives`` those only in
    gold; ``exact`` counts turns whose two sets are equal.
    """

    turns: int
    exact: int
    true_positives: int
    false_positives: int
    false_negatives: int

    @property
    def f1(self) -> float | None:
        """Micro-F1 = 2TP / (2TP + FP + FN); 1.0 when no turn has a label; None with no turns."""
        if self.turns == 0:
            return None
        denominator = 2 * self.true_positives + self.false_positives + self.false_negatives
        # Every turn agreed on the empty set: nothing was missed or invented.
        return 1.0 if denominator == 0 else 2 * self.true_positives / denominator

    @property
    def exact_match(self) -> float | None:
        """The fraction of turns predicted exactly; None with no turns."""
        return None if self.turns == 0 else self.exact / self.turns


def _is_consistent(pairs: Sequence[LabelPair], result: Scores) -> bool:
    gold = sum(len(g) for g, _ in pairs)
    predicted = sum(len(p) for _, p in pairs)
    return (
        result.turns == len(pairs)
        and 0 <= result.exact <= result.turns
        and result.true_positives + result.false_negatives == gold
        and result.true_positives + result.false_positives == predicted
    )


def _is_unit_interval(value: float | None) -> bool:
    return value is None or 0.0 <= value <= 1.0


@icontract.ensure(
    lambda pairs, result: _is_consistent(pairs, result),
    "TP + FN counts the gold labels, TP + FP the predicted ones, one pair per turn",
)
@icontract.ensure(lambda result: _is_unit_interval(result.f1), "F1 lies in [0, 1]")
def score(pairs: Sequence[LabelPair]) -> Scores:
    """Count micro-F1 and exact-match statistics over ``(gold, predicted)`` label sets.

    Parameters
    ----------
    pairs:
        One ``(gold, predicted)`` pair of label sets per turn.

    Returns
    -------
    Scores
        The counts; :attr:`Scores.f1` and :attr:`Scores.exact_match` derive from them.

    Notes
    -----
    Micro-averaging sums TP, FP and FN over every turn and label before taking
    F1, so each (turn, label) decision weighs the same; it equals the F1 of
    the turns' binary label-indicator vectors pooled together.

    Examples
    --------
    >>> s = score([(frozenset({"observe", "question"}), frozenset({"observe"})),
    ...            (frozenset({"revise"}), frozenset({"revise"}))])
    >>> s.true_positives, s.false_positives, s.false_negatives, s.exact
    (2, 0, 1, 1)
    >>> round(s.f1, 4), s.exact_match
    (0.8, 0.5)
    """
    turns = exact = tp = fp = fn = 0
    for gold, predicted in pairs:
        turns += 1
        exact += gold == predicted
        tp += len(gold & predicted)
        fp += len(predicted - gold)
        fn += len(gold - predicted)
    return Scores(turns, exact, tp, fp, fn)
