"""Abduction (Definition A.2): abductive problems, the check of a candidate, the queue.

An abductive problem (B_i, chi) arises when chi is announced (Observe) or
asked about (Question) while agent i did not believe it.  The problem keeps
the model in which it arose, M_chi: for an observation, the model as it
would be without that announcement (the turn's other announcements made);
for a question, the model when it is asked.  A hypothesis gamma solves it when

1. consistency: M_t does not satisfy B_i ~gamma;
2. explanatory: M_chi^t[up-up gamma] satisfies B_i chi;
3. non-triviality: gamma != chi, M_t does not satisfy B_i gamma, gamma != true,

where M_t is the current model just before gamma's upgrade and "M satisfies
phi" means phi holds at every world of M.  M_chi^t is M_chi brought to the
current vocabulary (an atom it lacks splits its worlds, Definition A.3) and
restricted to the worlds that agree with M_t on every atom outside chi's:
what has been learned since, about everything but chi.

That is the chosen reading (spec/gcv/spec/normative.md, ``del.hypothesize.solves``).  The
literal reading (``literal=True``) checks the explanation where Definition A.2 writes
it, in the one model M of all three conditions: M_t[up-up gamma] satisfies B_i chi.
The chosen reading is the default because in M_t chi has been announced: every agent
knows it, and every consistent, non-trivial candidate explains every observation
(B.2's "Remaining unexplained: o6" at T6 then fails; docs/epistemic.md lists B.2's
statements about the queue under each reading).  Nor does the chosen reading read M_chi
as it was, since B.2's checks use what was learned after the problem arose: at T6,
h2 := (p_redis -> p_auth) "answers the abductive problem posed by o1" (T1) because
Redis is known to be failing from T3; at T5, h1 explains o7 because "Redis being down
plus h1 entails Stripe 429s".

Mirrors ``gcv.spec.epistemic.is_abductive_problem`` and ``is_abductive_solution``.

References
----------
Velazquez-Quesada, Fernando R., Fernando Soler-Toscano, and Angel
Nepomuceno-Fernandez. 2013. "An Epistemic and Dynamic Approach to Abductive
Reasoning: Abductive Problem and Abductive Solution." *Journal of Applied
Logic* 11 (4): 505-22. https://doi.org/10.1016/j.jal.2013.07.002.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import icontract

from gcv.reference.epistemic.formula import TOP, Believes, Formula, Not, atoms_of, show
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import holds_everywhere
from gcv.reference.epistemic.updates import lexicographic_upgrade
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.records import GOOD_STANDING, Standing

__all__ = [
    "Problem",
    "Verdict",
    "check_solution",
    "close_problems",
    "is_surprising",
    "keeps_the_queue",
    "open_problems",
    "queue_question",
]


@dataclass(frozen=True, slots=True)
class Problem:
    """An abductive problem (B_agent, formula), posed by the record ``source``.

    ``model`` is M_chi, the model in which the agent did not believe chi;
    ``closed_by`` lists the hypotheses that passed Definition A.2's checks for it.
    """

    agent: AgentId
    formula: Formula
    source: RecordId
    model: PlausibilityModel
    closed_by: tuple[RecordId, ...] = ()

    def is_explained(self, standing: Mapping[RecordId, Standing]) -> bool:
        """Some hypothesis that solved it is still in S_t."""
        return any(standing.get(h) in GOOD_STANDING for h in self.closed_by)

    def snapshot(self) -> dict[str, object]:
        """The problem as plain JSON data."""
        return {
            "agent": self.agent,
            "formula": show(self.formula),
            "source": self.source,
            "model": self.model.fingerprint(),
            "closed_by": list(self.closed_by),
        }


def keeps_the_queue(before: Sequence[Problem], after: Sequence[Problem]) -> bool:
    """Definition A.2's queue: no problem is dropped or changed, a solution never withdrawn;
    new problems come after the old."""
    if len(after) < len(before):
        return False
    return all(
        (a.agent, a.formula, a.source) == (b.agent, b.formula, b.source)
        and a.closed_by[: len(b.closed_by)] == b.closed_by
        for b, a in zip(before, after, strict=False)
    )


@dataclass(frozen=True, slots=True)
class Verdict:
    """Definition A.2's three checks for one problem and one candidate."""

    consistent: bool
    explanatory: bool
    non_trivial: bool

    @property
    def solves(self) -> bool:
        """All three checks pass."""
        return self.consistent and self.explanatory and self.non_trivial


@icontract.require(lambda model, agent: agent in model.agents, "i is in Ags")
def is_surprising(model: PlausibilityModel, agent: AgentId, chi: Formula) -> bool:
    """Definition A.2's problem: the agent does not believe chi in ``model`` (M |/= B_i chi)."""
    return not holds_everywhere(model, Believes(agent, chi))


