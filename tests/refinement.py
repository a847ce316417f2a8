"""Exhaustive small-scope refinement check: the engine against the spec transition and the
Z3 encoding, on every state it can reach in a small scope.

Breadth-first from D_0, every operation of the scope's pool is applied as a one-operation
turn, by each agent, from every reachable state.  States are deduplicated up to renaming of
records and agents (symmetry reduction): the pools are closed under renaming, so one state
of each class accepts, up to the renaming, the same turns and reaches the same classes
(:func:`canonical`).  From every reachable state with at most ``pairs_from`` records, every
two-operation turn over the pair pool is applied too, in both written orders; their next
states are compared, not explored.  The pair pool names ``pair_records`` only, so beyond
two records it covers the pairs over those two in the state chosen for each class.

Each step is taken by the engine (:class:`gcv.reference.verifier.Verifier`) and by
:func:`gcv.spec.transition.process_turn`; they must agree on acceptance, error code, failing
operation and the whole of D_t+1.  Each step is also decided by the Z3 encoding's own
transition relation (``proofs/gcv/proofs/encode.py``), composed over the turn's operations and
evaluated on the scope's finite universe (:class:`tests.encoded.Evaluator`): the engine
accepts exactly the steps whose encoded preconditions hold, refuses at the operation whose
precondition fails on the state the turn has left so far, and reaches the encoded next
state.  So every pool step the encoding allows is one the engine accepts.  Every
``enumerate_every``-th state the solver also enumerates every one-operation step the
encoding allows over the identifier pool with cited sets of any size, and the engine must
accept each.  Verify and Affected* of every record of every state are compared with
gcv.spec.core, by the pure walk and by the compiled one (reference/gcv/reference/closure.py).

Run ``python -m tests.refinement [--records N] [--no-pairs] [--enumerate K] [--depth K]
[--epistemic]``
for the counts, as a model checker prints them; ``--records 3`` is the deep profile, and
``--records 4 --depth 4`` the four-record one (every state within four turns of D_0: the
whole four-record space is out of reach, see docs/verification.md).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations, product
from pathlib import Path

from gcv.hints import extra_missing, install_hint
from gcv.proofs.encode import OPERATIONS, Rules, rows
from gcv.reference.closure import COMPILED, PURE
from gcv.reference.epistemic.formula import Atom, Formula, Not
from gcv.reference.errors import GcvError
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
    in_application_order,
)
from gcv.reference.verifier import Turn, Verifier
from gcv.spec import core, transition
from gcv.spec import epistemic as se
from gcv.translate import spec_model, spec_operation
from tests.encoded import Concrete, Evaluator, Refusal, allowed
from tests.maps import answered_by
from tests.mutation import at_least_one
from tests.test_transition import _same_map as same_map

ROWS = rows()
"""The engine's rows of Table 3, by operation."""

ATOMS = ("p",)


@dataclass(frozen=True)
class Scope:
    """The finite scope explored: the identifier pool (its size bounds |Args_t|), the
    agents, the records two-operation turns cite (none: no two-operation turns), the
    largest |Args_t| from which they are taken, how often the solver enumerates, and how
    deep the exploration goes."""

    records: tuple[str, ...]
    agents: tuple[str, ...]
    pair_records: tuple[str, ...] = ()
    pairs_from: int = 0
    enumerate_every: int = 1
    depth: int | None = None
    """Expand only the states reached within this many turns (None: every reachable
    state).  Every step from an expanded state is still checked, so a bound k covers each
    transition out of a state k turns from D_0 or fewer: bounded model checking."""
    epistemic: bool = False
    """Compare M_t and the problem queue too (the spec's brute-force DEL), the registering
    operations carrying each formula of :data:`FORMULAS`, Question's queued."""
    cited: int = 1
    """The largest cited set of the pool (depends_on, attackers, subsumes, premises)."""

    @property
    def pairs(self) -> bool:
        """Whether two-operation turns are explored."""
        return bool(self.pair_records)


