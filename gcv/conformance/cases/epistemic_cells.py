"""``epistemic/cells``: belief read in the agent's cell, and abductive problems that a
believed hypothesis must not close.

Each agent here has two information cells, ordered differently: belief is at the most
plausible worlds of the cell of the world of evaluation (Definition A.1's Convention),
and a reading over the most plausible worlds of all of W answers otherwise at the
queries marked so.  The abduction case poses a problem by an observation and offers
hypotheses that explain it but that every agent already believes (Definition A.2's
non-triviality).
"""

from __future__ import annotations

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.registry import case
from gcv.conformance.statements import A1, A2, HYPOTHESIZE, OBSERVE, UPDATES
from gcv.conformance.vectors import PROFILED_SUITE_VERSION
from gcv.reference.epistemic.formula import parse
from gcv.reference.operations import Hypothesize, Observe

__all__: list[str] = []

NEW = {"added_in": PROFILED_SUITE_VERSION}

# a observes p, b observes q: two cells each.  a ranks [q] < [p] < [p, q] < [], so a's
# p-cell prefers ~q and its ~p-cell prefers q, while W's most plausible world is [q].
# b ranks [p] < [q] < [] < [p, q]: its q-cell prefers ~p, its ~q-cell prefers p, W's [p].
TWO_CELLS = {
    "worlds": [[], ["p"], ["q"], ["p", "q"]],
    "observes": {"a": ["p"], "b": ["q"]},
    "ranks": {
        "a": [
            {"world": ["q"], "rank": 0},
            {"world": ["p"], "rank": 1},
            {"world": ["p", "q"], "rank": 2},
            {"world": [], "rank": 3},
        ],
        "b": [
            {"world": ["p"], "rank": 0},
            {"world": ["q"], "rank": 1},
            {"world": [], "rank": 2},
            {"world": ["p", "q"], "rank": 3},
        ],
    },
}
OVER_W = "over W's most plausible worlds the answer is the opposite"


@case(
    "epistemic/cells/belief-in-the-cell",
    "Belief is at the most plausible worlds of the agent's own cell, not of W (Definition "
    "A.1's Convention): with two cells ordered differently, a believes ~q where it sees p "
    "and q where it sees ~p, and b likewise; conditional belief and knowledge stay in the "
    "cell too.",
    [A1],
    agents=("a", "b"),
    atoms=("p", "q"),
    model=TWO_CELLS,
    **NEW,
)
def _belief_in_the_cell(b: CaseBuilder) -> None:
    b.query("believes", agent="a", formula="~q", at=["p"], equals=True, note=OVER_W)
    b.query("believes", agent="a", formula="q", at=["p", "q"], equals=False, note=OVER_W)
    b.query("believes", agent="a", formula="q", at=[], equals=True)
    b.query("believes", agent="a", formula="p", at=["p"], equals=True, note=OVER_W)
    b.query("believes", agent="a", formula="q", equals=False, note=OVER_W + " (everywhere)")
    b.query("believes", agent="a", formula="p <-> ~q", equals=True)
    b.query("believes", agent="a", formula="q", given="p | q", at=["p"], equals=False, note=OVER_W)
    b.query("believes", agent="b", formula="p", at=["q"], equals=False, note=OVER_W)
    b.query("believes", agent="b", formula="p", at=[], equals=True)
    b.query("believes", agent="b", formula="~p", at=["p", "q"], equals=True, note=OVER_W)
    b.query("knows", agent="a", formula="p", at=["p", "q"], equals=True)
    b.query("knows", agent="a", formula="~q", at=["p"], equals=False, note="believed, not known")
    b.query("holds", formula="B[a] ~q", at=["p"], equals=True, note=OVER_W)
    b.query("holds", formula="B[b] (q -> ~p)", equals=True)


@case(
    "epistemic/cells/upgrade-in-each-cell",
    "A lexicographic upgrade reorders each cell on its own (A.1's updates): after "
    "Hypothesize 'p & q', a's p-cell prefers [p, q] while its ~p-cell, with no (p & q)-world, "
    "keeps preferring [q]; so a believes q everywhere but p only where it sees p.",
    [HYPOTHESIZE, UPDATES, A1],
    agents=("a", "b"),
    atoms=("p", "q"),
    model=TWO_CELLS,
    **NEW,
)
def _upgrade_in_each_cell(b: CaseBuilder) -> None:
    b.apply("b", Hypothesize("h1", "p and q", formula=parse("p & q")))
    b.query("believes", agent="a", formula="q", at=["p"], equals=True)
    b.query("believes", agent="a", formula="q", equals=True)
    b.query("believes", agent="a", formula="p", at=[], equals=False, note=OVER_W)
    b.query("believes", agent="a", formula="~p", at=["q"], equals=True, note=OVER_W)
    b.query("believes", agent="b", formula="~p", at=["q"], equals=False)
    b.query("believes", agent="b", formula="p", at=[], equals=True)
    b.query("ordered", agent="a", layers=["p & q", "p & ~q"], equals=True)
    b.query("worlds", equals=4)


@case(
    "epistemic/cells/believed-hypothesis-solves-nothing",
    "Definition A.2's non-triviality: after o1 announces q (a problem for every agent), "
    "'q' itself and 'q & (q | ~q)', which is not q as a formula but is believed in M_t, "
    "explain q yet must not close the problem; 'r & (r -> q)' closes it.",
    [OBSERVE, HYPOTHESIZE, A2],
    atoms=("q",),
    **NEW,
)
def _believed_hypothesis(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "q holds", formula=parse("q")))
    b.query("unexplained", agent="a", equals=["o1"])
    b.apply("b", Hypothesize("h1", "q itself", formula=parse("q")))
    b.query("unexplained", agent="a", equals=["o1"], note="gamma = chi, and believed")
    b.apply("b", Hypothesize("h2", "q, restated", formula=parse("q & (q | ~q)")))
    b.query("unexplained", agent="a", equals=["o1"], note="gamma is believed in M_t")
    b.query("unexplained", agent="c", equals=["o1"])
    b.query("believes", agent="a", formula="q & (q | ~q)", equals=True)
    gamma = parse("r & (r -> q)")
    b.apply("c", Hypothesize("h3", "r causes q", formula=gamma, introduces=("r",)))
    b.query("unexplained", agent="a", equals=[], note="consistent, explanatory, not believed")
