"""Appendix A.1, Definitions A.1-A.3, executable: plausibility models, updates, abduction.

This module is the oracle the reference's epistemic layer
(``reference/gcv/reference/epistemic/``) is checked against.  It is written to be obviously
right, not fast: a model is a set of worlds and, per agent, a plausibility
relation given as a set of pairs; every clause is the paper's sentence,
evaluated world by world.  Nothing here is cached or indexed.

A failed ``assert`` means the arguments are outside the definition (a formula
naming an atom the model lacks, an announcement true nowhere, ...).

Types
-----
A world is the frozenset of the atoms true at it (worlds are valuations; the
paper's bound |W| <= 2^k counts them so).  ``leq[i]`` is the set of pairs
(w, v) with w <=_i v, read "w is at least as plausible as v for i"
(Baltag-Smets: <=_i-minimal worlds are most plausible).

References
----------
Grounded Continuation, Appendix A.1 (Definition A.1, "Convention", "Updates",
Definition A.2, Definition A.3) and Appendix B.1.
Baltag, Alexandru, and Sonja Smets. 2008. "A Qualitative Theory of Dynamic
Interactive Belief Revision." In *Logic and the Foundations of Game and
Decision Theory (LOFT 7)*, 11-58. Amsterdam University Press.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations

__all__ = [
    "DEL_REALISATIONS",
    "And",
    "Atom",
    "Aware",
    "Believes",
    "Bottom",
    "Common",
    "CondBelieves",
    "EpistemicModel",
    "Everybody",
    "Explicit",
    "Formula",
    "Iff",
    "Implies",
    "Knows",
    "Not",
    "Or",
    "Top",
    "World",
    "compute_atoms",
    "compute_muddy_children_model",
    "compute_nobody_knows",
    "compute_problem_model",
    "compute_truth_set",
    "get_cell",
    "get_indistinguishable",
    "get_most_plausible",
    "get_reachable",
    "is_abductive_problem",
    "is_abductive_solution",
    "is_plausibility_model",
    "is_true",
    "is_valid",
    "process_announcement",
    "process_awareness_expansion",
    "process_conservative_downgrade",
    "process_conservative_upgrade",
    "process_lexicographic_downgrade",
    "process_lexicographic_upgrade",
]

# -- Types -------------------------------------------------------------------------

World = frozenset[str]
"""A world: the atoms true at it."""


@dataclass(frozen=True)
class Top:
    """The formula true."""


@dataclass(frozen=True)
class Bottom:
    """The formula false."""


@dataclass(frozen=True)
class Atom:
    """An atomic proposition p."""

    name: str


@dataclass(frozen=True)
class Not:
    """~phi."""

    body: Formula


@dataclass(frozen=True)
class And:
    """phi_1 & ... & phi_n."""

    parts: tuple[Formula, ...]


@dataclass(frozen=True)
class Or:
    """phi_1 | ... | phi_n."""

    parts: tuple[Formula, ...]


@dataclass(frozen=True)
class Implies:
    """phi -> psi."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class Iff:
    """phi <-> psi."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class Knows:
    """K_i phi."""

    agent: str
    body: Formula


@dataclass(frozen=True)
class Believes:
    """B_i phi."""

    agent: str
    body: Formula


@dataclass(frozen=True)
class CondBelieves:
    """B_i(phi | psi)."""

    agent: str
    body: Formula
    condition: Formula


@dataclass(frozen=True)
class Everybody:
    """E_G phi."""

    group: tuple[str, ...]
    body: Formula


@dataclass(frozen=True)
class Common:
    """C_G phi."""

    group: tuple[str, ...]
    body: Formula


@dataclass(frozen=True)
class Aware:
    """A_i phi (Definition A.3)."""

    agent: str
    body: Formula


@dataclass(frozen=True)
class Explicit:
    """X_i phi (Definition A.3)."""

    agent: str
    body: Formula


Formula = (
    Top
    | Bottom
    | Atom
    | Not
    | And
    | Or
    | Implies
    | Iff
    | Knows
    | Believes
    | CondBelieves
    | Everybody
    | Common
    | Aware
    | Explicit
)


@dataclass(frozen=True)
class EpistemicModel:
    """Definition A.1 with Definition A.3's awareness: (W, (<=_i), V, (A_i)).

    The valuation V is implicit in the worlds: V(p) = {w in W : p in w}.
    """

    agents: frozenset[str]
    atoms: frozenset[str]
    worlds: frozenset[World]
    leq: Mapping[str, frozenset[tuple[World, World]]]
    awareness: Mapping[str, frozenset[str]]


# -- Definition A.1 --------------------------------------------------------------------


def get_indistinguishable(model: EpistemicModel, agent: str) -> frozenset[tuple[World, World]]:
    """~_i := <=_i union >=_i (Definition A.1, "Convention")."""
    leq = model.leq[agent]
    return leq | frozenset((v, w) for w, v in leq)


def is_plausibility_model(model: EpistemicModel) -> bool:
    """Definition A.1. Check that every <=_i is a reflexive, transitive, locally connected
    preorder on a non-empty W, and that every world is a valuation of Prop."""
    W = model.worlds
    if not W or any(not w <= model.atoms for w in W):
        return False
    for agent in model.agents:
        leq = model.leq[agent]
        sim = get_indistinguishable(model, agent)
        reflexive = all((w, w) in leq for w in W)
        on_w = all(w in W and v in W for w, v in leq)
        transitive = all((w, u) in leq for (w, v) in leq for (v2, u) in leq if v == v2)
        # Locally connected: ~_i = <=_i | >=_i is then an equivalence whose classes
        # are the cells, and any two worlds of a cell are <=_i-comparable.
        sim_transitive = all((w, u) in sim for (w, v) in sim for (v2, u) in sim if v == v2)
        if not (reflexive and on_w and transitive and sim_transitive):
            return False
        if not model.awareness[agent] <= model.atoms:
            return False
    return True


def get_cell(model: EpistemicModel, agent: str, world: World) -> frozenset[World]:
    """Agent i's information cell at w: {w' : w ~_i w'}."""
    sim = get_indistinguishable(model, agent)
    return frozenset(v for v in model.worlds if (world, v) in sim)


