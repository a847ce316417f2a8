"""Model-based state machine of the dependency map: spec/ is the model, reference/ the
system under test.

:class:`DependencyMapMachine` drives a :class:`~gcv.reference.verifier.Verifier` with
long turn sequences built from a Bundle of registered record identifiers.  Every
one of the eight operations has rules that apply it with valid arguments and rules
that break one of its preconditions on purpose (an unknown or duplicate identifier,
a target or ground with the wrong standing, a self-reference, an attacked Resolve
target, an unknown agent, an expansion that changes nothing); a rejection is
checked by its typed error code, and ``@precondition`` (never ``assume``) keeps a
rule out of the states where it cannot be built.  Beside the engine the machine
keeps the spec transition's D_t (:mod:`gcv.spec.transition`): every accepted turn is
applied to it by ``process_turn``, every rejected turn must be refused by it with the
engine's code, and after every step the machine checks:

* the engine's canonical state equals the spec transition's;
* Lemma 2.2: no member of S_t is attacked (``gcv.spec.core.is_conflict_free_map``);
* the reverse indexes rdep and ratt are exactly the inverses of Dep and Att;
* no record that was ever weakened or abandoned is back in S_t;
* Verify, Affected, Affected* and the active dependents agree with ``gcv.spec.core``
  (on the model's map) and with networkx reachability.

A rejected turn is checked where it happens: the canonical state digest is the
one from before the turn.

The machine follows the Hypothesis profile of ``tests/conftest.py`` (examples per run,
``stateful_step_count``), with at most :data:`tests.machines.DEEP_EXAMPLES` examples.
``tests/broken_engines.py`` keeps engines with planted bugs; the last test below shows
that the machine catches each of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import icontract
import networkx as nx
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
    run_state_machine_as_test,
)

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
)
from gcv.reference.records import GOOD_STANDING, Kind
from gcv.reference.verifier import Turn, Verifier, is_dependency_path
from gcv.spec import core, transition
from gcv.translate import spec_operation
from tests import broken_engines
from tests.machines import AGENTS, ATOMS, HUNT, machine_settings

ATOM_POOL = ("p", "q", "r", "s")
QUERY_WINDOW = 24
"""How many records the query invariant checks after each step once the map is larger."""
GHOSTS = ("ghost", "zz9", "o-unseen")
"""Identifiers no rule ever registers (fresh ones are r<n>), so citing one is unknown-record."""

CLAIMS = st.sampled_from(["401 errors", "token bug", "3x traffic", "retry loop"])
SPEAKERS = st.sampled_from(AGENTS)

# The labels each operation accepts on its target, as the spec transition states them.
SUPPORTABLE = transition.SUPPORT_TARGETS
UNDERMINABLE = transition.UNDERMINE_TARGETS
RESOLVABLE = transition.RESOLVE_TARGETS

EngineFactory = Callable[[Sequence[str], Sequence[str]], Verifier]


def _spec_turn(speaker: str, ops: Sequence[Operation]) -> transition.Turn:
    return transition.Turn(speaker, tuple(spec_operation(op) for op in ops))


def _graph(model: transition.State) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(model.records)
    graph.add_edges_from(model.dmap.dep)
    return graph


RECORDS = Bundle("records")
"""The registered record identifiers, shared by every rule that cites or registers one."""


def _registering(
    most: int, **drawn: st.SearchStrategy[object]
) -> Callable[[Callable[..., object]], Callable[..., object]]:
    """A rule that registers records, with a drawn speaker and claim, resting on up to
    ``most`` registered records, and drawing ``drawn`` besides."""
    return rule(
        target=RECORDS,
        speaker=SPEAKERS,
        claim=CLAIMS,
        depends_on=st.lists(RECORDS, unique=True, max_size=most),
        **drawn,
    )


class DependencyMapMachine(RuleBasedStateMachine):
    """The Verifier against Table 3 (the model) and Section 2's queries (spec/gcv/spec/core.py)."""

    records = RECORDS
    make_engine: EngineFactory = Verifier

    def __init__(self) -> None:
        super().__init__()
        self.engine = type(self).make_engine(AGENTS, ATOMS)
        self.model = transition.State.start(AGENTS, ATOMS)
        self.fallen: set[str] = set()  # every record ever seen outside S_t
        self.counter = 0
        self.steps = 0
        self.touched: set[str] = set()  # the identifiers the last turn named

    # -- helpers ---------------------------------------------------------------------

    def _fresh(self) -> str:
        self.counter += 1
        return f"r{self.counter}"

    def _labelled(self, labels: Iterable[str]) -> list[str]:
        wanted = set(labels)
        return sorted(r for r, label in self.model.dmap.standing.items() if label in wanted)

    def _note(self, ops: Iterable[Operation]) -> None:
        self.steps += 1
        self.touched = {
            name
            for op in ops
            for value in (getattr(op, f) for f in op.__dataclass_fields__)
            for name in (value if isinstance(value, tuple) else (value,))
            if isinstance(name, str)
        }

    def _accept(self, speaker: str, *ops: Operation) -> None:
        """The turn must be applied, with exactly Table 3's effect (checked by the invariants)."""
        self._note(ops)
        try:
            report = self.engine.apply_turn(Turn(speaker, ops))
        except GcvError as error:
            raise AssertionError(f"valid turn rejected: {error}") from error
        self.model = transition.process_turn(self.model, _spec_turn(speaker, ops)).state
        assert report.turn == self.model.turn, (report.turn, self.model.turn)
        self.fallen |= {
            r for r, label in self.engine.state.standing.items() if label not in GOOD_STANDING
        }

    def _reject(
        self, speaker: str, ops: tuple[Operation, ...], code: str, field: str | None = None
    ) -> None:
        """The turn must be refused with ``code`` and leave the state digest unchanged."""
        self._note(ops)
        before = self.engine.state.digest()
        try:
            self.engine.apply_turn(Turn(speaker, ops))
        except GcvError as error:
            assert error.code == code, (error.code, code, str(error))
            if field is not None:
                assert error.field == field, (error.field, field, str(error))
            assert error.turn == self.model.turn + 1, (error.turn, self.model.turn + 1)
        else:
            raise AssertionError(f"turn accepted, expected {code}: {ops!r}")
        with pytest.raises(transition.Rejected) as refused:
            transition.process_turn(self.model, _spec_turn(speaker, ops))
        assert refused.value.code == code, ("the spec transition", refused.value, code)
        after = self.engine.state.digest()
        assert after == before, ("a rejected turn changed the state", before, after)

    # -- seeding ---------------------------------------------------------------------

    @initialize(target=records)
    def seed(self) -> object:
        """Two observations and a hypothesis resting on both, so every rule has records."""
        o1, o2, h1 = self._fresh(), self._fresh(), self._fresh()
        self._accept(
            "a",
            Observe(o1, "401 errors"),
            Observe(o2, "3x traffic", kind=Kind.PREMISE),
            Hypothesize(h1, "token bug", depends_on=(o1, o2)),
        )
        return multiple(o1, o2, h1)

    # -- valid operations ------------------------------------------------------------

    def _register(self, speaker: str, op: Observe | Hypothesize) -> str:
        self._accept(speaker, op)
        return op.id

    @_registering(3, kind=st.sampled_from([Kind.OBSERVATION, Kind.PREMISE]))
    def observe(self, speaker: str, claim: str, kind: Kind, depends_on: list[str]) -> str:
        return self._register(speaker, Observe(self._fresh(), claim, kind, tuple(depends_on)))

    @_registering(3, kind=st.sampled_from([Kind.HYPOTHESIS, Kind.POSITION]))
    def hypothesize(self, speaker: str, claim: str, kind: Kind, depends_on: list[str]) -> str:
        return self._register(speaker, Hypothesize(self._fresh(), claim, kind, tuple(depends_on)))

    @rule(speaker=SPEAKERS, claim=CLAIMS)
    def question(self, speaker: str, claim: str) -> None:
        """B.3 T1: a Question opens an issue and registers no record."""
        self._accept(speaker, Question(self._fresh(), claim))

    @_registering(2)
    def observe_then_hypothesize_on_it(
        self, speaker: str, claim: str, depends_on: list[str]
    ) -> object:
        """One turn, written out of order: the engine's fixed order registers o before h."""
        o, h = self._fresh(), self._fresh()
        self._accept(
            speaker,
            Hypothesize(h, claim, depends_on=(o, *depends_on)),
            Observe(o, claim),
        )
        return multiple(o, h)

    @precondition(lambda self: self._labelled(SUPPORTABLE))
    @rule(target=records, speaker=SPEAKERS, claim=CLAIMS, data=st.data())
    def support_with_new_evidence(self, speaker: str, claim: str, data: st.DataObject) -> str:
        target = data.draw(st.sampled_from(self._labelled(SUPPORTABLE)), label="target")
        on = data.draw(
            st.lists(st.sampled_from(sorted(self.model.records)), max_size=2, unique=True)
        )
        evidence = self._fresh()
        self._accept(speaker, Support(target, evidence, claim, tuple(on)))
        return evidence

    @precondition(lambda self: len(self._labelled(core.GOOD_STANDING)) >= 2)
    @rule(speaker=SPEAKERS, data=st.data())
    def support_with_existing_evidence(self, speaker: str, data: st.DataObject) -> None:
        target = data.draw(st.sampled_from(self._labelled(SUPPORTABLE)), label="target")
        grounds = [r for r in self._labelled(core.GOOD_STANDING) if r != target]
        evidence = data.draw(st.sampled_from(grounds), label="evidence")
        self._accept(speaker, Support(target, evidence))

    @precondition(lambda self: self._labelled(UNDERMINABLE))
    @rule(target=records, speaker=SPEAKERS, claim=CLAIMS, data=st.data())
    def undermine_with_new_evidence(self, speaker: str, claim: str, data: st.DataObject) -> str:
        target = data.draw(st.sampled_from(self._labelled(UNDERMINABLE)), label="target")
        evidence = self._fresh()
        self._accept(speaker, Undermine(target, evidence, claim))
        return evidence

    @precondition(lambda self: self._labelled(UNDERMINABLE) and self._labelled(core.GOOD_STANDING))
    @rule(speaker=SPEAKERS, data=st.data())
    def undermine_with_existing_evidence(self, speaker: str, data: st.DataObject) -> None:
        target = data.draw(st.sampled_from(self._labelled(UNDERMINABLE)), label="target")
        grounds = [r for r in self._labelled(core.GOOD_STANDING) if r != target]
        if not grounds:  # the only record in S_t is the target itself: undermine by new evidence
            self._accept(speaker, Undermine(target, self._fresh(), "counter-evidence"))
            return
        evidence = data.draw(st.sampled_from(grounds), label="evidence")
        self._accept(speaker, Undermine(target, evidence))

    @rule(target=records, speaker=SPEAKERS, data=st.data())
    def revise(self, speaker: str, data: st.DataObject) -> object:
        target = data.draw(st.sampled_from(sorted(self.model.records)), label="target")
        grounds = [r for r in self._labelled(core.GOOD_STANDING) if r != target]
        attackers = data.draw(
            st.lists(st.sampled_from(grounds), max_size=2, unique=True) if grounds else st.just([]),
            label="attackers",
        )
        self._accept(speaker, Revise(target, tuple(attackers)))
        return multiple()

    def _resolvable(self) -> list[str]:
        attacked = self.model.attacked()
        return [r for r in self._labelled(RESOLVABLE) if r not in attacked]

    @precondition(lambda self: self._resolvable())
    @rule(speaker=SPEAKERS, authoritative=st.booleans(), data=st.data())
    def resolve(self, speaker: str, authoritative: bool, data: st.DataObject) -> None:
        target = data.draw(st.sampled_from(self._resolvable()), label="target")
        others = [r for r in sorted(self.model.records) if r != target]
        subsumed = data.draw(
            st.lists(st.sampled_from(others), max_size=2, unique=True) if others else st.just([]),
            label="subsumes",
        )
        if not authoritative:
            self._accept(speaker, Resolve(target, tuple(subsumed)))
            return
        grounds = [r for r in self._labelled(core.GOOD_STANDING) if r != target]
        premises = data.draw(
            st.lists(st.sampled_from(grounds), max_size=2, unique=True) if grounds else st.just([]),
            label="premises",
        )
        dissenters = data.draw(
            st.lists(st.sampled_from([a for a in AGENTS if a != speaker]), max_size=2, unique=True),
            label="dissenters",
        )
        self._accept(
            speaker,
            Resolve(target, tuple(subsumed), True, tuple(premises), tuple(dissenters)),
        )

    def _cycle_candidates(self) -> list[str]:
        d = self.model.to_core()
        return [r for r in self._resolvable() if core.compute_dependency_closure(d, r) - {r}]

    @precondition(lambda self: self._cycle_candidates())
    @rule(speaker=SPEAKERS, data=st.data())
    def resolve_closing_a_cycle(self, speaker: str, data: st.DataObject) -> None:
        """Resolve t subsuming a record t rests on: the A.3 link closes a Dep cycle (T13)."""
        target = data.draw(st.sampled_from(self._cycle_candidates()), label="target")
        below = sorted(core.compute_dependency_closure(self.model.to_core(), target) - {target})
        subsumed = data.draw(st.sampled_from(below), label="subsumed")
        self._accept(speaker, Resolve(target, (subsumed,)))

    # -- turns whose operations interact on one target ------------------------------
    # Each operation's precondition is read on the state the turn has left so far
    # (Algorithm 1; spec/gcv/spec/normative.md, "Operation order"), which no one-operation rule
    # shows.

    def _written(self, data: st.DataObject, *ops: Operation) -> tuple[Operation, ...]:
        """``ops`` in a drawn written order: the fixed order applies them alike."""
        return tuple(ops) if data.draw(st.booleans(), label="as listed") else tuple(reversed(ops))

    def _refused_by_the_spec(self, speaker: str, ops: tuple[Operation, ...]) -> None:
        try:
            transition.process_turn(self.model, _spec_turn(speaker, ops))
        except transition.Rejected as refused:
            self._reject(speaker, ops, refused.code)
        else:
            raise AssertionError(f"the spec accepts {ops!r}")

    @precondition(lambda self: set(self._resolvable()) & set(UNDERMINABLE))
    @rule(speaker=SPEAKERS, claim=CLAIMS, data=st.data())
    def undermine_then_resolve_on_one_target(
        self, speaker: str, claim: str, data: st.DataObject
    ) -> None:
        """Undermine weakens the target, so the turn's Resolve of it is refused."""
        both = sorted(set(self._resolvable()) & set(UNDERMINABLE))
        target = data.draw(st.sampled_from(both), label="target")
        ops = self._written(data, Undermine(target, self._fresh(), claim), Resolve(target))
        self._refused_by_the_spec(speaker, ops)

    @precondition(lambda self: self._resolvable())
    @rule(speaker=SPEAKERS, data=st.data())
    def revise_then_resolve_on_one_target(self, speaker: str, data: st.DataObject) -> None:
        """Revise abandons the target, so the turn's Resolve of it is refused."""
        target = data.draw(st.sampled_from(self._resolvable()), label="target")
        self._refused_by_the_spec(speaker, self._written(data, Revise(target), Resolve(target)))

    @precondition(lambda self: set(self._labelled(SUPPORTABLE)) & set(UNDERMINABLE))
    @rule(target=records, speaker=SPEAKERS, claim=CLAIMS, data=st.data())
    def support_then_undermine_on_one_target(
        self, speaker: str, claim: str, data: st.DataObject
    ) -> object:
        """Both apply: the support joins Dep(target), then the target is weakened."""
        both = sorted(set(self._labelled(SUPPORTABLE)) & set(UNDERMINABLE))
        target = data.draw(st.sampled_from(both), label="target")
        support, undermine = (
            Support(target, self._fresh(), claim),
            Undermine(target, self._fresh(), claim),
        )
        self._accept(speaker, *self._written(data, support, undermine))
        return multiple(support.evidence, undermine.evidence)

    def _expandable(self) -> list[str]:
        return [
            atom for atom in ATOM_POOL if any(atom not in self.model.awareness[a] for a in AGENTS)
        ]

    @precondition(lambda self: self._expandable())
    @rule(speaker=SPEAKERS, everyone=st.booleans(), data=st.data())
    def expand_awareness(self, speaker: str, everyone: bool, data: st.DataObject) -> None:
        atom = data.draw(st.sampled_from(self._expandable()), label="atom")
        unaware = [a for a in AGENTS if atom not in self.model.awareness[a]]
        if everyone:
            self._accept(speaker, ExpandAwareness(atom))
            return
        first = data.draw(st.sampled_from(unaware), label="unaware agent")
        more = data.draw(st.lists(st.sampled_from(AGENTS), max_size=2, unique=True), label="more")
        agents = (first, *(a for a in more if a != first))
        self._accept(speaker, ExpandAwareness(atom, agents))

    # -- deliberately invalid operations ---------------------------------------------

    @rule(
        existing=records,
        speaker=SPEAKERS,
        # A Question's id names an issue, not a record (T3.question.issue-ids-apart).
        which=st.sampled_from(["observe", "hypothesize", "support", "undermine"]),
        data=st.data(),
    )
    def reject_duplicate_identifier(
        self, existing: str, speaker: str, which: str, data: st.DataObject
    ) -> None:
        if which in ("observe", "hypothesize"):
            op: Operation = {"observe": Observe, "hypothesize": Hypothesize}[which](
                existing, "again"
            )
            self._reject(speaker, (op,), "duplicate-record", "id")
            return
        targets = self._labelled(SUPPORTABLE if which == "support" else UNDERMINABLE)
        targets = [t for t in targets if t != existing]
        if not targets:
            return
        target = data.draw(st.sampled_from(targets), label="target")
        cls = Support if which == "support" else Undermine
        self._reject(speaker, (cls(target, existing, "again"),), "duplicate-record", "evidence")

    def _citing(self, field: str, target: str, cited: str) -> Operation | None:
        """An operation on ``target`` that cites ``cited`` in ``field`` (evidence, attackers,
        subsumes or premises), or None where ``target``'s standing rules the operation out."""
        match field:
            case "evidence":
                return Support(target, cited) if self.model.label(target) in SUPPORTABLE else None
            case "attackers":
                return Revise(target, (cited,))
            case _ if target not in self._resolvable():
                return None
            case "subsumes":
                return Resolve(target, (cited,))
        return Resolve(target, authoritative=True, premises=(cited,))

    @rule(
        ghost=st.sampled_from(GHOSTS),
        known=records,
        speaker=SPEAKERS,
        field=st.sampled_from(
            ["depends_on", "target", "evidence", "attackers", "subsumes", "premises"]
        ),
    )
    def reject_unknown_record(self, ghost: str, known: str, speaker: str, field: str) -> None:
        op: Operation | None
        match field:
            case "depends_on":
                op = Hypothesize(self._fresh(), "x", depends_on=(known, ghost))
            case "target":
                op = Revise(ghost)
            case _:
                op = self._citing(field, known, ghost)
        if op is not None:
            self._reject(speaker, (op,), "unknown-record", field)

    @precondition(lambda self: self._labelled({core.ABANDONED}))
    @rule(speaker=SPEAKERS, data=st.data())
    def reject_support_of_abandoned(self, speaker: str, data: st.DataObject) -> None:
        target = data.draw(st.sampled_from(self._labelled({core.ABANDONED})), label="target")
        self._reject(speaker, (Support(target, self._fresh(), "more"),), "wrong-standing", "target")

    @precondition(lambda self: self._labelled({core.ABANDONED, core.RESOLVED}))
    @rule(speaker=SPEAKERS, data=st.data())
    def reject_undermine_out_of_reach(self, speaker: str, data: st.DataObject) -> None:
        """Undermine needs an active or weakened target; abandoned and resolved are refused."""
        target = data.draw(
            st.sampled_from(self._labelled({core.ABANDONED, core.RESOLVED})), label="target"
        )
        self._reject(speaker, (Undermine(target, self._fresh(), "no"),), "wrong-standing", "target")

    @precondition(lambda self: self.model.attacked())
    @rule(speaker=SPEAKERS, data=st.data())
    def reject_resolve_of_attacked(self, speaker: str, data: st.DataObject) -> None:
        """Resolve of an attacked record: by Lemma 2.2 it is outside S_t, so wrong-standing
        comes first and no attack ever lands on a member of S_t through Resolve."""
        target = data.draw(st.sampled_from(sorted(self.model.attacked())), label="target")
        assert self.model.label(target) not in core.GOOD_STANDING, target
        self._reject(speaker, (Resolve(target),), "wrong-standing", "target")

    @precondition(lambda self: self._labelled({core.WEAKENED, core.ABANDONED}))
    @rule(
        speaker=SPEAKERS,
        field=st.sampled_from(["evidence", "attackers", "premises"]),
        data=st.data(),
    )
    def reject_ground_out_of_standing(self, speaker: str, field: str, data: st.DataObject) -> None:
        """Evidence, attackers and premises must be in S_t."""
        bad = data.draw(
            st.sampled_from(self._labelled({core.WEAKENED, core.ABANDONED})), label="ground"
        )
        match field:
            case "evidence":
                targets = [t for t in self._labelled(SUPPORTABLE) if t != bad]
                if not targets:
                    return
                op: Operation = Support(data.draw(st.sampled_from(targets), label="target"), bad)
            case "attackers":
                targets = [t for t in sorted(self.model.records) if t != bad]
                if not targets:
                    return
                op = Revise(data.draw(st.sampled_from(targets), label="target"), (bad,))
            case _:
                targets = [t for t in self._resolvable() if t != bad]
                if not targets:
                    return
                target = data.draw(st.sampled_from(targets), label="target")
                op = Resolve(target, authoritative=True, premises=(bad,))
        self._reject(speaker, (op,), "wrong-standing", field)

    @rule(
        known=records,
        speaker=SPEAKERS,
        which=st.sampled_from(["depends_on", "evidence", "attackers", "subsumes", "dissenters"]),
    )
    def reject_self_reference(self, known: str, speaker: str, which: str) -> None:
        op: Operation | None
        match which:
            case "depends_on":
                new = self._fresh()
                op = Observe(new, "x", depends_on=(new,))
            case "dissenters":
                resolvable = known in self._resolvable()
                op = (
                    Resolve(known, authoritative=True, dissenters=(speaker,))
                    if resolvable
                    else None
                )
            case _:
                op = self._citing(which, known, known)
        if op is not None:
            self._reject(speaker, (op,), "self-reference", which)

    @rule(claim=CLAIMS, dissent=st.booleans(), known=records)
    def reject_unknown_agent(self, claim: str, dissent: bool, known: str) -> None:
        if dissent and known in self._resolvable():
            op = Resolve(known, authoritative=True, dissenters=("nobody",))
            self._reject("a", (op,), "unknown-agent", "dissenters")
        else:
            self._reject("nobody", (Observe(self._fresh(), claim),), "unknown-agent", "speaker")

    @rule(speaker=SPEAKERS, atom=st.sampled_from(ATOM_POOL), named=st.booleans())
    def reject_expansion_that_changes_nothing(self, speaker: str, atom: str, named: bool) -> None:
        aware = [a for a in AGENTS if atom in self.model.awareness[a]]
        if named and aware:
            self._reject(speaker, (ExpandAwareness(atom, tuple(aware)),), "already-aware", "atom")
        elif len(aware) == len(AGENTS):
            self._reject(speaker, (ExpandAwareness(atom),), "already-aware", "atom")

    @rule(speaker=SPEAKERS, claim=CLAIMS, ghost=st.sampled_from(GHOSTS), known=records)
    def reject_a_turn_whose_last_operation_fails(
        self, speaker: str, claim: str, ghost: str, known: str
    ) -> None:
        """All or none: valid operations before the failing one leave no trace."""
        new = self._fresh()
        ops = (
            Observe(new, claim, depends_on=(known,)),
            Revise(known),
            Hypothesize(self._fresh(), "why?", depends_on=(new, ghost)),
        )
        self._reject(speaker, ops, "unknown-record", "depends_on")

    # -- invariants ------------------------------------------------------------------

    @invariant()
    def engine_state_is_the_models(self) -> None:
        engine, model = self.engine.state.snapshot(), self.model.snapshot()
        for part in model:
            assert engine[part] == model[part], (
                "state differs from Table 3",
                part,
                engine[part],
                model[part],
            )

    @invariant()
    def lemma_2_2_no_member_of_s_t_is_attacked(self) -> None:
        state = self.engine.state
        attacked_in_s_t = [
            (a, t) for a, ts in state.att.items() for t in ts if t in state.active_set()
        ]
        assert not attacked_in_s_t, ("Lemma 2.2", attacked_in_s_t)
        assert core.is_conflict_free_map(self.model.to_core()), "Lemma 2.2 (model)"

    @invariant()
    def reverse_indexes_are_the_inverses(self) -> None:
        state = self.engine.state
        for name, forward, backward in (
            ("Dep", state.dep, state.rdep),
            ("Att", state.att, state.ratt),
        ):
            pairs = {(a, b) for a, bs in forward.items() for b in bs}
            inverse = {(a, b) for b, as_ in backward.items() for a in as_}
            assert pairs == inverse, (f"reverse index of {name}", pairs, inverse)

    @invariant()
    def nothing_returns_to_s_t(self) -> None:
        back = self.fallen & self.engine.state.active_set()
        assert not back, ("weakened or abandoned record back in S_t", back)

    def _query_window(self) -> list[str]:
        """Every record while the map is small; beyond QUERY_WINDOW records, the records the
        last turn named plus a window that moves on by QUERY_WINDOW records every step, so
        each record is still queried every few steps (each query also runs the engine's
        class invariants, which read the whole map)."""
        ids = sorted(self.model.records)
        if len(ids) <= QUERY_WINDOW:
            return ids
        start = (self.steps * QUERY_WINDOW) % len(ids)
        window = (ids + ids)[start : start + QUERY_WINDOW]
        return sorted(set(window) | (self.touched & self.model.records.keys()))

    @invariant()
    def queries_agree_with_the_spec_and_networkx(self) -> None:
        d, graph = self.model.to_core(), _graph(self.model)
        active = self.model.active_set()
        # Corollary 2.4: Affected*(b) holds b exactly when b lies on a Dep cycle (a self-loop
        # or a strongly connected component of two or more), which networkx's ancestors
        # (reachability by a path of length >= 0, minus b) leaves out.
        on_cycle = {r for r in graph if graph.has_edge(r, r)} | {
            r
            for component in nx.strongly_connected_components(graph)
            if len(component) > 1
            for r in component
        }
        for record in self._query_window():
            walk = self.engine.verify(record)
            grounded = core.is_grounded(d, record)
            assert walk.grounded == grounded, ("Verify", record, walk, grounded)
            if grounded:
                closure = core.compute_dependency_closure(d, record)
                assert set(walk.closure) == closure, ("Verify closure", record, walk, closure)
                assert closure == nx.descendants(graph, record) | {record}, ("Dep* vs nx", record)
            else:
                assert walk.witness is not None and walk.witness not in active, ("witness", walk)
                assert walk.path[0] == record and walk.path[-1] == walk.witness, ("path", walk)
                assert is_dependency_path(self.engine.state.dep, walk.path), ("path", walk)
            one = core.compute_affected(d, record)
            assert set(self.engine.affected(record)) == one, ("Affected", record, one)
            star = self.engine.affected_star(record)
            expected = core.compute_affected_star(d, record)
            reachable = nx.ancestors(graph, record) | ({record} & on_cycle)
            assert set(star) == expected == reachable, ("Affected*", record, star, expected)
            assert len(star) == len(set(star)), ("Affected* repeats", record, star)
            active_star = self.engine.affected_star_active(record)
            assert set(active_star) == expected & active, ("active dependents", record, active_star)
        assert not self.engine.verify(None).grounded, "no associated record: ungrounded"
        assert not self.engine.verify(GHOSTS[0]).grounded, "unregistered record: ungrounded"


@pytest.mark.slow
def test_the_dependency_map_machine() -> None:
    """Run under the active profile: ``fast`` by default, ``deep`` via GCV_HYPOTHESIS_PROFILE."""
    run_state_machine_as_test(DependencyMapMachine, settings=machine_settings())


# -- the machine must catch every broken engine ---------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("engine", "caught_by"),
    [(e.factory, e.caught_by) for e in broken_engines.BROKEN],
    ids=[e.factory.__name__ for e in broken_engines.BROKEN],
)
def test_the_machine_catches_a_broken_engine(engine: EngineFactory, caught_by: str) -> None:
    machine = type(
        f"MachineOver{engine.__name__}",
        (DependencyMapMachine,),
        {"make_engine": engine},
    )
    with pytest.raises((AssertionError, icontract.ViolationError)) as caught:
        run_state_machine_as_test(machine, settings=HUNT)
    assert caught_by in str(caught.value), (caught_by, str(caught.value)[:2000])
