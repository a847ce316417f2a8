"""Readings of "gamma explains o" in Appendix B.2: a family, and what each reading explains.

Definition A.2 says when a hypothesis gamma solves an abductive problem (B_i, chi); B.2 says,
turn by turn, which observations of Phase 2 are explained and which are not.  The two do
not fit one reading (docs/epistemic.md).  This module states a *family* of readings of
"explained" as a product of independent dimensions (:data:`DIMENSIONS`), each value grounded
in a sentence of the core paper, and what a reading explains in a conversation
(:func:`compute_explanations`, :class:`Explanations`).  B.2's statements, predicates over
:class:`Explanations`, are :mod:`gcv.spec.abduction_statements`; ``gcv audit readings``
(:mod:`gcv.audits.readings`, where the search over the family is) evaluates every statement
under every reading on ``spec/gcv/spec/scenarios/phase2-epistemic.json``.

Whole, at about 700 lines: a value of a dimension (the data, a third of the module, each
value with the paper's words) means nothing until :func:`compute_verdicts` and
:func:`compute_explanations` read it, and a reader checking one value against the paper
reads both; split, each half would have to be read with the other open.

What a reading fixes.  Problems are posed as the engine poses them (an observation psi poses
(B_i, psi) for every agent who did not believe psi), in the model the reading's ``surprise``
names.  At each Hypothesize, the candidate (gamma alone, or with the hypotheses in S_t) is
checked against the problems the reading's ``candidates`` names, by Definition A.2's three
conditions read as ``model``, ``consistency`` and ``non_triviality`` say; a candidate that
passes is recorded as a solution.  After each turn, an observation is unexplained when one of
its problems (``naming``) is open: no recorded solution keeps it closed (``persistence``),
and, as ``causal`` says, no hypothesis in S_t rests on it through Dep.

The models are computed elsewhere: this module reads them through :class:`Semantics` (the
bit-parallel oracle supplies one, :mod:`gcv.audits.readings`), so the readings are stated
once, whatever represents W.  A failed ``assert`` means an argument outside the definition.

References
----------
Grounded Continuation, Definition A.2, Appendix B.2 (T2-T13, "Symbolic model M_t" and the
abductive steps of T5 and T11); spec/gcv/spec/normative.md, ``del.hypothesize.solves``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from itertools import product
from math import prod
from typing import Generic, Protocol, TypeVar

import icontract

from gcv.spec import core, transition
from gcv.spec import epistemic as se

__all__ = [
    "CHOSEN",
    "DIMENSIONS",
    "LITERAL",
    "Dimension",
    "Explanations",
    "Reading",
    "Semantics",
    "TurnRecord",
    "Value",
    "Verdicts",
    "compute_explanations",
    "compute_family",
    "compute_turn_record",
    "compute_verdicts",
    "verdict_key",
]

M = TypeVar("M")
M_co = TypeVar("M_co", covariant=True)


# -- the family of readings ---------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """One value of a dimension: its key, what it means, and the paper's words for it."""

    key: str
    meaning: str
    grounds: str


@dataclass(frozen=True)
class Dimension:
    """One question a reading of "explained" must answer, with its possible answers."""

    name: str
    question: str
    values: tuple[Value, ...]


