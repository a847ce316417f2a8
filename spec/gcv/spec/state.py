"""D_t as the spec holds it: Definition 2.1's map with M_t, a turn, and what a turn makes of it.

:class:`State` is D_t = (M_t, AF_t, Cm_t, Dep_t) with Prop_t, the awareness sets and the
queue of abductive problems; :class:`Turn` is one utterance's operations; a turn either
makes an :class:`Outcome` (D_t+1 and the clauses it exercised) or is :class:`Rejected`
(the error of the first clause it breaks).  :mod:`gcv.spec.transition` states what each
operation and each turn does to these values.  Relations are sets of pairs and nothing is
indexed: slow and obvious on purpose.  It imports nothing from ``reference/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from gcv.spec import core
from gcv.spec import epistemic as se
from gcv.spec.ledger import Operation

__all__ = ["Outcome", "Problem", "Record", "Rejected", "State", "Turn", "model_of"]


@dataclass(frozen=True)
class Record:
    """The fixed facts of an argument of Args_t (its label st_t is the map's)."""

    claim: str
    speaker: str
    turn: int
    kind: str
    formula: se.Formula | None = None


@dataclass(frozen=True)
class Problem:
    """An abductive problem (B_agent, chi) (Definition A.2), posed by ``source`` in ``posed``.

    ``closed_by``: the hypotheses that solved it, in the order they did.
    """

    agent: str
    chi: se.Formula
    source: str
    posed: se.EpistemicModel
    closed_by: tuple[str, ...] = ()

    def is_open(self, d: core.DependencyMap) -> bool:
        """Open while no hypothesis that solved it is in S_t."""
        return not any(h in core.get_active_set(d) for h in self.closed_by)


_EMPTY_MAP = core.DependencyMap(frozenset(), frozenset(), {}, frozenset())
"""No arguments, no attacks, no Dep links."""


@dataclass
class State:
    """Definition 2.1: D_t = (M_t, AF_t, Cm_t, Dep_t), with Prop_t, the awareness sets and the
    problem queue.

    AF_t and Dep_t are ``dmap`` (Args_t, Att_t, st_t, Dep_t, declared once, by
    :class:`gcv.spec.core.DependencyMap`); ``records`` holds the fixed facts of each argument
    of Args_t.  ``model`` None means M_t has not been needed yet: it is then the default
    model (every valuation of Prop_t, one cell per agent, all worlds equally plausible),
    which every update so far leaves as it is (:func:`model_of` builds it).
    """

    agents: tuple[str, ...]
    atoms: set[str]
    awareness: dict[str, set[str]]
    model: se.EpistemicModel | None = None
    turn: int = 0
    dmap: core.DependencyMap = _EMPTY_MAP
    records: dict[str, Record] = field(default_factory=dict)
    commitments: dict[str, set[str]] = field(default_factory=dict)
    dissent: dict[str, set[str]] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    issues: set[str] = field(default_factory=set)
    """The ids of the issues the Questions so far opened (T3.question.issue-ids-apart)."""

    @classmethod
    def start(
        cls,
        agents: Sequence[str],
        atoms: Sequence[str] = (),
        model: se.EpistemicModel | None = None,
    ) -> State:
        """D_0: no records; Prop_0 and the awareness sets from ``model``, else every agent
        aware of every atom of ``atoms``."""
        if model is not None:
            atoms = sorted(model.atoms)
        awareness = {a: set(atoms if model is None else model.awareness[a]) for a in agents}
        commitments: dict[str, set[str]] = {a: set() for a in agents}
        return cls(tuple(agents), set(atoms), awareness, model, commitments=commitments)

    def copy(self) -> State:
        """A copy a turn can change (records, models and problems are immutable)."""
        return replace(
            self,
            atoms=set(self.atoms),
            awareness={a: set(s) for a, s in self.awareness.items()},
            records=dict(self.records),
            commitments={a: set(s) for a, s in self.commitments.items()},
            dissent={r: set(s) for r, s in self.dissent.items()},
            issues=set(self.issues),
        )

    def label(self, record: str) -> str:
        """st_t(record)."""
        return self.dmap.standing[record]

    def active_set(self) -> frozenset[str]:
        """S_t: the records labelled active or resolved."""
        return core.get_active_set(self.dmap)

    def attacked(self) -> set[str]:
        """The records with a recorded incoming attack."""
        return {target for _, target in self.dmap.att}

    def to_core(self) -> core.DependencyMap:
        """The parts the queries read: Args_t, Att_t, st_t, Dep_t."""
        return self.dmap

    def snapshot(self) -> dict[str, object]:
        """The argumentation, commitment and vocabulary parts as plain sorted data."""
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
                    "standing": self.label(r),
                }
                for r, rec in sorted(self.records.items())
            ],
            "dep": sorted([a, b] for a, b in self.dmap.dep),
            "att": sorted([a, b] for a, b in self.dmap.att),
            "commitments": {a: sorted(rs) for a, rs in sorted(self.commitments.items())},
            "dissent": {r: sorted(ags) for r, ags in sorted(self.dissent.items()) if ags},
        }


@dataclass(frozen=True)
class Turn:
    """One utterance's operations, as the Interpreter extracted them, and its speaker."""

    speaker: str
    operations: tuple[Operation, ...]


@dataclass(frozen=True)
class Outcome:
    """An accepted turn: D_t+1 and the clauses the turn exercised.

    A turn exercises every paper clause that applied to it, and a chosen clause only where
    the clause's alternative could have decided the turn differently: ``order.kinds`` only
    for a turn with operations of two kinds, ``T3.support.target-standing`` only for a
    weakened target, ``T3.revise.retracts-commitment`` only when the speaker was committed,
    and the clauses that pick a refused turn's error only when it is refused.
    """

    state: State
    clauses: frozenset[str]


class Rejected(Exception):
    """A turn is refused: the error ``code`` of the first clause it breaks.

    ``index`` is the failing operation's position in the turn as written (None for
    the speaker); ``clauses`` are those the turn exercised up to and including the
    broken one.
    """

    def __init__(
        self, code: str, clause_id: str, field: str | None = None, record: str | None = None
    ) -> None:
        super().__init__(f"{code} ({clause_id}): field {field}, record {record}")
        self.code = code
        self.clause = clause_id
        self.field = field
        self.record = record
        self.index: int | None = None
        self.operation: str | None = None
        self.clauses: frozenset[str] = frozenset()


def model_of(state: State) -> se.EpistemicModel:
    """M_t, built as the default model the first time a formula needs it."""
    if state.model is None:
        worlds: frozenset[se.World] = frozenset({frozenset()})
        for atom in sorted(state.atoms):
            worlds = worlds | frozenset(w | {atom} for w in worlds)
        everything = frozenset((w, v) for w in worlds for v in worlds)
        state.model = se.EpistemicModel(
            frozenset(state.agents),
            frozenset(state.atoms),
            worlds,
            dict.fromkeys(state.agents, everything),
            {a: frozenset(state.awareness[a]) for a in state.agents},
        )
    return state.model