def get_most_plausible(
    model: EpistemicModel, agent: str, worlds: Iterable[World]
) -> frozenset[World]:
    """The <=_i-minimal worlds of ``worlds``: those at least as plausible as every other."""
    among = frozenset(worlds)
    leq = model.leq[agent]
    return frozenset(w for w in among if all((w, v) in leq for v in among))


def get_reachable(model: EpistemicModel, group: Iterable[str], world: World) -> frozenset[World]:
    """The worlds reachable from w by one or more steps of ~_i for i in G (w itself included,
    since ~_i is reflexive)."""
    steps = frozenset().union(*(get_indistinguishable(model, i) for i in group))
    reached = frozenset({world})
    while True:
        grown = reached | frozenset(v for (w, v) in steps if w in reached)
        if grown == reached:
            return reached
        reached = grown


def compute_atoms(formula: Formula) -> frozenset[str]:
    """The atoms a formula mentions."""
    match formula:
        case Top() | Bottom():
            return frozenset()
        case Atom(name):
            return frozenset({name})
        case And(parts) | Or(parts):
            return frozenset().union(*(compute_atoms(p) for p in parts))
        case Implies(left, right) | Iff(left, right):
            return compute_atoms(left) | compute_atoms(right)
        case CondBelieves(_, body, condition):
            return compute_atoms(body) | compute_atoms(condition)
        case (
            Not(body)
            | Knows(_, body)
            | Believes(_, body)
            | Everybody(_, body)
            | Common(_, body)
            | Aware(_, body)
            | Explicit(_, body)
        ):
            return compute_atoms(body)
    raise AssertionError(f"not a formula: {formula!r}")