DIMENSIONS: tuple[Dimension, ...] = (
    Dimension(
        "surprise",
        "in which model does an observation pose its problem?",
        (
            Value(
                "with the others",
                "the model with the turn's other announcements made",
                "Definition A.2 and B.2 T1: the observations of a turn are announced together "
                "(spec/gcv/spec/normative.md, del.observe.poses-problems)",
            ),
            Value(
                "before the turn",
                "the model before any of the turn's announcements",
                'B.2 T2: "just before o6 is announced, w* |= o6 but no agent believes o6"',
            ),
        ),
    ),
    Dimension(
        "model",
        "in which model is the explanatory condition M[up-up gamma] |= B_i chi checked?",
        (
            Value(
                "M_chi^t",
                "the problem's model brought to Prop_t, with what was learned since about "
                "every atom but chi's",
                'B.2 T6: "h2 := (p_redis -> p_auth) answers the abductive problem posed by '
                'o1" (Redis is known from T3); T5: "Redis being down plus h1 entails Stripe '
                '429s"',
            ),
            Value(
                "M_t",
                "the current model, as Definition A.2 writes all three conditions in one M",
                'Definition A.2: "1. Consistency: M |/= B_i ~gamma; 2. Explanatory: '
                'M[up-up gamma], w |= B_i chi"',
            ),
            Value(
                "M_chi",
                "the problem's model brought to Prop_t, nothing learned since",
                'B.2, "Formal model specification": "the symbolic engine detects surprising '
                'observations (M, w |/= B_i chi)"',
            ),
        ),
    ),
    Dimension(
        "consistency",
        "what makes gamma consistent?",
        (
            Value("B", "M |/= B_i ~gamma", 'Definition A.2: "Consistency: M |/= B_i ~gamma"'),
            Value(
                "K",
                "M |/= K_i ~gamma: gamma contradicts nothing known",
                'B.2 T5: "(a) Consistency: h1 is consistent with M_4 (no contradictions)"',
            ),
        ),
    ),
    Dimension(
        "non_triviality",
        "which attitude to gamma makes it trivial (besides gamma = chi and gamma = true)?",
        (
            Value(
                "B",
                "M |= B_i gamma",
                'Definition A.2: "Non-triviality: gamma != chi, M |/= B_i gamma, and gamma != '
                'top"; B.2 T5: "(c) Non-trivial: h1 != o7 and h1 is not already believed"',
            ),
            Value(
                "K",
                "M |= K_i gamma: only what is known is settled",
                'B.2 T12: "B_i h4 (believed, not known, awaiting mechanistic confirmation)"',
            ),
            Value(
                "B or K",
                "M |= B_i gamma or M |= K_i gamma",
                "both attitudes (K_i gamma implies B_i gamma, so this is B's answer: the "
                "search shows it)",
            ),
            Value(
                "neither",
                "none: gamma != chi and gamma != true only",
                'B.2 T11: "(c) Non-trivial: h3 != o6. All checks pass."',
            ),
        ),
    ),
    Dimension(
        "candidates",
        "which problems is a new hypothesis checked against?",
        (
            Value(
                "open",
                "the problems open when it comes",
                'B.2 T11: "Abductive problem (B_i, o6) remains open" before h3 is checked '
                "(spec/gcv/spec/normative.md, del.hypothesize.solves)",
            ),
            Value(
                "every",
                "every problem posed so far, open or closed",
                'B.2 T11: "the group has two separate explanations"; T6: "Observations '
                'explained by h1 & h2"',
            ),
        ),
    ),
    Dimension(
        "explainer",
        "what is checked as the explanation?",
        (
            Value(
                "alone",
                "the new hypothesis's gamma",
                "Definition A.2's conditions, on one gamma; B.2 T5: \"proposes a hypothesis (h1) "
                'that explains it"',
            ),
            Value(
                "together",
                "gamma with the formulas of the hypotheses in S_t, a solution while all of "
                "them stand",
                'B.2 T6: "Observations explained by h1 & h2"; T12: "h1 & h3 & h4 form a '
                'single causal chain explaining all observations"',
            ),
        ),
    ),
    Dimension(
        "persistence",
        "when does a solved problem open again?",
        (
            Value(
                "S_t",
                "when every solution has a member out of S_t (weakened or abandoned)",
                "spec/gcv/spec/normative.md, del.hypothesize.solves: a problem is open while no "
                "hypothesis that solved it is in S_t",
            ),
            Value(
                "abandoned",
                "when every solution has an abandoned member (a weakened one still explains)",
                'B.2 T9: "With h2 abandoned, o1 (auth failures) ... have no causal '
                'explanation" (not at T7, where h2 is weakened)',
            ),
            Value(
                "never",
                "never: once explained, always explained",
                'B.2 T13: "h1: ... active. At T13 it gains a dependency link to h4" (an '
                "explanation is a recorded fact, not revised)",
            ),
        ),
    ),
    Dimension(
        "causal",
        "what closes a problem: Definition A.2, the dependency map, or either?",
        (
            Value("A.2", "a solution of Definition A.2", 'B.2 T5: "All checks pass"'),
            Value(
                "Dep",
                "a hypothesis in S_t whose Dep* holds the observation",
                'B.2 T9: "No active link between Auth and Redis remains ... have no causal '
                'explanation"; T5: "h1 ... Supported by: o7, o8"',
            ),
            Value(
                "A.2 or Dep",
                "either",
                'B.2 T12: "The dependency map records h4 with h3 in Dep(h4) ... h1 & h3 & h4 '
                'form a single causal chain"',
            ),
        ),
    ),
    Dimension(
        "naming",
        "which problems does a statement's o_k name?",
        (
            Value(
                "record",
                "the problems o_k's announcement posed (chi the formula it announced)",
                'B.2 T6: "the abductive problem posed by o1"',
            ),
            Value(
                "atom",
                "every problem whose chi is o_k's proposition, whatever posed it",
                'B.2 T10: "(B_i, o6) in AbdProb_10" (the problem named by the atom o6)',
            ),
        ),
    ),
)
"""The family: every combination of one value per dimension is a reading."""


