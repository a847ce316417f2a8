"""Typed predicates that the conformance package's contracts forward to.

Each states, in one function mypy can check, what a contract's lambda claims.  The
ones that replay a conversation or re-parse a file run only under ``icontract.SLOW``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from gcv.reference.epistemic.formula import Formula, atoms_of, parse
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.errors import MalformedFormula
from gcv.reference.identifiers import RecordId
from gcv.reference.records import GOOD_STANDING, Standing
from gcv.replay import replay
from gcv.spec import core
from gcv.spec import epistemic as se
from gcv.trace import load_trace

__all__ = [
    "has_the_atoms_of",
    "has_unique_ids",
    "is_canonical_world_set_of",
    "is_model_over",
    "is_one_outcome",
    "is_ordered_subset",
    "is_outside_good_standing",
    "is_printed_form_of",
    "is_rebuilt_by",
    "is_reflexive_on_valuations",
    "is_round_trip",
]


def is_outside_good_standing(
    members: Collection[RecordId], standing: Mapping[RecordId, Standing]
) -> bool:
    """Check that no member lies in S_t."""
    return all(standing[m] not in GOOD_STANDING for m in members)


def is_one_outcome(expect: Mapping[str, Any]) -> bool:
    """Check that an expectation states exactly one outcome: accepted, rejected, result or error."""
    return len(expect) == 1 and set(expect) <= {"accepted", "rejected", "result", "error"}


def is_ordered_subset(chosen: Sequence[Any], pool: Sequence[Any]) -> bool:
    """Check that ``chosen`` is ``pool`` with some members left out, in ``pool``'s order."""
    members = iter(pool)
    return all(any(item is other for other in members) for item in chosen)


def has_unique_ids(cases: Sequence[Any]) -> bool:
    """Check that no two cases share an id."""
    return len({c.id for c in cases}) == len(cases)


def is_round_trip(text: str, cases: Sequence[Any]) -> bool:
    """Check that the vector file ``text`` holds exactly ``cases`` (parsed back, as JSON)."""
    parsed: list[Any] = json.loads(text)["cases"]
    return parsed == [json.loads(json.dumps(c.to_json())) for c in cases]


def is_rebuilt_by(trace: Mapping[str, Any], d: core.DependencyMap) -> bool:
    """Check that replaying ``trace`` from D_0 ends in exactly the map ``d``."""
    result = replay(load_trace(json.dumps(trace)))
    if any(t.error is not None for t in result.turns):
        return False
    state = result.verifier.state
    rebuilt = core.DependencyMap(
        args=frozenset(state.records),
        att=frozenset((a, t) for a, ts in state.att.items() for t in ts),
        standing={r: s.value for r, s in state.standing.items()},
        dep=frozenset((r, s) for r, ss in state.dep.items() for s in ss),
    )
    return rebuilt == d


def is_model_over(
    model: PlausibilityModel, agents: Collection[str], atoms: Collection[str]
) -> bool:
    """Check that M_0 is over Ags and Prop_0."""
    return set(model.agents) == set(agents) and set(model.atoms) == set(atoms)


def is_canonical_world_set_of(result: Sequence[list[str]], worlds: Collection[Any]) -> bool:
    """Check that ``result`` holds the worlds of ``worlds`` (as many times), each world's atoms
    sorted, the worlds sorted."""
    return (
        all(w == sorted(w) for w in result)
        and list(result) == sorted(result)
        and Counter(frozenset(w) for w in result) == Counter(frozenset(w) for w in worlds)
    )


def is_printed_form_of(result: str, text: str) -> bool:
    """Check that ``result`` parses to the formula ``text`` parses to, or, when ``text`` does not
    parse, is ``text`` itself."""
    try:
        return parse(result) == parse(text)
    except MalformedFormula:
        return result == text


def has_the_atoms_of(result: se.Formula, formula: Formula) -> bool:
    """Check that a translated formula mentions the atoms the original mentions."""
    return se.compute_atoms(result) == atoms_of(formula)


def is_reflexive_on_valuations(model: se.EpistemicModel) -> bool:
    """Check the linear part of Definition A.1: W is non-empty, every world is a valuation of
    Prop, every <=_i is reflexive on W (transitivity and local connectedness cost |W|^4 in the
    spec's form; the spec's own tests check them)."""
    return (
        bool(model.worlds)
        and all(w <= model.atoms for w in model.worlds)
        and all((w, w) in model.leq[i] for i in model.agents for w in model.worlds)
    )