SMALL = Scope(("r1", "r2"), ("a", "b"), ("r1", "r2"), pairs_from=2, enumerate_every=8)
"""The test command's scope: two records, two agents, two-operation turns from every
state.  Three records (``--records 3``, the deep profile) reach 8,146 states up to renaming
and take 2.2 million one-operation steps: about twenty minutes, not one."""

EPISTEMIC = Scope(("r1", "r2"), ("a", "b"), epistemic=True, cited=2)
"""The whole of D_t: M_t (one atom, two agents) and the problem queue compared too, cited
sets of sizes 0 to 2, the solver enumerating from every state; one-operation turns (the
two-operation turns are :data:`SMALL`'s, where M_t does not decide acceptance)."""

FORMULAS: tuple[Formula, ...] = (Atom(ATOMS[0]), Not(Atom(ATOMS[0])))
"""The claims' formulas in the epistemic scope: p and its negation, so announcements,
upgrades and downgrades move worlds both ways and two observations can contradict."""


def operations(
    records: Sequence[str],
    agents: Sequence[str],
    *,
    cited: int = 1,
    formulas: Sequence[Formula | None] = (None,),
    choices: bool = False,
) -> tuple[Operation, ...]:
    """Every one-operation turn's operation over ``records``: each kind with cited sets of
    up to ``cited`` records (self-citations included: they must be refused), evidence
    registered or reused, Resolve consensual or authoritative with premises, subsumes and
    dissent; Observe, Hypothesize and Question once with each of ``formulas`` (the other
    kinds take their target's).  With ``choices``, each choice an operation makes of its
    update of M_t too (Section 2's table): Support's conservative [up gamma] and its
    gamma-specific [up-up gamma], Undermine's lexicographic [up-up ~gamma] and conservative
    [up ~gamma] downgrade, Revise's [!~gamma] and its attack additions alone, with and
    without attackers (only M_t tells them apart)."""
    sets = [c for size in range(1, cited + 1) for c in combinations(records, size)]
    ops: list[Operation] = [ExpandAwareness("q"), ExpandAwareness(ATOMS[0])]
    for x, f in product(records, formulas):
        ops += [Observe(x, "c", formula=f), Hypothesize(x, "c", formula=f)]
        ops += [Question(x, "c", formula=f)]
        ops += [Observe(x, "c", depends_on=ys, formula=f) for ys in sets]
        ops += [Hypothesize(x, "c", depends_on=ys, formula=f) for ys in sets]
    for x in records:
        for y in records:
            ops += [Support(x, y), Support(x, y, "e"), Undermine(x, y), Undermine(x, y, "e")]
            if choices:
                ops += [Support(x, y, specific=True), Support(x, y, "e", specific=True)]
                ops += [Undermine(x, y, downgrade="conservative")]
                ops += [Undermine(x, y, "e", downgrade="conservative")]
        ops += [Revise(x), *(Revise(x, ys) for ys in sets)]
        if choices:
            ops += [Revise(x, announce=False), *(Revise(x, ys, announce=True) for ys in sets)]
        ops += [Resolve(x), *(Resolve(x, ys) for ys in sets)]
        ops += [Resolve(x, authoritative=True)]
        ops += [Resolve(x, authoritative=True, dissenters=(a,)) for a in agents]
        for subsumes, zs in product(((), *sets), sets):
            ops.append(Resolve(x, subsumes, authoritative=True, premises=zs))
    return tuple(ops)