def is_true(model: EpistemicModel, world: World, formula: Formula) -> bool:
    """M, w |= phi: the clauses of Definition A.1's "Convention" and Definition A.3."""
    # Verify that the formula is over the model's vocabulary
    assert compute_atoms(formula) <= model.atoms, formula
    match formula:
        case Top():
            return True
        case Bottom():
            return False
        case Atom(name):
            return name in world
        case Not(body):
            return not is_true(model, world, body)
        case And(parts):
            return all(is_true(model, world, p) for p in parts)
        case Or(parts):
            return any(is_true(model, world, p) for p in parts)
        case Implies(left, right):
            return not is_true(model, world, left) or is_true(model, world, right)
        case Iff(left, right):
            return is_true(model, world, left) == is_true(model, world, right)
        case Knows(agent, body):
            # "Agent i knows phi at w iff phi holds at every w' with w ~_i w'."
            return all(is_true(model, v, body) for v in get_cell(model, agent, world))
        case Believes(agent, body):
            # "... believes phi at w iff phi holds at every <=_i-minimal world in {w' : w ~_i w'}."
            best = get_most_plausible(model, agent, get_cell(model, agent, world))
            return all(is_true(model, v, body) for v in best)
        case CondBelieves(agent, body, condition):
            # B_i(phi | psi): phi at the most plausible psi-worlds of the cell.
            cell = get_cell(model, agent, world)
            candidates = [v for v in cell if is_true(model, v, condition)]
            best = get_most_plausible(model, agent, candidates)
            return all(is_true(model, v, body) for v in best)
        case Everybody(group, body):
            return all(is_true(model, world, Knows(i, body)) for i in group)
        case Common(group, body):
            return all(is_true(model, v, body) for v in get_reachable(model, group, world))
        case Aware(agent, body):
            # "M, w |= A_i phi iff phi in A_i(w)"; A_i(w) is generated by the atoms i is aware of.
            return compute_atoms(body) <= model.awareness[agent]
        case Explicit(agent, body):
            # "X_i phi iff K_i phi and A_i phi".
            return is_true(model, world, Knows(agent, body)) and is_true(
                model, world, Aware(agent, body)
            )
    raise AssertionError(f"not a formula: {formula!r}")


def compute_truth_set(model: EpistemicModel, formula: Formula) -> frozenset[World]:
    """[[phi]] := {w in W : M, w |= phi}."""
    return frozenset(w for w in model.worlds if is_true(model, w, formula))


def is_valid(model: EpistemicModel, formula: Formula) -> bool:
    """M |= phi: phi holds at every world of W."""
    return compute_truth_set(model, formula) == model.worlds


# -- Updates (Appendix A.1) -------------------------------------------------------------


def _chosen(model: EpistemicModel, group: Iterable[str] | None) -> frozenset[str]:
    return model.agents if group is None else frozenset(group)


def process_announcement(
    model: EpistemicModel, formula: Formula, group: Iterable[str] | None = None
) -> EpistemicModel:
    """[!psi]. Public: "eliminates every w not in [[psi]]".  To a group G: the members of G
    learn whether psi (their ~_i is cut between psi- and ~psi-worlds); nobody else changes."""
    inside = compute_truth_set(model, formula)
    # Verify that psi holds somewhere (an announcement true nowhere is not truthful)
    assert inside, formula
    if group is None:
        leq = {
            i: frozenset((w, v) for w, v in model.leq[i] if w in inside and v in inside)
            for i in model.agents
        }
        return EpistemicModel(model.agents, model.atoms, inside, leq, model.awareness)
    members = _chosen(model, group)
    leq = {
        i: frozenset(
            (w, v) for w, v in model.leq[i] if i not in members or (w in inside) == (v in inside)
        )
        for i in model.agents
    }
    return EpistemicModel(model.agents, model.atoms, model.worlds, leq, model.awareness)


def process_lexicographic_upgrade(
    model: EpistemicModel, formula: Formula, group: Iterable[str] | None = None
) -> EpistemicModel:
    """[up-up psi]: "makes every psi-world strictly more plausible than every ~psi-world while
    preserving the within-side order.  No worlds are eliminated." (within each cell)"""
    inside = compute_truth_set(model, formula)
    members = _chosen(model, group)
    leq = {}
    for i in model.agents:
        if i not in members:
            leq[i] = model.leq[i]
            continue
        leq[i] = frozenset(
            (w, v)
            for w, v in get_indistinguishable(model, i)
            if (w in inside and v not in inside)
            or ((w in inside) == (v in inside) and (w, v) in model.leq[i])
        )
    return EpistemicModel(model.agents, model.atoms, model.worlds, leq, model.awareness)


