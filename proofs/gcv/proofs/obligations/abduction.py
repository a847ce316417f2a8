"""Definition A.2 (abduction) as the engine computes it, over the plausibility models of A.1.

The definitions, written once over :class:`~gcv.proofs.obligations.plausibility.Logic` as
the updates are (Z3 terms for the proofs, Python truth values for the tie):

* knowledge and belief, as A.1's Convention reads them: agent i knows phi at w iff phi
  holds at every world of w's cell (the worlds ``<=_i``-comparable with w); i believes phi
  at w iff phi holds at every ``<=_i``-minimal world of that cell;
* "M satisfies phi": phi at every world of W;
* the problem (B_i, chi): M does not satisfy B_i chi (``is_surprising``; the engine queues a
  problem for each agent it holds for, on Observe and on Question);
* the check of a candidate gamma (``check_solution``): consistency, M does not satisfy
  B_i ~gamma; explanatory, M'[up-up gamma] satisfies B_i chi, with M' the current model
  (the literal reading) or the model the problem arose in brought to the current one (the
  chosen reading, ``del.hypothesize.solves``); non-triviality, gamma is not chi, not true,
  and M does not satisfy B_i gamma.

``tests/test_proofs_abduction.py`` evaluates these definitions on every model of up to
three worlds and two agents, for every truth set of chi and gamma, and compares them with
``gcv.reference.epistemic.abduction`` (``is_surprising``, ``check_solution`` under both
readings, ``queue_question``): the tie, which fails for the engine with knowledge in place
of belief in any of the conditions.

What is proved, for every A.1 model (W of any size; unbounded):

1. knowledge implies belief at every world (so consistency by belief, the paper's, is the
   stronger condition: a candidate believed false but not known false is refused);
2. after [up-up gamma] for i, i believes gamma at every world whose cell holds a
   gamma-world: the upgrade is how a solution is integrated (the explanatory condition
   asks what i then believes);
3. knowledge survives [up-up gamma]: if M satisfies K_i chi, then M[up-up gamma] satisfies
   B_i chi for every gamma, so in the literal reading every consistent, non-trivial
   candidate explains an observation already announced (known to all): the reason the
   engine's default is the chosen reading.

Twins: belief implies knowledge (refuted by a model the spec confirms: B_a psi holds, K_a
psi does not); (2) without its hypothesis that the cell holds a gamma-world (the spec's
upgrade of the decoded model leaves B_a gamma false somewhere).
"""

from __future__ import annotations

from collections.abc import Callable

import z3

from gcv.proofs.obligations.plausibility import (
    WORLD,
    B,
    Frame,
    Symbolic,
    W,
    clauses,
    comparable,
    decode,
    lexicographic,
)
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove
from gcv.spec import epistemic

__all__ = [
    "OBLIGATION",
    "believes",
    "check",
    "knows",
    "satisfies",
    "surprising",
]

AGENT = "a"
"""The agent whose knowledge, belief and problem are checked (the other is ``b``)."""


def knows(frame: Frame[W, B], agent: str, phi: Callable[[W], B]) -> Callable[[W], B]:
    """K_i phi at w: phi at every world of w's cell."""
    logic, near = frame.logic, comparable(frame, agent)
    return lambda w: logic.every(
        lambda v: logic.implies(logic.all_of([frame.inside(v), near(w, v)]), phi(v))
    )


def believes(frame: Frame[W, B], agent: str, phi: Callable[[W], B]) -> Callable[[W], B]:
    """B_i phi at w: phi at every <=_i-minimal world of w's cell."""
    logic, leq, near = frame.logic, frame.leq[agent], comparable(frame, agent)

    def in_cell(w: W, v: W) -> B:
        return logic.all_of([frame.inside(v), near(w, v)])

    def minimal(w: W, v: W) -> B:
        beaten = logic.every(lambda u: logic.implies(in_cell(w, u), leq(v, u)))
        return logic.all_of([in_cell(w, v), beaten])

    return lambda w: logic.every(lambda v: logic.implies(minimal(w, v), phi(v)))


def satisfies(frame: Frame[W, B], phi: Callable[[W], B]) -> B:
    """M satisfies phi: phi at every world of W."""
    logic = frame.logic
    return logic.every(lambda w: logic.implies(frame.inside(w), phi(w)))


def surprising(frame: Frame[W, B], agent: str, chi: Callable[[W], B]) -> B:
    """Definition A.2's problem: M does not satisfy B_i chi."""
    return frame.logic.negation(satisfies(frame, believes(frame, agent, chi)))


def check(
    current: Frame[W, B],
    explained_in: Frame[W, B],
    agent: str,
    chi: Callable[[W], B],
    gamma: Callable[[W], B],
    *,
    gamma_is_chi: bool,
    gamma_is_top: bool,
) -> tuple[B, B, B]:
    """Definition A.2's three conditions for gamma and (B_i, chi): consistency and
    non-triviality in ``current``, the explanation in ``explained_in`` upgraded by gamma."""
    logic = current.logic
    not_gamma = lambda w: logic.negation(gamma(w))  # noqa: E731 - a formula, as the others
    consistent = logic.negation(satisfies(current, believes(current, agent, not_gamma)))
    upgraded = lexicographic(explained_in, gamma, frozenset({agent}))
    explanatory = satisfies(upgraded, believes(upgraded, agent, chi))
    believed = satisfies(current, believes(current, agent, gamma))
    if gamma_is_chi or gamma_is_top:  # gamma != chi and gamma != true: syntactic, decided here
        return consistent, explanatory, logic.any_of([])
    non_trivial = logic.negation(believed)
    return consistent, explanatory, non_trivial