def paired_operations(records: Sequence[str], agents: Sequence[str]) -> tuple[Operation, ...]:
    """The operations two-operation turns combine: each kind on each record, citing the
    other (Observe and Question alone, Hypothesize on it), with registered and reused
    evidence, and Resolve consensual, subsuming, authoritative with a premise and with
    dissent (the other agent's)."""
    ops: list[Operation] = [ExpandAwareness("q")]
    for x, y in ((x, y) for x in records for y in records if x != y):
        ops += [Observe(x, "c"), Question(x, "c"), Hypothesize(x, "c", depends_on=(y,))]
        ops += [Support(x, y), Support(x, y, "e"), Undermine(x, y), Undermine(x, y, "e")]
        ops += [Revise(x, (y,)), Resolve(x), Resolve(x, (y,))]
        ops += [Resolve(x, authoritative=True, premises=(y,), dissenters=tuple(agents[-1:]))]
    return tuple(ops)


Key = tuple[object, ...]


def canonical(m: Concrete, state: transition.State, scope: Scope) -> Key:
    """The least renaming of the parts of D_t a turn reads: st_t, Dep, Att, Prop_t and the
    awareness sets, over every permutation of the record pool and of the agents.

    Kinds, claims, speakers, turn stamps, commitments and dissent are written by a turn but
    read by no precondition of spec/gcv/spec/transition.py (without formulas) nor by the encoding,
    so two states that agree on these parts accept the same turns and reach the same such parts;
    renaming both a state and a turn renames the outcome, and the pools are closed under renaming,
    so one state of each class is explored, the first reached.
    """
    atoms = tuple(sorted(state.atoms))
    if scope.epistemic:
        return _epistemic_key(state, scope, atoms)
    best: Key | None = None
    for order in permutations(scope.records):
        rename = dict(zip(scope.records, order, strict=True))
        shape = (
            tuple(sorted((rename[r], s.value) for r, s in m.standing.items())),
            tuple(sorted((rename[a], rename[b]) for a, b in m.dep)),
            tuple(sorted((rename[a], rename[b]) for a, b in m.att)),
        )
        if best is None or shape < best[:3]:
            best = shape
    assert best is not None
    aware = sorted(tuple(sorted(state.awareness[a])) for a in scope.agents)
    return (*best, atoms, tuple(aware))


def _model_key(model: se.EpistemicModel | None) -> str:
    """M_t (or a problem's M_chi) as one comparable value: its worlds and each <=_i."""
    if model is None:
        return ""
    worlds = sorted(repr(sorted(w)) for w in model.worlds)
    leq = {a: sorted(repr(pair) for pair in pairs) for a, pairs in model.leq.items()}
    return repr((worlds, sorted(leq.items())))


def _problem_key(problem: transition.Problem, rename: dict[str, str]) -> Key:
    """A queued problem, its records renamed: who poses it, its source, the hypotheses
    that closed it, chi and M_chi."""
    closed = tuple(rename[h] for h in problem.closed_by)
    chi, posed = repr(problem.chi), _model_key(problem.posed)
    return (problem.agent, rename[problem.source], closed, chi, posed)


def _epistemic_key(state: transition.State, scope: Scope, atoms: tuple[str, ...]) -> Key:
    """With M_t compared, records are renamed but agents are not (each has its own <=_i),
    and a record's kind and formula join its label (Support, Undermine, Revise and Resolve
    update M_t by the target's formula; Definition A.2 reads the hypotheses)."""
    best: Key | None = None
    for order in permutations(scope.records):
        rename = dict(zip(scope.records, order, strict=True))
        shape = (
            tuple(
                sorted(
                    (rename[r], state.dmap.standing[r], x.kind, repr(x.formula))
                    for r, x in state.records.items()
                )
            ),
            tuple(sorted((rename[a], rename[b]) for a, b in state.dmap.dep)),
            tuple(sorted((rename[a], rename[b]) for a, b in state.dmap.att)),
            tuple(_problem_key(p, rename) for p in state.problems),
        )
        if best is None or shape < best:
            best = shape
    assert best is not None
    aware = tuple(tuple(sorted(state.awareness[a])) for a in scope.agents)
    return (*best, atoms, aware, _model_key(state.model))


class Divergence(AssertionError):
    """The engine and the spec transition (or the encoding) disagree on a step."""


