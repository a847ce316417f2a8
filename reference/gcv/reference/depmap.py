"""The dependency map D_t = (M, AF, Cm, Dep) of Definition 2.1, with its indexes.

The map numbers every record when it is registered and keeps, for every
number, its Dep links and the reverse index ``rdep`` (who depends on it) as
numbers, so that Verify walks Dep forward and Affected* walks ``rdep`` backward,
each in time proportional to what it visits (Proposition 2.5).  That is the one
representation of Dep: the views by identifier (:attr:`DependencyMap.dep`,
:attr:`DependencyMap.rdep`) are read through it.  Attacks are kept in both
directions by identifier.

All mutation goes through a handful of primitives, and only inside
:meth:`DependencyMap.transaction`: each primitive journals the
:data:`Change` it made, and a failed transaction undoes the journal in reverse,
so a turn applies all of its operations or none.  The same journal is the
turn's change report.

The epistemic component M_t (:class:`~gcv.reference.epistemic.effects.EpistemicState`:
the plausibility model with Prop_t, the worlds and the awareness sets A_i, and
the queue of abductive problems) is one immutable value.  An operation that
changes it replaces it, journaling :class:`ModelReplaced` with both values, so
undoing a turn restores M_t exactly and costs O(1) per replacement.

Every operation's checks read the map through one :class:`StateView`, the whole of D_t
over read-only mappings, which the map makes from its own live views.

Whole, at about 670 lines: the module is one structure, read in one sitting: the changes it
journals, the view it gives, the map with its indexes, primitives and undo; split, each
primitive's undo would sit in another file from the change it reverses.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

import icontract

from gcv.reference.epistemic.abduction import Problem
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.records import GOOD_STANDING, Record, Standing

__all__ = [
    "AtomAdded",
    "AttackAdded",
    "AwarenessGained",
    "Change",
    "Committed",
    "DependencyAdded",
    "DependencyMap",
    "DissentRecorded",
    "ModelReplaced",
    "RecordAdded",
    "Retracted",
    "StandingChanged",
    "StateView",
]


@dataclass(frozen=True, slots=True)
class RecordAdded:
    """A record joined Args_t, labelled active."""

    record: Record


@dataclass(frozen=True, slots=True)
class StandingChanged:
    """st_t(record) went from ``before`` to ``after``."""

    record: RecordId
    before: Standing
    after: Standing


@dataclass(frozen=True, slots=True)
class DependencyAdded:
    """``support`` joined Dep(``record``)."""

    record: RecordId
    support: RecordId


@dataclass(frozen=True, slots=True)
class AttackAdded:
    """(``attacker``, ``target``) joined Att_t."""

    attacker: RecordId
    target: RecordId


@dataclass(frozen=True, slots=True)
class Committed:
    """``record`` joined Cm(``agent``)."""

    agent: AgentId
    record: RecordId


@dataclass(frozen=True, slots=True)
class Retracted:
    """``record`` left Cm(``agent``)."""

    agent: AgentId
    record: RecordId


@dataclass(frozen=True, slots=True)
class DissentRecorded:
    """``agent``'s dissent from the decision ``record`` was recorded."""

    record: RecordId
    agent: AgentId


@dataclass(frozen=True, slots=True)
class ModelReplaced:
    """The epistemic component (M_t and its problem queue) went from ``before`` to ``after``."""

    before: EpistemicState
    after: EpistemicState


@dataclass(frozen=True, slots=True)
class AtomAdded:
    """``atom`` joined Prop_t (reported after the :class:`ModelReplaced` that added it)."""

    atom: str


@dataclass(frozen=True, slots=True)
class AwarenessGained:
    """``atom`` joined A_``agent`` (reported after the :class:`ModelReplaced` that did it)."""

    agent: AgentId
    atom: str


Change = (
    RecordAdded
    | StandingChanged
    | DependencyAdded
    | AttackAdded
    | Committed
    | Retracted
    | DissentRecorded
    | ModelReplaced
    | AtomAdded
    | AwarenessGained
)