def process_conservative_upgrade(
    model: EpistemicModel, formula: Formula, group: Iterable[str] | None = None
) -> EpistemicModel:
    """[up psi]: "promotes the most plausible psi-worlds to the overall minimum, preserving all
    other comparisons" (within each cell)."""
    members = _chosen(model, group)
    leq = {}
    for i in model.agents:
        if i not in members:
            leq[i] = model.leq[i]
            continue
        pairs = set()
        for w, v in get_indistinguishable(model, i):
            cell = get_cell(model, i, w)
            best = get_most_plausible(model, i, (u for u in cell if is_true(model, u, formula)))
            if w in best or (v not in best and (w, v) in model.leq[i]):
                pairs.add((w, v))
        leq[i] = frozenset(pairs)
    return EpistemicModel(model.agents, model.atoms, model.worlds, leq, model.awareness)


def process_lexicographic_downgrade(
    model: EpistemicModel, formula: Formula, group: Iterable[str] | None = None
) -> EpistemicModel:
    """Undermine, lexicographic: [up-up ~gamma] (B.2, T7)."""
    return process_lexicographic_upgrade(model, Not(formula), group)


def process_conservative_downgrade(
    model: EpistemicModel, formula: Formula, group: Iterable[str] | None = None
) -> EpistemicModel:
    """Undermine, conservative: [up ~gamma]."""
    return process_conservative_upgrade(model, Not(formula), group)


def process_awareness_expansion(
    model: EpistemicModel, atom: str, group: Iterable[str] | None = None
) -> EpistemicModel:
    """Definition A.3: "Awareness expansion adds formulas to A_i and refines W accordingly:
    each world splits into copies that differ on the new proposition".  The copies of a world
    are as plausible as it was, for everyone."""
    members = _chosen(model, group)
    awareness = {
        i: model.awareness[i] | {atom} if i in members else model.awareness[i] for i in model.agents
    }
    if atom in model.atoms:
        return EpistemicModel(model.agents, model.atoms, model.worlds, model.leq, awareness)
    worlds = frozenset(model.worlds | {w | {atom} for w in model.worlds})
    leq = {
        i: frozenset(
            (w, v) for w in worlds for v in worlds if (w - {atom}, v - {atom}) in model.leq[i]
        )
        for i in model.agents
    }
    return EpistemicModel(model.agents, model.atoms | {atom}, worlds, leq, awareness)


# -- Definition A.2 (abduction) -----------------------------------------------------------


def is_abductive_problem(model: EpistemicModel, agent: str, chi: Formula) -> bool:
    """Definition A.2. Check that (B_i, chi) is an abductive problem in M: M |/= B_i chi."""
    return not is_valid(model, Believes(agent, chi))


def compute_problem_model(
    current: EpistemicModel, posed: EpistemicModel, chi: Formula
) -> EpistemicModel:
    """Definition A.2's M for (B_i, chi) at turn t (spec/gcv/spec/normative.md,
    ``del.hypothesize.solves``).

    ``posed`` is the model in which the problem arose, brought to Prop_t (Definition A.3's
    expansion: each copy of a world as plausible as it was), with every world eliminated that
    disagrees with ``current`` outside chi's atoms: what has been learned since about
    everything but chi (B.2 T6: "h2 answers the abductive problem posed by o1" because Redis
    is known to be failing by then).
    """
    free = compute_atoms(chi)
    known = {w - free for w in current.worlds}
    choices = [frozenset(c) for n in range(len(free) + 1) for c in combinations(sorted(free), n)]
    worlds = frozenset(
        k | c for k in known for c in choices if (k | c) & posed.atoms in posed.worlds
    )
    # Verify that M_t descends from the model the problem arose in
    assert worlds, "outside the definition: M_t does not descend from the problem's model"
    leq = {
        i: frozenset(
            (w, v) for w in worlds for v in worlds if (w & posed.atoms, v & posed.atoms) in rel
        )
        for i, rel in posed.leq.items()
    }
    return EpistemicModel(posed.agents, current.atoms, worlds, leq, posed.awareness)


