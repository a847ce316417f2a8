"""Seeded conversations for the benchmarks: realistic ones and synthetic worst cases.

Realistic conversations open with the paper's own Phase 2 (the 13 turns of B.2, from
``spec/gcv/spec/scenarios/phase2-debugging.json``) and continue with generated turns in the
operation mix of Phases 2 and 3: observations and premises, hypotheses and positions
resting on 1-4 recent records, supports and undermines with new or existing evidence,
revisions with attackers, resolutions that subsume earlier hypotheses (making dependency
cycles) or decide with premises and dissent, questions, awareness expansions (of
eight new atoms, so that Prop_t stays as small as the paper's, assumption A3).  Every
generated turn satisfies Table 3's preconditions because the generator reads the live
map; each turn costs O(1) to generate, so 200,000 turns take seconds.

The generated turns never cite, target or subsume o5 or its dependents h1, h3, h4, so
Affected*(o5) is the paper's three-hop answer {h1, h3, h4} (Section 4.4) at every
length: the retraction query is the same question over ever longer histories.

Worst cases (Proposition 2.5) are maps where one query visits every record:

``chain``
    r_i rests on r_{i-1}, ..., r_{i-4}: Verify(r_{n-1}) and Affected*(r_0) visit all n.
``fan``
    r_1..r_{n-2} each rest on the premise p and on up to three earlier r_j; a top
    record rests on all of them: Verify(top) and Affected*(p) visit all n.
``cycles``
    the chain, then a Resolve of r_{n-1} that subsumes every tenth record (A.3: each
    gains a Dep link to r_{n-1}), so every record lies on a dependency cycle and
    r_0 is in Affected*(r_0).

Each has about four Dep links per record.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources

from gcv.reference.identifiers import RecordId
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
)
from gcv.reference.records import GOOD_STANDING, Kind, Standing
from gcv.reference.verifier import Turn, Verifier
from gcv.trace import load_trace

__all__ = [
    "AGENTS",
    "PLANTED",
    "PLANTED_AFFECTED",
    "SHAPES",
    "Conversation",
    "WorstCase",
    "empty_map",
    "phase2",
    "worst_case",
    "worst_case_turns",
]

AGENTS = ("a", "b", "c")
PLANTED: RecordId = "o5"
"""The premise whose retraction is timed: Section 4.4's three-hop query."""
PLANTED_AFFECTED = frozenset({"h1", "h3", "h4"})
"""Affected*(o5) in Phase 2 (spec/gcv/spec/normative.md, "Scenarios"), kept fixed at every
length."""

PHASE2_ATOMS = ("p_auth", "p_pay", "p_db", "p_tok", "p_traffic", "p_stripe429", "p_redis")
_NEW_ATOMS = tuple(f"p_new{i}" for i in range(1, 9))
_WINDOW = 40  # how far back a new record looks for what it rests on


def phase2() -> tuple[Verifier, list[Turn]]:
    """The Phase 2 conversation (B.2) applied: the verifier and its 13 turns."""
    text = resources.files("gcv.spec").joinpath("scenarios", "phase2-debugging.json").read_bytes()
    trace = load_trace(text)
    if tuple(trace.agents) != AGENTS or trace.atoms != PHASE2_ATOMS:
        raise RuntimeError("the Phase 2 scenario's agents or atoms changed")
    verifier = Verifier(AGENTS, PHASE2_ATOMS)
    turns = [t.turn for t in trace.turns]
    for turn in turns:
        verifier.apply_turn(turn)
    return verifier, turns


def empty_map() -> Verifier:
    """The map a realistic conversation starts from (Phase 2's agents and atoms, no turn)."""
    return Verifier(AGENTS, PHASE2_ATOMS)


