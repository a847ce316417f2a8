"""The Verifier facade: atomic turns in, queries out.

:meth:`Verifier.apply_turn` is the only way to change the dependency map.  It
applies a turn's operations in the fixed order of
:data:`~gcv.reference.operations.ORDER`, each checked against the state
the turn has produced so far, and commits all of them or none.  The queries
(:meth:`~Verifier.verify`, :meth:`~Verifier.affected`,
:meth:`~Verifier.affected_star`, ...) never mutate.  The epistemic queries
(:meth:`~Verifier.knows`, :meth:`~Verifier.believes`, :meth:`~Verifier.worlds`,
:meth:`~Verifier.unexplained`, ...) read M_t.

Whole, at about 680 lines: a reader comes here for one thing, what the facade promises, and
that is its methods with their contracts (Lemma 2.1's on :meth:`~Verifier.verify`, Lemma
2.2's on :meth:`~Verifier.apply_turn`, the indexes' invariants on the class) and the
predicates those contracts read, each defined just above the class that states it.  The
methods themselves are thin: each checks its input and calls the walk
(:mod:`gcv.reference.closure`), the turn (:mod:`gcv.reference.apply`) or M_t's semantics
(:mod:`gcv.reference.epistemic`).  Split, the contracts would name predicates defined
elsewhere and the reader would hold two files open to read one promise.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import pairwise

import icontract

from gcv.reference.apply import apply_operations
from gcv.reference.closure import (
    QUERIES,
    Grounding,
    is_closed_from,
    is_least_closed_from,
    is_reached_exactly,
    names_of,
    one_step_affected,
)
from gcv.reference.depmap import AttackAdded, Change, DependencyMap, Numbering, StandingChanged
from gcv.reference.epistemic.abduction import Problem, open_problems
from gcv.reference.epistemic.formula import (
    MAX_DEPTH,
    Believes,
    CondBelieves,
    Formula,
    Knows,
    Not,
    parse,
)
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import check_formula, everything, is_ordered, truth_set
from gcv.reference.errors import (
    MalformedFormula,
    MalformedInput,
    UnknownAgent,
    UnknownRecord,
)
from gcv.reference.identifiers import AgentId, RecordId, name_list_problem
from gcv.reference.operations import Operation
from gcv.reference.records import GOOD_STANDING, Standing

__all__ = ["Turn", "TurnReport", "Verifier"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One utterance: its speaker, its text, and the operations it was interpreted as.

    Raises
    ------
    MalformedInput
        A field of the wrong type, naming it (the speaker is checked against Ags
        when the turn is applied).
    """

    speaker: AgentId
    operations: tuple[Operation, ...]
    text: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.speaker, str):
            raise MalformedInput(
                f"a speaker is an agent id, not {_type(self.speaker)}", field="speaker"
            )
        if not isinstance(self.operations, tuple):
            raise MalformedInput(
                f"operations are a tuple of operations, not {_type(self.operations)}",
                field="operations",
            )
        for index, op in enumerate(self.operations):
            if not isinstance(op, Operation):
                raise MalformedInput(
                    f"operations[{index}] is not an operation: {_type(op)}",
                    field=f"operations[{index}]",
                )
        if not isinstance(self.text, str):
            raise MalformedInput(f"a turn's text is a string, not {_type(self.text)}", field="text")


@dataclass(frozen=True, slots=True)
class TurnReport:
    """What a committed turn did: D_t -> D_t+1.

    ``applied`` lists the operations in the order they were applied and
    ``changes`` every elementary change, in order.
    """

    turn: int
    speaker: AgentId
    applied: tuple[Operation, ...]
    changes: tuple[Change, ...]


def _type(value: object) -> str:
    return type(value).__name__


def _check_collection(field: str, names: object) -> None:
    # A string is a sequence too, of one-letter names: "o1" is not the agents o and 1.
    if isinstance(names, str | bytes) or not isinstance(names, Sequence | AbstractSet):
        raise MalformedInput(f"{field} is a sequence of names, not {_type(names)}", field=field)


def _check_names(field: str, names: Sequence[str]) -> None:
    _check_collection(field, names)
    problem = name_list_problem(names)
    if problem is not None:
        raise MalformedInput(f"{field}: {problem}", field=field)


# -- the predicates the map's contracts read ----------------------------------------------


def is_within_good_standing(
    members: Collection[RecordId], standing: Mapping[RecordId, Standing]
) -> bool:
    """Check that every member lies in S_t."""
    return all(standing.get(member) in GOOD_STANDING for member in members)