@dataclass
class Node:
    """A reachable state, as the engine and the spec transition hold it."""

    engine: Verifier
    spec: transition.State
    depth: int
    path: tuple[Turn, ...] = ()
    """The turns from D_0 that reached it (a campaign's workers replay them)."""
    digest: str = ""
    concrete: Concrete = field(init=False)

    def __post_init__(self) -> None:
        self.digest = self.engine.state.digest()
        self.concrete = Concrete.of_engine(self.engine.state)


@dataclass
class Counts:
    """What the exploration saw, as a model checker reports it."""

    states: int = 0
    beyond: int = 0
    generated: int = 0
    depth: int = 0
    transitions: int = 0
    accepted: int = 0
    by_records: Counter[int] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    coverage: Counter[str] = field(default_factory=Counter)
    queries: int = 0
    enumerated: int = 0
    allowed: int = 0
    allowed_for_m_t: int = 0
    encoded: int = 0
    unmodelled: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def add(self, other: Counts) -> None:
        """Count what ``other`` saw too (another part of the same exploration)."""
        for part in dataclasses.fields(self):
            mine, theirs = getattr(self, part.name), getattr(other, part.name)
            if part.name == "depth":
                self.depth = max(mine, theirs)
            elif isinstance(mine, Counter):
                mine.update(theirs)
            else:
                setattr(self, part.name, mine + theirs)

    def lines(self) -> Iterator[str]:
        """The report, one figure a line."""
        sizes = ", ".join(f"{n}: {c}" for n, c in sorted(self.by_records.items()))
        yield (
            f"{self.states} distinct states up to renaming (by records: {sizes}), "
            f"{self.generated} successors generated, depth {self.depth}"
        )
        if self.beyond:
            yield f"{self.beyond} states first reached one turn past the bound, not expanded"
        rejected = self.transitions - self.accepted
        yield f"{self.transitions} transitions: {self.accepted} accepted, {rejected} refused"
        yield "refusals: " + ", ".join(f"{c} {n}" for c, n in sorted(self.codes.items()))
        yield "coverage: " + ", ".join(f"{c} {n}" for c, n in sorted(self.coverage.items()))
        yield f"queries (Verify, Affected*) by both walks: {self.queries}"
        unmodelled = ", ".join(f"{c} {n}" for c, n in sorted(self.unmodelled.items()))
        yield (
            f"decided by the encoding's transition relation: {self.encoded}; not modelled "
            f"there (agents, awareness, M_t): {unmodelled}"
        )
        yield (
            f"steps the encoding allows, enumerated by the solver from {self.enumerated} "
            f"states: {self.allowed}, every one accepted"
            + (f" but {self.allowed_for_m_t} refused by M_t" if self.allowed_for_m_t else "")
        )
        yield f"{self.seconds:.1f} s"


def _covers(ops: Sequence[Operation], accepted: bool) -> Iterator[str]:
    """The coverage classes a step belongs to."""
    ordered = [op for _, op in in_application_order(tuple(ops))]
    verdict = "accepted" if accepted else "refused"
    yield f"{verdict} {'+'.join(op.name for op in ordered)}"
    for op in ops:
        if isinstance(op, Resolve) and op.authoritative and op.premises:
            yield f"{verdict} authoritative resolve with premises"
        if isinstance(op, Resolve) and op.subsumes:
            yield f"{verdict} resolve with subsumes"
        if isinstance(op, Resolve) and op.dissenters:
            yield f"{verdict} resolve with dissent"
    if len(ordered) == 2 and (shared := _one_target(*ordered)):
        yield f"{verdict} {shared} on one target"


_INTERACTING = {
    (Undermine, Resolve): "undermine then resolve",
    (Revise, Resolve): "revise then resolve",
    (Support, Undermine): "support then undermine",
}
"""The pairs of kinds whose second operation reads what the first wrote on its target."""


def _one_target(first: Operation, second: Operation) -> str | None:
    name = _INTERACTING.get((type(first), type(second)))
    if name and getattr(first, "target", None) == getattr(second, "target", None):
        return name
    return None


