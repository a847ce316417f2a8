"""``epistemic/operations``: each operation's effect on M_t (Section 2's table, Table 3's DEL
realisations, Appendix A.1's updates, Definitions A.2 and A.3).

Every case has a few worlds (at most 16), so the spec recomputes all of it.
Orders are asked with ``ordered``: the layers hold somewhere and each layer's
worlds are strictly more plausible than the later layers' worlds of the same
cell.  A conservative and a lexicographic upgrade differ only once an earlier
update has ordered the worlds, so those cases upgrade q first.
"""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.registry import case
from gcv.conformance.statements import (
    A1,
    A2,
    A3,
    COMPOSITION,
    EXPAND,
    HYPOTHESIZE,
    OBSERVE,
    ORDER,
    QUESTION,
    RESOLVE,
    REVISE,
    SUPPORT,
    UNDERMINE,
    UPDATES,
)
from gcv.conformance.vectors import EPISTEMIC_SUITE_VERSION, PROFILED_SUITE_VERSION
from gcv.reference.epistemic.formula import parse
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)

__all__: list[str] = []


NEW = {"added_in": EPISTEMIC_SUITE_VERSION}
PQ = {"atoms": ("p", "q"), **NEW}


@case(
    "epistemic/operations/observe-announces",
    "Observe psi is the public announcement [!psi]: every world outside [[psi]] is "
    "eliminated, and psi becomes common knowledge; the record keeps psi.",
    [OBSERVE, UPDATES],
    **PQ,
)
def _observe_announces(b: CaseBuilder) -> None:
    b.query("worlds", equals=4, note="M_0: every valuation of p, q")
    b.apply("a", Observe("o1", "p holds", formula=parse("p")))
    b.query("worlds", equals=[["p"], ["p", "q"]])
    b.query("knows", agent="b", formula="p", equals=True)
    b.query("knows", agent="b", formula="q", equals=False)
    b.query("holds", formula="C[a,b,c] p", equals=True)
    b.state(note="o1 is registered with its formula")


@case(
    "epistemic/operations/observe-announces-what-an-agent-knows",
    "An announcement may be epistemic: after 'p or q', a, who sees q, says 'I do not know "
    "p'; that eliminates the world where a would know it, and b, who sees p, learns q.",
    [OBSERVE, UPDATES, A1],
    agents=("a", "b"),
    model={"observes": {"a": ["q"], "b": ["p"]}},
    **PQ,
)
def _observe_epistemic(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "p or q", formula=parse("p | q")))
    b.query("knows", agent="a", formula="p", at=["p"], equals=True)
    b.apply("a", Observe("o2", "I do not know p", formula=parse("~K[a] p")))
    b.query("worlds", equals=[["q"], ["p", "q"]])
    b.query("knows", agent="b", formula="q", equals=True)
    b.query("knows", agent="a", formula="p", equals=False)


@case(
    "epistemic/operations/observe-simultaneous-announcement",
    "One turn's observations are one announcement, each formula read in M_t before the turn "
    "(normative): 'p, and a did not know p' is consistent, although after p alone a knows p.",
    [OBSERVE, COMPOSITION, UPDATES],
    **PQ,
)
def _observe_simultaneous(b: CaseBuilder) -> None:
    b.apply(
        "b",
        Observe("o1", "p holds", formula=parse("p")),
        Observe("o2", "and a did not know it", formula=parse("~K[a] p")),
    )
    b.query("worlds", equals=[["p"], ["p", "q"]])
    b.query("knows", agent="a", formula="p", equals=True)


@case(
    "epistemic/operations/observe-poses-abductive-problems",
    "An observation no agent believed poses (B_i, psi) for every agent (Definition A.2's "
    "surprise check); one every agent already believes poses none.",
    [OBSERVE, A2],
    **PQ,
)
def _observe_problems(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "p holds", formula=parse("p")))
    b.query("unexplained", agent="a", equals=["o1"])
    b.query("unexplained", agent="c", equals=["o1"])
    b.apply("b", Observe("o2", "p or q", formula=parse("p | q")), Observe("o3", "no formula"))
    b.query("unexplained", agent="a", equals=["o1"])