class Conversation:
    """A realistic conversation that grows turn by turn: Phase 2, then generated turns.

    ``verifier`` is the live engine and ``log`` every turn applied so far (the history
    a replay baseline re-applies; not kept with ``keep_log=False``).
    """

    def __init__(self, seed: int = 0, *, keep_log: bool = True) -> None:
        self.rng = random.Random(seed)
        self.verifier, self.log = phase2()
        self.keep_log = keep_log
        self.applied = len(self.log)
        protected = {PLANTED} | PLANTED_AFFECTED
        if set(self.verifier.affected_star(PLANTED)) != PLANTED_AFFECTED:
            raise RuntimeError("Phase 2's Affected*(o5) is no longer {h1, h3, h4}")
        records = [r for r in self.verifier.state.records if r not in protected]
        self._recent: deque[RecordId] = deque(records, maxlen=_WINDOW)
        kinds = self.verifier.state.records
        hypotheses = [r for r in records if kinds[r].kind in (Kind.HYPOTHESIS, Kind.POSITION)]
        self._hypotheses: deque[RecordId] = deque(hypotheses, maxlen=_WINDOW)

    def grow_to(self, turns: int) -> None:
        """Generate and apply turns until the conversation has ``turns`` of them."""
        while self.applied < turns:
            turn = self._next_turn(self.applied + 1)
            self.verifier.apply_turn(turn)
            self.applied += 1
            if self.keep_log:
                self.log.append(turn)
            self._remember(turn)

    # -- generation ------------------------------------------------------------

    def _standing(self, record: RecordId) -> Standing:
        return self.verifier.state.standing[record]

    def _sample(self, pool: deque[RecordId], low: int, high: int) -> tuple[RecordId, ...]:
        count = min(len(pool), self.rng.randint(low, high))
        return tuple(self.rng.sample(list(pool), count))

    def _good(self, pool: deque[RecordId], count: int) -> tuple[RecordId, ...]:
        candidates = [r for r in pool if self._standing(r) in GOOD_STANDING]
        return tuple(self.rng.sample(candidates, min(count, len(candidates))))

    def _next_turn(self, n: int) -> Turn:
        rng, speaker = self.rng, self.rng.choice(AGENTS)
        roll = rng.random()
        ops: tuple[Operation, ...] | None = None
        if roll < 0.20:
            deps = self._sample(self._recent, 0, 1)
            ops = (Observe(f"o{n}", f"observation {n}", depends_on=deps),)
        elif roll < 0.25:
            ops = (Observe(f"a{n}", f"assumption {n}", kind=Kind.PREMISE),)
        elif roll < 0.47:
            kind = Kind.POSITION if rng.random() < 0.2 else Kind.HYPOTHESIS
            deps = self._sample(self._recent, 1, 4)
            ops = (Hypothesize(f"h{n}", f"hypothesis {n}", kind=kind, depends_on=deps),)
        elif roll < 0.55:
            # An observation and the hypothesis it prompts, in one utterance.
            deps = (f"o{n}", *self._sample(self._recent, 0, 3))
            ops = (
                Observe(f"o{n}", f"observation {n}"),
                Hypothesize(f"h{n}", f"hypothesis {n}", depends_on=deps),
            )
        elif roll < 0.90 and self._hypotheses:
            ops = self._about_a_hypothesis(n, speaker, rng.choice(self._hypotheses), roll)
        elif roll < 0.95:
            # A Question registers no record (B.3 T1): nothing may rest on it.
            ops = (Question(f"q{n}", f"question {n}"),)
        elif roll < 0.96:
            ops = self._expansion()
        return Turn(speaker, ops or (Observe(f"o{n}", f"observation {n}"),))

    def _expansion(self) -> tuple[Operation, ...] | None:
        # Prop_t stays small, as in the paper's scenarios (k <= 15, assumption A3):
        # a fixed pool of new atoms, each reaching one agent at a time.
        for atom in _NEW_ATOMS:
            unaware = [a for a in AGENTS if not self.verifier.is_aware(a, atom)]
            if unaware:
                return (ExpandAwareness(atom, (self.rng.choice(unaware),)),)
        return None

    def _about_a_hypothesis(
        self, n: int, speaker: str, target: RecordId, roll: float
    ) -> tuple[Operation, ...] | None:
        rng, label = self.rng, self._standing(target)
        if roll < 0.67 and label is not Standing.ABANDONED:
            existing = self._good(self._recent, 1) if rng.random() < 0.3 else ()
            existing = tuple(e for e in existing if e != target)
            if existing:
                return (Support(target, existing[0]),)
            deps = self._sample(self._recent, 0, 1)
            return (Support(target, f"e{n}", f"evidence {n}", evidence_depends_on=deps),)
        if roll < 0.74 and label in (Standing.ACTIVE, Standing.WEAKENED):
            return (Undermine(target, f"e{n}", f"counter-evidence {n}"),)
        if roll < 0.81:
            attackers = tuple(a for a in self._good(self._recent, 1) if a != target)
            return (Revise(target, attackers),)
        if label in GOOD_STANDING and not self.verifier.state.ratt.get(target):
            others = [h for h in self._hypotheses if h != target]
            subsumed = tuple(rng.sample(others, min(len(others), rng.randint(0, 2))))
            if rng.random() < 0.7:
                return (Resolve(target, subsumes=subsumed),)
            # A decision with the premises it rests on, and dissent (Phase 3's shape).
            premises = tuple(p for p in self._good(self._recent, 2) if p != target)
            dissent = tuple(a for a in AGENTS if a != speaker and rng.random() < 0.3)
            return (Resolve(target, subsumed, True, premises, dissent),)
        return None

    def _remember(self, turn: Turn) -> None:
        for op in turn.operations:
            match op:
                case Observe():
                    self._recent.append(op.id)
                case Hypothesize():
                    self._recent.append(op.id)
                    self._hypotheses.append(op.id)
                case Support() | Undermine() if op.evidence_claim is not None:
                    self._recent.append(op.evidence)
                case _:
                    pass


