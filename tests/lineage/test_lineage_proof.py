"""The Z3 proof of the response modulus (proofs.lineage_modulus) and its non-vacuity twin."""

from __future__ import annotations

from fractions import Fraction

import pytest
import z3
from hypothesis import given
from hypothesis import strategies as st

from gcv.proofs.lineage_modulus import (
    decode_counterexample,
    encode_combination,
    prove_response_modulus,
    prove_response_modulus_without_freshness,
    replay_counterexample,
)
from gcv.proofs.solver import Outcome
from gcv.spec.lineage.dfquad import compute_combination

unit = st.fractions(min_value=0, max_value=1, max_denominator=40)


@pytest.mark.slow
def test_modulus_is_proved() -> None:
    result = prove_response_modulus(timeout_ms=20_000)
    assert result.outcome is Outcome.PROVED, result


def test_twin_without_freshness_has_a_counterexample_the_spec_confirms() -> None:
    result = prove_response_modulus_without_freshness(timeout_ms=20_000)
    assert result.outcome is Outcome.COUNTEREXAMPLE, result
    assert result.model is not None
    assert decode_counterexample(result.model)["fresh"] is False
    assert replay_counterexample(result.model)


@pytest.mark.slow
@given(unit, unit, unit)
def test_encoding_is_the_spec_combination(
    base: Fraction, attack: Fraction, support: Fraction
) -> None:
    term = encode_combination(z3.RealVal(base), z3.RealVal(attack), z3.RealVal(support))
    value = z3.simplify(term)
    assert Fraction(value.numerator_as_long(), value.denominator_as_long()) == compute_combination(
        base, attack, support
    )