def is_abductive_solution(
    current: EpistemicModel,
    posed: EpistemicModel,
    agent: str,
    chi: Formula,
    gamma: Formula,
    literal: bool = False,
) -> bool:
    """Definition A.2. Check that gamma solves (B_i, chi): consistency and non-triviality in
    the current model, explanatory in :func:`compute_problem_model` (the model the problem
    arose in, with what M_t knows about every atom but chi's), or, ``literal``, in the
    current model itself, as A.2 writes it (spec/gcv/spec/normative.md,
    ``del.hypothesize.solves``)."""
    # 1. Consistency: M |/= B_i ~gamma
    consistent = not is_valid(current, Believes(agent, Not(gamma)))
    # 2. Explanatory: M[up-up gamma] |= B_i chi
    explained_in = current if literal else compute_problem_model(current, posed, chi)
    explanatory = is_valid(
        process_lexicographic_upgrade(explained_in, gamma, {agent}), Believes(agent, chi)
    )
    # 3. Non-triviality: gamma != chi, M |/= B_i gamma, gamma != true
    non_trivial = gamma != chi and gamma != Top() and not is_valid(current, Believes(agent, gamma))
    return consistent and explanatory and non_trivial


# -- Section 2's table: the DEL realisation of each operation ------------------------------

DEL_REALISATIONS: Mapping[str, tuple[tuple[str | None, bool], tuple[str | None, bool] | None]] = {
    # operation: ((update, of the negation?), the alternative reading or None)
    "expand-awareness": (("awareness expansion", False), None),
    "observe": (("hard announcement", False), None),
    "hypothesize": (("lexicographic upgrade", False), None),
    "support": (("conservative upgrade", False), ("lexicographic upgrade", False)),
    "undermine": (("lexicographic upgrade", True), ("conservative upgrade", True)),
    "revise": (("hard announcement", True), (None, False)),
    "resolve": (("hard announcement", False), (None, False)),
    "question": (("queue abductive problem", False), None),
}
"""Section 2: "Observe [!psi]; Hypothesize [up-up gamma]; Support [up gamma], or [up-up gamma]
if gamma-specific evidence; Undermine family of plausibility downgrades of gamma (B.2, T7:
[up-up ~h2]); Revise [!~gamma] or Att edge addition; Expand-Awareness add p to A_i, world-set
refinement on p; Resolve consensual [!gamma], or decision recording dissent; Question no DEL
update, chi queued as an open abductive problem"."""


# -- B.1: the muddy children ----------------------------------------------------------------


def compute_muddy_children_model(children: tuple[str, ...]) -> EpistemicModel:
    """B.1's M_0 for any number of children: atoms m_<child>, every valuation a world, and
    "w ~_i w' iff w, w' agree on m_j for all j != i"; everyone aware of every atom."""
    atoms = frozenset(f"m_{c}" for c in children)
    worlds: frozenset[World] = frozenset({frozenset()})
    for atom in sorted(atoms):
        worlds = worlds | frozenset(w | {atom} for w in worlds)
    leq = {
        c: frozenset((w, v) for w in worlds for v in worlds if w - {f"m_{c}"} == v - {f"m_{c}"})
        for c in children
    }
    return EpistemicModel(frozenset(children), atoms, worlds, leq, dict.fromkeys(children, atoms))


def compute_nobody_knows(children: tuple[str, ...]) -> Formula:
    """The simultaneous answers "I don't know": /\\_i (~K_i m_i & ~K_i ~m_i)."""
    return And(
        tuple(
            And((Not(Knows(c, Atom(f"m_{c}"))), Not(Knows(c, Not(Atom(f"m_{c}"))))))
            for c in children
        )
    )
