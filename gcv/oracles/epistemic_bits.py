"""Appendix A.1-A.3 again, bit-parallel: the oracle for models the brute force cannot afford.

:mod:`gcv.spec.epistemic` states Definitions A.1-A.3 world by world, with every plausibility
relation a set of pairs; a modality costs it O(|W|^3), so it stops at 64 worlds.  This
module computes the same definitions on a second representation, so that every epistemic
step of the conformance vectors (up to 256 worlds) and of Phase 2's full model (2^15 worlds)
has an expected value computed without the engine.  It imports nothing from ``reference/``
and is tested against :mod:`gcv.spec.epistemic` on every model the brute force affords
(``tests/epistemic/test_bits.py``).

The representation: bit-parallel valuations
-------------------------------------------
With Prop = (p_0, ..., p_{n-1}) in a fixed order, the valuation making exactly the atoms
p_j (j in J) true is the number v = sum of 2^j over J, and a set of valuations is the
Python int with bit v set for each member.  W, every truth set [[phi]] and every layer below
are such ints, so a connective is one big-integer operation, the atom p_j is a fixed bit
pattern (2^j zeros, 2^j ones, repeated), forgetting p_j and splitting every world on a new
atom are two shifts.  Each agent's plausibility is an *ordered partition*: its information
cells (the classes of ~_i), each a tuple of layers, most plausible first (w <=_i v iff w and
v share a cell and w's layer comes no later than v's).  That is Definition A.1's locally
connected preorder as the paper pictures it, and the updates read as the paper words them:
[up-up psi] puts each cell's psi-parts of its layers before its ~psi-parts; [up psi] moves
the psi-part of a cell's first layer meeting psi to the front; [!psi] intersects everything
with [[psi]].

Why this and not binary decision diagrams (the ``dd`` package): a set of 2^15 valuations is a
4 KiB int, so every operation the vectors and Phase 2 need is a handful of linear-time
big-integer operations with no dependency to add; an ordered partition states <=_i as the
paper's sentences do, where a BDD over pairs of worlds (2n variables) needs quantifier
chains (a most plausible world is one below every world of its cell) that are harder to
read against the paper and, in pure Python, slow on models with little structure.
Independence from the engine: ``reference/gcv/reference/epistemic/`` keeps a list of worlds, a truth
set over the positions in that list, and per agent a cell label and an integer rank per world,
compared and re-sorted by its updates; here a world's position is its valuation, and no rank or cell
label exists, only sets of worlds.

Where :mod:`gcv.spec.epistemic` fails an ``assert``, this module raises
:class:`OutsideDefinition`: the arguments are outside the definition (a formula naming an
atom the model lacks, an announcement true nowhere, ...).  Formulas are
:mod:`gcv.spec.epistemic`'s values.

Why a tool and not the spec: the spec's modules are the statements a reader checks against
the paper by eye; this one is a second, faster representation of the same statements, which
earns trust only by agreeing with :mod:`gcv.spec.epistemic` wherever both run.  Its users are
tools (the vector generator, ``gcv.conformance.cases``, and ``gcv audit readings``,
:mod:`gcv.audits.readings`), the tests and a benchmark, so it lives beside them under
``gcv/``, in a package of oracles rather than in either tool's package: neither owns it.

References
----------
Grounded Continuation, Appendix A.1 (Definition A.1, "Convention", "Updates", Definition A.2,
Definition A.3), Section 2's table of DEL realisations; spec/gcv/spec/normative.md, section "M_t".

Whole, at about 750 lines: it is one second computation of Definitions A.1-A.3 on one
representation, and every part reads the same bit masks: the valuation, the conversion from
and to the brute force's values, the truth sets, the updates. Split, the representation
(described above) would be explained in one file and used in the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from functools import reduce
from operator import and_, or_
from typing import Any

import icontract

from gcv.spec import epistemic as se
from gcv.spec import transition
from gcv.spec.clauses import NO_EMPTY_W

__all__ = [
    "Announced",
    "Asked",
    "BitModel",
    "BitProblem",
    "Conjectured",
    "OutsideDefinition",
    "TurnSteps",
    "compute_atom_mask",
    "compute_default_model",
    "compute_posed_model",
    "compute_problem_model",
    "compute_truth_set",
    "compute_turn_steps",
    "from_spec_model",
    "is_abductive_solution",
    "is_true",
    "is_valid",
    "process_announcement",
    "process_awareness_expansion",
    "process_conservative_upgrade",
    "process_lexicographic_upgrade",
    "process_turn_model",
    "to_spec_model",
]


class OutsideDefinition(ValueError):
    """The arguments are outside the definition a function computes (where the spec's
    brute force fails an ``assert``)."""


Cell = tuple[int, ...]
"""An information cell of one agent: its layers, most plausible first, each non-empty."""


@dataclass(frozen=True)
class BitModel:
    """Definition A.1 with Definition A.3's awareness, as sets of valuations.

    ``atoms[j]`` is bit j of a valuation's number; ``worlds`` has bit v set iff valuation v is
    in W; ``order[i]`` is agent i's cells, each a tuple of layers partitioning the cell.
    """

    agents: tuple[str, ...]
    atoms: tuple[str, ...]
    worlds: int
    order: Mapping[str, frozenset[Cell]]
    awareness: Mapping[str, frozenset[str]]


def _union(sets: Iterable[int]) -> int:
    return reduce(or_, sets, 0)


def _members(worlds: int) -> Iterator[int]:
    """The valuations in a set, lowest first."""
    while worlds:
        lowest = worlds & -worlds
        yield lowest.bit_length() - 1
        worlds ^= lowest


def _cell(layers: Iterable[int]) -> Cell:
    return tuple(layer for layer in layers if layer)


def _is_partition_of_w(model: BitModel) -> bool:
    """Each agent's layers partition W (Definition A.1: ~_i is an equivalence on W)."""
    for agent in model.agents:
        layers = [layer for cell in model.order[agent] for layer in cell]
        disjoint = sum(x.bit_count() for x in layers) == model.worlds.bit_count()
        if _union(layers) != model.worlds or not disjoint:
            return False
    return True