@dataclass(frozen=True)
class Reading:
    """One reading of "explained": a value (its key) for each of :data:`DIMENSIONS`."""

    surprise: str
    model: str
    consistency: str
    non_triviality: str
    candidates: str
    explainer: str
    persistence: str
    causal: str
    naming: str

    def __post_init__(self) -> None:
        for dimension in DIMENSIONS:
            # Verify that each field is a value of its dimension
            assert getattr(self, dimension.name) in {v.key for v in dimension.values}, dimension

    def describe(self) -> str:
        """The reading as ``dimension=value`` pairs, in :data:`DIMENSIONS`' order."""
        return ", ".join(f"{d.name}={getattr(self, d.name)}" for d in DIMENSIONS)


# Verify that a reading has one field per dimension, in the dimensions' order
assert [f.name for f in fields(Reading)] == [d.name for d in DIMENSIONS]

CHOSEN = Reading("with the others", "M_chi^t", "B", "B", "open", "alone", "S_t", "A.2", "record")
"""The reading the engine runs by default (spec/gcv/spec/normative.md,
``del.hypothesize.solves``)."""
LITERAL = Reading("with the others", "M_t", "B", "B", "open", "alone", "S_t", "A.2", "record")
"""The engine's ``literal_abduction=True``: Definition A.2's M read as M_t."""


@icontract.ensure(
    lambda result: len(result) == prod(len(d.values) for d in DIMENSIONS),
    "one reading per combination of values",
)
def compute_family() -> tuple[Reading, ...]:
    """Every reading of the family: the product of the dimensions' values."""
    keys = [[v.key for v in d.values] for d in DIMENSIONS]
    return tuple(Reading(*choice) for choice in product(*keys))


# -- what a reading reads: the turns and their models ------------------------------------------


class Semantics(Protocol[M]):
    """The models a reading reads, and what it asks of them (Appendix A.1, Definition A.2)."""

    def is_valid(self, model: M, formula: se.Formula) -> bool:
        """M |= phi."""

    def upgrade(self, model: M, formula: se.Formula, agent: str) -> M:
        """M[up-up phi] for ``agent``."""

    def problem_model(self, current: M, posed: M, chi: se.Formula) -> M:
        """M_chi^t: ``posed`` over Prop_t, on the worlds agreeing with ``current`` outside
        chi's atoms (spec/gcv/spec/normative.md, ``del.hypothesize.solves``)."""

    def posed_model(self, current: M, posed: M) -> M:
        """``posed`` over ``current``'s atoms (Definition A.3's copies), nothing else."""


class Announced(Protocol[M_co]):
    """An observation's [!psi] and the models it may be read to pose its problem in."""

    @property
    def source(self) -> str: ...
    @property
    def chi(self) -> se.Formula: ...
    @property
    def with_the_others(self) -> M_co: ...
    @property
    def before_the_turn(self) -> M_co: ...


class Conjectured(Protocol[M_co]):
    """A Hypothesize with a formula: M_t just before [up-up gamma], and S_t then."""

    @property
    def record(self) -> str: ...
    @property
    def gamma(self) -> se.Formula: ...
    @property
    def model(self) -> M_co: ...
    @property
    def good(self) -> frozenset[str]: ...