def _problem_model(current: PlausibilityModel, problem: Problem) -> PlausibilityModel:
    """M_chi^t: M_chi over M_t's atoms, on the worlds agreeing with M_t outside chi's atoms.

    Each world keeps the cell and rank of the M_chi world it extends (Definition A.3's
    copies); one pass over W_t for each valuation of chi's atoms.
    """
    current, posed = current.explicit(), problem.model.explicit()
    free = sorted(set(atoms_of(problem.formula)))
    shared = frozenset(posed.atoms)
    index = {posed.valuation(w): i for i, w in enumerate(posed.worlds)}
    kept: dict[int, int] = {}  # world bits over M_t's atoms -> its M_chi world
    for known in {v - set(free) for v in current.valuations()}:
        for n in range(len(free) + 1):
            for chosen in combinations(free, n):
                world = known | set(chosen)
                source = index.get(world & shared)
                if source is not None:
                    kept.setdefault(current.bits_of(world), source)
    if not kept:
        raise RuntimeError("M_t does not descend from the model its problems arose in")
    return current.with_parts(
        awareness=posed.awareness,
        worlds=tuple(kept),
        cells={a: tuple(posed.cells(a)[i] for i in kept.values()) for a in posed.agents},
        ranks={a: tuple(posed.ranks(a)[i] for i in kept.values()) for a in posed.agents},
    )


@icontract.ensure(
    lambda gamma, problem, result: not result.solves or gamma != problem.formula,
    "a solution is never the problem's own formula",
)
def check_solution(
    current: PlausibilityModel, problem: Problem, gamma: Formula, *, literal: bool = False
) -> Verdict:
    """Check the candidate gamma against ``problem`` (Definition A.2).

    ``current`` is M_t just before gamma's upgrade; gamma's atoms are in it.  The
    explanation is checked in M_chi^t[up-up gamma], or with ``literal`` in
    M_t[up-up gamma], as Definition A.2 writes it.

    Examples
    --------
    >>> from gcv.reference.epistemic.formula import parse
    >>> from gcv.reference.epistemic.updates import announce
    >>> before = PlausibilityModel.implicit(["b"], ["redis", "stripe429", "h1"])
    >>> posed = announce(before, parse("redis"))   # o8 announced, o7 not yet
    >>> problem = Problem("b", parse("stripe429"), "o7", posed)
    >>> now = announce(posed, parse("stripe429"))
    >>> check_solution(now, problem, parse("h1 & (redis -> stripe429)")).solves
    True
    >>> check_solution(now, problem, parse("h1")).explanatory
    False
    >>> check_solution(now, problem, parse("h1"), literal=True).explanatory  # o7 is known
    True
    """
    agent, chi = problem.agent, problem.formula
    consistent = not holds_everywhere(current, Believes(agent, Not(gamma)))
    explained_in = current if literal else _problem_model(current, problem)
    upgraded = lexicographic_upgrade(explained_in, gamma, [agent])
    explanatory = holds_everywhere(upgraded, Believes(agent, chi))
    non_trivial = (
        gamma != chi and gamma != TOP and not holds_everywhere(current, Believes(agent, gamma))
    )
    return Verdict(consistent, explanatory, non_trivial)


def _are_open(
    found: tuple[Problem, ...], problems: tuple[Problem, ...], standing: Mapping[RecordId, Standing]
) -> bool:
    return all(p in problems and not p.is_explained(standing) for p in found)


@icontract.ensure(
    lambda problems, standing, result: _are_open(result, problems, standing),
    "the queued problems no hypothesis in S_t solves",
)
def open_problems(
    problems: tuple[Problem, ...],
    standing: Mapping[RecordId, Standing],
    agent: AgentId | None = None,
) -> tuple[Problem, ...]:
    """The problems (of ``agent``, or of everyone) with no solving hypothesis in S_t."""
    return tuple(
        p for p in problems if (agent is None or p.agent == agent) and not p.is_explained(standing)
    )


@icontract.ensure(
    lambda problems, result: len(result) == len(problems) and keeps_the_queue(problems, result),
    "the same problems, solutions only added",
)
def close_problems(
    problems: tuple[Problem, ...],
    current: PlausibilityModel,
    gamma: Formula,
    hypothesis: RecordId,
    standing: Mapping[RecordId, Standing],
    *,
    literal: bool = False,
) -> tuple[Problem, ...]:
    """Record ``hypothesis`` as a solution of every open problem gamma solves (under the
    reading ``literal`` names, as :func:`check_solution`).

    A problem whose solutions have all left S_t (weakened or abandoned) is open
    again, and a later hypothesis may close it.
    """
    out = []
    for problem in problems:
        if (
            not problem.is_explained(standing)
            and check_solution(current, problem, gamma, literal=literal).solves
        ):
            problem = Problem(
                problem.agent,
                problem.formula,
                problem.source,
                problem.model,
                (*problem.closed_by, hypothesis),
            )
        out.append(problem)
    return tuple(out)


def _are_posed_by(new: tuple[Problem, ...], question: RecordId, chi: Formula) -> bool:
    return all(p.source == question and p.formula == chi for p in new)


@icontract.ensure(
    lambda problems, chi, question, result: (
        keeps_the_queue(problems, result) and _are_posed_by(result[len(problems) :], question, chi)
    ),
    "the queue grows by (B_i, chi) problems posed by the question",
)
def queue_question(
    problems: tuple[Problem, ...],
    current: PlausibilityModel,
    chi: Formula,
    question: RecordId,
    standing: Mapping[RecordId, Standing],
) -> tuple[Problem, ...]:
    """Question: queue (B_i, chi) for every agent who does not believe chi.

    An agent who already has an open problem with the same chi keeps that one
    (B.2, T10: the question "keeps o6 on the abductive-problem queue"); an agent
    who believes chi has no problem with it.
    """
    added = []
    for agent in current.agents:
        if not is_surprising(current, agent, chi):
            continue
        if any(p.formula == chi for p in open_problems(problems, standing, agent)):
            continue
        added.append(Problem(agent, chi, question, current))
    return problems + tuple(added)