# -- the proofs ---------------------------------------------------------------------------

PSI = epistemic.Atom("psi")


def checks(budget: Budget) -> list[Check]:
    s = Symbolic.fresh()
    m = s.frame()
    a1 = list(clauses(m).values())
    gamma = z3.Function("gamma", WORLD, z3.BoolSort())
    knowledge_is_belief = satisfies(
        m, lambda w: z3.Implies(knows(m, AGENT, s.psi)(w), believes(m, AGENT, s.psi)(w))
    )
    upgraded = lexicographic(m, gamma, frozenset({AGENT}))
    near = comparable(m, AGENT)
    integrated = satisfies(
        m,
        lambda w: z3.Implies(
            m.logic.some(lambda v: z3.And(m.inside(v), near(w, v), gamma(v))),
            believes(upgraded, AGENT, gamma)(w),
        ),
    )
    persists = z3.Implies(
        satisfies(m, knows(m, AGENT, s.psi)), satisfies(upgraded, believes(upgraded, AGENT, s.psi))
    )
    return [
        Check(
            "K_a phi implies B_a phi", prove(a1, knowledge_is_belief, timeout_ms=budget.timeout_ms)
        ),
        Check(
            "after [up-up gamma], B_a gamma wherever the cell holds gamma",
            prove(a1, integrated, timeout_ms=budget.timeout_ms),
        ),
        Check(
            "M |= K_a chi gives M[up-up gamma] |= B_a chi: the literal reading explains it",
            prove(a1, persists, timeout_ms=budget.timeout_ms),
        ),
    ]


def _belief_is_knowledge_twin(budget: Budget) -> Twin:
    s = Symbolic.fresh()
    m = s.frame()
    claim = satisfies(
        m, lambda w: z3.Implies(believes(m, AGENT, s.psi)(w), knows(m, AGENT, s.psi)(w))
    )
    name = "belief implies knowledge"
    result = prove(list(clauses(m).values()), claim, timeout_ms=budget.timeout_ms)
    if result.model is None:
        return Twin(name, result)
    model = decode(result.model, s).model(s.leq)
    believed = epistemic.is_valid(model, epistemic.Believes(AGENT, PSI))
    known = epistemic.is_valid(model, epistemic.Knows(AGENT, PSI))
    confirmed = epistemic.is_plausibility_model(model) and not all(
        not epistemic.is_true(model, w, epistemic.Believes(AGENT, PSI))
        or epistemic.is_true(model, w, epistemic.Knows(AGENT, PSI))
        for w in model.worlds
    )
    text = f"{len(model.worlds)} worlds: the spec's B_a psi valid {believed}, K_a psi {known}"
    return Twin(name, result, text, confirmed)


def _believed_everywhere_twin(budget: Budget) -> Twin:
    s = Symbolic.fresh()
    m = s.frame()
    gamma = z3.Function("gamma", WORLD, z3.BoolSort())
    upgraded = lexicographic(m, gamma, frozenset({AGENT}))
    name = "after [up-up gamma], B_a gamma at every world (cells without gamma too)"
    claim = satisfies(m, believes(upgraded, AGENT, gamma))
    result = prove(list(clauses(m).values()), claim, timeout_ms=budget.timeout_ms)
    if result.model is None:
        return Twin(name, result)
    decoded = decode(result.model, s)
    model = decoded.model(s.leq)
    gamma_worlds = frozenset(
        decoded.name[w.sexpr()] for w in decoded.kept if decoded.holds(gamma(w))
    )
    marked = _with_atom(model, "gamma", gamma_worlds)
    after = epistemic.process_lexicographic_upgrade(marked, epistemic.Atom("gamma"), {AGENT})
    confirmed = epistemic.is_plausibility_model(marked) and not epistemic.is_valid(
        after, epistemic.Believes(AGENT, epistemic.Atom("gamma"))
    )
    text = f"{len(model.worlds)} worlds: after the spec's upgrade B_a gamma fails somewhere"
    return Twin(name, result, text, confirmed)


def _with_atom(
    model: epistemic.EpistemicModel, atom: str, worlds: frozenset[epistemic.World]
) -> epistemic.EpistemicModel:
    """``model`` with ``atom`` true exactly at ``worlds`` (renaming each world)."""
    rename = {w: w | {atom} if w in worlds else w for w in model.worlds}
    leq = {i: frozenset((rename[w], rename[v]) for w, v in r) for i, r in model.leq.items()}
    return epistemic.EpistemicModel(
        model.agents,
        model.atoms | {atom},
        frozenset(rename.values()),
        leq,
        model.awareness,
    )


def twins(budget: Budget) -> list[Twin]:
    return [_belief_is_knowledge_twin(budget), _believed_everywhere_twin(budget)]


OBLIGATION = Obligation(
    id="definition-a.2",
    statement="Definition A.2 as the engine checks it: knowledge implies belief (consistency "
    "by belief is the stronger); [up-up gamma] makes gamma believed where the cell holds it; "
    "a known chi is believed after any upgrade (the literal reading explains it)",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=twins,
)
