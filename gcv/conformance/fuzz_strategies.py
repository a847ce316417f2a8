"""What the differential fuzzer sends: Hypothesis strategies for conversations and probes.

Turns of one to three operations over the records the reference holds so far, most of
them valid, some breaking a precondition or not well formed (:func:`operations_over`);
with the ``epistemic`` feature, formulas on Observe, Hypothesize and Question, and
:data:`EPISTEMIC_PROBES`, questions about knowledge and belief asked after a turn.  The
lockstep that sends them and compares the answers is :mod:`gcv.conformance.fuzz`; the
tests draw operations from here too (``tests/strategies.py``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from gcv.reference.epistemic.formula import parse
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from gcv.trace import operation_to_json

__all__ = [
    "AGENTS",
    "ATOMS",
    "EPISTEMIC_ATOMS",
    "EPISTEMIC_PROBES",
    "operations_over",
    "turns_over",
    "typed_operations_over",
]

AGENTS = ("a", "b", "c")
ATOMS = ("p",)
EPISTEMIC_ATOMS = ("p", "q")
"""Prop_0 when the implementation declares ``epistemic``: four worlds, so the spec
recomputes every turn and answer."""

# Formulas over EPISTEMIC_ATOMS and AGENTS: announcements, upgrades and questions about
# facts, knowledge and belief (Definition A.1); "r" is unknown until an Expand-Awareness.
_FORMULAS = st.sampled_from(
    ["p", "~p", "q", "p | q", "p & ~q", "p -> q", "K[a] p", "~K[b] q", "B[c] p", "r", "q & r"]
).map(parse)
_MAYBE_FORMULA = st.one_of(st.none(), _FORMULAS)
_CLAIMS = st.sampled_from(["p", "q", "the token bug"])
_AGENT_LISTS = st.lists(st.sampled_from(AGENTS), max_size=2, unique=True).map(tuple)

# Schema-valid operations that are not well formed (malformed-operation), drawn rarely.
_ILL_FORMED = st.sampled_from(
    [
        {"op": "resolve", "target": "n0_0", "dissenters": ["b"]},
        {"op": "resolve", "target": "n0_0", "premises": ["n0_1"]},
        {"op": "support", "target": "n0_0", "evidence": "n0_1", "evidence_depends_on": ["n0_2"]},
        {"op": "observe", "id": "n9_9", "claim": " "},
    ]
)


@lru_cache(maxsize=512)
def typed_operations_over(
    existing: tuple[str, ...], epistemic: bool = False
) -> st.SearchStrategy[Operation]:
    """Well-formed operations that mostly cite ``existing`` records and mostly register fresh
    ones, so conversations grow real maps (cycles included) while still breaking
    preconditions; with ``epistemic``, Observe, Hypothesize and Question carry a formula
    now and then (an announcement, an upgrade, a queued problem)."""
    fresh = st.sampled_from([f"n{len(existing)}_{k}" for k in range(4)])
    formula = _MAYBE_FORMULA if epistemic else st.none()
    # Announcements are drawn rarer than upgrades: each one can only shrink W, after which
    # knowledge and belief coincide and nothing of M_t is left to tell apart.
    announced = st.one_of(st.none(), st.none(), formula)
    if not existing:
        return st.builds(Observe, id=fresh, claim=_CLAIMS, formula=announced)
    cited = st.sampled_from((*existing * 10, "ghost"))
    new = st.one_of(*[fresh] * 6, st.sampled_from(existing))
    cited_tuple = st.lists(cited, max_size=3, unique=True).map(tuple)
    evidence = [
        st.builds(
            cls, target=cited, evidence=new, evidence_claim=_CLAIMS, evidence_depends_on=cited_tuple
        )
        for cls in (Support, Undermine)
    ] + [st.builds(cls, target=cited, evidence=cited) for cls in (Support, Undermine)]
    # A hypothesis resting on one existing record is weighted up: chains of them are where
    # one-step and transitive answers part.
    chain = st.builds(
        Hypothesize, id=fresh, claim=_CLAIMS, depends_on=cited.map(lambda r: (r,)), formula=formula
    )
    return st.one_of(
        chain,
        chain,
        st.builds(Observe, id=new, claim=_CLAIMS, depends_on=cited_tuple, formula=announced),
        st.builds(Hypothesize, id=new, claim=_CLAIMS, depends_on=cited_tuple, formula=formula),
        *evidence,
        st.builds(Revise, target=cited, attackers=cited_tuple),
        st.builds(Resolve, target=cited, subsumes=cited_tuple),
        st.builds(
            Resolve,
            target=cited,
            subsumes=cited_tuple,
            authoritative=st.just(True),
            premises=cited_tuple,
            dissenters=_AGENT_LISTS,
        ),
        st.builds(ExpandAwareness, atom=st.sampled_from(["p", "q", "r"]), agents=_AGENT_LISTS),
        st.builds(Question, id=new, claim=_CLAIMS, formula=formula),
    )


@lru_cache(maxsize=512)
def operations_over(
    existing: tuple[str, ...], epistemic: bool = False
) -> st.SearchStrategy[dict[str, Any]]:
    """The JSON form of :func:`typed_operations_over`, with a few schema-valid operations
    that are not well formed drawn rarely."""
    well_formed = typed_operations_over(existing, epistemic).map(operation_to_json)
    if not existing:
        return well_formed
    return st.one_of(*[well_formed] * 30, _ILL_FORMED)


@lru_cache(maxsize=512)
def turns_over(
    existing: tuple[str, ...], epistemic: bool = False
) -> st.SearchStrategy[dict[str, Any]]:
    """``apply`` requests (without id) of one to three operations over ``existing`` records;
    now and then the speaker is not in Ags."""
    return st.fixed_dictionaries(
        {
            "cmd": st.just("apply"),
            "speaker": st.sampled_from((*AGENTS * 10, "zz")),
            "operations": st.lists(operations_over(existing, epistemic), min_size=1, max_size=3),
        }
    )


# Questions about M_t asked after a turn (Definition A.1; the problem queue, A.2).
EPISTEMIC_PROBES = st.one_of(
    st.builds(
        lambda q, agent, f: {"cmd": "query", "query": q, "agent": agent, "formula": f},
        st.sampled_from(["knows", "believes"]),
        st.sampled_from(AGENTS),
        st.sampled_from(["p", "~q", "p | q", "K[a] p", "B[b] q"]),
    ),
    st.builds(
        lambda f: {"cmd": "query", "query": "holds", "formula": f},
        st.sampled_from(["p", "K[a] p | K[a] ~p", "B[b] p", "C[a,b,c] p"]),
    ),
    st.builds(
        lambda agent: {"cmd": "query", "query": "unexplained", "agent": agent},
        st.sampled_from(AGENTS),
    ),
)