_NOTHING: Mapping[str, Any] = MappingProxyType({})


class StateView(NamedTuple):
    """A read-only view of the whole of D_t, over plain mappings: what preconditions read.

    :meth:`DependencyMap.view` fills every part.  A view made by hand (a test's, a search's)
    may leave out the parts its checks do not read, which are then empty; a formula is
    read in ``model``, which such a view may not carry.  (A named tuple: the engine makes
    one per turn, and a tuple is made in a third of a frozen dataclass's time.)
    """

    agents: Collection[AgentId]
    """Ags."""
    standing: Mapping[RecordId, Standing]
    """st_t, over Args_t."""
    attackers: Mapping[RecordId, Collection[RecordId]]
    """Att_t by target: record -> its recorded attackers."""
    awareness: Mapping[AgentId, Collection[str]]
    """A_i for each agent of Ags."""
    records: Mapping[RecordId, Record] = _NOTHING
    """Args_t with each record's fixed facts."""
    dep: Mapping[RecordId, Collection[RecordId]] = _NOTHING
    """Dep_t: record -> the records it rests on."""
    rdep: Mapping[RecordId, Collection[RecordId]] = _NOTHING
    """The reverse index of Dep_t: record -> the records resting on it."""
    att: Mapping[RecordId, Collection[RecordId]] = _NOTHING
    """Att_t by attacker: record -> the records it attacks."""
    commitments: Mapping[AgentId, Collection[RecordId]] = _NOTHING
    """Cm_t: agent -> its public commitments."""
    dissent: Mapping[RecordId, Collection[AgentId]] = _NOTHING
    """decision -> the agents whose dissent from it is recorded."""
    model: PlausibilityModel | None = None
    """M_t (Prop_t, the worlds, the orders, the awareness sets)."""
    problems: tuple[Problem, ...] = ()
    """The queue of abductive problems (Definition A.2) posed so far."""
    turn: int = 0
    """t: the turns applied so far."""


@dataclass(frozen=True, slots=True)
class Numbering:
    """Args_t numbered 0, 1, ... in registration order, with Dep, its reverse index and
    S_t over the numbers: what the two queries walk (read-only; no copy is made).

    ``name[i]`` is record i and ``number[name[i]] == i``; ``supports[i]`` holds the
    numbers of Dep(record i) and ``dependents[i]`` of the records resting on it, each
    in the order the links were recorded; ``good[i]`` is 1 when record i is in S_t.
    """

    number: Mapping[RecordId, int]
    name: Sequence[RecordId]
    supports: Sequence[Sequence[int]]
    dependents: Sequence[Sequence[int]]
    good: Sequence[int]


def _ordered_set() -> dict[str, None]:
    # dicts keep insertion order, so every iteration below is deterministic
    # (independent of PYTHONHASHSEED); the values are unused.
    return {}


class _NamedLinks(Collection[RecordId]):
    """One record's links (numbers, in the order recorded) read as records."""

    __slots__ = ("_links", "_name", "_number")

    def __init__(
        self, links: array[int], name: Sequence[RecordId], number: Mapping[RecordId, int]
    ) -> None:
        self._links, self._name, self._number = links, name, number

    def __contains__(self, record: object) -> bool:
        return isinstance(record, str) and self._number.get(record, -1) in self._links

    def __iter__(self) -> Iterator[RecordId]:
        name = self._name
        return (name[i] for i in self._links)

    def __len__(self) -> int:
        return len(self._links)

    def __repr__(self) -> str:
        return repr(list(self))


