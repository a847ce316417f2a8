"""DF-QuAD and Max-QuAD on QBAFs, cross-checked against an independent implementation."""

from __future__ import annotations

from fractions import Fraction

import pytest
from argumentation.gradual.dfquad import dfquad_strengths
from argumentation.gradual.gradual import WeightedBipolarGraph
from hypothesis import given

from gcv.spec.lineage.dfquad import (
    QBAF,
    check_strength,
    compute_combination,
    compute_dfquad_strengths,
    compute_layers,
    compute_maxquad_strengths,
    compute_probabilistic_sum,
    compute_topological_order,
    is_multilayer,
)
from gcv.spec.lineage.errors import CycleError, LineageError, MalformedQBAFError, StrengthError
from tests.lineage.lineage_strategies import dags

F = Fraction


@given(dags(max_nodes=7, number="float"))
def test_dfquad_agrees_with_formal_argumentation(qbaf: QBAF) -> None:
    """Random acyclic QBAFs: our DF-QuAD equals ``argumentation.gradual.dfquad`` (Rago et al.)."""
    graph = WeightedBipolarGraph(
        arguments=frozenset(qbaf.base),
        initial_weights=dict(qbaf.base),
        attacks=qbaf.attacks,
        supports=qbaf.supports,
    )
    theirs = dfquad_strengths(graph).strengths
    ours = compute_dfquad_strengths(qbaf)
    for node, value in ours.items():
        assert abs(value - theirs[node]) < 1e-9, (node, value, theirs[node])


@given(dags(max_nodes=6))
def test_exact_and_float_evaluation_agree(qbaf: QBAF) -> None:
    exact = compute_dfquad_strengths(qbaf)
    floats = compute_dfquad_strengths(
        QBAF(qbaf.topic, {n: float(v) for n, v in qbaf.base.items()}, qbaf.supports, qbaf.attacks)
    )
    assert all(abs(exact[n] - floats[n]) < 1e-12 for n in exact)
    assert all(0 <= v <= 1 for v in exact.values())


def test_dfquad_hand_computed() -> None:
    # Rago et al.'s combination on both branches, computed by hand
    assert compute_probabilistic_sum([F(1, 5), F(1, 2)]) == F(3, 5)
    assert compute_probabilistic_sum([]) == 0
    assert compute_combination(F(1, 2), F(3, 5), F(1, 5)) == F(1, 2) - F(1, 2) * F(2, 5)
    assert compute_combination(F(4, 5), F(1, 5), F(1, 2)) == F(4, 5) + F(1, 5) * F(3, 10)
    assert compute_combination(F(1, 3), F(1, 4), F(1, 4)) == F(1, 3)


def test_maxquad_ignores_inputs_below_the_maximum() -> None:
    qbaf = QBAF(
        "t",
        {"t": F(1, 2), "a": F(4, 5), "b": F(1, 5)},
        supports=frozenset({("a", "t"), ("b", "t")}),
    )
    assert compute_maxquad_strengths(qbaf)["t"] == F(1, 2) + F(1, 2) * F(4, 5)
    assert compute_dfquad_strengths(qbaf)["t"] > compute_maxquad_strengths(qbaf)["t"]


def test_cycle_raises_typed_error_with_the_cycle() -> None:
    qbaf = QBAF(
        "t",
        {"t": F(1, 2), "a": F(1, 2), "b": F(1, 2)},
        supports=frozenset({("a", "b"), ("b", "a"), ("a", "t")}),
    )
    with pytest.raises(CycleError) as caught:
        compute_dfquad_strengths(qbaf)
    cycle = caught.value.cycle
    assert cycle[0] == cycle[-1] and set(cycle) == {"a", "b"}
    assert isinstance(caught.value, LineageError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("kwargs", "error", "fragment"),
    [
        ({"base": {"t": F(3, 2)}}, StrengthError, "base score of 't'"),
        ({"base": {"t": -0.1}}, StrengthError, "base score of 't'"),
        ({"base": {"t": float("nan")}}, StrengthError, "finite"),
        ({"base": {"t": "high"}}, StrengthError, "real number"),
        ({"base": {"t": True}}, StrengthError, "real number"),
        ({"base": {"a": F(1, 2)}}, MalformedQBAFError, "topic 't'"),
        ({"supports": frozenset({("x", "t")})}, MalformedQBAFError, "unknown node 'x'"),
        ({"supports": frozenset({("t", "t")})}, MalformedQBAFError, "self-loop"),
        (
            {"supports": frozenset({("a", "t")}), "attacks": frozenset({("a", "t")})},
            MalformedQBAFError,
            "both supports and attacks",
        ),
        ({"roots": {"z": "r"}}, MalformedQBAFError, "unknown node 'z'"),
        ({"contents": {"a": ""}}, MalformedQBAFError, "non-empty"),
    ],
)
def test_malformed_qbaf_raises_named_error(
    kwargs: dict[str, object], error: type[Exception], fragment: str
) -> None:
    fields: dict[str, object] = {"topic": "t", "base": {"t": F(1, 2), "a": F(1, 2)}}
    fields.update(kwargs)
    with pytest.raises(error, match=fragment):
        QBAF(**fields)  # type: ignore[arg-type]


def test_check_strength_accepts_the_closed_interval() -> None:
    assert check_strength(0, "s") == 0 and check_strength(1, "s") == 1
    assert isinstance(check_strength(1, "s"), Fraction)
    with pytest.raises(StrengthError):
        check_strength(1.0000001, "s")


def test_layers_and_multilayer() -> None:
    diamond = QBAF(
        "t",
        {"t": F(1, 2), "a": F(1, 2), "b": F(1, 2), "c": F(1, 2)},
        supports=frozenset({("a", "t"), ("b", "t"), ("c", "a"), ("c", "b")}),
    )
    assert compute_layers(diamond) == {"t": 0, "a": 1, "b": 1, "c": 2}
    skip = QBAF(
        "t",
        {"t": F(1, 2), "a": F(1, 2), "c": F(1, 2)},
        supports=frozenset({("a", "t"), ("c", "a"), ("c", "t")}),
    )
    assert not is_multilayer(skip)
    assert compute_topological_order(diamond)[-1] == "t"