# -- the valuation --------------------------------------------------------------------------


@icontract.ensure(
    lambda index, count, result: all(
        ((result >> v) & 1) == ((v >> index) & 1) for v in range(min(1 << count, 64))
    ),
    "bit v of V(p_index) is bit index of v",
)
def compute_atom_mask(index: int, count: int) -> int:
    """V(p_index) over every valuation of ``count`` atoms: 2^index zeros, 2^index ones,
    repeated."""
    if not 0 <= index < count:
        raise OutsideDefinition(f"p_{index} is not one of {count} atoms")
    mask, length = ((1 << (1 << index)) - 1) << (1 << index), 2 << index
    while length < 1 << count:
        mask |= mask << length
        length <<= 1
    return mask


def _forget(worlds: int, index: int, count: int) -> int:
    """The valuations that agree with a member of ``worlds`` on every atom but p_index."""
    mask, shift = compute_atom_mask(index, count), 1 << index
    true, false = worlds & mask, worlds & ~mask
    return true | true >> shift | false | false << shift


@icontract.ensure(lambda result: _is_partition_of_w(result), "each agent's cells partition W")
def compute_default_model(
    agents: Sequence[str], atoms: Sequence[str], awareness: Mapping[str, Iterable[str]]
) -> BitModel:
    """M_t before any update (spec/gcv/spec/normative.md): every valuation of Prop_t, one cell per
    agent, all worlds equally plausible."""
    everything = (1 << (1 << len(atoms))) - 1
    return BitModel(
        tuple(agents),
        tuple(atoms),
        everything,
        {a: frozenset({(everything,)}) for a in agents},
        {a: frozenset(awareness[a]) for a in agents},
    )


# -- to and from the brute force's values ---------------------------------------------------


def _number(world: se.World, atoms: Sequence[str]) -> int:
    return sum(1 << j for j, atom in enumerate(atoms) if atom in world)


def _world(number: int, atoms: Sequence[str]) -> se.World:
    return frozenset(atom for j, atom in enumerate(atoms) if number >> j & 1)