class Asked(Protocol[M_co]):
    """A Question with a formula, and the model it is asked in."""

    @property
    def source(self) -> str: ...
    @property
    def chi(self) -> se.Formula: ...
    @property
    def model(self) -> M_co: ...


@dataclass(frozen=True)
class TurnRecord(Generic[M]):
    """One turn as the readings meet it: its epistemic steps in the fixed order, and the
    standing and Dep links before and after it.

    ``supported_*``: the records some hypothesis in S_t rests on (Dep*, the hypothesis
    itself left out); ``rests_on``: each hypothesis's Dep* after the turn, itself left out.
    """

    number: int
    announced: tuple[Announced[M], ...]
    conjectured: tuple[Conjectured[M], ...]
    asked: tuple[Asked[M], ...]
    abandoned_before: frozenset[str]
    supported_before: frozenset[str]
    good_after: frozenset[str]
    abandoned_after: frozenset[str]
    supported_after: frozenset[str]
    rests_on: Mapping[str, frozenset[str]]


def _hypotheses(state: transition.State) -> frozenset[str]:
    return frozenset(r for r, record in state.records.items() if record.kind == "hypothesis")


def _abandoned(state: transition.State) -> frozenset[str]:
    return frozenset(r for r, label in state.dmap.standing.items() if label == core.ABANDONED)


def _rests_on(state: transition.State) -> dict[str, frozenset[str]]:
    """Dep*_t(h) minus h, for each hypothesis h."""
    return {h: core.compute_dependency_closure(state.dmap, h) - {h} for h in _hypotheses(state)}


def _supported(state: transition.State) -> frozenset[str]:
    good = state.active_set()
    return frozenset(r for h, below in _rests_on(state).items() if h in good for r in below)


def compute_turn_record(
    number: int,
    before: transition.State,
    after: transition.State,
    announced: Iterable[Announced[M]],
    conjectured: Iterable[Conjectured[M]],
    asked: Iterable[Asked[M]],
) -> TurnRecord[M]:
    """Turn ``number`` from D_t (``before``), D_t+1 (``after``) and its epistemic steps."""
    return TurnRecord(
        number,
        tuple(announced),
        tuple(conjectured),
        tuple(asked),
        _abandoned(before),
        _supported(before),
        after.active_set(),
        _abandoned(after),
        _supported(after),
        _rests_on(after),
    )


# -- what a reading explains -------------------------------------------------------------------


@dataclass(frozen=True)
class _Problem(Generic[M]):
    """(B_agent, chi), posed by ``source`` in ``posed``."""

    agent: str
    chi: se.Formula
    source: str
    posed: M


@dataclass(frozen=True)
class Verdicts(Generic[M]):
    """What Definition A.2, as a reading reads it, finds in a conversation.

    ``posed[k]``: the problems turn k's observations pose; ``asked[k]``: those its questions
    would pose (for the agents who do not believe chi); ``solves``: each hypothesis's
    verdict on each problem, by (hypothesis, agent, source); ``members``: what each
    hypothesis is checked with (itself, or with the hypotheses in S_t).
    """

    posed: tuple[tuple[_Problem[M], ...], ...]
    asked: tuple[tuple[_Problem[M], ...], ...]
    solves: Mapping[tuple[str, str, str], bool]
    members: Mapping[str, frozenset[str]]


@dataclass(frozen=True)
class Explanations:
    """What a reading explains in a conversation.

    ``posed``: for each observation that posed a problem, its turn and the agents whose
    problem it is; ``unexplained[t]``: the observations unexplained after turn t (index 0:
    before the first turn); ``answered``: for each hypothesis, the observations whose problem
    it answered in its turn.
    """

    posed: Mapping[str, tuple[int, frozenset[str]]]
    unexplained: tuple[frozenset[str], ...]
    answered: Mapping[str, frozenset[str]]


