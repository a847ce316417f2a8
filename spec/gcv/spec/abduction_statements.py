"""B.2's statements about what is explained, as predicates over what a reading explains.

Appendix B.2 says, turn by turn, which problems Phase 2's observations pose, which
hypothesis answers which, and which observations are explained.  Each sentence is a
:class:`Statement` here (:data:`STATEMENTS`), with its place and its words, holding or not of
what a reading of "explained" explains (:class:`gcv.spec.abduction_readings.Explanations`).
A set of statements is satisfiable in a table of readings when one reading keeps them all,
and a minimal conflict when none does but, without any one member, one does.  The search
for the smallest conflicts over the whole family is ``gcv audit readings``
(:mod:`gcv.audits.readings`).

References
----------
Grounded Continuation, Appendix B.2 (T2-T13, "Symbolic model M_t" and the abductive steps of
T5 and T11).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from gcv.spec.abduction_readings import Explanations, Reading

__all__ = [
    "STATEMENTS",
    "Statement",
    "compute_kept",
    "is_minimal_conflict",
    "is_satisfiable",
]


@dataclass(frozen=True)
class Statement:
    """One statement of B.2 about what is posed, answered or explained, as a predicate."""

    id: str
    place: str
    words: str
    holds: Callable[[Explanations], bool]


def _posed(observation: str, turn: int, agents: Iterable[str]) -> Callable[[Explanations], bool]:
    def holds(e: Explanations) -> bool:
        at, who = e.posed.get(observation, (0, frozenset()))
        return at == turn and set(agents) <= who

    return holds


def _answers(hypothesis: str, observation: str) -> Callable[[Explanations], bool]:
    return lambda e: observation in e.answered.get(hypothesis, frozenset())


def _open(observation: str, *turns: int) -> Callable[[Explanations], bool]:
    return lambda e: all(observation in e.unexplained[t] for t in turns)


def _explained(observation: str, turn: int) -> Callable[[Explanations], bool]:
    return lambda e: observation not in e.unexplained[turn]


def _at_most(turn: int, *observations: str) -> Callable[[Explanations], bool]:
    return lambda e: e.unexplained[turn] <= set(observations)


_EVERY = ("a", "b", "c")
_M2, _M6, _M9, _M12 = (f"B.2 T{n}, Symbolic model M_{n}" for n in (2, 6, 9, 12))

STATEMENTS: tuple[Statement, ...] = (
    # T2
    Statement(
        "T2 o6 posed",
        _M2,
        "just before o6 is announced, w* |= o6 but no agent believes o6 ... So o6 poses an "
        "abductive problem in the sense of Definition A.2",
        _posed("o6", 2, _EVERY),
    ),
    Statement(
        "T2 o6 open",
        _M2,
        "The announcement makes o6 common knowledge but leaves it unexplained",
        _open("o6", 2),
    ),
    Statement(
        "T2-T10 o6 open",
        _M2,
        "No candidate gamma has been proposed yet, so the problem remains open until T11",
        _open("o6", *range(2, 11)),
    ),
    # T5
    Statement(
        "T3 o7 posed for Bob",
        "B.2 T5, 1. Surprise check",
        "just before o7 was announced at T3, w* |= o7 but Bob did not believe o7 ... So o7 "
        "poses an abductive problem (B_b, o7)",
        _posed("o7", 3, "b"),
    ),
    Statement(
        "T5 h1 answers o7",
        "B.2 T5, Why Hypothesize; 3. Verification",
        "Bob has a surprising observation (o7: Stripe 429s) and proposes a hypothesis (h1) "
        "that explains it ... All checks pass",
        _answers("h1", "o7"),
    ),
    Statement(
        "T5 o7 explained",
        "B.2 T5, bullets",
        "It explains the Stripe failures",
        _explained("o7", 5),
    ),
    Statement(
        "T5 o1 open",
        "B.2 T5, bullets",
        "but does not yet explain the auth failures",
        _open("o1", 5),
    ),
    Statement(
        "T5 o8 open",
        "B.2 T5, bullets",
        "or the Redis exhaustion itself [the problem about p_redis, posed by o8: h4 answers "
        "it at T12; o8' restates p_redis and posed none]",
        _open("o8", 5),
    ),
    # T6
    Statement(
        "T1 o1 posed",
        _M6,
        "the abductive problem posed by o1, which no agent believed before its announcement at T1",
        _posed("o1", 1, _EVERY),
    ),
    Statement(
        "T6 h2 answers o1",
        _M6,
        "h2 := (p_redis -> p_auth) answers the abductive problem posed by o1",
        _answers("h2", "o1"),
    ),
    *(
        Statement(
            f"T6 {o} explained",
            _M6,
            "Observations explained by h1 & h2: o1 (auth failures), o2 (payment failures), o7 "
            f"(Stripe 429s), o8 (Redis timeouts) [{o}]",
            _explained(o, 6),
        )
        for o in ("o1", "o2", "o7", "o8")
    ),
    Statement("T6 o6 open", _M6, "Remaining unexplained: o6 (3x traffic)", _open("o6", 6)),
    Statement(
        "T6 nothing else open",
        _M6,
        "Remaining unexplained: o6 (3x traffic) [and nothing else]",
        _at_most(6, "o6"),
    ),
    # T9
    *(
        Statement(
            f"T9 {o} open",
            _M9,
            "With h2 abandoned, o1 (auth failures), o5 (token errors), and o6 (3x traffic) "
            f"have no causal explanation [{o}]",
            _open(o, 9),
        )
        for o in ("o1", "o5", "o6")
    ),
    Statement(
        "T9 nothing else open",
        _M9,
        "Observations now unexplained: With h2 abandoned, o1 (auth failures), o5 (token "
        "errors), and o6 (3x traffic) have no causal explanation [and nothing else]",
        _at_most(9, "o1", "o5", "o6"),
    ),
    Statement(
        "T2-T9 o6 open",
        _M9,
        "and o6 remains the open abductive problem flagged at T2",
        _open("o6", *range(2, 10)),
    ),
    # T10
    Statement(
        "T10 o6 open",
        "B.2 T10, Symbolic model M_10; T11, 1. Surprise check",
        "The Question keeps o6 on the abductive-problem queue: (B_i, o6) in AbdProb_10. The "
        "model records that o6 is surprising and unexplained ... [T11, before h3:] Abductive "
        "problem (B_i, o6) remains open",
        _open("o6", 10),
    ),
    # T11
    Statement(
        "T11 h3 answers o6",
        "B.2 T11, bullets; 3. Verification",
        "h3: Token bug -> frontend retry loop -> 3x traffic amplification ... Explains o6 ... "
        "All checks pass",
        _answers("h3", "o6"),
    ),
    Statement("T11 o6 explained", "B.2 T11, bullets", "Explains o6", _explained("o6", 11)),
    Statement(
        "T11 o7 explained",
        "B.2 T11, bullets",
        "the group has two separate explanations: h1 (Redis -> Stripe problems) and h3 (token "
        "bug -> traffic amplification)",
        _explained("o7", 11),
    ),
    # T12
    Statement(
        "T3 o8 posed",
        _M12,
        "the problem posed by o8, which no agent believed before its announcement at T3",
        _posed("o8", 3, _EVERY),
    ),
    Statement(
        "T12 h4 answers o8", _M12, "It answers the problem posed by o8", _answers("h4", "o8")
    ),
    Statement(
        "T13 nothing open",
        _M12,
        "If h4 is accepted [at T13, by Resolve], then h1 & h3 & h4 form a single causal chain "
        "explaining all observations o1-o9 and o8'",
        _at_most(13),
    ),
)
"""B.2's statements about which problems are posed and answered and which observations are
explained, in the paper's order.  A sentence that lists several observations gives one
statement per observation; a list given as the whole ("Remaining unexplained", "Observations
now unexplained") gives one more, that nothing else is open.  Words in brackets are ours."""

# Verify that each statement has an id of its own
assert len({s.id for s in STATEMENTS}) == len(STATEMENTS)


# -- which statements hold together -----------------------------------------------------------


def compute_kept(explanations: Explanations) -> frozenset[str]:
    """The statements that hold of ``explanations``."""
    return frozenset(s.id for s in STATEMENTS if s.holds(explanations))


def is_satisfiable(statements: Iterable[str], table: Mapping[Reading, frozenset[str]]) -> bool:
    """Some reading of ``table`` keeps every one of ``statements``."""
    wanted = frozenset(statements)
    return any(wanted <= kept for kept in table.values())


def is_minimal_conflict(statements: Iterable[str], table: Mapping[Reading, frozenset[str]]) -> bool:
    """No reading of ``table`` keeps ``statements`` together, and without any one of them some
    reading keeps the rest."""
    together = frozenset(statements)
    return not is_satisfiable(together, table) and all(
        is_satisfiable(together - {s}, table) for s in together
    )