@icontract.ensure(lambda model, result: _is_partition_of_w(result), "the cells partition W")
def from_spec_model(model: se.EpistemicModel, atoms: Sequence[str] | None = None) -> BitModel:
    """The same model as sets of valuations (atoms in ``atoms``' order, else sorted).

    Within a cell, w's layer is fixed by how many worlds are at least as plausible as w (for a
    locally connected preorder, equally plausible worlds have the same count)."""
    order_of_atoms = tuple(sorted(model.atoms) if atoms is None else atoms)
    if set(order_of_atoms) != set(model.atoms):
        raise OutsideDefinition(f"{order_of_atoms} are not the model's atoms {model.atoms}")
    order = {}
    for agent in sorted(model.agents):
        below: dict[se.World, set[se.World]] = {w: set() for w in model.worlds}
        above: dict[se.World, set[se.World]] = {w: set() for w in model.worlds}
        for w, v in model.leq[agent]:
            below[v].add(w)
            above[w].add(v)
        cells = set()
        for w in model.worlds:
            cell = below[w] | above[w]
            counts = sorted({len(below[v]) for v in cell})
            cells.add(
                tuple(
                    _union(1 << _number(v, order_of_atoms) for v in cell if len(below[v]) == n)
                    for n in counts
                )
            )
        order[agent] = frozenset(cells)
    return BitModel(
        tuple(sorted(model.agents)),
        order_of_atoms,
        _union(1 << _number(w, order_of_atoms) for w in model.worlds),
        order,
        {a: frozenset(model.awareness[a]) for a in model.agents},
    )


def to_spec_model(model: BitModel) -> se.EpistemicModel:
    """The same model as :mod:`gcv.spec.epistemic`'s value: worlds as valuations, <=_i as
    pairs."""
    leq = {}
    for agent in model.agents:
        pairs = set()
        for cell in model.order[agent]:
            for k, better in enumerate(cell):
                worse = _union(cell[k:])
                pairs |= {
                    (_world(w, model.atoms), _world(v, model.atoms))
                    for w in _members(better)
                    for v in _members(worse)
                }
        leq[agent] = frozenset(pairs)
    return se.EpistemicModel(
        frozenset(model.agents),
        frozenset(model.atoms),
        frozenset(_world(w, model.atoms) for w in _members(model.worlds)),
        leq,
        dict(model.awareness),
    )


# -- Definition A.1, "Convention"; Definition A.3 ------------------------------------------------


def _components(model: BitModel, group: Iterable[str]) -> list[int]:
    """The classes of the transitive closure of the union of G's ~_i (C_G's reach)."""
    cells = [_union(cell) for agent in group for cell in model.order[agent]]
    components, remaining = [], model.worlds
    while remaining:
        component, grown = remaining & -remaining, True
        while grown:
            grown = False
            for cell in cells:
                if cell & component and cell & ~component:
                    component |= cell
                    grown = True
        components.append(component)
        remaining &= ~component
    return components


def compute_truth_set(model: BitModel, formula: se.Formula) -> int:
    """[[phi]] := {w in W : M, w |= phi}, the clauses of A.1's "Convention" and A.3."""
    if not se.compute_atoms(formula) <= set(model.atoms):
        raise OutsideDefinition(f"{formula} names an atom outside {model.atoms}")
    W = model.worlds
    match formula:
        case se.Top():
            return W
        case se.Bottom():
            return 0
        case se.Atom(name):
            return W & compute_atom_mask(model.atoms.index(name), len(model.atoms))
        case se.Not(body):
            return W & ~compute_truth_set(model, body)
        case se.And(parts):
            return reduce(and_, (compute_truth_set(model, p) for p in parts), W)
        case se.Or(parts):
            return _union(compute_truth_set(model, p) for p in parts)
        case se.Implies(left, right):
            return W & ~compute_truth_set(model, left) | compute_truth_set(model, right)
        case se.Iff(left, right):
            return W & ~(compute_truth_set(model, left) ^ compute_truth_set(model, right))
        case se.Knows(agent, body):
            # "Agent i knows phi at w iff phi holds at every w' with w ~_i w'."
            inside = compute_truth_set(model, body)
            cells = (_union(cell) for cell in model.order[agent])
            return _union(c for c in cells if not c & ~inside)
        case se.Believes(agent, body):
            # "... believes phi at w iff phi holds at every <=_i-minimal world in its cell."
            inside = compute_truth_set(model, body)
            return _union(_union(c) for c in model.order[agent] if not c[0] & ~inside)
        case se.CondBelieves(agent, body, condition):
            # B_i(phi | psi): phi at the most plausible psi-worlds of the cell.
            inside, given = compute_truth_set(model, body), compute_truth_set(model, condition)
            held = 0
            for cell in model.order[agent]:
                best = next((layer & given for layer in cell if layer & given), 0)
                if not best & ~inside:
                    held |= _union(cell)
            return held
        case se.Everybody(group, body):
            return reduce(and_, (compute_truth_set(model, se.Knows(i, body)) for i in group), W)
        case se.Common(group, body):
            inside = compute_truth_set(model, body)
            return _union(c for c in _components(model, group) if not c & ~inside)
        case se.Aware(agent, body):
            # "M, w |= A_i phi iff phi in A_i(w)"; A_i(w) is generated by the atoms i is aware of.
            return W if se.compute_atoms(body) <= model.awareness[agent] else 0
        case se.Explicit(agent, body):
            # "X_i phi iff K_i phi and A_i phi".
            return compute_truth_set(model, se.Knows(agent, body)) & compute_truth_set(
                model, se.Aware(agent, body)
            )
    raise AssertionError(f"not a formula: {formula!r}")