def _is_solution(
    reading: Reading, semantics: Semantics[M], current: M, problem: _Problem[M], gamma: se.Formula
) -> bool:
    """Definition A.2 as ``reading`` reads it: consistency, explanatory, non-triviality."""
    i, chi = problem.agent, problem.chi
    # 1. Consistency: M |/= B_i ~gamma (or K_i ~gamma)
    refuted = (
        se.Believes(i, se.Not(gamma)) if reading.consistency == "B" else se.Knows(i, se.Not(gamma))
    )
    consistent = not semantics.is_valid(current, refuted)
    # 2. Explanatory: M[up-up gamma] |= B_i chi, M read as the reading says
    match reading.model:
        case "M_t":
            explained_in = current
        case "M_chi^t":
            explained_in = semantics.problem_model(current, problem.posed, chi)
        case _:
            explained_in = semantics.posed_model(current, problem.posed)
    explanatory = semantics.is_valid(semantics.upgrade(explained_in, gamma, i), se.Believes(i, chi))
    # 3. Non-triviality: gamma != chi, gamma != true, and M |/= B_i gamma as the reading says
    settled: dict[str, tuple[se.Formula, ...]] = {
        "B": (se.Believes(i, gamma),),
        "K": (se.Knows(i, gamma),),
        "B or K": (se.Believes(i, gamma), se.Knows(i, gamma)),
        "neither": (),
    }
    non_trivial = (
        gamma != chi
        and gamma != se.Top()
        and not any(semantics.is_valid(current, f) for f in settled[reading.non_triviality])
    )
    return consistent and explanatory and non_trivial


def _surprised(
    agents: Sequence[str], semantics: Semantics[M], model: M, chi: se.Formula
) -> list[str]:
    """The agents who do not believe chi in ``model``: Definition A.2's M |/= B_i chi."""
    return [i for i in agents if not semantics.is_valid(model, se.Believes(i, chi))]


def verdict_key(reading: Reading) -> tuple[str, ...]:
    """The dimensions :func:`compute_verdicts` reads: readings alike in them share verdicts."""
    return (
        reading.surprise,
        reading.model,
        reading.consistency,
        reading.non_triviality,
        reading.explainer,
    )


def compute_verdicts(
    reading: Reading, agents: Sequence[str], turns: Sequence[TurnRecord[M]], semantics: Semantics[M]
) -> Verdicts[M]:
    """Every problem the turns pose and every hypothesis's verdict on each, as ``reading``'s
    ``surprise``, ``model``, ``consistency``, ``non_triviality`` and ``explainer`` say."""
    posed: list[tuple[_Problem[M], ...]] = []
    asked: list[tuple[_Problem[M], ...]] = []
    problems: list[_Problem[M]] = []
    formulas: dict[str, se.Formula] = {}  # each hypothesis's gamma
    solves: dict[tuple[str, str, str], bool] = {}
    members: dict[str, frozenset[str]] = {}
    for turn in turns:
        new = []
        for a in turn.announced:
            model = (
                a.with_the_others if reading.surprise == "with the others" else a.before_the_turn
            )
            new += [
                _Problem(i, a.chi, a.source, model)
                for i in _surprised(agents, semantics, model, a.chi)
            ]
        posed.append(tuple(new))
        problems += new
        for c in turn.conjectured:
            formulas[c.record] = c.gamma
            standing = sorted(h for h in c.good if h in formulas and h != c.record)
            together = reading.explainer == "together" and bool(standing)
            members[c.record] = frozenset({c.record, *(standing if together else ())})
            candidate = (
                se.And(tuple(formulas[h] for h in [c.record, *standing])) if together else c.gamma
            )
            for p in problems:
                solves[c.record, p.agent, p.source] = _is_solution(
                    reading, semantics, c.model, p, candidate
                )
        questions = [
            _Problem(i, q.chi, q.source, q.model)
            for q in turn.asked
            for i in _surprised(agents, semantics, q.model, q.chi)
        ]
        asked.append(tuple(questions))
        problems += questions
    return Verdicts(tuple(posed), tuple(asked), solves, members)


def _is_solved(
    reading: Reading,
    solutions: Sequence[frozenset[str]],
    good: frozenset[str],
    abandoned: frozenset[str],
) -> bool:
    """Some recorded solution keeps a problem closed, as ``reading.persistence`` says."""
    match reading.persistence:
        case "S_t":
            return any(s <= good for s in solutions)
        case "abandoned":
            return any(not s & abandoned for s in solutions)
        case _:
            return bool(solutions)