def is_dependency_path(
    dep: Mapping[RecordId, Collection[RecordId]], path: tuple[RecordId, ...]
) -> bool:
    """Check that each step of ``path`` follows a recorded Dep link."""
    return all(later in dep.get(earlier, ()) for earlier, later in pairwise(path))


def is_closed_by_name(
    dep: Mapping[RecordId, Collection[RecordId]], members: Collection[RecordId]
) -> bool:
    """Check that ``members`` contains Dep(alpha) for each of its members alpha."""
    inside = set(members)
    return all(support in inside for member in inside for support in dep.get(member, ()))


def is_rejection_witnessed(
    result: Grounding, candidate: RecordId | None, standing: Mapping[RecordId, Standing]
) -> bool:
    """Check that a rejection of a registered candidate names a witness outside S_t and a
    path from the candidate to it."""
    return result.witness is None or (
        result.path[0] == candidate
        and result.path[-1] == result.witness
        and standing[result.witness] not in GOOD_STANDING
    )


def numbers_of(state: DependencyMap, records: Iterable[RecordId]) -> list[int]:
    """The numbers of ``records`` in the map's numbering."""
    number = state.numbering.number
    return [number[record] for record in records]


def is_index_of(
    forward: Mapping[RecordId, Collection[RecordId]],
    backward: Mapping[RecordId, Collection[RecordId]],
) -> bool:
    """Check that ``backward`` is exactly the inverse relation of ``forward``."""
    pairs = {(a, b) for a, bs in forward.items() for b in bs}
    inverse = {(a, b) for b, as_ in backward.items() for a in as_}
    return pairs == inverse


def is_numbering_of(state: DependencyMap) -> bool:
    """Check that the map's numbering names exactly Args_t, in registration order, and
    that its S_t flags agree with st_t."""
    numbering, name = state.numbering, list(state.numbering.name)
    return (
        name == list(state.standing)
        and len(numbering.number) == len(name)
        and all(numbering.number[record] == i for i, record in enumerate(name))
        and len(numbering.supports) == len(numbering.dependents) == len(name)
        and list(numbering.good)
        == [int(state.standing[record] in GOOD_STANDING) for record in name]
    )


def is_conflict_free(
    standing: Mapping[RecordId, Standing], ratt: Mapping[RecordId, Collection[RecordId]]
) -> bool:
    """Lemma 2.2: no argument of S_t is the target of an attack in Att_t."""
    return all(standing[target] not in GOOD_STANDING for target, by in ratt.items() if by)


def is_conflict_free_after(
    changes: Collection[Change],
    standing: Mapping[RecordId, Standing],
    ratt: Mapping[RecordId, Collection[RecordId]],
) -> bool:
    """Lemma 2.2, one turn: each attack the turn added targets a record outside S_t,
    and each record the turn labelled into S_t has no recorded attacker."""
    for change in changes:
        if isinstance(change, AttackAdded) and standing[change.target] in GOOD_STANDING:
            return False
        if (
            isinstance(change, StandingChanged)
            and change.after in GOOD_STANDING
            and ratt.get(change.record)
        ):
            return False
    return True


def keeps_out_of_standing_out(changes: Collection[Change]) -> bool:
    """No change moves a weakened or abandoned record back into S_t."""
    return not any(
        isinstance(c, StandingChanged)
        and c.before not in GOOD_STANDING
        and c.after in GOOD_STANDING
        for c in changes
    )


def _check_record_id(value: object, field: str) -> None:
    if not isinstance(value, str):
        raise MalformedInput(f"a record id is a string, not {_type(value)}", field=field)


def _is_partition_of_w(
    model: PlausibilityModel, cells: tuple[tuple[frozenset[frozenset[str]], ...], ...]
) -> bool:
    worlds = [w for cell in cells for layer in cell for w in layer]
    return len(worlds) == len(set(worlds)) == model.size and all(all(c) for c in cells)


