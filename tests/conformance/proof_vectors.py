"""Import the non-vacuity counterexamples of ``proofs/`` as conformance vectors.

    .venv/bin/python -m tests.conformance.proof_vectors [--out spec/gcv/spec/vectors]

The twins of the bounded obligations (a walk with one pop too few, a walk without
the S_t check, Affected* stopped one round early, one-step Affected in place of
Affected*) come back with a counterexample map; each is decoded into the spec's
value, written as a conversation that builds it (``trace_from_map``), and added to
``findings/proofs.json`` as a case whose answers are the reference's: the correct
walk and Affected* on exactly the map that refutes the broken one.  An id already in
the file is kept as it is (ids are permanent); ``gcv vectors`` re-derives the
expectations from the requests on every run.

The unbounded obligations' twins decode a state and an operation inside ``proofs/``;
once ``proofs/`` exposes those decoded values, the same two steps (``trace_from_map``
for the state, then the operation as one more turn) make them vectors too.

This lives in ``tests/`` because it is where ``proofs/`` and ``reference/`` may meet.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from gcv.conformance.cases import case_from_trace, trace_from_map
from gcv.conformance.generate import DESCRIPTIONS
from gcv.conformance.vectors import (
    Case,
    default_directory,
    dump_vector_file,
    load_vector_file,
)
from gcv.proofs.obligations import bounded
from gcv.proofs.registry import Budget, Obligation

__all__ = ["counterexample_cases", "main"]

FILE = "findings/proofs.json"

_STATEMENTS = {
    bounded.WALK.id: ["Lemma 2.1"],
    bounded.AFFECTED.id: ["Definition 2.3", "Corollary 2.4"],
}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("*", " star")).strip("-")


def counterexample_cases(budget: Budget | None = None) -> list[Case]:
    """One case per refuted twin of the bounded obligations, built against the reference
    (the fast tier's bound unless ``budget`` says otherwise)."""
    budget = budget if budget is not None else Budget()
    cases = []
    obligations: tuple[Obligation, ...] = (bounded.WALK, bounded.AFFECTED)
    for obligation in obligations:
        for twin in obligation.twins(budget):
            if not twin.refuted or twin.result.model is None:
                continue
            d = bounded.Map.fresh(bounded.bound(budget)).decode(twin.result.model)
            name = f"{obligation.id}-{_slug(twin.name)}"
            description = (
                f"The counterexample that refutes the non-vacuity twin '{twin.name}' of "
                f"{obligation.id} ({twin.replay}): the map, built turn by turn, and the "
                "correct answers on it."
            )
            trace = trace_from_map(d, name=name, description=description)
            cases.append(
                case_from_trace(
                    json.dumps(trace),
                    f"findings/proofs/{name}",
                    description,
                    _STATEMENTS[obligation.id],
                    origin={"kind": "proof", "obligation": obligation.id, "twin": twin.name},
                    final_survey=("standing", "verify", "affected", "affected_star"),
                    tags=["counterexample"],
                )
            )
    return cases


def main() -> int:
    """Add the counterexample cases that are not yet in ``findings/proofs.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(default_directory()))
    path = Path(parser.parse_args().out) / FILE
    existing = list(load_vector_file(path.read_bytes(), FILE)) if path.is_file() else []
    known = {c.id for c in existing}
    added = [c for c in counterexample_cases() if c.id not in known]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_vector_file([*existing, *added], DESCRIPTIONS[FILE]), encoding="utf-8")
    for case in added:
        print(f"added {case.id}")
    print(f"{len(existing) + len(added)} cases in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