class _LinksByRecord(Mapping[RecordId, Collection[RecordId]]):
    """A relation over record numbers read by identifier: record -> its linked records,
    for the records with at least one link (a record without is an absent key)."""

    __slots__ = ("_links", "_name", "_number")

    def __init__(
        self,
        links: Sequence[array[int]],
        name: Sequence[RecordId],
        number: Mapping[RecordId, int],
    ) -> None:
        self._links, self._name, self._number = links, name, number

    def __getitem__(self, record: RecordId) -> Collection[RecordId]:
        i = self._number.get(record)
        if i is None or not self._links[i]:
            raise KeyError(record)
        return _NamedLinks(self._links[i], self._name, self._number)

    def __iter__(self) -> Iterator[RecordId]:
        name = self._name
        return (name[i] for i, links in enumerate(self._links) if links)

    def __len__(self) -> int:
        return sum(1 for links in self._links if links)


class DependencyMap:
    """D_t: records with standing, Dep and its reverse index, Att and its reverse, Cm, and M_t.

    Parameters
    ----------
    agents:
        Ags, the agents of the conversation.
    atoms:
        Prop_0; every agent starts aware of every atom.
    model:
        M_0, when declared (its Ags and Prop_0 are the map's); by default the
        implicit model over ``atoms``: every valuation, nothing known or believed.
    literal_abduction:
        Definition A.2's explanatory check read literally, in M_t[up-up gamma], rather
        than in the chosen M_chi^t[up-up gamma]
        (:func:`~gcv.reference.epistemic.abduction.check_solution`).

    Examples
    --------
    >>> dmap = DependencyMap(["a", "b"], ["p"])
    >>> dmap.turn, len(dmap.records), sorted(dmap.atoms)
    (0, 0, ['p'])
    """

    def __init__(
        self,
        agents: Sequence[AgentId],
        atoms: Sequence[str] = (),
        model: PlausibilityModel | None = None,
        *,
        literal_abduction: bool = False,
    ) -> None:
        self.agents: tuple[AgentId, ...] = tuple(agents)
        self.literal_abduction = literal_abduction
        self.turn = 0
        self._records: dict[RecordId, Record] = {}
        self._standing: dict[RecordId, Standing] = {}
        # The records numbered in registration order, with Dep, its reverse index and S_t
        # over the numbers: the queries walk these, indexing lists instead of hashing
        # identifiers; each record's links are a compact array rather than a list of int
        # objects, so a walk over 10^6 records reads memory in order.  Invariants:
        # s in _supports[r] iff r in _dependents[s] (is_index_of); _good flags exactly
        # the numbers whose _standing is in S_t (is_numbering_of).
        self._number: dict[RecordId, int] = {}
        self._name: list[RecordId] = []
        self._supports: list[array[int]] = []
        self._dependents: list[array[int]] = []
        self._good = bytearray()
        # Invariant: target in _att[attacker] iff attacker in _ratt[target].
        self._att: dict[RecordId, dict[RecordId, None]] = {}
        self._ratt: dict[RecordId, dict[RecordId, None]] = {}
        self._commitments: dict[AgentId, dict[RecordId, None]] = {a: {} for a in self.agents}
        self._dissent: dict[RecordId, dict[AgentId, None]] = {}
        # M_t is the one home of Prop_t, the worlds and the awareness sets.
        if model is None:
            model = PlausibilityModel.implicit(self.agents, tuple(atoms))
        self._epistemic = EpistemicState(model)
        self._journal: list[Change] | None = None
        self._make_views()

    def _make_views(self) -> None:
        # The read-only views are made once: a MappingProxyType is a live view, so it
        # never goes stale, and making one per read cost more than the queries' work.
        self._records_view: Mapping[RecordId, Record] = MappingProxyType(self._records)
        self._standing_view: Mapping[RecordId, Standing] = MappingProxyType(self._standing)
        number = MappingProxyType(self._number)
        self._dep_view = _LinksByRecord(self._supports, self._name, number)
        self._rdep_view = _LinksByRecord(self._dependents, self._name, number)
        self._att_view: Mapping[RecordId, Collection[RecordId]] = MappingProxyType(self._att)
        self._ratt_view: Mapping[RecordId, Collection[RecordId]] = MappingProxyType(self._ratt)
        self._numbering_view = Numbering(
            number,
            self._name,
            self._supports,
            self._dependents,
            self._good,
        )
        self._commitments_view: Mapping[AgentId, Collection[RecordId]] = MappingProxyType(
            self._commitments
        )
        self._dissent_view: Mapping[RecordId, Collection[AgentId]] = MappingProxyType(self._dissent)
        self._state_view = self._view_of(self._epistemic)

    def __getstate__(self) -> dict[str, object]:
        # Views cannot be copied or pickled; a copy makes its own over its own dicts.
        return {k: v for k, v in self.__dict__.items() if not k.endswith("_view")}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._make_views()

    # -- reads ---------------------------------------------------------------

    @property
    def records(self) -> Mapping[RecordId, Record]:
        """Args_t with each record's fixed facts."""
        return self._records_view

    @property
    def standing(self) -> Mapping[RecordId, Standing]:
        """st_t, the standing label of every record."""
        return self._standing_view

    @property
    def dep(self) -> Mapping[RecordId, Collection[RecordId]]:
        """Dep_t: record -> the records it rests on, in the order recorded (absent key:
        none; read through the numbering)."""
        return self._dep_view

    @property
    def rdep(self) -> Mapping[RecordId, Collection[RecordId]]:
        """The reverse index of Dep_t: record -> the records resting on it (absent key:
        none; read through the numbering)."""
        return self._rdep_view

    @property
    def att(self) -> Mapping[RecordId, Collection[RecordId]]:
        """Att_t by attacker: record -> the records it attacks."""
        return self._att_view

    @property
    def ratt(self) -> Mapping[RecordId, Collection[RecordId]]:
        """Att_t by target: record -> its recorded attackers."""
        return self._ratt_view

    @property
    def numbering(self) -> Numbering:
        """Args_t, Dep_t, its reverse index and S_t over record numbers (for the queries)."""
        return self._numbering_view

    @property
    def epistemic(self) -> EpistemicState:
        """M_t with the queue of abductive problems."""
        return self._epistemic

    @property
    def model(self) -> PlausibilityModel:
        """M_t, the epistemic plausibility model."""
        return self._epistemic.model

    @property
    def atoms(self) -> Collection[str]:
        """Prop_t (M_t's vocabulary)."""
        return self._epistemic.model.atoms

    def awareness(self, agent: AgentId) -> Collection[str]:
        """A_agent, the atoms the agent is aware of (M_t's awareness set)."""
        return self._epistemic.model.awareness[agent]

    def commitments(self, agent: AgentId) -> tuple[RecordId, ...]:
        """Cm_t(agent), the agent's public commitments, sorted."""
        return tuple(sorted(self._commitments[agent]))

    def is_committed(self, agent: AgentId, record: RecordId) -> bool:
        """Whether ``record`` is in Cm_t(agent), in O(1) (``commitments`` sorts Cm_t)."""
        return record in self._commitments[agent]

    def dissenters(self, record: RecordId) -> tuple[AgentId, ...]:
        """The agents whose dissent from the decision ``record`` is recorded, sorted."""
        return tuple(sorted(self._dissent.get(record, ())))

    def active_set(self) -> frozenset[RecordId]:
        """S_t := {alpha in Args_t : st_t(alpha) in {active, resolved}}."""
        return frozenset(r for r, s in self._standing.items() if s in GOOD_STANDING)

    def view(self) -> StateView:
        """The whole of D_t as the precondition checks read it (O(1): no copy)."""
        made, epistemic = self._state_view, self._epistemic
        # The mappings are live views; only M_t and its queue (new values on each update)
        # and t change under them, so the view is remade only then.
        if (
            made.model is not epistemic.model
            or made.problems is not epistemic.problems
            or made.turn != self.turn
        ):
            made = self._state_view = self._view_of(epistemic)
        return made

    def _view_of(self, epistemic: EpistemicState) -> StateView:
        model = epistemic.model
        return StateView(
            self.agents,
            self._standing_view,
            self._ratt_view,
            model.awareness,
            self._records_view,
            self._dep_view,
            self._rdep_view,
            self._att_view,
            self._commitments_view,
            self._dissent_view,
            model,
            epistemic.problems,
            self.turn,
        )

    def snapshot(self) -> dict[str, object]:
        """The canonical state as plain JSON data: every collection sorted.

        M_t is covered by Prop_t, the awareness sets, the model's fingerprint and
        the problem queue; a record's formula is listed when it has one.
        """
        model, name = self._epistemic.model, self._name
        return {
            "turn": self.turn,
            "agents": sorted(self.agents),
            "atoms": sorted(model.atoms),
            "awareness": {a: sorted(atoms) for a, atoms in sorted(model.awareness.items())},
            "records": [self._record_data(r) for r in sorted(self._records.values(), key=_id)],
            # Read by number: the named view makes an object per record.
            "dep": sorted(
                [name[r], name[s]] for r, links in enumerate(self._supports) for s in links
            ),
            "att": sorted([a, t] for a, targets in self._att.items() for t in targets),
            "commitments": {a: sorted(rs) for a, rs in sorted(self._commitments.items())},
            "dissent": {r: sorted(ags) for r, ags in sorted(self._dissent.items())},
            **self._epistemic.snapshot(),
        }

    def _record_data(self, r: Record) -> dict[str, object]:
        data: dict[str, object] = {
            "id": r.id,
            "claim": r.claim,
            "speaker": r.speaker,
            "turn": r.turn,
            "kind": r.kind.value,
            "standing": self._standing[r.id].value,
        }
        if r.formula is not None:
            data["formula"] = str(r.formula)
        return data

    def digest(self) -> str:
        """A SHA-256 of the canonical snapshot: equal digests, equal states."""
        canonical = json.dumps(self.snapshot(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()

    # -- transactions ----------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[list[Change]]:
        """Open a transaction; yield its journal; on any exception undo it and re-raise."""
        if self._journal is not None:
            raise RuntimeError("transactions do not nest")
        journal: list[Change] = []
        self._journal = journal
        try:
            yield journal
        except BaseException:
            for change in reversed(journal):
                self._undo(change)
            raise
        finally:
            self._journal = None

    def _log(self, change: Change) -> None:
        assert self._journal is not None, "mutation outside a transaction"
        self._journal.append(change)

    # -- mutation primitives (only inside a transaction) -------------------------

    @icontract.ensure(
        lambda self, record: self.standing[record.id] is Standing.ACTIVE,
        "a new argument is labelled active (proof of Lemma 2.2)",
    )
    def add_record(self, record: Record) -> None:
        """Add ``record`` to Args_t, labelled active."""
        if record.id in self._records:
            raise RuntimeError(f"{record.id} already registered")
        self._log(RecordAdded(record))
        self._records[record.id] = record
        self._standing[record.id] = Standing.ACTIVE
        self._number[record.id] = len(self._name)
        self._name.append(record.id)
        self._supports.append(array("i"))
        self._dependents.append(array("i"))
        self._good.append(1)

    def set_standing(self, record: RecordId, label: Standing) -> None:
        """Label ``record`` with ``label`` (no change is journaled if it already is)."""
        before = self._standing[record]
        if before is not label:
            self._log(StandingChanged(record, before, label))
            self._standing[record] = label
            self._good[self._number[record]] = label in GOOD_STANDING

    def add_dependency(self, record: RecordId, support: RecordId) -> None:
        """Add ``support`` to Dep(``record``), and ``record`` to rdep(``support``)."""
        r, s = self._number[record], self._number[support]
        supports, dependents = self._supports[r], self._dependents[s]
        # The link is in both lists or in neither: scan the shorter (a C loop), so a
        # record resting on 10^6 others pays for each new premise's few dependents.
        if (s in supports) if len(supports) <= len(dependents) else (r in dependents):
            return
        self._log(DependencyAdded(self._name[r], self._name[s]))
        supports.append(s)
        dependents.append(r)

    def add_attack(self, attacker: RecordId, target: RecordId) -> None:
        """Add (``attacker``, ``target``) to Att_t and to the incoming-attack index."""
        if target not in self._att.get(attacker, {}):
            self._log(AttackAdded(attacker, target))
            self._att.setdefault(attacker, _ordered_set())[target] = None
            self._ratt.setdefault(target, _ordered_set())[attacker] = None

    def commit(self, agent: AgentId, record: RecordId) -> None:
        """Add ``record`` to Cm(``agent``)."""
        if record not in self._commitments[agent]:
            self._log(Committed(agent, record))
            self._commitments[agent][record] = None

    def retract(self, agent: AgentId, record: RecordId) -> None:
        """Remove ``record`` from Cm(``agent``), if it is there."""
        if record in self._commitments[agent]:
            self._log(Retracted(agent, record))
            del self._commitments[agent][record]

    def record_dissent(self, record: RecordId, agent: AgentId) -> None:
        """Record ``agent``'s dissent from the decision ``record``."""
        if agent not in self._dissent.get(record, {}):
            self._log(DissentRecorded(record, agent))
            self._dissent.setdefault(record, _ordered_set())[agent] = None

    def replace_epistemic(self, after: EpistemicState) -> None:
        """Install ``after`` as M_t and its problem queue (nothing is journaled if unchanged).

        The journal gets :class:`ModelReplaced`, then an :class:`AtomAdded` for each
        new atom and an :class:`AwarenessGained` for each new (agent, atom) pair, so
        the turn's change report names them.
        """
        before = self._epistemic
        if after is before:
            return
        self._log(ModelReplaced(before, after))
        self._epistemic = after
        old, new = before.model, after.model
        for atom in new.atoms:
            if atom not in old.atoms:
                self._log(AtomAdded(atom))
        for agent in self.agents:
            for atom in new.atoms:
                if atom in new.awareness[agent] and atom not in old.awareness[agent]:
                    self._log(AwarenessGained(agent, atom))

    def advance_turn(self) -> None:
        """Count one more applied turn (not journaled: only a committed turn advances)."""
        if self._journal is not None:
            raise RuntimeError("the turn advances after its transaction commits")
        self.turn += 1

    def _undo(self, change: Change) -> None:
        match change:
            case RecordAdded(record):
                del self._records[record.id]
                del self._standing[record.id]
                # Undo runs newest first, so the record is the last one numbered.
                del self._number[record.id]
                self._name.pop()
                self._supports.pop()
                self._dependents.pop()
                self._good.pop()
            case StandingChanged(record, before, _):
                self._standing[record] = before
                self._good[self._number[record]] = before in GOOD_STANDING
            case DependencyAdded(record, support):
                # Undo runs newest first, so the link is the last one each list gained.
                self._supports[self._number[record]].pop()
                self._dependents[self._number[support]].pop()
            case AttackAdded(attacker, target):
                _discard(self._att, attacker, target)
                _discard(self._ratt, target, attacker)
            case Committed(agent, record):
                del self._commitments[agent][record]
            case Retracted(agent, record):
                # Commitments are only ever read sorted, so position is immaterial.
                self._commitments[agent][record] = None
            case DissentRecorded(record, agent):
                _discard(self._dissent, record, agent)
            case ModelReplaced(before, _):
                self._epistemic = before
            case AtomAdded() | AwarenessGained():
                pass  # reports of a ModelReplaced, which is what undo reverses
            case _:
                raise AssertionError(f"unknown change {change!r}")


def _id(record: Record) -> RecordId:
    return record.id


def _discard(index: dict[str, dict[str, None]], key: str, member: str) -> None:
    """Remove ``member`` from ``index[key]``, dropping the key when its set empties."""
    members = index[key]
    del members[member]
    if not members:
        del index[key]
