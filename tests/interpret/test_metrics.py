"""Multi-label F1 and exact match: hand-counted cases and an independent recount."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv.interpret.metrics import LabelPair, score
from gcv.interpret.validate import OPERATION_NAMES


def _pair(gold: str, predicted: str) -> LabelPair:
    return frozenset(gold.split()), frozenset(predicted.split())


def test_a_hand_counted_example() -> None:
    # T1 misses question; T2 exact; T3 adds revise; T4 predicts nothing for one label.
    pairs = [
        _pair("observe question", "observe"),
        _pair("revise", "revise"),
        _pair("hypothesize", "hypothesize revise"),
        _pair("resolve", ""),
    ]
    s = score(pairs)
    # TP = 1 + 1 + 1 + 0 = 3; FP = 1 (revise at T3); FN = 1 + 1 = 2 (question, resolve).
    assert (s.true_positives, s.false_positives, s.false_negatives) == (3, 1, 2)
    assert s.f1 == pytest.approx(6 / 9)  # 2 * 3 / (2 * 3 + 1 + 2)
    assert s.exact_match == pytest.approx(1 / 4)


def test_an_unknown_label_counts_as_a_false_positive() -> None:
    s = score([_pair("observe", "observe conclude")])
    assert (s.true_positives, s.false_positives, s.false_negatives) == (1, 1, 0)
    assert s.f1 == pytest.approx(2 / 3) and s.exact_match == 0.0


def test_no_turns_has_no_score() -> None:
    s = score([])
    assert s.f1 is None and s.exact_match is None


def test_turns_with_no_labels_on_either_side_are_perfect() -> None:
    s = score([_pair("", ""), _pair("", "")])
    assert s.f1 == 1.0 and s.exact_match == 1.0


def test_predicting_nothing_scores_zero() -> None:
    s = score([_pair("observe", ""), _pair("question revise", "")])
    assert s.f1 == 0.0 and s.exact_match == 0.0


_labels = st.frozensets(st.sampled_from([*OPERATION_NAMES, "conclude"]), max_size=4)
_pairs = st.lists(st.tuples(_labels, _labels), max_size=12)


@pytest.mark.slow
@given(_pairs)
def test_micro_f1_pools_every_labels_confusion_counts(pairs: list[LabelPair]) -> None:
    # Recount label by label, as per-label binary decisions over the turns, then pool.
    vocabulary = set().union(*(g | p for g, p in pairs)) if pairs else set()
    tp = sum(1 for label in vocabulary for g, p in pairs if label in g and label in p)
    fp = sum(1 for label in vocabulary for g, p in pairs if label in p and label not in g)
    fn = sum(1 for label in vocabulary for g, p in pairs if label in g and label not in p)
    s = score(pairs)
    assert (s.true_positives, s.false_positives, s.false_negatives) == (tp, fp, fn)
    if pairs and tp + fp + fn:
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        harmonic = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        assert s.f1 == pytest.approx(harmonic)


@pytest.mark.slow
@given(_pairs)
def test_f1_is_symmetric_and_perfect_only_on_exact_agreement(pairs: list[LabelPair]) -> None:
    s = score(pairs)
    swapped = score([(p, g) for g, p in pairs])
    assert s.f1 == swapped.f1 and s.exact == swapped.exact
    if pairs:
        assert (s.f1 == 1.0) == all(g == p for g, p in pairs) == (s.exact_match == 1.0)
