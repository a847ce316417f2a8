"""Section 6.1 and Appendix B.5: the DF-QuAD response modulus for direct stars, over the reals.

Statement.  Let a direct star have topic base ``v0`` and supporter and
attacker aggregates ``v_s`` and ``v_a`` (all in [0, 1]), and let a report
of strength ``t`` in [0, 1] join it.  If the report opens a fresh root, then
under the lineage quotient

* as a supporter it raises the DF-QuAD score by at least
  ``t (1 - v_s) min{v0, 1 - v0}``, and as an attacker it lowers it by at
  least ``t (1 - v_a) min{v0, 1 - v0}``;
* both bounds are attained whenever the move stays on the side of the
  smaller slope (tightness);
* the move is strict once ``t > 0``, the same-side aggregate is below 1 and
  ``0 < v0 < 1`` (Proposition 4).

Two obligations discharge it, both in nonlinear real arithmetic:

1. *star reduction*: for a star with up to :data:`STAR_LEAVES` supporters and
   attackers (a strength-0 leaf is an absent one), the probabilistic-sum
   aggregates lie in [0, 1] and a fresh leaf of strength ``t`` maps ``v``
   to ``1 - (1 - v)(1 - t)``; Section 5 notes that on direct stars
   LQ-DF-QuAD depends on nothing but ``v0`` and the two aggregates;
2. *modulus*: the three claims above at the level of ``(v0, v_s, v_a, t)``.

The non-vacuity twin drops the hypothesis that the report is fresh: a root
replica leaves the lineage aggregate unchanged, and the solver must find a
profile where the bound then fails; :func:`replay_counterexample` rebuilds
that profile in ``gcv.spec.lineage`` and confirms the failure there.
"""

from __future__ import annotations

from fractions import Fraction

import z3

from gcv.proofs.solver import CheckResult, Outcome, prove
from gcv.spec.lineage.dfquad import Sign
from gcv.spec.lineage.model import compute_extension, make_relay, make_units_profile
from gcv.spec.lineage.quotient import judge_lineage_dfquad
from gcv.spec.lineage.response import compute_response_modulus

__all__ = [
    "STAR_LEAVES",
    "decode_counterexample",
    "encode_combination",
    "prove_response_modulus",
    "prove_response_modulus_without_freshness",
    "replay_counterexample",
]

STAR_LEAVES = 3
"""Leaves per side of the explicit stars in the reduction obligation."""


def encode_combination(base: z3.ArithRef, attack: z3.ArithRef, support: z3.ArithRef) -> z3.ArithRef:
    """DF-QuAD's combination as a Z3 term (mirrors ``gcv.spec.lineage.compute_combination``)."""
    result: z3.ArithRef = z3.If(
        attack >= support, base - base * (attack - support), base + (1 - base) * (support - attack)
    )
    return result


def _unit(x: z3.ArithRef) -> z3.BoolRef:
    result: z3.BoolRef = z3.And(x >= 0, x <= 1)
    return result


def _product(values: list[z3.ArithRef]) -> z3.ArithRef:
    product: z3.ArithRef = z3.RealVal(1, values[0].ctx)
    for value in values:
        product = product * value
    return product


def _star_reduction(context: z3.Context) -> tuple[list[z3.BoolRef], z3.BoolRef]:
    """Obligation 1: explicit stars have aggregates in [0, 1]; a fresh leaf's effect on them."""
    supports = [z3.Real(f"s{i}", context) for i in range(STAR_LEAVES)]
    attacks = [z3.Real(f"a{i}", context) for i in range(STAR_LEAVES)]
    t = z3.Real("t", context)
    hypotheses = [_unit(x) for x in (*supports, *attacks, t)]
    rest_s = _product([1 - s for s in supports])
    rest_a = _product([1 - a for a in attacks])
    v_s, v_a = 1 - rest_s, 1 - rest_a
    conclusion = z3.And(
        _unit(v_s),
        _unit(v_a),
        1 - rest_s * (1 - t) == 1 - (1 - v_s) * (1 - t),
        1 - rest_a * (1 - t) == 1 - (1 - v_a) * (1 - t),
    )
    return hypotheses, conclusion