class Explorer:
    """Breadth-first exploration of ``scope`` with ``engine`` (a :class:`Verifier` or a
    broken copy), every step compared with the spec and the encoding under ``rules``."""

    def __init__(
        self,
        scope: Scope,
        engine: Callable[[Sequence[str], Sequence[str]], Verifier] = Verifier,
        rules: Rules = ROWS,
    ) -> None:
        self.scope, self.rules, self.counts = scope, rules, Counts()
        self.refused = Refusal("", None)  # the last refusal
        formulas = FORMULAS if scope.epistemic else (None,)
        self.singles = operations(
            scope.records,
            scope.agents,
            cited=scope.cited,
            formulas=formulas,
            choices=scope.epistemic,
        )
        paired = paired_operations(scope.pair_records, scope.agents) if scope.pairs else ()
        self.pairs = [(a, b) for a in paired for b in paired]
        self.encoding = Evaluator(scope.records, rules)
        self._spec_ops: dict[Operation, dict[str, object]] = {}
        start = engine(list(scope.agents), list(ATOMS))
        model = spec_model(start.model) if scope.epistemic else None
        self.root = Node(start, transition.State.start(scope.agents, ATOMS, model), 0)

    def run(self) -> Counts:
        """Explore every reachable state; raise :class:`Divergence` at the first disagreement."""
        began = time.perf_counter()
        seen = {canonical(self.root.concrete, self.root.spec, self.scope)}
        frontier, bound = [self.root], self.scope.depth
        while frontier:
            following: list[Node] = []
            for node in frontier:
                following += self.expand(node, seen)
            if bound is not None and following and following[0].depth > bound:
                self.counts.beyond, following = len(following), []
            frontier = following
        self.counts.seconds = time.perf_counter() - began
        return self.counts

    def expand(self, node: Node, seen: set[Key], number: int | None = None) -> list[Node]:
        """Every step from ``node``, the ``number``-th state in breadth-first order (default:
        the next this explorer expands); the successors of a class not yet ``seen``."""
        counts, scope = self.counts, self.scope
        number = counts.states if number is None else number
        counts.states += 1
        counts.depth = max(counts.depth, node.depth)
        counts.by_records[len(node.spec.records)] += 1
        counts.queries += check_queries(node.engine, node.spec)
        if number % scope.enumerate_every == 0:  # the first, then every k-th
            self.every_allowed_step_is_accepted(node)
        found = []
        for speaker in scope.agents:
            for op in self.singles:
                reached = self.step(node, Turn(speaker, (op,)))
                if reached is None:
                    continue
                counts.generated += 1
                shape = canonical(reached.concrete, reached.spec, scope)
                if shape not in seen:
                    seen.add(shape)
                    found.append(reached)
        if scope.pairs and len(node.spec.records) <= scope.pairs_from:
            for pair in self.pairs:  # by the first agent: the dissenter is the other
                self.step(node, Turn(scope.agents[0], pair))
        return found

    def step(self, node: Node, turn: Turn) -> Node | None:
        """Take ``turn`` from ``node`` in the engine and the spec; compare with each other and
        with the encoding; the next node when the turn is accepted."""
        counts = self.counts
        counts.transitions += 1
        ops = tuple(self._spec_operation(op) for op in turn.operations)
        try:
            spec: transition.Outcome | transition.Rejected = transition.process_turn(
                node.spec, transition.Turn(turn.speaker, ops), epistemic=self.scope.epistemic
            )
        except transition.Rejected as refused:
            spec = refused
        engine = (
            node.engine if isinstance(spec, transition.Rejected) else copy.deepcopy(node.engine)
        )
        try:
            engine.apply_turn(turn)
        except Exception as crash:
            if not isinstance(crash, GcvError):  # a broken contract, or worse: no refusal
                raise Divergence(f"{turn}: the engine raised {crash!r}") from None
            error = crash
            if engine.state.digest() != node.digest:
                raise Divergence(f"{turn}: a refused turn changed the engine") from None
            if not isinstance(spec, transition.Rejected):
                raise Divergence(
                    f"{turn}: the engine refuses ({error.code}); the spec accepts"
                ) from None
            if (spec.code, spec.index) != (error.code, error.operation_index):
                raise Divergence(
                    f"{turn}: engine {error.code} at {error.operation_index}, "
                    f"spec {spec.code} at {spec.index}"
                ) from None
            counts.codes[error.code] += 1
            counts.coverage.update(_covers(turn.operations, accepted=False))
            self.refused = Refusal(error.code, error.field, _position(turn, error))
            self._encoded(node, turn, self.refused)
            return None
        if isinstance(spec, transition.Rejected):
            raise Divergence(f"{turn}: the engine accepts; the spec refuses ({spec})")
        try:
            same_map(engine, spec.state, epistemic=self.scope.epistemic)
        except AssertionError as part:
            raise Divergence(
                f"{turn}: D_t+1 differs between the engine and the spec: {part}"
            ) from None
        counts.accepted += 1
        counts.coverage.update(_covers(turn.operations, accepted=True))
        reached = Node(engine, spec.state, node.depth + 1, (*node.path, turn))
        self._encoded(node, turn, reached.concrete)
        return reached

    def node_at(self, path: Sequence[Turn]) -> Node:
        """The state ``path`` reaches from D_0, each of its turns (accepted when it was
        explored) taken again by the engine and the spec transition, unchecked."""
        node = self.root
        for turn in path:
            engine = copy.deepcopy(node.engine)
            engine.apply_turn(turn)
            ops = tuple(self._spec_operation(op) for op in turn.operations)
            spec = transition.process_turn(
                node.spec, transition.Turn(turn.speaker, ops), epistemic=self.scope.epistemic
            )
            node = Node(engine, spec.state, node.depth + 1, (*node.path, turn))
        return node

    def _spec_operation(self, op: Operation) -> dict[str, object]:
        """``op`` in the spec's form, converted once."""
        if op not in self._spec_ops:
            self._spec_ops[op] = spec_operation(op)
        return self._spec_ops[op]

    def every_allowed_step_is_accepted(self, node: Node) -> None:
        """Every one-operation step the encoding allows from ``node`` over the identifier
        pool, with any cited sets (not only the pool's), is accepted, as the spec's, unless
        refused for what the encoding does not model (M_t: a Revise announcing a formula
        true nowhere)."""
        self.counts.enumerated += 1
        for kind in OPERATIONS:
            if kind == "expand-awareness":  # no parameter the encoding reads
                continue
            for op in allowed(node.concrete, kind, self.scope.records, self.rules):
                taken = self.step(node, Turn(self.scope.agents[0], (op,)))
                if taken is None and self.refused.modelled:
                    raise Divergence(f"the encoding allows {op}; the engine refuses it")
                self.counts.allowed += 1
                self.counts.allowed_for_m_t += taken is None

    def _encoded(self, node: Node, turn: Turn, after: Concrete | Refusal) -> None:
        """The step as the encoded relation decides it must be the step taken."""
        if isinstance(after, Refusal) and not after.modelled:
            self.counts.unmodelled[f"{after.code} ({after.field})"] += 1
            return
        ops = [op for _, op in in_application_order(turn.operations)]
        refused_at = self.encoding.refused_at(node.concrete, ops)
        if isinstance(after, Refusal):
            if refused_at is None:
                raise Divergence(f"the encoding allows {turn}; the engine refuses it")
            if refused_at != after.position:
                raise Divergence(
                    f"{turn}: the encoding's precondition fails at {refused_at}, "
                    f"the engine refuses at {after.position} ({after.code})"
                )
        elif refused_at is not None:
            raise Divergence(f"{turn} is accepted; the encoding's precondition does not hold")
        elif not self.encoding.reaches(node.concrete, ops, after):
            raise Divergence(f"after {turn} the encoded state differs from the engine's")
        self.counts.encoded += 1