def is_true(model: BitModel, world: se.World, formula: se.Formula) -> bool:
    """M, w |= phi."""
    number = _number(world, model.atoms)
    if not (model.worlds >> number & 1 and world <= set(model.atoms)):
        raise OutsideDefinition(f"{sorted(world)} is not a world of W")
    return bool(compute_truth_set(model, formula) >> number & 1)


def is_valid(model: BitModel, formula: se.Formula) -> bool:
    """M |= phi: phi holds at every world of W."""
    return compute_truth_set(model, formula) == model.worlds


# -- Updates (Appendix A.1, Definition A.3) -------------------------------------------------------


def _members_of(model: BitModel, group: Iterable[str] | None) -> frozenset[str]:
    return frozenset(model.agents if group is None else group)


def _restricted(model: BitModel, worlds: int) -> BitModel:
    """The model on ``worlds`` only, every order kept among the worlds left."""
    order = {
        agent: frozenset(
            cell
            for cell in (_cell(layer & worlds for layer in c) for c in model.order[agent])
            if cell
        )
        for agent in model.agents
    }
    return replace(model, worlds=worlds, order=order)


@icontract.ensure(
    lambda model, formula, group, result: (
        result.worlds == (compute_truth_set(model, formula) if group is None else model.worlds)
    ),
    "public [!psi] eliminates every w not in [[psi]]; a group's keeps W",
)
@icontract.ensure(lambda result: _is_partition_of_w(result), "the cells partition W")
def process_announcement(
    model: BitModel, formula: se.Formula, group: Iterable[str] | None = None
) -> BitModel:
    """[!psi]. Public: "eliminates every w not in [[psi]]".  To a group G: G's cells are cut
    between psi- and ~psi-worlds; nobody else changes."""
    inside = compute_truth_set(model, formula)
    if not inside:
        raise OutsideDefinition(f"{formula} holds nowhere: an announcement must be truthful")
    if group is None:
        return _restricted(model, inside)
    members = _members_of(model, group)
    order = {
        agent: model.order[agent]
        if agent not in members
        else frozenset(
            part
            for cell in model.order[agent]
            for part in (_cell(x & inside for x in cell), _cell(x & ~inside for x in cell))
            if part
        )
        for agent in model.agents
    }
    return replace(model, order=order)


@icontract.ensure(
    lambda model, result: result.worlds == model.worlds, "no worlds are eliminated (A.1)"
)
def process_lexicographic_upgrade(
    model: BitModel, formula: se.Formula, group: Iterable[str] | None = None
) -> BitModel:
    """[up-up psi]: "makes every psi-world strictly more plausible than every ~psi-world while
    preserving the within-side order.  No worlds are eliminated." (within each cell)"""
    inside, members = compute_truth_set(model, formula), _members_of(model, group)
    order = {
        agent: model.order[agent]
        if agent not in members
        else frozenset(
            _cell([*(x & inside for x in cell), *(x & ~inside for x in cell)])
            for cell in model.order[agent]
        )
        for agent in model.agents
    }
    return replace(model, order=order)


def _promoted(cell: Cell, inside: int) -> Cell:
    """A cell after [up psi]: its most plausible psi-worlds first, the rest as they were."""
    best = next((layer & inside for layer in cell if layer & inside), 0)
    if not best:
        return cell
    return _cell([best, *(x & ~best for x in cell)])


