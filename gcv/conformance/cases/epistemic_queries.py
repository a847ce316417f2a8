"""``epistemic/queries``: M_t's queries on declared models (Definition A.1 and its Convention,
Definition A.3), at a world and everywhere, and their errors."""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.registry import case
from gcv.conformance.statements import A1, A3, PHASE1
from gcv.conformance.vectors import EPISTEMIC_SUITE_VERSION
from gcv.reference.epistemic.formula import MAX_DEPTH, parse
from gcv.reference.operations import Observe

__all__: list[str] = []

NEW = {"added_in": EPISTEMIC_SUITE_VERSION}

# Three worlds; a sees p; b finds [p] most plausible, then [q], then [p, q]; b is not aware of q.
DECLARED = {
    "worlds": [["p"], ["q"], ["p", "q"]],
    "observes": {"a": ["p"]},
    "ranks": {
        "b": [
            {"world": ["p"], "rank": 0},
            {"world": ["q"], "rank": 1},
            {"world": ["p", "q"], "rank": 2},
        ]
    },
    "awareness": {"b": ["p"]},
}

# Two children who see each other's forehead (B.1 with two children).
CHILDREN = {"observes": {"a": ["m_b"], "b": ["m_a"]}}


@case(
    "epistemic/queries/declared-model",
    "M_0 declared at start: its worlds, cells (what each agent observes), ranks and awareness; "
    "knowledge over the cell, belief at the cell's most plausible worlds, conditional belief "
    "at the most plausible worlds where the condition holds.",
    [A1, A3],
    agents=("a", "b"),
    atoms=("p", "q"),
    model=DECLARED,
    **NEW,
)
def _declared(b: CaseBuilder) -> None:
    b.query("worlds", equals=[["p"], ["q"], ["p", "q"]])
    b.query("knows", agent="a", formula="p", at=["p", "q"], equals=True)
    b.query("knows", agent="a", formula="q", at=["p"], equals=False)
    b.query("knows", agent="a", formula="~p", at=["q"], equals=True)
    b.query("knows", agent="a", formula="p | q", equals=True)
    b.query("believes", agent="b", formula="p & ~q", equals=True)
    b.query("knows", agent="b", formula="p", equals=False)
    b.query("believes", agent="b", formula="~p", given="q", equals=True)
    b.query("believes", agent="b", formula="p", given="q", equals=False)
    b.query("ordered", agent="b", layers=["p & ~q", "~p & q", "p & q"], equals=True)
    b.query("ordered", agent="a", layers=["~q", "q"], equals=False)
    b.query("aware", agent="b", atom="q", equals=False)
    b.query("holds", formula="A[b] q", equals=False)
    b.query("holds", formula="X[a] p", at=["p"], equals=True)
    b.query("holds", formula="X[b] p", at=["p"], equals=False)


@case(
    "epistemic/queries/group-operators",
    "E_G (everybody knows) and C_G (common knowledge), and knowledge about knowledge, on two "
    "children who see each other: after 'at least one of you is muddy' the muddy child of "
    "MC knows it, and the other knows only that it does not know whether it is.",
    [A1, PHASE1],
    agents=("a", "b"),
    atoms=("m_a", "m_b"),
    model=CHILDREN,
    **NEW,
)
def _group(b: CaseBuilder) -> None:
    b.query("holds", formula="E[a,b] (m_a | ~m_a)", equals=True)
    b.query("holds", formula="E[a,b] (m_a | m_b)", equals=False)
    b.apply("a", Observe("f0", "at least one of you is muddy", formula=parse("m_a | m_b")))
    b.query("holds", formula="C[a,b] (m_a | m_b)", equals=True)
    b.query("holds", formula="K[a] m_a", at=["m_a"], equals=True)
    b.query("holds", formula="K[a] m_a", at=["m_a", "m_b"], equals=False)
    b.query("holds", formula="K[b] K[a] m_a", at=["m_a"], equals=False)
    b.query("holds", formula="K[b] (K[a] m_a | ~K[a] m_a)", at=["m_a"], equals=True)
    b.query("knows", agent="b", formula="~K[b] m_b", at=["m_a"], equals=True)


@case(
    "epistemic/queries/unknown-agent",
    "A query naming an agent outside Ags, as its agent or inside its formula, answers "
    "unknown-agent; the agent is checked before the formula (normative).",
    [A1],
    atoms=("p",),
    **NEW,
)
def _unknown_agent(b: CaseBuilder) -> None:
    b.query("knows", agent="zz", formula="p", error="unknown-agent")
    b.query("believes", agent="zz", formula="zz_atom", error="unknown-agent")
    b.query("holds", formula="K[zz] p", error="unknown-agent")
    b.query("unexplained", agent="zz", error="unknown-agent")
    b.query("ordered", agent="zz", layers=["p", "~p"], error="unknown-agent")


@case(
    "epistemic/queries/unknown-atom",
    "A formula, a layer or a world naming an atom outside Prop_t answers unknown-atom.",
    [A1],
    atoms=("p",),
    **NEW,
)
def _unknown_atom(b: CaseBuilder) -> None:
    b.query("holds", formula="p & zz", error="unknown-atom")
    b.query("believes", agent="a", formula="p", given="zz", error="unknown-atom")
    b.query("ordered", agent="a", layers=["p", "zz"], error="unknown-atom")
    b.query("holds", formula="p", at=["zz"], error="unknown-atom")


@case(
    "epistemic/queries/unknown-world",
    "A world that is not in W_t (named by the atoms true at it) answers unknown-world.",
    [A1],
    atoms=("p",),
    **NEW,
)
def _unknown_world(b: CaseBuilder) -> None:
    b.query("holds", formula="p", at=[], equals=False)
    b.apply("a", Observe("o1", "p holds", formula=parse("p")))
    b.query("holds", formula="p", at=[], error="unknown-world")
    b.query("knows", agent="a", formula="p", at=["p"], equals=True)


@case(
    "epistemic/queries/malformed-formula",
    f"Text that does not parse, or nests deeper than {MAX_DEPTH}, answers malformed-formula "
    "(a bound, not a stack overflow).",
    [A1],
    atoms=("p",),
    **NEW,
)
def _malformed(b: CaseBuilder) -> None:
    b.query("holds", formula="p &", error="malformed-formula")
    b.query("knows", agent="a", formula="K[a p", error="malformed-formula")
    b.query("holds", formula="~" * (MAX_DEPTH + 1) + "p", error="malformed-formula")
    b.query("holds", formula="~" * (MAX_DEPTH - 1) + "p", equals=False)