def _position(turn: Turn, error: GcvError) -> int:
    """The refused operation's position in the application order."""
    order = [index for index, _ in in_application_order(turn.operations)]
    return order.index(error.operation_index) if error.operation_index in order else 0


def check_queries(engine: Verifier, state: transition.State) -> int:
    """Verify (Lemma 2.1) and Affected* (Definition 2.3) of every record, by the pure walk
    and by the compiled one when it is built, against spec.core; the number of queries
    asked."""
    d, asked = state.to_core(), 0
    for queries in (PURE, COMPILED or PURE):
        with answered_by(queries):
            for record in sorted(state.records):
                grounded = engine.verify(record).grounded
                if grounded != core.is_grounded(d, record):
                    raise Divergence(f"Verify({record}) is {grounded} ({queries.walk})")
                affected = set(engine.affected_star(record))
                if affected != core.compute_affected_star(d, record):
                    raise Divergence(f"Affected*({record}) is {affected} ({queries.walk})")
                asked += 2
    return asked


def main(argv: Sequence[str] | None = None) -> None:
    """Explore a scope and print its counts."""
    parser = argparse.ArgumentParser(prog="python -m tests.refinement", description=__doc__)
    parser.add_argument("--records", type=int, default=len(SMALL.records), help="pool size")
    parser.add_argument("--no-pairs", action="store_true", help="one-operation turns only")
    parser.add_argument(
        "--enumerate", type=int, metavar="K", help="solver enumeration from every K-th state"
    )
    parser.add_argument(
        "--depth", type=int, metavar="K", help="expand only the states within K turns of D_0"
    )
    parser.add_argument(
        "--epistemic",
        action="store_true",
        help="the whole of D_t: M_t and the problem queue compared, cited sets of up to two "
        "records, enumeration from every state, one-operation turns",
    )
    campaign = parser.add_argument_group(
        "campaign", "explore on a Dask cluster (the campaign extra: tests/refinement_campaign.py)"
    )
    campaign.add_argument(
        "--workers", type=at_least_one, metavar="K", help="a local cluster of K worker processes"
    )
    campaign.add_argument("--cluster", metavar="ADDRESS", help="the Dask scheduler at ADDRESS")
    campaign.add_argument(
        "--checkpoint", type=Path, metavar="FILE", help="write the progress after each level"
    )
    campaign.add_argument(
        "--resume", action="store_true", help="carry on from --checkpoint when it exists"
    )
    args = parser.parse_args(argv)
    base = EPISTEMIC if args.epistemic else SMALL
    scope = dataclasses.replace(
        base,
        records=tuple(f"r{i}" for i in range(1, args.records + 1)),
        pair_records=() if args.no_pairs else base.pair_records,
        enumerate_every=args.enumerate or base.enumerate_every,
        depth=args.depth,
    )
    explorer = Explorer(scope)
    print(
        f"scope: records {scope.records}, agents {scope.agents}: {len(explorer.singles)} "
        f"operations by each agent; {len(explorer.pairs)} two-operation turns over "
        f"{scope.pair_records} from every state of at most {scope.pairs_from} records; "
        f"solver enumeration from one state in {scope.enumerate_every}"
        + ("" if scope.depth is None else f"; states within {scope.depth} turns of D_0")
    )
    if args.workers is None and args.cluster is None:
        counts = explorer.run()
    else:
        try:
            from tests import refinement_campaign
        except ModuleNotFoundError as missing:
            if extra_missing(missing) is None:
                raise
            parser.exit(2, f"a campaign needs {missing.name}: {install_hint('campaign')}\n")
        counts = refinement_campaign.run(
            scope, args.workers, args.cluster, args.checkpoint, args.resume
        )
    for line in counts.lines():
        print(line)


if __name__ == "__main__":
    main()