@icontract.ensure(
    lambda model, result: result.worlds == model.worlds, "no worlds are eliminated (A.1)"
)
def process_conservative_upgrade(
    model: BitModel, formula: se.Formula, group: Iterable[str] | None = None
) -> BitModel:
    """[up psi]: "promotes the most plausible psi-worlds to the overall minimum, preserving all
    other comparisons" (within each cell)."""
    inside, members = compute_truth_set(model, formula), _members_of(model, group)
    order = {
        agent: model.order[agent]
        if agent not in members
        else frozenset(_promoted(cell, inside) for cell in model.order[agent])
        for agent in model.agents
    }
    return replace(model, order=order)


def _split(model: BitModel, atom: str) -> BitModel:
    """Every world split on a new last atom, each copy in its world's layer."""
    shift = 1 << (1 << len(model.atoms))
    order = {
        agent: frozenset(tuple(x | x * shift for x in cell) for cell in model.order[agent])
        for agent in model.agents
    }
    worlds = model.worlds | model.worlds * shift
    return replace(model, atoms=(*model.atoms, atom), worlds=worlds, order=order)


@icontract.ensure(
    lambda model, atom, result: (
        result.worlds.bit_count() == model.worlds.bit_count() * (1 if atom in model.atoms else 2)
    ),
    "each world splits into copies that differ on a new proposition (A.3)",
)
def process_awareness_expansion(
    model: BitModel, atom: str, group: Iterable[str] | None = None
) -> BitModel:
    """Definition A.3: "Awareness expansion adds formulas to A_i and refines W accordingly:
    each world splits into copies that differ on the new proposition"; the copies of a world
    are as plausible as it was, for everyone (``del.expand-awareness.copies-equally-plausible``)."""
    members = _members_of(model, group)
    awareness = {
        a: model.awareness[a] | {atom} if a in members else model.awareness[a] for a in model.agents
    }
    grown = model if atom in model.atoms else _split(model, atom)
    return replace(grown, awareness=awareness)


def _lifted(model: BitModel, atoms: Sequence[str]) -> BitModel:
    """The model over ``atoms`` (a superset of its own): each world renumbered, then split on
    every atom it lacks, as Definition A.3's expansion does."""
    if not set(model.atoms) <= set(atoms):  # Definition A.3 only adds atoms
        raise OutsideDefinition(f"{model.atoms} are not among {tuple(atoms)}")
    position = [atoms.index(a) for a in model.atoms]

    def renumbered(worlds: int) -> int:
        # Atoms keep their places when the model's are the first of ``atoms`` (as in one
        # conversation, where Prop_t only grows): then no world moves.
        moved = worlds
        if position != list(range(len(position))):
            moved = _union(
                1 << sum(1 << position[j] for j in range(len(position)) if v >> j & 1)
                for v in _members(worlds)
            )
        for k, atom in enumerate(atoms):
            if atom not in model.atoms:
                moved |= moved << (1 << k)
        return moved

    order = {
        agent: frozenset(tuple(renumbered(x) for x in cell) for cell in model.order[agent])
        for agent in model.agents
    }
    return replace(model, atoms=tuple(atoms), worlds=renumbered(model.worlds), order=order)


# -- Definition A.2 (abduction) -------------------------------------------------------------------


def compute_posed_model(current: BitModel, posed: BitModel) -> BitModel:
    """The model a problem arose in, brought to Prop_t by Definition A.3's expansion and
    nothing else: M_chi as it was, over ``current``'s atoms (no world eliminated for what
    has been learned since)."""
    return _lifted(posed, current.atoms)


def compute_problem_model(current: BitModel, posed: BitModel, chi: se.Formula) -> BitModel:
    """Definition A.2's M for (B_i, chi) at turn t (``del.hypothesize.solves``): the model the
    problem arose in, brought to Prop_t, restricted to the worlds that agree with ``current``
    outside chi's atoms."""
    known = current.worlds
    for atom in se.compute_atoms(chi):
        known = _forget(known, current.atoms.index(atom), len(current.atoms))
    lifted = compute_posed_model(current, posed)
    if not lifted.worlds & known:
        raise OutsideDefinition("M_t does not descend from M_chi, the model chi arose in")
    return _restricted(lifted, lifted.worlds & known)