@icontract.invariant(
    lambda self: is_index_of(self.state.dep, self.state.rdep),
    "the reverse index rdep is exactly the inverse of Dep",
    enabled=icontract.SLOW,
)
@icontract.invariant(
    lambda self: is_numbering_of(self.state),
    "the numbering names Args_t, and its S_t flags agree with st_t",
    enabled=icontract.SLOW,
)
@icontract.invariant(
    lambda self: is_index_of(self.state.att, self.state.ratt),
    "the incoming-attack index is exactly the inverse of Att",
    enabled=icontract.SLOW,
)
@icontract.invariant(
    lambda self: is_conflict_free(self.state.standing, self.state.ratt),
    "Lemma 2.2: no argument of S_t is the target of an attack",
    enabled=icontract.SLOW,
)
class Verifier:
    """The runtime verifier's engine over one conversation.

    Parameters
    ----------
    agents:
        Ags.
    atoms:
        Prop_0; every agent starts aware of every atom.
    model:
        M_0, when the conversation declares one (its agents must be ``agents``
        and its atoms, if ``atoms`` is given, ``atoms``); by default the implicit
        model over ``atoms``, which is materialised only when a formula needs it.
    literal_abduction:
        Check Definition A.2's explanation in M_t[up-up gamma], as the definition
        writes it, rather than in the chosen M_chi^t[up-up gamma] (spec/gcv/spec/normative.md,
        ``del.hypothesize.solves``; docs/epistemic.md compares the two queues).

    Examples
    --------
    >>> from gcv.reference.operations import Hypothesize, Observe, Revise
    >>> v = Verifier(["a", "b"])
    >>> hypothesis = Hypothesize("h1", "token bug", depends_on=("o1",))
    >>> _ = v.apply_turn(Turn("a", (Observe("o1", "401s"), hypothesis)))
    >>> v.verify("h1").grounded
    True
    >>> _ = v.apply_turn(Turn("b", (Revise("o1"),)))
    >>> v.verify("h1").witness, v.affected_star("o1")
    ('o1', ('h1',))
    """

    def __init__(
        self,
        agents: Sequence[AgentId],
        atoms: Sequence[str] = (),
        model: PlausibilityModel | None = None,
        *,
        literal_abduction: bool = False,
    ) -> None:
        _check_names("agents", agents)
        if not isinstance(literal_abduction, bool):
            raise MalformedInput(
                f"literal_abduction is a bool, not {_type(literal_abduction)}",
                field="literal_abduction",
            )
        if not agents:
            raise MalformedInput("a conversation needs at least one agent", field="agents")
        _check_names("atoms", atoms)
        if model is not None and not isinstance(model, PlausibilityModel):
            raise MalformedInput(f"M_0 is a PlausibilityModel, not {_type(model)}", field="model")
        if model is not None:
            if set(model.agents) != set(agents):
                raise MalformedInput("M_0's agents are not Ags", field="model")
            if atoms and set(model.atoms) != set(atoms):
                raise MalformedInput("M_0's atoms are not Prop_0", field="model")
            atoms = model.atoms
        self.state = DependencyMap(agents, atoms, model, literal_abduction=literal_abduction)

    # -- the one mutator ---------------------------------------------------------

    @icontract.ensure(
        lambda self, result: is_conflict_free_after(
            result.changes, self.state.standing, self.state.ratt
        ),
        "Lemma 2.2: every attack the turn added targets a record outside S_t, "
        "and no record it labelled into S_t is attacked",
    )
    @icontract.ensure(
        lambda result: keeps_out_of_standing_out(result.changes),
        "no operation moves a weakened or abandoned argument back into S_t",
    )
    def apply_turn(self, turn: Turn) -> TurnReport:
        """Apply ``turn``'s operations atomically: D_t -> D_t+1.

        Raises
        ------
        GcvError
            The first operation (in application order) whose precondition fails,
            located by turn, operation index (as written) and field.  The state is
            then exactly as before the call.
        """
        if not isinstance(turn, Turn):
            raise MalformedInput(f"apply_turn takes a Turn, not {_type(turn)}", field="turn")
        number = self.state.turn + 1
        with self.state.transaction() as journal:
            if turn.speaker not in self.state.agents:
                raise UnknownAgent(
                    f"speaker {turn.speaker!r} is not in Ags", field="speaker"
                ).locate(turn=number)
            applied = apply_operations(self.state, turn.operations, turn.speaker)
        self.state.advance_turn()
        return TurnReport(number, turn.speaker, applied, tuple(journal))

    # -- queries -----------------------------------------------------------------

    def _known(self, record: RecordId) -> RecordId:
        _check_record_id(record, "record")
        if record not in self.state.records:
            raise UnknownRecord(f"record {record!r} is not registered", record=record)
        return record

    def _number(self, numbering: Numbering, record: RecordId) -> int:
        """The number of a registered ``record``; otherwise the error :meth:`_known` raises.

        One lookup answers both questions, is it registered and which number it has: with
        the compiled walk, the retraction query itself costs about as much again.
        """
        if isinstance(record, str):
            try:  # a plain try: contextlib.suppress costs as much as the query
                return numbering.number[record]
            except KeyError:
                pass
        self._known(record)
        raise AssertionError(f"{record!r} is registered but not numbered")

    def _agent(self, agent: AgentId) -> AgentId:
        if agent not in self.state.agents:
            raise UnknownAgent(f"agent {agent!r} is not in Ags")
        return agent

    @icontract.ensure(
        lambda self, candidate, result: (
            result.grounded or candidate in self.state.records or result.witness is None
        ),
        "a candidate with no associated record is ungrounded, with no witness",
    )
    @icontract.ensure(
        lambda self, result: is_within_good_standing(result.closure, self.state.standing),
        "Lemma 2.1: the walk accepts only if Dep*(alpha_c) is inside S_t",
    )
    @icontract.ensure(
        lambda self, candidate, result: (
            not result.grounded
            or (
                result.closure[0] == candidate and is_closed_by_name(self.state.dep, result.closure)
            )
        ),
        "Lemma 2.1: on acceptance the returned set contains alpha_c and is closed under Dep",
    )
    @icontract.ensure(
        lambda self, candidate, result: is_rejection_witnessed(
            result, candidate, self.state.standing
        ),
        "Lemma 2.1: on rejection a Dep path leads from alpha_c to a record outside S_t",
    )
    @icontract.ensure(
        lambda self, result: result.grounded or is_dependency_path(self.state.dep, result.path),
        "Lemma 2.1: a rejection's path follows recorded Dep links",
    )
    @icontract.ensure(
        lambda self, candidate, result: (
            not result.grounded
            or is_reached_exactly(
                self.state.numbering.supports,
                self.state.numbering.number[candidate],
                numbers_of(self.state, result.closure),
            )
        ),
        "Lemma 2.1: on acceptance the walk returns exactly Dep*(alpha_c)",
        enabled=icontract.SLOW,
    )
    def verify(self, candidate: RecordId | None) -> Grounding:
        """Verify a candidate continuation by its associated record alpha_c (Lemma 2.1).

        Grounded iff Dep*(alpha_c) is inside S_t; a candidate with no associated
        record (``None`` or an identifier not in Args_t) is ungrounded.  On acceptance
        the closure is Dep*(alpha_c), alpha_c first, then breadth-first; on rejection
        the witness is the first record outside S_t the walk meets, with a shortest Dep
        path to it.
        """
        n = self.state.numbering
        number = n.number.get(candidate) if isinstance(candidate, str) else None
        if number is None:
            if candidate is not None:
                _check_record_id(candidate, "candidate")
            return Grounding(candidate, False)
        return QUERIES.grounding(n.supports, n.good, n.name, number)

    def affected(self, withdrawn: RecordId) -> tuple[RecordId, ...]:
        """Affected(beta): the records with a direct Dep link to ``withdrawn`` (Definition 2.3)."""
        n = self.state.numbering
        return names_of(one_step_affected(n.dependents, self._number(n, withdrawn)), n.name)

    @icontract.ensure(lambda result: len(set(result)) == len(result), "each record once")
    @icontract.ensure(
        lambda self, withdrawn, result: is_closed_from(
            self.state.numbering.dependents,
            self.state.numbering.number[withdrawn],
            numbers_of(self.state, result),
        ),
        "Definition 2.3: Affected*(beta) contains Affected(beta) and is closed under the X_k step",
    )
    @icontract.ensure(
        lambda self, withdrawn, result: is_least_closed_from(
            self.state.numbering.dependents,
            self.state.numbering.number[withdrawn],
            numbers_of(self.state, result),
        ),
        "Definition 2.3: Affected*(beta) is exactly the union of the X_k",
        enabled=icontract.SLOW,
    )
    def affected_star(self, withdrawn: RecordId) -> tuple[RecordId, ...]:
        """Affected*(beta): records with a non-empty Dep path to ``withdrawn`` (Definition 2.3),
        breadth-first from beta, each once (beta itself exactly when it lies on a cycle)."""
        n = self.state.numbering
        return QUERIES.affected_star(n.dependents, n.name, self._number(n, withdrawn))

    @icontract.ensure(
        lambda self, withdrawn, result: (
            result
            == tuple(
                r for r in self.affected_star(withdrawn) if self.state.standing[r] in GOOD_STANDING
            )
        ),
        "Affected*(beta) intersected with S_t, in Affected*'s order",
        enabled=icontract.SLOW,  # the query again: O(|Affected*(beta)|), not the answer's size
    )
    def affected_star_active(self, withdrawn: RecordId) -> tuple[RecordId, ...]:
        """Affected*(beta) intersected with S_t: the currently active dependents."""
        n = self.state.numbering
        return QUERIES.affected_star_active(
            n.dependents, n.good, n.name, self._number(n, withdrawn)
        )

    def standing(self, record: RecordId) -> Standing:
        """st_t(record)."""
        return self.state.standing[self._known(record)]

    def dependencies(self, record: RecordId) -> tuple[RecordId, ...]:
        """Dep_t(record), in the order the links were recorded."""
        return tuple(self.state.dep.get(self._known(record), ()))

    def attackers(self, record: RecordId) -> tuple[RecordId, ...]:
        """The recorded attackers of ``record``: {alpha : (alpha, record) in Att_t}."""
        return tuple(self.state.ratt.get(self._known(record), ()))

    def dissenters(self, record: RecordId) -> tuple[AgentId, ...]:
        """The agents whose dissent from the decision ``record`` is recorded."""
        return self.state.dissenters(self._known(record))

    def commitments(self, agent: AgentId) -> tuple[RecordId, ...]:
        """Cm_t(agent), sorted."""
        return self.state.commitments(self._agent(agent))

    def is_aware(self, agent: AgentId, atom: str) -> bool:
        """Whether ``atom`` is in the awareness set A_agent."""
        awareness = self.state.awareness(self._agent(agent))
        if not isinstance(atom, str):
            raise MalformedInput(f"an atom is a string, not {_type(atom)}", field="atom")
        return atom in awareness

    # -- epistemic queries (M_t) ----------------------------------------------------

    @property
    def model(self) -> PlausibilityModel:
        """M_t, the epistemic plausibility model."""
        return self.state.model

    def _formula(self, formula: Formula | str, field: str = "formula") -> Formula:
        try:
            parsed = parse(formula) if isinstance(formula, str) else formula
        except MalformedFormula as error:
            error.field = field  # the argument that held the text, as for every other fault
            raise
        if not isinstance(parsed, Formula) or type(parsed) is Formula:
            raise MalformedFormula(f"expected a formula, got {type(parsed).__name__}", field=field)
        if parsed.depth > MAX_DEPTH:
            raise MalformedFormula(f"a formula may be nested at most {MAX_DEPTH} deep", field=field)
        problem = check_formula(self.state.model, parsed, field)
        if problem is not None:
            raise problem
        return parsed

    def _holds(self, formula: Formula, at: Collection[str] | None) -> bool:
        if at is not None:
            _check_collection("at", at)
            if not all(isinstance(atom, str) for atom in at):
                raise MalformedInput("a world is named by its true atoms, strings", field="at")
        model = self.state.model
        inside = truth_set(model, formula)
        if at is None:
            return inside == everything(model)
        return bool(inside >> model.index_of(at) & 1)

    # Contract helpers: the queries' logic without their own contracts.
    def _holds_not(self, formula: Formula | str, at: Collection[str] | None) -> bool:
        return self._holds(Not(self._formula(formula)), at)

    def _believed(self, agent: AgentId, formula: Formula | str, at: Collection[str] | None) -> bool:
        return self._holds(Believes(agent, self._formula(formula)), at)

    @icontract.ensure(
        lambda self, formula, at, result: not (result and self._holds_not(formula, at)),
        "phi and ~phi never both hold",
        enabled=icontract.SLOW,
    )
    def holds(self, formula: Formula | str, at: Collection[str] | None = None) -> bool:
        """M_t, w |= phi at the world where exactly the atoms ``at`` are true, or at every world.

        Raises
        ------
        MalformedFormula, UnknownAgent, UnknownAtom, UnknownWorld
            The formula does not parse or names what M_t does not have, or no
            world of W_t has the valuation ``at``.
        """
        return self._holds(self._formula(formula), at)

    @icontract.ensure(
        lambda self, agent, formula, at, result: not result or self._believed(agent, formula, at),
        "knowledge implies belief: the most plausible worlds lie in the cell",
        enabled=icontract.SLOW,
    )
    def knows(
        self, agent: AgentId, formula: Formula | str, at: Collection[str] | None = None
    ) -> bool:
        """Does ``agent`` know phi (K_i phi) at ``at``, or at every world?

        >>> from gcv.reference.operations import Observe
        >>> v = Verifier(["a", "b"], ["p"])
        >>> _ = v.apply_turn(Turn("a", (Observe("o1", "p holds", formula=parse("p")),)))
        >>> v.knows("b", "p"), v.worlds()
        (True, (frozenset({'p'}),))
        """
        return self._holds(Knows(self._agent(agent), self._formula(formula)), at)

    @icontract.ensure(
        lambda self, agent, formula, given, at, result: (
            given is not None or not (result and self._believed(agent, f"~({formula})", at))
        ),
        "beliefs are consistent: a cell's most plausible worlds exist",
        enabled=icontract.SLOW,
    )
    def believes(
        self,
        agent: AgentId,
        formula: Formula | str,
        given: Formula | str | None = None,
        at: Collection[str] | None = None,
    ) -> bool:
        """Does ``agent`` believe phi (B_i phi), or phi given psi (B_i(phi | psi))?"""
        # The agent is checked first, as in knows: an unknown agent is the first thing named.
        agent = self._agent(agent)
        body = self._formula(formula)
        if given is None:
            return self._holds(Believes(agent, body), at)
        return self._holds(CondBelieves(agent, body, self._formula(given, "given")), at)

    @icontract.ensure(
        lambda self, result: len(set(result)) == len(result) == self.state.model.size,
        "W_t, each world once",
    )
    def worlds(self) -> tuple[frozenset[str], ...]:
        """W_t, each world as the set of atoms true at it, sorted."""
        return tuple(sorted(self.state.model.valuations(), key=sorted))

    @icontract.ensure(
        lambda self, result: _is_partition_of_w(self.state.model, result),
        "the cells and their layers partition W_t",
    )
    def plausibility(self, agent: AgentId) -> tuple[tuple[frozenset[frozenset[str]], ...], ...]:
        """Agent i's information cells, each as its layers from most to least plausible.

        Cells are listed by their first world (sorted); each layer is a set of worlds.
        """
        model = self.state.model
        labels, ranks = model.cells(self._agent(agent)), model.ranks(agent)
        names = model.valuations()
        cells: dict[int, dict[int, set[frozenset[str]]]] = {}
        for w, (label, rank) in enumerate(zip(labels, ranks, strict=True)):
            cells.setdefault(label, {}).setdefault(rank, set()).add(names[w])
        ordered = [tuple(frozenset(layers[r]) for r in sorted(layers)) for layers in cells.values()]
        return tuple(sorted(ordered, key=lambda cell: min(sorted(w) for w in cell[0])))

    @icontract.ensure(
        lambda self, agent, layers, result: (
            not result or all(not self._holds_not(layer, None) for layer in layers)
        ),
        "an ordering that holds has layers that hold somewhere",
        enabled=icontract.SLOW,
    )
    def is_ordered(self, agent: AgentId, layers: Sequence[Formula | str]) -> bool:
        """Whether every world of each layer precedes every world of the later layers for i.

        Each layer must hold somewhere; see :func:`gcv.reference.epistemic.semantics.is_ordered`.
        """
        agent = self._agent(agent)
        if isinstance(layers, str) or not isinstance(layers, Sequence):
            raise MalformedInput(
                f"layers are a sequence of formulas, not {_type(layers)}", field="layers"
            )
        parsed = [self._formula(layer, "layers") for layer in layers]
        if len(parsed) < 2:
            raise MalformedInput("an ordering compares at least two layers", field="layers")
        return is_ordered(self.state.model, agent, parsed)

    @icontract.ensure(
        lambda self, agent, result: (
            all(agent is None or p.agent == agent for p in result)
            and all(not p.is_explained(self.state.standing) for p in result)
        ),
        "the agent's problems no hypothesis in S_t solves",
    )
    def unexplained(self, agent: AgentId | None = None) -> tuple[Problem, ...]:
        """The open abductive problems (of ``agent``, or of every agent), in the order posed.

        A problem is open while no hypothesis that solved it (Definition A.2) is
        in S_t; its ``source`` is the observation or question that posed it.
        """
        if agent is not None:
            self._agent(agent)
        return open_problems(self.state.epistemic.problems, self.state.standing, agent)
