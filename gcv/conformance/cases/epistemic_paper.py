"""``epistemic/paper``: the epistemic layer where the papers decide, whatever the reference
chose.

Each case checks one sentence of Appendix A (quoted in its description) on a conversation
whose answers no alternative of the reference's choices changes, alone or combined, so
that its steps are in the paper profile: factual announcements (announced together or one
after another, the same worlds go), upgrades stating their own formula, and abductive
problems whose verdict is the same in M_t, in the model the problem arose in and in that
model brought to Prop_t (the readings of Definition A.2).  The expected answers are
recomputed by ``gcv.spec.epistemic`` (:mod:`.oracle`), as for every epistemic case.
"""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.registry import case
from gcv.conformance.statements import (
    A2,
    A3,
    COMPOSITION,
    EXPAND,
    HYPOTHESIZE,
    OBSERVE,
    SUPPORT,
    UPDATES,
)
from gcv.conformance.vectors import ANSWER_PROFILE_SUITE_VERSION
from gcv.reference.epistemic.formula import parse
from gcv.reference.operations import ExpandAwareness, Hypothesize, Observe, Support

__all__: list[str] = []

NEW = {"added_in": ANSWER_PROFILE_SUITE_VERSION}

# Three minds about q, the same about p: none believes p, so observing p is a problem for
# each (Definition A.2).  a finds ~q the more plausible, c finds q, b neither.
THREE_MINDS = {
    "worlds": [[], ["p"], ["q"], ["p", "q"]],
    "ranks": {
        "a": [
            {"world": [], "rank": 0},
            {"world": ["p"], "rank": 0},
            {"world": ["q"], "rank": 1},
            {"world": ["p", "q"], "rank": 1},
        ],
        "b": [
            {"world": [], "rank": 0},
            {"world": ["p"], "rank": 0},
            {"world": ["q"], "rank": 0},
            {"world": ["p", "q"], "rank": 0},
        ],
        "c": [
            {"world": ["q"], "rank": 0},
            {"world": ["p", "q"], "rank": 0},
            {"world": [], "rank": 1},
            {"world": ["p"], "rank": 1},
        ],
    },
}
MINDS = {"atoms": ("p", "q"), "model": THREE_MINDS, **NEW}
CHI = parse("p")
# gamma entails chi, so M[up-up gamma] believes chi in any model where gamma is possible:
# the explanatory check passes in M_t, in M_chi and in M_chi brought to Prop_t alike.
GAMMA = parse("q & p")


def _observed(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "p holds", formula=CHI))
    for agent in ("a", "b", "c"):
        b.query("unexplained", agent=agent, equals=["o1"], note="no agent believed p before")


@case(
    "epistemic/paper/two-observations-one-announcement",
    'A.1\'s updates: "Public announcement (hard) [!psi] eliminates every w not in [[psi]]", '
    'and Section 2: "Multiple operation instances from one utterance are composed into the '
    'same per-turn state transition": two observations of one turn eliminate the worlds '
    "outside each, the second's as well as the first's.",
    [OBSERVE, UPDATES, COMPOSITION],
    atoms=("p", "q", "r"),
    **NEW,
)
def _two_observations(b: CaseBuilder) -> None:
    b.apply(
        "a",
        Observe("o1", "p holds", formula=parse("p")),
        Observe("o2", "q holds", formula=parse("q")),
    )
    b.query("worlds", equals=[["p", "q"], ["p", "q", "r"]])
    b.query("knows", agent="b", formula="q", equals=True, note="the second announcement too")
    b.query("holds", formula="C[a,b,c] (p & q)", equals=True)


@case(
    "epistemic/paper/expansion-after-an-upgrade",
    'Definition A.3: "Awareness expansion adds formulas to A_i and refines W accordingly: '
    'each world splits into copies that differ on the new proposition": after Hypothesize '
    "[up-up q], Expand-Awareness r doubles W, and q is still believed.",
    [EXPAND, A3, HYPOTHESIZE, UPDATES],
    atoms=("p", "q"),
    **NEW,
)
def _expansion_after_an_upgrade(b: CaseBuilder) -> None:
    b.apply("a", Hypothesize("h1", "q is the cause", formula=parse("q")))
    b.query("believes", agent="b", formula="q", equals=True)
    b.apply("b", ExpandAwareness("r"))
    b.query("worlds", equals=8, note="each of the four worlds, with r and without")
    b.query("holds", formula="r", at=["q", "r"], equals=True)
    b.query("believes", agent="b", formula="q", equals=True, note="both copies keep their rank")
    b.query("knows", agent="b", formula="r | ~r", equals=True)
    b.query("knows", agent="b", formula="r", equals=False, note="aware of r, not knowing it")