def is_abductive_solution(
    current: BitModel,
    posed: BitModel,
    agent: str,
    chi: se.Formula,
    gamma: se.Formula,
    literal: bool = False,
) -> bool:
    """Definition A.2. Check that gamma solves (B_i, chi): consistency and non-triviality in
    ``current``, explanatory in :func:`compute_problem_model` or, ``literal``, in ``current``
    itself, as A.2 writes it (``del.hypothesize.solves``)."""
    # 1. Consistency: M |/= B_i ~gamma
    consistent = not is_valid(current, se.Believes(agent, se.Not(gamma)))
    # 2. Explanatory: M[up-up gamma] |= B_i chi
    explained_in = current if literal else compute_problem_model(current, posed, chi)
    explanatory = is_valid(
        process_lexicographic_upgrade(explained_in, gamma, {agent}), se.Believes(agent, chi)
    )
    # 3. Non-triviality: gamma != chi, M |/= B_i gamma, gamma != true
    non_trivial = (
        gamma != chi and gamma != se.Top() and not is_valid(current, se.Believes(agent, gamma))
    )
    return consistent and explanatory and non_trivial


# -- Section 2's table, turn by turn ------------------------------------------------------------


@dataclass(frozen=True)
class BitProblem:
    """An abductive problem (B_agent, chi) posed by ``source`` in ``posed`` (Definition A.2);
    ``closed_by``: the hypotheses that solved it, in order."""

    agent: str
    chi: se.Formula
    source: str
    posed: BitModel
    closed_by: tuple[str, ...] = ()

    def is_open(self, good_standing: Set[str]) -> bool:
        """Open while no hypothesis that solved it is in S_t (``good_standing``)."""
        return not any(h in good_standing for h in self.closed_by)


def _refused(index: int, op: Mapping[str, Any], record: object) -> transition.Rejected:
    refused = transition.Rejected("no-surviving-world", NO_EMPTY_W, "formula", str(record))
    refused.index, refused.operation = index, str(op["op"])
    return refused


def _written(turn: transition.Turn, kind: str) -> list[tuple[int, Mapping[str, Any]]]:
    return [(i, op) for i, op in enumerate(turn.operations) if op["op"] == kind]


def _in_s(state: transition.State) -> frozenset[str]:
    return frozenset(state.active_set())


@dataclass(frozen=True)
class Announced:
    """An observation's [!psi] within a turn: the models an abductive problem about psi may be
    read to arise in (Definition A.2's surprise check)."""

    source: str
    chi: se.Formula
    with_the_others: BitModel
    """The model with the turn's other announcements made (``del.observe.poses-problems``)."""
    before_the_turn: BitModel
    """The model before any of the turn's announcements (B.2, T2: "just before o6 is
    announced")."""


@dataclass(frozen=True)
class Conjectured:
    """A Hypothesize with a formula, at the moment Definition A.2 checks it: ``model`` is M_t
    just before [up-up gamma], ``good`` is S_t then (the turn's hypotheses so far included)."""

    record: str
    gamma: se.Formula
    model: BitModel
    good: frozenset[str]


@dataclass(frozen=True)
class Asked:
    """A Question with a formula, and the model it is asked in."""

    source: str
    chi: se.Formula
    model: BitModel


@dataclass(frozen=True)
class TurnSteps:
    """What one turn does to M_t, in the fixed order (Section 2's table): the announcements,
    the hypotheses as Definition A.2 meets them, the questions, and M_t+1."""

    announced: tuple[Announced, ...]
    conjectured: tuple[Conjectured, ...]
    asked: tuple[Asked, ...]
    model: BitModel


