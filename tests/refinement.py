"""Exhaustive small-scope refinement check: the engine against the spec transition and the
Z3 encoding, on every state it can reach in a small scope.

Breadth-first from D_0, every operation of the scope's pool is applied as a one-operation
turn, by each agent, from every reachable state; the engine's next states, deduplicated by
its digest of the parts of D_t a precondition reads (:func:`key`), are the states explored
next.  From every reachable state every two-operation turn over the pair pool is applied
too, in both written orders.  Each step is taken by the engine
(:class:`reference.verifier.Verifier`) and by :func:`spec.transition.process_turn`; they
must agree on acceptance, error code, failing operation and the whole of D_t+1.  Steps are
also checked against the encoded transition relation (``proofs/encode.py``) on the finite
universe they name (:mod:`tests.encoded`): the engine accepts exactly the steps whose
encoded preconditions hold, and reaches the encoded next state; every step under
``--full``, one in :data:`SAMPLE_EVERY` otherwise.  From every reachable state the solver
also enumerates every one-operation step its encoding allows over the identifier pool, with
cited sets of any size, and the engine must accept each.  Verify and Affected* of every
record of every state are compared with spec.core in both marking phases of
reference/closure.py.

Run ``python -m tests.refinement [--records N] [--no-pairs] [--full]`` for the counts, as a
model checker prints them.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import product

import reference.closure
from proofs.encode import Rules
from reference.conformance.cases.oracle import spec_operation
from reference.errors import GcvError
from reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    OperationKind,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
    in_application_order,
)
from reference.rules import RULES
from reference.verifier import Turn, Verifier
from spec import core, transition
from tests.encoded import Concrete, Refusal, allowed, check
from tests.test_transition import _same_map as same_map

ATOMS = ("p",)
SAMPLE_EVERY = 151
"""Outside ``--full`` the encoding is asked about every SAMPLE_EVERY-th step."""


@dataclass(frozen=True)
class Scope:
    """The finite scope explored: the identifier pool (its size bounds |Args_t|) and the
    agents; two-operation turns are explored when ``pairs`` is set."""

    records: tuple[str, ...]
    agents: tuple[str, ...]
    pairs: bool = True


SMALL = Scope(("r1", "r2"), ("a", "b"))
"""The scope of the test command (and of ``python -m tests.refinement``)."""


def operations(records: Sequence[str], agents: Sequence[str]) -> tuple[Operation, ...]:
    """Every one-operation turn's operation over ``records``: each kind with no cited record
    or one, evidence registered or reused, Resolve consensual or authoritative with
    premises, subsumes and dissent; self-citations included (they must be refused)."""
    ops: list[Operation] = [ExpandAwareness("q"), ExpandAwareness(ATOMS[0])]
    for x in records:
        ops += [Observe(x, "c"), Hypothesize(x, "c"), Question(x, "c")]
        ops += [Observe(x, "c", depends_on=(y,)) for y in records]
        ops += [Hypothesize(x, "c", depends_on=(y,)) for y in records]
        for y in records:
            ops += [Support(x, y), Support(x, y, "e"), Undermine(x, y), Undermine(x, y, "e")]
        ops += [Revise(x), *(Revise(x, (y,)) for y in records)]
        ops += [Resolve(x), *(Resolve(x, (y,)) for y in records)]
        ops += [Resolve(x, authoritative=True)]
        ops += [Resolve(x, authoritative=True, dissenters=(a,)) for a in agents]
        for subsumes, z in product(((), *((y,) for y in records)), records):
            ops.append(Resolve(x, subsumes, authoritative=True, premises=(z,)))
    return tuple(ops)


def paired_operations(records: Sequence[str], agents: Sequence[str]) -> tuple[Operation, ...]:
    """The operations two-operation turns combine: each kind once per pair of distinct
    records, with registered and reused evidence, and Resolve consensual, subsuming,
    authoritative with a premise and with dissent (the other agent's)."""
    ops: list[Operation] = [ExpandAwareness("q")]
    for x, y in ((x, y) for x in records for y in records if x != y):
        ops += [Observe(x, "c"), Hypothesize(x, "c", depends_on=(y,))]
        ops += [Support(x, y), Support(x, y, "e"), Undermine(x, y), Undermine(x, y, "e")]
        ops += [Revise(x, (y,)), Resolve(x), Resolve(x, (y,))]
        ops += [Resolve(x, authoritative=True, premises=(y,), dissenters=tuple(agents[-1:]))]
    return tuple(ops)


READ = ("records", "dep", "att", "atoms", "awareness")
"""The parts of D_t a turn's acceptance and its effect on them depend on."""


def key(engine: Verifier) -> str:
    """The engine's digest of the parts of D_t in :data:`READ`, each record as its standing.

    Kinds, claims, speakers, turn stamps, commitments and dissent are written by a turn but
    read by no precondition of spec/transition.py (without formulas) nor by the encoding, so
    two states that agree on :data:`READ` accept the same turns and reach the same
    :data:`READ` parts: one of them is explored, the first reached.
    """
    snapshot = engine.state.snapshot()
    read = {part: snapshot[part] for part in READ}
    read["records"] = [(r["id"], r["standing"]) for r in snapshot["records"]]  # type: ignore[attr-defined]
    canonical = json.dumps(read, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class Divergence(AssertionError):
    """The engine and the spec transition (or the encoding) disagree on a step."""


@dataclass
class Node:
    """A reachable state, as the engine and the spec transition hold it."""

    engine: Verifier
    spec: transition.State
    depth: int
    digest: str = ""

    def __post_init__(self) -> None:
        self.digest = self.engine.state.digest()


@dataclass
class Counts:
    """What the exploration saw, as a model checker reports it."""

    states: int = 0
    depth: int = 0
    transitions: int = 0
    accepted: int = 0
    by_records: Counter[int] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    coverage: Counter[str] = field(default_factory=Counter)
    queries: int = 0
    enumerated: int = 0
    allowed: int = 0
    encoded: int = 0
    unmodelled: int = 0
    seconds: float = 0.0

    def lines(self) -> Iterator[str]:
        """The report, one figure a line."""
        sizes = ", ".join(f"{n}: {c}" for n, c in sorted(self.by_records.items()))
        yield f"{self.states} distinct states (by records: {sizes}), depth {self.depth}"
        rejected = self.transitions - self.accepted
        yield f"{self.transitions} transitions: {self.accepted} accepted, {rejected} refused"
        yield "refusals: " + ", ".join(f"{c} {n}" for c, n in sorted(self.codes.items()))
        yield "coverage: " + ", ".join(f"{c} {n}" for c, n in sorted(self.coverage.items()))
        yield f"queries (Verify, Affected*) in both marking phases: {self.queries}"
        yield (
            f"steps the encoding allows, enumerated from {self.enumerated} states: "
            f"{self.allowed}, every one accepted"
        )
        yield f"checked against the encoding: {self.encoded} ({self.unmodelled} not modelled)"
        yield f"{self.seconds:.1f} s"


def _covers(ops: Sequence[Operation], accepted: bool) -> Iterator[str]:
    """The coverage classes a step belongs to."""
    kinds = [op.operation.value for _, op in in_application_order(tuple(ops))]
    verdict = "accepted" if accepted else "refused"
    yield f"{verdict} {'+'.join(kinds)}"
    for op in ops:
        if isinstance(op, Resolve) and op.authoritative and op.premises:
            yield f"{verdict} authoritative resolve with premises"
        if isinstance(op, Resolve) and op.subsumes:
            yield f"{verdict} resolve with subsumes"
        if isinstance(op, Resolve) and op.dissenters:
            yield f"{verdict} resolve with dissent"
    if len(ops) == 2:
        first, second = (op for _, op in in_application_order(tuple(ops)))
        undermined = isinstance(first, Undermine) and isinstance(second, Resolve)
        if undermined and first.target == second.target:  # type: ignore[union-attr]
            yield f"{verdict} undermine then resolve on one target"


class Explorer:
    """Breadth-first exploration of ``scope`` with ``engine`` (a :class:`Verifier` or a
    broken copy), every step compared; ``sample`` selects the steps asked of the encoding."""

    def __init__(
        self,
        scope: Scope,
        engine: Callable[[Sequence[str], Sequence[str]], Verifier] = Verifier,
        sample: Callable[[int], bool] = lambda _: True,
        rules: Rules = RULES,
    ) -> None:
        self.scope, self.sample, self.rules, self.counts = scope, sample, rules, Counts()
        self.singles = operations(scope.records, scope.agents)
        paired = paired_operations(scope.records, scope.agents) if scope.pairs else ()
        self.pairs = [(a, b) for a in paired for b in paired]
        self._spec_ops: dict[Operation, dict[str, object]] = {}
        start = engine(list(scope.agents), list(ATOMS))
        self.root = Node(start, transition.State.start(scope.agents, ATOMS), 0)

    def run(self) -> Counts:
        """Explore every reachable state; raise :class:`Divergence` at the first disagreement."""
        began = time.perf_counter()
        seen = {key(self.root.engine)}
        frontier = [self.root]
        while frontier:
            following: list[Node] = []
            for node in frontier:
                self.counts.states += 1
                self.counts.depth = max(self.counts.depth, node.depth)
                self.counts.by_records[len(node.spec.records)] += 1
                self.counts.queries += check_queries(node.engine, node.spec)
                self.every_allowed_step_is_accepted(node)
                for speaker in self.scope.agents:
                    for op in self.singles:
                        reached = self.step(node, Turn(speaker, (op,)))
                        if reached is not None and key(reached.engine) not in seen:
                            seen.add(key(reached.engine))
                            following.append(reached)
                for pair in self.pairs:  # by the first agent: the dissenter is the other
                    self.step(node, Turn(self.scope.agents[0], pair))
            frontier = following
        self.counts.seconds = time.perf_counter() - began
        return self.counts

    def step(self, node: Node, turn: Turn) -> Node | None:
        """Take ``turn`` from ``node`` in the engine and the spec; compare; the next node when
        the turn is accepted."""
        counts = self.counts
        counts.transitions += 1
        ops = tuple(self._spec_operation(op) for op in turn.operations)
        try:
            spec: transition.Outcome | transition.Rejected = transition.process_turn(
                node.spec, transition.Turn(turn.speaker, ops), epistemic=False
            )
        except transition.Rejected as refused:
            spec = refused
        engine = (
            node.engine if isinstance(spec, transition.Rejected) else copy.deepcopy(node.engine)
        )
        try:
            engine.apply_turn(turn)
        except GcvError as error:
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
            self._encoded(node, turn, Refusal(error.code, error.field, self._position(turn, error)))
            return None
        if isinstance(spec, transition.Rejected):
            raise Divergence(f"{turn}: the engine accepts; the spec refuses ({spec})")
        try:
            same_map(engine, spec.state, epistemic=False)
        except AssertionError as part:
            raise Divergence(
                f"{turn}: D_t+1 differs between the engine and the spec: {part}"
            ) from None
        counts.accepted += 1
        counts.coverage.update(_covers(turn.operations, accepted=True))
        self._encoded(node, turn, Concrete.of_engine(engine.state))
        return Node(engine, spec.state, node.depth + 1)

    def _spec_operation(self, op: Operation) -> dict[str, object]:
        """``op`` in the spec's form, converted once."""
        if op not in self._spec_ops:
            self._spec_ops[op] = spec_operation(op)
        return self._spec_ops[op]

    def every_allowed_step_is_accepted(self, node: Node) -> None:
        """Every one-operation step the encoding allows from ``node`` over the identifier
        pool, with any cited sets (not only the pool's), is accepted, as the spec's."""
        before = Concrete.of_engine(node.engine.state)
        self.counts.enumerated += 1
        for kind in OperationKind:
            if kind is OperationKind.EXPAND_AWARENESS:  # no parameter the encoding reads
                continue
            for op in allowed(before, kind, self.scope.records, self.rules):
                if self.step(node, Turn(self.scope.agents[0], (op,))) is None:
                    raise Divergence(f"the encoding allows {op}; the engine refuses it")
                self.counts.allowed += 1

    @staticmethod
    def _position(turn: Turn, error: GcvError) -> int:
        order = [index for index, _ in in_application_order(turn.operations)]
        return order.index(error.operation_index) if error.operation_index in order else 0

    def _encoded(self, node: Node, turn: Turn, after: Concrete | Refusal) -> None:
        if not self.sample(self.counts.transitions):
            return
        ops = [op for _, op in in_application_order(turn.operations)]
        try:
            if check(Concrete.of_engine(node.engine.state), ops, after, self.rules):
                self.counts.encoded += 1
            else:
                self.counts.unmodelled += 1
        except AssertionError as disagreement:
            raise Divergence(f"{turn}: {disagreement}") from None


@contextmanager
def dense_from_the_start(shift: int) -> Iterator[None]:
    """Set :mod:`reference.closure`'s phase threshold (a module constant, not a parameter):
    shift 0 keeps a walk over n records in its first, dict-marked loop; the default (4)
    hands a walk over fewer than 16 records to the second, array-marked loop after the
    start's links."""
    saved = reference.closure._DENSE_SHIFT
    reference.closure._DENSE_SHIFT = shift
    try:
        yield
    finally:
        reference.closure._DENSE_SHIFT = saved


def check_queries(engine: Verifier, state: transition.State) -> int:
    """Verify (Lemma 2.1) and Affected* (Definition 2.3) of every record, in both marking
    phases of reference/closure.py, against spec.core; the number of queries asked."""
    d, asked = state.to_core(), 0
    for shift in (0, reference.closure._DENSE_SHIFT):
        with dense_from_the_start(shift):
            for record in sorted(state.records):
                grounded = engine.verify(record).grounded
                if grounded != core.is_grounded(d, record):
                    raise Divergence(f"Verify({record}) is {grounded} at shift {shift}")
                affected = set(engine.affected_star(record))
                if affected != core.compute_affected_star(d, record):
                    raise Divergence(f"Affected*({record}) is {affected} at shift {shift}")
                asked += 2
    return asked


def main(argv: Sequence[str] | None = None) -> None:
    """Explore a scope and print its counts."""
    parser = argparse.ArgumentParser(prog="python -m tests.refinement", description=__doc__)
    parser.add_argument("--records", type=int, default=len(SMALL.records), help="pool size")
    parser.add_argument("--no-pairs", action="store_true", help="one-operation turns only")
    parser.add_argument("--full", action="store_true", help="every step through the encoding")
    args = parser.parse_args(argv)
    records = tuple(f"r{i}" for i in range(1, args.records + 1))
    scope = Scope(records, SMALL.agents, pairs=not args.no_pairs)
    every = 1 if args.full else SAMPLE_EVERY
    explorer = Explorer(scope, sample=lambda n: n % every == 0)
    print(
        f"scope: records {scope.records}, agents {scope.agents}: {len(explorer.singles)} "
        f"operations by each agent, {len(explorer.pairs)} two-operation turns; "
        f"the encoding asked about {'every step' if every == 1 else f'one step in {every}'}"
    )
    for line in explorer.run().lines():
        print(line)


if __name__ == "__main__":
    main()