@case(
    "epistemic/operations/hypothesize-upgrades",
    "Hypothesize gamma is the lexicographic upgrade [up-up gamma]: every gamma-world becomes "
    "more plausible than every other world, none is eliminated; gamma is believed, not known.",
    [HYPOTHESIZE, UPDATES],
    **PQ,
)
def _hypothesize_upgrades(b: CaseBuilder) -> None:
    b.apply("c", Hypothesize("h1", "p holds", formula=parse("p")))
    b.query("worlds", equals=4)
    b.query("ordered", agent="a", layers=["p", "~p"], equals=True)
    b.query("believes", agent="a", formula="p", equals=True)
    b.query("knows", agent="a", formula="p", equals=False)
    b.query("believes", agent="a", formula="q", equals=False)
    b.query("believes", agent="a", formula="p", given="~p", equals=False)
    b.query("believes", agent="a", formula="~p", given="~p", equals=True)


@case(
    "epistemic/operations/hypothesize-introduces-atoms",
    "The atoms a hypothesis introduces join Prop_t and every awareness set, splitting every "
    "world; then gamma, over them, is upgraded (B.2's integration step).",
    [HYPOTHESIZE, A3, UPDATES],
    atoms=("p",),
    **NEW,
)
def _hypothesize_introduces(b: CaseBuilder) -> None:
    b.query("aware", agent="a", atom="h1", equals=False)
    b.apply("c", Hypothesize("h1", "h1 explains p", formula=parse("h1 & p"), introduces=("h1",)))
    b.query("worlds", equals=4)
    b.query("aware", agent="a", atom="h1", equals=True)
    b.query("aware", agent="b", atom="h1", equals=True)
    b.query("ordered", agent="b", layers=["h1 & p", "~(h1 & p)"], equals=True)
    b.state()


@case(
    "epistemic/operations/hypothesize-solves-a-problem",
    "Definition A.2: a hypothesis solves (B_i, chi) when consistent, explanatory in the model "
    "chi was posed in, and not trivial. 'h0' explains nothing; 'h1 and h1 -> q' explains q; "
    "the problem reopens when h1 leaves S_t, and a later hypothesis closes it again.",
    [HYPOTHESIZE, A2, UNDERMINE],
    atoms=("q",),
    **NEW,
)
def _hypothesize_solves(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "q holds", formula=parse("q")))
    b.query("unexplained", agent="a", equals=["o1"])
    b.apply("b", Hypothesize("h0", "h0", formula=parse("h0"), introduces=("h0",)))
    b.query("unexplained", agent="a", equals=["o1"], note="h0 does not explain q")
    gamma = parse("h1 & (h1 -> q)")
    b.apply("b", Hypothesize("h1", "h1 causes q", formula=gamma, introduces=("h1",)))
    b.query("unexplained", agent="a", equals=[])
    b.query("unexplained", agent="b", equals=[])
    b.apply("c", Undermine("h1", "e1", evidence_claim="h1 ruled out"))
    b.query("standing", "h1", equals="weakened")
    b.query("unexplained", agent="a", equals=["o1"], note="its solution left S_t")
    delta = parse("h2 & (h2 -> q)")
    b.apply("c", Hypothesize("h2", "h2 causes q", formula=delta, introduces=("h2",)))
    b.query("unexplained", agent="a", equals=[])


@case(
    "epistemic/operations/support-conservative-upgrade",
    "Support is the conservative upgrade [up gamma]: only the most plausible gamma-worlds of "
    "each cell move to the top; every other comparison stays (here q-worlds were first).",
    [SUPPORT, UPDATES],
    **PQ,
)
def _support_conservative(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "q holds", formula=parse("q")))
    b.apply("b", Support("h1", "e1", evidence_claim="timing fits p", formula=parse("p")))
    b.query("ordered", agent="a", layers=["p & q", "~p & q", "~q"], equals=True)
    b.query("ordered", agent="a", layers=["p", "~p"], equals=False)
    b.query("believes", agent="a", formula="p & q", equals=True)


@case(
    "epistemic/operations/support-specific-lexicographic-upgrade",
    "Support with evidence specific to gamma is the lexicographic upgrade [up-up gamma]: "
    "every gamma-world first, the order within each side kept.",
    [SUPPORT, UPDATES],
    **PQ,
)
def _support_specific(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "q holds", formula=parse("q")))
    support = Support("h1", "e1", evidence_claim="only p fits", formula=parse("p"), specific=True)
    b.apply("b", support)
    b.query("ordered", agent="a", layers=["p & q", "p & ~q", "~p & q", "~p & ~q"], equals=True)
    b.query("ordered", agent="a", layers=["p", "~p"], equals=True)


