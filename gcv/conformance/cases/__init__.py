"""The cases of the vector suite, written by running them against the reference.

- :mod:`.operations`, :mod:`.preconditions`, :mod:`.turns`, :mod:`.queries`,
  :mod:`.interactions`, :mod:`.choices`: hand-written cases, one decorated function each
  (:mod:`.registry`);
- :mod:`.epistemic_operations`, :mod:`.epistemic_preconditions`,
  :mod:`.epistemic_queries`, :mod:`.epistemic_cells`, :mod:`.epistemic_paper`: the same
  for the epistemic layer,
  M_t, whose answers :mod:`.oracle` recomputes with ``gcv.spec.epistemic``;
- :mod:`.traces`: the Phase 1, 2 and 3 scenarios, and the hook that turns any
  trace (a counterexample from ``proofs/``, say) into a case;
- :mod:`.realise`: a conversation that builds a given dependency map (a decoded
  counterexample), as a trace, and :mod:`.scenario_maps`, a scenario's final map built
  by one that makes no choice;
- :func:`.builder.rederive`: fresh expectations for cases whose requests are
  the source (fuzz findings, imported traces).
"""

from __future__ import annotations

from gcv.conformance.cases import (
    choices,
    epistemic_cells,
    epistemic_operations,
    epistemic_paper,
    epistemic_preconditions,
    epistemic_queries,
    interactions,
    operations,
    preconditions,
    queries,
    turns,
)
from gcv.conformance.cases.builder import CaseBuilder, CaseError, rederive
from gcv.conformance.cases.realise import Unrealisable, trace_from_map
from gcv.conformance.cases.registry import REGISTRY, declared
from gcv.conformance.cases.traces import case_from_trace, scenario_cases
from gcv.conformance.vectors import Case

__all__ = [
    "REGISTRY",
    "CaseBuilder",
    "CaseError",
    "Unrealisable",
    "case_from_trace",
    "hand_written_cases",
    "rederive",
    "scenario_cases",
    "trace_from_map",
]

# Imported for their declarations; the order is the order of the files.
_MODULES = (
    operations,
    preconditions,
    turns,
    queries,
    interactions,
    choices,
    epistemic_operations,
    epistemic_preconditions,
    epistemic_queries,
    epistemic_cells,
    epistemic_paper,
)


def hand_written_cases() -> list[Case]:
    """Every hand-written case, built (and so checked) now."""
    return declared(REGISTRY)