def _modulus(with_freshness: bool, context: z3.Context) -> tuple[list[z3.BoolRef], z3.BoolRef]:
    """Obligation 2: the modulus, its tightness and strictness, on (v0, v_s, v_a, t)."""
    v0, v_s, v_a, t = z3.Reals("v0 v_s v_a t", context)
    v_s2, v_a2 = z3.Reals("v_s_after v_a_after", context)
    fresh = z3.Bool("fresh", context)
    half = z3.RealVal(Fraction(1, 2), context)
    hypotheses = [
        _unit(v0),
        _unit(v_s),
        _unit(v_a),
        _unit(t),
        # The lineage aggregate after the report: a fresh root opens a unit; a
        # root replica (no new unit, no new strength) is absorbed.
        v_s2 == z3.If(fresh, 1 - (1 - v_s) * (1 - t), v_s),
        v_a2 == z3.If(fresh, 1 - (1 - v_a) * (1 - t), v_a),
    ]
    if with_freshness:
        hypotheses.append(fresh)
    small = z3.If(v0 <= 1 - v0, v0, 1 - v0)
    before = encode_combination(v0, v_a, v_s)
    rise = encode_combination(v0, v_a, v_s2) - before
    fall = before - encode_combination(v0, v_a2, v_s)
    bound_s = t * (1 - v_s) * small
    bound_a = t * (1 - v_a) * small
    conclusion = z3.And(
        rise >= bound_s,
        fall >= bound_a,
        z3.Implies(
            z3.Or(z3.And(v0 <= half, v_a >= v_s2), z3.And(v0 >= half, v_s >= v_a)),
            rise == bound_s,
        ),
        z3.Implies(
            z3.Or(z3.And(v0 <= half, v_s <= v_a), z3.And(v0 >= half, v_a2 <= v_s)),
            fall == bound_a,
        ),
        z3.Implies(z3.And(t > 0, v_s < 1, v0 > 0, v0 < 1), rise > 0),
        z3.Implies(z3.And(t > 0, v_a < 1, v0 > 0, v0 < 1), fall > 0),
    )
    return hypotheses, conclusion


def prove_response_modulus(timeout_ms: int = 20_000) -> CheckResult:
    """Section 6.1 / B.5. Prove the modulus for direct stars; expected ``PROVED``.

    Both obligations must be proved; the result reports the first that is
    not, or ``PROVED`` with their total time.  Each is built in a fresh Z3
    context, so nothing else the process has built changes how it is decided.
    """
    seconds = 0.0
    for hypotheses, conclusion in (
        _star_reduction(z3.Context()),
        _modulus(with_freshness=True, context=z3.Context()),
    ):
        result = prove(hypotheses, conclusion, timeout_ms=timeout_ms)
        seconds += result.seconds
        if result.outcome is not Outcome.PROVED:
            return result
    return CheckResult(Outcome.PROVED, seconds)


def prove_response_modulus_without_freshness(timeout_ms: int = 20_000) -> CheckResult:
    """The non-vacuity twin: drop "the report is fresh"; expected ``COUNTEREXAMPLE``."""
    hypotheses, conclusion = _modulus(with_freshness=False, context=z3.Context())
    return prove(hypotheses, conclusion, timeout_ms=timeout_ms)


def decode_counterexample(model: z3.ModelRef) -> dict[str, Fraction | bool]:
    """Read ``v0``, ``v_s``, ``v_a``, ``t`` (exact rationals) and ``fresh`` from a twin's model."""
    values: dict[str, Fraction | bool] = {}
    for name in ("v0", "v_s", "v_a", "t"):
        value = model.eval(z3.Real(name, model.ctx), model_completion=True)
        if not z3.is_rational_value(value):
            raise ValueError(f"{name} = {value} is not rational; cannot replay it exactly")
        values[name] = Fraction(value.numerator_as_long(), value.denominator_as_long())
    values["fresh"] = z3.is_true(model.eval(z3.Bool("fresh", model.ctx), model_completion=True))
    return values


def replay_counterexample(model: z3.ModelRef) -> bool:
    """Rebuild the twin's counterexample in ``gcv.spec.lineage`` and confirm the bound fails there.

    The star has one supporter unit of strength ``v_s`` and one attacker unit
    of strength ``v_a`` (aggregates of single units); the report is a relay
    of one of them (a root replica, since the twin's report is not fresh).
    Returns ``True`` when the spec's lineage scores violate the statement.
    """
    values = decode_counterexample(model)
    if values["fresh"]:
        return False
    v0, v_s, v_a, t = (values[k] for k in ("v0", "v_s", "v_a", "t"))
    assert isinstance(v0, Fraction) and isinstance(v_s, Fraction)
    assert isinstance(v_a, Fraction) and isinstance(t, Fraction)
    profile = make_units_profile(v0, [(Sign.SUPPORT, v_s), (Sign.ATTACK, v_a)])
    before = judge_lineage_dfquad(profile)
    supporter, attacker = profile.occurrences
    rise = judge_lineage_dfquad(compute_extension(profile, make_relay(supporter, "relay"))) - before
    fall = before - judge_lineage_dfquad(compute_extension(profile, make_relay(attacker, "relay")))
    return bool(
        rise < compute_response_modulus(v0, v_s, t) or fall < compute_response_modulus(v0, v_a, t)
    )