@case(
    "epistemic/operations/support-uses-the-targets-formula",
    "An operation on a target without a formula of its own acts on the target's: supporting "
    "h1 (p) after h2 (~p) upgraded ~p puts p first again.",
    [SUPPORT, UPDATES],
    **PQ,
)
def _support_target(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "p holds", formula=parse("p")))
    b.apply("b", Hypothesize("h2", "p does not hold", formula=parse("~p")))
    b.query("ordered", agent="c", layers=["~p", "p"], equals=True)
    b.apply("c", Support("h1", "e1", evidence_claim="specific to p", specific=True))
    b.query("ordered", agent="c", layers=["p", "~p"], equals=True)


@case(
    "epistemic/operations/undermine-lexicographic-downgrade",
    "Undermine is the lexicographic downgrade [up-up ~gamma] of the target's gamma (B.2 T7): "
    "~gamma is believed but not known.",
    [UNDERMINE, UPDATES],
    **PQ,
)
def _undermine_lexicographic(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "p holds", formula=parse("p")))
    b.apply("b", Undermine("h1", "e1", evidence_claim="wrong error code"))
    b.query("ordered", agent="a", layers=["~p", "p"], equals=True)
    b.query("believes", agent="a", formula="~p", equals=True)
    b.query("knows", agent="a", formula="~p", equals=False)
    b.query("worlds", equals=4)


@case(
    "epistemic/operations/own-formula-realisations",
    "Undermine, Revise and consensual Resolve stating their formula: [up-up ~gamma], "
    "[!~gamma] and [!gamma] of the formula given (Section 2's table), with no reading of a "
    "target's formula involved.",
    [UNDERMINE, REVISE, RESOLVE, UPDATES],
    atoms=("p", "q"),
    added_in=PROFILED_SUITE_VERSION,
)
def _own_formula_realisations(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "a log line"), Observe("o2", "another"), Observe("o3", "a third"))
    b.apply("b", Undermine("o1", "e1", evidence_claim="p looks unlikely", formula=parse("p")))
    b.query("ordered", agent="a", layers=["~p", "p"], equals=True)
    b.query("believes", agent="a", formula="~p", equals=True)
    b.query("worlds", equals=4)
    b.apply("b", Revise("o2", formula=parse("q")))
    b.query("worlds", equals=[[], ["p"]])
    b.query("knows", agent="a", formula="~q", equals=True)
    b.apply("c", Resolve("o3", formula=parse("~p")))
    b.query("worlds", equals=[[]])
    b.query("holds", formula="C[a,b,c] ~p", equals=True)


@case(
    "epistemic/operations/undermine-conservative-downgrade",
    "Undermine with downgrade 'conservative' is [up ~gamma]: only the most plausible "
    "~gamma-worlds move to the top.",
    [UNDERMINE, UPDATES],
    **PQ,
)
def _undermine_conservative(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "q holds", formula=parse("q")))
    weaker = Undermine(
        "h1", "e1", evidence_claim="p looks unlikely", formula=parse("p"), downgrade="conservative"
    )
    b.apply("b", weaker)
    b.query("ordered", agent="a", layers=["~p & q", "p & q", "~q"], equals=True)
    b.query("ordered", agent="a", layers=["~p", "p"], equals=False)


@case(
    "epistemic/operations/revise-announces-the-negation",
    "Revise with no attackers is the hard announcement [!~gamma] (B.2 T9): the gamma-worlds "
    "are eliminated and ~gamma is known.",
    [REVISE, UPDATES],
    **PQ,
)
def _revise_announces(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "p holds", formula=parse("p")))
    b.apply("b", Revise("h1"))
    b.query("worlds", equals=[[], ["q"]])
    b.query("knows", agent="a", formula="~p", equals=True)
    b.query("standing", "h1", equals="abandoned")


@case(
    "epistemic/operations/revise-announce-or-attack",
    "Revise with attackers only attacks (B.2 T12) and leaves M_t; 'announce' overrides "
    "either way: with attackers it announces [!~gamma], without them it does not.",
    [REVISE, UPDATES],
    **PQ,
)
def _revise_switch(b: CaseBuilder) -> None:
    b.apply(
        "a",
        Observe("o1", "a log line"),
        Hypothesize("h1", "p holds", formula=parse("p")),
        Hypothesize("h2", "q holds", formula=parse("q")),
        Hypothesize("h3", "p and q", formula=parse("p & q")),
    )
    b.apply("b", Revise("h1", ("o1",)))
    b.query("worlds", equals=4, note="attacks only")
    b.apply("b", Revise("h2", ("o1",), announce=True))
    b.query("worlds", equals=[[], ["p"]], note="[!~q]")
    b.apply("b", Revise("h3", announce=False))
    b.query("worlds", equals=[[], ["p"]], note="nothing announced")
    b.query("attackers", "h3", equals=[])