def _is_closed(
    reading: Reading,
    source: str,
    solutions: Sequence[frozenset[str]],
    good: frozenset[str],
    abandoned: frozenset[str],
    supported: frozenset[str],
) -> bool:
    """Closed by a solution of Definition A.2, by a Dep link to its source, or either
    (``reading.causal``)."""
    by_definition = _is_solved(reading, solutions, good, abandoned)
    by_dep = source in supported
    match reading.causal:
        case "A.2":
            return by_definition
        case "Dep":
            return by_dep
        case _:
            return by_definition or by_dep


def _explain(
    reading: Reading, turns: Sequence[TurnRecord[M]], checked: Verdicts[M]
) -> Explanations:
    """What ``reading`` explains, given what Definition A.2 found (:func:`compute_verdicts`): the
    problems checked (``candidates``), how long a solution keeps one closed
    (``persistence``), what else closes it (``causal``), and what a statement's o_k names
    (``naming``)."""
    queue: list[tuple[_Problem[M], list[frozenset[str]]]] = []
    observed: dict[str, se.Formula] = {}
    posed: dict[str, tuple[int, frozenset[str]]] = {}
    answered: dict[str, set[tuple[str, se.Formula]]] = {}  # (source, chi) of each problem
    unexplained: list[frozenset[str]] = [frozenset()]
    for k, turn in enumerate(turns):
        for a in turn.announced:
            observed[a.source] = a.chi
        for p in checked.posed[k]:
            queue.append((p, []))
            at, who = posed.get(p.source, (turn.number, frozenset()))
            posed[p.source] = (at, who | {p.agent})
        for c in turn.conjectured:
            answered[c.record] = set()
            for p, solutions in queue:
                closed = _is_closed(
                    reading,
                    p.source,
                    solutions,
                    c.good,
                    turn.abandoned_before,
                    turn.supported_before,
                )
                if reading.candidates == "open" and closed:
                    continue
                if reading.causal != "Dep" and checked.solves[c.record, p.agent, p.source]:
                    solutions.append(checked.members[c.record])
                    answered[c.record].add((p.source, p.chi))
            if reading.causal != "A.2":
                below = turn.rests_on.get(c.record, frozenset())
                answered[c.record] |= {(p.source, p.chi) for p, _ in queue if p.source in below}

        def is_open(
            p: _Problem[M], solutions: list[frozenset[str]], turn: TurnRecord[M] = turn
        ) -> bool:
            return not _is_closed(
                reading,
                p.source,
                solutions,
                turn.good_after,
                turn.abandoned_after,
                turn.supported_after,
            )

        for q in checked.asked[k]:
            # An agent with an open problem about chi keeps it (spec/gcv/spec/normative.md,
            # del.question).
            if not any(p.agent == q.agent and p.chi == q.chi and is_open(p, s) for p, s in queue):
                queue.append((q, []))
        still = {
            p.source if reading.naming == "record" else p.chi for p, s in queue if is_open(p, s)
        }
        unexplained.append(
            frozenset(
                o
                for o, chi in observed.items()
                if (o if reading.naming == "record" else chi) in still
            )
        )
    named = {
        h: frozenset(
            o
            for o, chi in observed.items()
            if any(
                (source == o) if reading.naming == "record" else (about == chi)
                for source, about in found
            )
        )
        for h, found in answered.items()
    }
    return Explanations(posed, tuple(unexplained), named)


@icontract.ensure(
    lambda turns, result: len(result.unexplained) == len(turns) + 1,
    "what is unexplained before the first turn and after each",
)
def compute_explanations(
    reading: Reading,
    agents: Sequence[str],
    turns: Sequence[TurnRecord[M]],
    semantics: Semantics[M],
    verdicts: Verdicts[M] | None = None,
) -> Explanations:
    """What ``reading`` explains, turn by turn, in the conversation ``turns``; ``verdicts``:
    :func:`compute_verdicts` already computed for a reading with the same :func:`verdict_key`
    (computed here when None)."""
    if verdicts is None:
        verdicts = compute_verdicts(reading, agents, turns, semantics)
    return _explain(reading, turns, verdicts)