def compute_turn_steps(
    before: transition.State, after: transition.State, turn: transition.Turn, model: BitModel
) -> TurnSteps:
    """Each operation's DEL realisation in the fixed order (Section 2's table;
    spec/gcv/spec/normative.md, ``del.*`` and ``order.*``), with the models the problem queue reads
    on the way.

    ``before`` is D_t, ``after`` the turn's argumentation (the records whose formulas the
    updates read), ``model`` M_t.

    Raises
    ------
    gcv.spec.transition.Rejected
        ``no-surviving-world`` at the first hard announcement true at no world.
    """
    for _, op in _written(turn, "expand-awareness"):
        named = tuple(op.get("agents", ()))
        model = process_awareness_expansion(model, op["atom"], named or None)
    # The turn's observations, simultaneously (del.observe.poses-problems).
    written = [(i, op) for i, op in _written(turn, "observe") if op.get("formula") is not None]
    formulas: list[se.Formula] = [op["formula"] for _, op in written]
    for k, (index, op) in enumerate(written):
        if not compute_truth_set(model, se.And(tuple(formulas[: k + 1]))):
            raise _refused(index, op, op["id"])
    announced = []
    for k, (_, op) in enumerate(written):
        others = se.And(tuple(f for j, f in enumerate(formulas) if j != k))
        posed = process_announcement(model, others) if len(formulas) > 1 else model
        announced.append(Announced(str(op["id"]), formulas[k], posed, model))
    if written:
        model = process_announcement(model, se.And(tuple(formulas)))
    # Hypotheses: introduced atoms, then Definition A.2's check, then [up-up gamma].
    conjectured, good = [], set(_in_s(before))
    for _, op in _written(turn, "hypothesize"):
        good.add(str(op["id"]))
        for atom in op.get("introduces", ()):
            model = process_awareness_expansion(model, atom)
        gamma: se.Formula | None = op.get("formula")
        if gamma is None:
            continue
        conjectured.append(Conjectured(str(op["id"]), gamma, model, frozenset(good)))
        model = process_lexicographic_upgrade(model, gamma)
    # Support, Undermine, Revise, Resolve: their realisation of gamma or ~gamma.
    for kind in ("support", "undermine", "revise", "resolve"):
        for index, op in _written(turn, kind):
            target = transition.formula_of(after, op)
            update, negated = transition.realisation(op)
            if target is None or update is None:
                continue
            acted_on = se.Not(target) if negated else target
            match update:
                case "hard announcement":
                    if not compute_truth_set(model, acted_on):
                        raise _refused(index, op, op["target"])
                    model = process_announcement(model, acted_on)
                case "lexicographic upgrade":
                    model = process_lexicographic_upgrade(model, acted_on)
                case "conservative upgrade":
                    model = process_conservative_upgrade(model, acted_on)
                case _:
                    raise AssertionError(f"{kind} has no update {update}")
    asked = tuple(
        Asked(str(op["id"]), op["formula"], model)
        for _, op in _written(turn, "question")
        if op.get("formula") is not None
    )
    return TurnSteps(tuple(announced), tuple(conjectured), asked, model)


def process_turn_model(
    before: transition.State,
    after: transition.State,
    turn: transition.Turn,
    model: BitModel,
    problems: Sequence[BitProblem],
    *,
    literal: bool = False,
) -> tuple[BitModel, tuple[BitProblem, ...]]:
    """M_t+1 and the problem queue after ``turn`` (:func:`compute_turn_steps`), the queue read
    as spec/gcv/spec/normative.md fixes it (``del.observe.poses-problems``,
    ``del.hypothesize.solves``, ``del.question``), the explanation checked in M_chi^t or,
    ``literal``, in M_t.

    ``before`` is D_t, ``after`` the turn's argumentation, ``model`` and ``problems`` M_t and
    its queue.

    Raises
    ------
    gcv.spec.transition.Rejected
        ``no-surviving-world`` at the first hard announcement true at no world.
    """
    steps = compute_turn_steps(before, after, turn, model)
    # psi_k poses (B_i, psi_k) in the model announced with the others.
    queue = list(problems) + [
        BitProblem(agent, a.chi, a.source, a.with_the_others)
        for a in steps.announced
        for agent in before.agents
        if not is_valid(a.with_the_others, se.Believes(agent, a.chi))
    ]
    # Each hypothesis closes the open problems it solves.
    for c in steps.conjectured:
        queue = [
            replace(p, closed_by=(*p.closed_by, c.record))
            if p.is_open(c.good)
            and is_abductive_solution(c.model, p.posed, p.agent, p.chi, c.gamma, literal)
            else p
            for p in queue
        ]
    # Questions: chi queued for every agent who does not believe it and has no open problem
    # with the same chi.
    settled = _in_s(after)
    for a in steps.asked:
        queue += [
            BitProblem(agent, a.chi, a.source, a.model)
            for agent in before.agents
            if not is_valid(a.model, se.Believes(agent, a.chi))
            and not any(p.agent == agent and p.chi == a.chi and p.is_open(settled) for p in queue)
        ]
    return steps.model, tuple(queue)