@case(
    "epistemic/operations/resolve-consensual-announces",
    "A consensual Resolve is the hard announcement [!gamma]: gamma becomes common knowledge.",
    [RESOLVE, UPDATES],
    **PQ,
)
def _resolve_consensual(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "p holds", formula=parse("p")))
    b.apply("b", Resolve("h1"))
    b.query("worlds", equals=[["p"], ["p", "q"]])
    b.query("holds", formula="C[a,b,c] p", equals=True)


@case(
    "epistemic/operations/resolve-authoritative-leaves-m-t",
    "An authoritative Resolve is a decision recording dissent: M_t does not change.",
    [RESOLVE, UPDATES],
    **PQ,
)
def _resolve_authoritative(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "p holds", formula=parse("p")))
    b.apply("b", Resolve("h1", authoritative=True, dissenters=("c",)))
    b.query("worlds", equals=4)
    b.query("knows", agent="a", formula="p", equals=False)
    b.query("believes", agent="a", formula="p", equals=True)


@case(
    "epistemic/operations/expand-awareness-splits-worlds",
    "Expand-Awareness r splits every world into copies that differ on r, each keeping its "
    "cell and rank (Definition A.3): becoming aware of r is not learning whether r.",
    [EXPAND, A3],
    atoms=("p",),
    **NEW,
)
def _expand_splits(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "p holds", formula=parse("p")))
    b.apply("b", ExpandAwareness("r"))
    b.query("worlds", equals=[[], ["p"], ["r"], ["p", "r"]])
    b.query("ordered", agent="a", layers=["p", "~p"], equals=True)
    b.query("believes", agent="a", formula="r", equals=False)
    b.query("believes", agent="a", formula="~r", equals=False)
    b.query("holds", formula="A[a] r & X[a] (r | ~r)", equals=True)


@case(
    "epistemic/operations/expand-awareness-named-agents",
    "Expanding the named agents' awareness still splits W; the others are not aware of r, "
    "so they cannot know anything about it explicitly (X_i = K_i and A_i). A later expansion "
    "of an atom in Prop_t changes the awareness sets only.",
    [EXPAND, A3],
    atoms=("p",),
    **NEW,
)
def _expand_named(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "p holds", formula=parse("p")), ExpandAwareness("r", ("a",)))
    b.query("worlds", equals=[["p"], ["p", "r"]])
    b.query("aware", agent="b", atom="r", equals=False)
    b.query("holds", formula="X[a] (r | ~r)", equals=True)
    b.query("holds", formula="X[b] (r | ~r)", equals=False)
    b.apply("b", ExpandAwareness("r", ("b",)))
    b.query("worlds", equals=2)
    b.query("holds", formula="X[b] (r | ~r)", equals=True)


@case(
    "epistemic/operations/expand-awareness-before-observe",
    "Within a turn Expand-Awareness applies before Observe (the fixed order), so an "
    "observation may use the atom the same turn introduces, whatever order it is written in.",
    [EXPAND, ORDER],
    atoms=("p",),
    **NEW,
)
def _expand_first(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "r holds", formula=parse("r")), ExpandAwareness("r"))
    b.query("worlds", equals=[["r"], ["p", "r"]])


@case(
    "epistemic/operations/question-queues-a-problem",
    "Question chi changes no world and queues (B_i, chi) for every agent who does not believe "
    "chi; an agent with an open problem for the same chi keeps that one.",
    [QUESTION, A2],
    **PQ,
)
def _question_queues(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "p holds", formula=parse("p")))
    b.apply("b", Question("q1", "why p?", formula=parse("p")))
    b.query("unexplained", agent="a", equals=[], note="every agent believes p")
    b.apply("b", Question("q2", "why q?", formula=parse("q")))
    b.query("unexplained", agent="a", equals=["q2"])
    b.apply("c", Question("q3", "really, why q?", formula=parse("q")))
    b.query("unexplained", agent="a", equals=["q2"])
    b.query("worlds", equals=4)
    b.state()