@dataclass(frozen=True, slots=True)
class WorstCase:
    """A worst-case map's turns and the two records whose queries visit all of it."""

    shape: str
    records: int
    turns: tuple[Turn, ...]
    verify_from: RecordId
    retract: RecordId


SHAPES = ("chain", "fan", "cycles")
_BATCH = 1000  # operations per turn: large turns keep the build fast


def _batched(ops: Iterator[Operation]) -> Iterator[Turn]:
    batch: list[Operation] = []
    count = 0
    for op in ops:
        batch.append(op)
        if len(batch) == _BATCH:
            yield Turn(AGENTS[count % len(AGENTS)], tuple(batch))
            batch, count = [], count + 1
    if batch:
        yield Turn(AGENTS[count % len(AGENTS)], tuple(batch))


def _chain(n: int) -> Iterator[Operation]:
    yield Observe("r0", "premise 0", kind=Kind.PREMISE)
    for i in range(1, n):
        deps = tuple(f"r{j}" for j in range(i - 1, max(-1, i - 5), -1))
        yield Hypothesize(f"r{i}", f"claim {i}", depends_on=deps)


def _fan(n: int, rng: random.Random) -> Iterator[Operation]:
    yield Observe("p", "premise", kind=Kind.PREMISE)
    for i in range(1, n - 1):
        earlier = {f"r{rng.randrange(1, i)}" for _ in range(3)} if i > 1 else set()
        yield Hypothesize(f"r{i}", f"claim {i}", depends_on=("p", *sorted(earlier)))
    yield Hypothesize("top", "conclusion", depends_on=tuple(f"r{i}" for i in range(1, n - 1)))


def worst_case_turns(shape: str, n: int, seed: int = 0) -> Iterator[Turn]:
    """The turns that build the worst-case map ``shape`` with ``n`` records, lazily."""
    if shape == "chain":
        yield from _batched(_chain(n))
    elif shape == "fan":
        yield from _batched(_fan(n, random.Random(seed)))
    elif shape == "cycles":
        yield from _batched(_chain(n))
        subsumed = tuple(f"r{i}" for i in range(0, n - 1, 10))
        yield Turn(AGENTS[0], (Resolve(f"r{n - 1}", subsumes=subsumed),))
    else:
        raise ValueError(f"unknown shape {shape!r}; choose one of {SHAPES}")


_QUERIED = {"chain": ("r{last}", "r0"), "fan": ("top", "p"), "cycles": ("r{half}", "r0")}


def worst_case(shape: str, n: int, seed: int = 0) -> WorstCase:
    """The worst-case map ``shape`` with ``n`` records: its turns and queried records."""
    turns = tuple(worst_case_turns(shape, n, seed))
    verify_from, retract = _QUERIED[shape]
    return WorstCase(shape, n, turns, verify_from.format(last=n - 1, half=n // 2), retract)
