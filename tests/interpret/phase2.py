"""Phase 2's gold replies, and a perturbed set whose scores are counted by hand below.

Gold label sets of Phase 2 (B.2, one per turn; 22 labels in all):

    T1 observe, question        T6 support, hypothesize, question    T10 question
    T2 observe, question        T7 observe, undermine                T11 hypothesize
    T3 observe                  T8 question                          T12 hypothesize, revise
    T4 expand-awareness, question  T9 revise                         T13 support, resolve
    T5 observe, hypothesize

Key shifts (standing or awareness changes, B.2): T4 (mis_monitor enters every A_i),
T7 (h2 weakened), T9 (h2 abandoned), T13 (h4 resolved); 7 gold labels.

The perturbation, turn by turn (every other turn is the gold reply):

    T1  drops the question                 classified {observe}            FN 1
    T9  Undermine h2 instead of Revise     classified {undermine}          FP 1, FN 1
    T11 Hypothesize citing record zz       classified right, but refused (unknown-record)
    T12 adds a Question                    classified +{question}          FP 1
    T13 not JSON                           classified {}                   FN 2

Classified, overall:  TP = 22 - 4 = 18, FP = 2, FN = 4; F1 = 36/42 = 6/7; EM = 9/13.
Classified, key shifts: T9 (FP 1, FN 1) and T13 (FN 2) of 7 labels: TP = 4, FP = 1, FN = 3;
    F1 = 8/12 = 2/3; EM = 2/4.
Applied adds T11's refusal (FN 1): TP = 17, FP = 2, FN = 5; F1 = 34/41; EM = 8/13;
    T11 is no key shift, so the key-shift cells equal the classified ones.
"""

from __future__ import annotations

import json
from fractions import Fraction
from importlib import resources

from gcv.trace import Trace, load_trace, operation_to_json

F1_CLASSIFIED, EM_CLASSIFIED = Fraction(6, 7), Fraction(9, 13)
F1_KEY, EM_KEY = Fraction(2, 3), Fraction(1, 2)
F1_APPLIED, EM_APPLIED = Fraction(34, 41), Fraction(8, 13)


def phase2() -> Trace:
    """The built-in Phase 2 trace."""
    path = resources.files("gcv.spec").joinpath("scenarios", "phase2-debugging.json")
    return load_trace(path.read_bytes())


def gold_operations() -> list[list[dict[str, object]]]:
    """Each turn's operations as JSON objects."""
    return [[operation_to_json(op) for op in t.turn.operations] for t in phase2().turns]


def gold_replies() -> list[str]:
    """The reply a perfect interpreter gives at each turn."""
    return [json.dumps({"operations": ops}) for ops in gold_operations()]


def perturbed_replies() -> list[str]:
    """The replies of the perturbation in the module docstring."""
    ops = gold_operations()
    ops[0] = [op for op in ops[0] if op["op"] != "question"]
    assert [op["op"] for op in ops[8]] == ["revise"]
    ops[8] = [{"op": "undermine", "target": "h2", "evidence": "o9"}]
    assert [op["op"] for op in ops[10]] == ["hypothesize"]
    ops[10] = [{**ops[10][0], "depends_on": ["zz"]}]
    ops[11] = [*ops[11], {"op": "question", "id": "q9", "claim": "is the direction reversed?"}]
    replies = [json.dumps({"operations": turn}) for turn in ops]
    replies[12] = "The chain is: token bug -> retries -> Redis -> Stripe."
    return replies
