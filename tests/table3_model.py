"""Table 3 as a model: what each accepted operation does to D_t, restated on plain data.

The state machine in ``tests/test_state_machine.py`` keeps one of these beside the
engine and compares the two after every step.  The effects are written from
spec/normative.md ("Table 3: preconditions and effects", "Operation order within a
turn"), not from ``reference/rules.py``, so a wrong row in the engine's table shows
up as a disagreement instead of being copied into the model.  The model only ever
applies operations the machine built to be valid; which turns must be rejected,
and with which code, each rule of the machine knows by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reference.operations import (
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
from spec import core

# spec/normative.md, "Operation order within a turn".
ORDER = (
    "expand-awareness",
    "observe",
    "hypothesize",
    "support",
    "undermine",
    "revise",
    "resolve",
    "question",
)


@dataclass
class ModelRecord:
    """A record's fixed facts and its label, in the spec's vocabulary (labels are strings)."""

    claim: str
    speaker: str
    turn: int
    kind: str
    standing: str


@dataclass
class Model:
    """D_t on plain data: records, Dep and Att as sets of pairs, Cm, dissent, Prop, A_i."""

    agents: tuple[str, ...]
    atoms: set[str]
    turn: int = 0
    records: dict[str, ModelRecord] = field(default_factory=dict)
    dep: set[tuple[str, str]] = field(default_factory=set)
    att: set[tuple[str, str]] = field(default_factory=set)
    commitments: dict[str, set[str]] = field(default_factory=dict)
    dissent: dict[str, set[str]] = field(default_factory=dict)
    awareness: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def start(cls, agents: tuple[str, ...], atoms: tuple[str, ...]) -> Model:
        """D_0: no records; every agent aware of every atom of Prop_0."""
        return cls(
            agents=agents,
            atoms=set(atoms),
            commitments={a: set() for a in agents},
            awareness={a: set(atoms) for a in agents},
        )

    # -- reads -------------------------------------------------------------------

    def label(self, record: str) -> str:
        """st_t(record)."""
        return self.records[record].standing

    def active_set(self) -> set[str]:
        """S_t."""
        return {r for r, rec in self.records.items() if rec.standing in core.GOOD_STANDING}

    def attacked(self) -> set[str]:
        """The records with a recorded incoming attack."""
        return {target for _, target in self.att}

    def to_spec(self) -> core.DependencyMap:
        """The model as the spec oracle's value."""
        return core.DependencyMap(
            args=frozenset(self.records),
            att=frozenset(self.att),
            standing={r: rec.standing for r, rec in self.records.items()},
            dep=frozenset(self.dep),
        )

    def snapshot(self) -> dict[str, object]:
        """The parts of ``DependencyMap.snapshot()`` the model keeps, in the same shape."""
        return {
            "turn": self.turn,
            "agents": sorted(self.agents),
            "atoms": sorted(self.atoms),
            "awareness": {a: sorted(atoms) for a, atoms in sorted(self.awareness.items())},
            "records": [
                {
                    "id": r,
                    "claim": rec.claim,
                    "speaker": rec.speaker,
                    "turn": rec.turn,
                    "kind": rec.kind,
                    "standing": rec.standing,
                }
                for r, rec in sorted(self.records.items())
            ],
            "dep": sorted([a, b] for a, b in self.dep),
            "att": sorted([a, b] for a, b in self.att),
            "commitments": {a: sorted(rs) for a, rs in sorted(self.commitments.items())},
            "dissent": {r: sorted(ags) for r, ags in sorted(self.dissent.items())},
        }

    # -- the transition of an accepted turn ------------------------------------------

    def apply_turn(self, speaker: str, operations: tuple[Operation, ...]) -> None:
        """D_t -> D_t+1 for a turn the engine must accept."""
        self.turn += 1
        ordered = sorted(operations, key=lambda op: ORDER.index(op.operation.value))
        for op in ordered:
            self._apply(op, speaker)

    def _register(
        self, record: str, claim: str, kind: str, speaker: str, on: tuple[str, ...]
    ) -> None:
        # "New records are labelled active" (proof of Lemma 2.2).
        self.records[record] = ModelRecord(claim, speaker, self.turn, kind, core.ACTIVE)
        self.dep |= {(record, d) for d in on}

    def _apply(self, op: Operation, speaker: str) -> None:
        match op:
            case Observe():
                self._register(op.id, op.claim, op.kind.value, speaker, op.depends_on)
                self.commitments[speaker].add(op.id)
            case Hypothesize():
                self._register(op.id, op.claim, op.kind.value, speaker, op.depends_on)
            case Question():
                self._register(op.id, op.claim, "question", speaker, op.depends_on)
            case Support() | Undermine():
                if op.evidence_claim is not None:
                    self._register(
                        op.evidence, op.evidence_claim, "evidence", speaker, op.evidence_depends_on
                    )
                self.commitments[speaker].add(op.evidence)
                if isinstance(op, Support):
                    self.dep.add((op.target, op.evidence))
                else:
                    self.att.add((op.evidence, op.target))
                    self.records[op.target].standing = core.WEAKENED
            case Revise():
                self.att |= {(a, op.target) for a in op.attackers}
                self.records[op.target].standing = core.ABANDONED
                self.commitments[speaker].discard(op.target)
            case Resolve():
                self.records[op.target].standing = core.RESOLVED
                self.dep |= {(s, op.target) for s in op.subsumes}
                self.dep |= {(op.target, p) for p in op.premises}
                if op.dissenters:
                    self.dissent.setdefault(op.target, set()).update(op.dissenters)
                for agent in (speaker,) if op.authoritative else self.agents:
                    self.commitments[agent].add(op.target)
            case ExpandAwareness():
                self.atoms.add(op.atom)
                for agent in op.agents or self.agents:
                    self.awareness[agent].add(op.atom)