@case(
    "epistemic/paper/hard-and-soft-announcements",
    'A.1\'s updates: "[!psi] eliminates every w not in [[psi]]", "Lexicographic upgrade '
    "[up-up psi] makes every psi-world strictly more plausible than every ~psi-world while "
    'preserving the within-side order. No worlds are eliminated", and "Conservative upgrade '
    "[up psi] promotes the most plausible psi-worlds to the overall minimum, preserving all "
    "other comparisons\" (Section 2's table: Observe, Hypothesize and Support), each stating "
    "its own formula.",
    [OBSERVE, HYPOTHESIZE, SUPPORT, UPDATES],
    atoms=("p", "q", "r"),
    **NEW,
)
def _hard_and_soft(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "r holds", formula=parse("r")))
    b.query("worlds", equals=4, note="the ~r worlds are gone")
    b.apply("b", Hypothesize("h1", "q is the cause", formula=parse("q")))
    b.query("worlds", equals=4, note="an upgrade eliminates nothing")
    b.query("ordered", agent="a", layers=["q", "~q"], equals=True)
    b.apply("c", Support("h1", "e1", evidence_claim="p points the same way", formula=parse("p")))
    b.query("ordered", agent="a", layers=["p & q", "~p & q", "p & ~q"], equals=True)
    b.query(
        "ordered",
        agent="a",
        layers=["p & ~q", "~p & q"],
        equals=False,
        note="[up p] moved the best p-world only: not [up-up p]",
    )
    b.query("believes", agent="a", formula="p & q", equals=True)


@case(
    "epistemic/paper/abduction-inconsistent-hypothesis",
    'Definition A.2, 1. Consistency: "M does not satisfy B_i ~gamma": a believes ~q, so '
    "'q & p' solves nothing for a, while b, who believes neither q nor ~q, is answered.",
    [OBSERVE, HYPOTHESIZE, A2],
    **MINDS,
)
def _inconsistent(b: CaseBuilder) -> None:
    _observed(b)
    b.apply("b", Hypothesize("h1", "q, and so p", formula=GAMMA))
    b.query("unexplained", agent="a", equals=["o1"], note="a believes ~(q & p)")
    b.query("unexplained", agent="b", equals=[], note="consistent, explanatory, non-trivial")


@case(
    "epistemic/paper/abduction-hypothesis-already-known",
    'Definition A.2, 3. Non-triviality: "gamma != chi": after o1 announces p, every agent '
    "knows p, and 'p' itself explains it for no one.",
    [OBSERVE, HYPOTHESIZE, A2],
    **MINDS,
)
def _already_known(b: CaseBuilder) -> None:
    _observed(b)
    b.query("knows", agent="b", formula="p", equals=True)
    b.apply("c", Hypothesize("h1", "p itself", formula=CHI))
    for agent in ("a", "b", "c"):
        b.query("unexplained", agent=agent, equals=["o1"], note="gamma is chi, and known")


@case(
    "epistemic/paper/abduction-hypothesis-already-believed",
    'Definition A.2, 3. Non-triviality: "M does not satisfy B_i gamma": c already believes '
    "q, and so 'q & p' once p is known: it explains nothing to c, but does to b.",
    [OBSERVE, HYPOTHESIZE, A2],
    **MINDS,
)
def _already_believed(b: CaseBuilder) -> None:
    _observed(b)
    b.query("believes", agent="c", formula="q & p", equals=True)
    b.apply("a", Hypothesize("h1", "q, and so p", formula=GAMMA))
    b.query("unexplained", agent="c", equals=["o1"], note="c believes gamma already")
    b.query("unexplained", agent="b", equals=[], note="consistent, explanatory, non-trivial")


@case(
    "epistemic/paper/abduction-a-solution",
    "Definition A.2: gamma solves (B_i, chi) when it is consistent, explanatory and "
    "non-trivial: b believes neither q nor ~q, so 'q & p' answers the problem o1 posed for "
    "b, and a problem once solved stays so while h1 is in S_t.",
    [OBSERVE, HYPOTHESIZE, A2],
    **MINDS,
)
def _solution(b: CaseBuilder) -> None:
    _observed(b)
    b.apply("c", Hypothesize("h1", "q, and so p", formula=GAMMA))
    b.query("unexplained", agent="b", equals=[])
    b.query("unexplained", agent="a", equals=["o1"], note="a believes ~(q & p)")
    b.query("unexplained", agent="c", equals=["o1"], note="c believes q & p already")
    b.query("believes", agent="b", formula="q", equals=True, note="h1's upgrade")
