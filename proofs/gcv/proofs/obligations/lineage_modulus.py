"""Replication or Corroboration?, Section 6.1 / Appendix B.5: the DF-QuAD response modulus,
over the reals, registered with the suite (the encoding is ``gcv.proofs.lineage_modulus``)."""

from __future__ import annotations

from gcv.proofs.lineage_modulus import (
    decode_counterexample,
    prove_response_modulus,
    prove_response_modulus_without_freshness,
    replay_counterexample,
)
from gcv.proofs.registry import Budget, Check, Obligation, Twin

__all__ = ["OBLIGATION"]


def _twin(budget: Budget) -> Twin:
    result = prove_response_modulus_without_freshness(budget.timeout_ms)
    if result.model is None:
        return Twin("the report is not fresh (a root replica)", result)
    values = ", ".join(f"{k} = {v}" for k, v in decode_counterexample(result.model).items())
    return Twin(
        "the report is not fresh (a root replica)",
        result,
        f"{values}: the spec's lineage scores miss the bound",
        replay_counterexample(result.model),
    )


OBLIGATION = Obligation(
    id="lineage-modulus",
    statement="Replication or Corroboration?, Section 6.1 / B.5: a fresh direct root moves "
    "LQ-DF-QuAD by at least t(1 - v_s) min{v0, 1 - v0} (attacker alike), tightly",
    bound=lambda budget: "unbounded (reals)",
    checks=lambda budget: [
        Check("star reduction and modulus", prove_response_modulus(budget.timeout_ms))
    ],
    twins=lambda budget: [_twin(budget)],
)
