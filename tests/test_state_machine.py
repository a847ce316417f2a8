"""Model-based state machines: spec/ is the model, reference/ the system under test.

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

:class:`EpistemicMachine` drives the epistemic model M_t (``reference/epistemic/``)
through its update functions and through the Verifier's formula-carrying
operations, with the brute-force semantics of ``spec/epistemic.py`` as its model;
its docstring lists its rules and invariants.

Both machines follow the Hypothesis profile of ``tests/conftest.py`` (examples per
run, ``stateful_step_count``), each with at most :data:`DEEP_EXAMPLES` examples.
``tests/broken_engines.py`` keeps engines with planted bugs; the last tests below
show that the machines catch each of them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

import icontract
import networkx as nx
import pytest
from hypothesis import HealthCheck, Phase, settings
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

from gcv.conformance.cases.oracle import spec_operation
from gcv.reference.epistemic import formula as rf
from gcv.reference.epistemic.formula import MAX_DEPTH, parse
from gcv.reference.epistemic.model import PlausibilityModel, build_model
from gcv.reference.epistemic.semantics import check_formula, truth_set
from gcv.reference.epistemic.updates import Downgrade
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
from gcv.reference.verifier import is_dependency_path
from gcv.reference.records import GOOD_STANDING, Kind
from gcv.reference.verifier import Turn, Verifier
from gcv.spec import core, transition
from gcv.spec import epistemic as se
from gcv.trace import operation_from_json
from tests import broken_engines
from tests.broken_engines import EpistemicUpdates
from tests.epistemic import support as epistemic_support
from tests.epistemic.support import (
    formulas,
    models,
    reference_truth,
    to_spec_formula,
    to_spec_model,
)

AGENTS = ("a", "b", "c")
ATOMS = ("p",)
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
    graph.add_edges_from(model.dep)
    return graph


class DependencyMapMachine(RuleBasedStateMachine):
    """The Verifier against Table 3 (the model) and Section 2's queries (spec/core.py)."""

    records = Bundle("records")
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
        return sorted(r for r, rec in self.model.records.items() if rec.standing in wanted)

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

    @rule(
        target=records,
        speaker=SPEAKERS,
        claim=CLAIMS,
        premise=st.booleans(),
        depends_on=st.lists(records, unique=True, max_size=3),
    )
    def observe(self, speaker: str, claim: str, premise: bool, depends_on: list[str]) -> str:
        new = self._fresh()
        kind = Kind.PREMISE if premise else Kind.OBSERVATION
        self._accept(speaker, Observe(new, claim, kind, tuple(depends_on)))
        return new

    @rule(
        target=records,
        speaker=SPEAKERS,
        claim=CLAIMS,
        position=st.booleans(),
        depends_on=st.lists(records, unique=True, max_size=3),
    )
    def hypothesize(self, speaker: str, claim: str, position: bool, depends_on: list[str]) -> str:
        new = self._fresh()
        kind = Kind.POSITION if position else Kind.HYPOTHESIS
        self._accept(speaker, Hypothesize(new, claim, kind, tuple(depends_on)))
        return new

    @rule(
        target=records,
        speaker=SPEAKERS,
        claim=CLAIMS,
        depends_on=st.lists(records, unique=True, max_size=2),
    )
    def question(self, speaker: str, claim: str, depends_on: list[str]) -> str:
        new = self._fresh()
        self._accept(speaker, Question(new, claim, tuple(depends_on)))
        return new

    @rule(
        target=records,
        speaker=SPEAKERS,
        claim=CLAIMS,
        depends_on=st.lists(records, unique=True, max_size=2),
    )
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
    # (Algorithm 1; spec/normative.md, "Operation order"), which no one-operation rule shows.

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
        which=st.sampled_from(["observe", "hypothesize", "question", "support", "undermine"]),
        data=st.data(),
    )
    def reject_duplicate_identifier(
        self, existing: str, speaker: str, which: str, data: st.DataObject
    ) -> None:
        if which in ("observe", "hypothesize", "question"):
            op: Operation = {"observe": Observe, "hypothesize": Hypothesize, "question": Question}[
                which
            ](existing, "again")
            self._reject(speaker, (op,), "duplicate-record", "id")
            return
        targets = self._labelled(SUPPORTABLE if which == "support" else UNDERMINABLE)
        targets = [t for t in targets if t != existing]
        if not targets:
            return
        target = data.draw(st.sampled_from(targets), label="target")
        cls = Support if which == "support" else Undermine
        self._reject(speaker, (cls(target, existing, "again"),), "duplicate-record", "evidence")

    @rule(
        ghost=st.sampled_from(GHOSTS),
        known=records,
        speaker=SPEAKERS,
        field=st.sampled_from(
            ["depends_on", "target", "evidence", "attackers", "subsumes", "premises"]
        ),
    )
    def reject_unknown_record(self, ghost: str, known: str, speaker: str, field: str) -> None:
        match field:
            case "depends_on":
                op: Operation = Hypothesize(self._fresh(), "x", depends_on=(known, ghost))
            case "target":
                op = Revise(ghost)
            case "evidence":
                if self.model.label(known) not in SUPPORTABLE:
                    return
                op = Support(known, ghost)
            case "attackers":
                op = Revise(known, (ghost,))
            case "subsumes":
                if known not in self._resolvable():
                    return
                op = Resolve(known, (ghost,))
            case _:
                if known not in self._resolvable():
                    return
                op = Resolve(known, authoritative=True, premises=(ghost,))
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
        match which:
            case "depends_on":
                new = self._fresh()
                op: Operation = Observe(new, "x", depends_on=(new,))
            case "evidence":
                if self.model.label(known) not in SUPPORTABLE:
                    return
                op = Support(known, known)
            case "attackers":
                op = Revise(known, (known,))
            case "subsumes":
                if known not in self._resolvable():
                    return
                op = Resolve(known, (known,))
            case _:
                if known not in self._resolvable():
                    return
                op = Resolve(known, authoritative=True, dissenters=(speaker,))
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
            Question(self._fresh(), "why?", depends_on=(new, ghost)),
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


# -- Machine 2: the epistemic model (reference/epistemic/) ---------------------------------

EPISTEMIC_ATOMS = epistemic_support.ATOMS
"""Prop_t starts as the first one to four of these and grows by expansion, never beyond six."""
SPLIT_LIMIT = 6
"""A new atom splits W only while |W| <= 6, so W never exceeds 12 worlds: the spec's brute
force grows as |W|^4 (its conservative upgrade recomputes a cell for every pair)."""
PROBES = 3
"""How many of the latest random formulas the truth invariant checks after each step."""
STRANGER = "zed"
"""An agent no model has (the models draw theirs from a, b, c, d)."""
STRANGE_ATOM = "zz"
"""An atom no model has."""
MALFORMED = (
    "p &",
    "(p",
    "K[] p",
    "B[a given] p",
    "p q",
    "~",
    "E[a,a] p",
    "p -> ",
    "K[a p",
    "p | | q",
    "true false",
)
"""Formula texts that do not parse: a dangling connective, an empty or repeated group, ..."""
CARRIERS = ("observe", "hypothesize", "support", "undermine", "revise", "resolve", "question")
"""The operations that carry a formula of their own."""
DEEP_HEADS = ("~", "K[{agent}] ", "B[{agent}] ", "C[{agent}] ", "X[{agent}] ")


def _carrying(kind: str, formula: rf.Formula) -> tuple[Operation, ...]:
    """A turn whose operation ``kind`` carries ``formula`` (its target registered first)."""
    target = Hypothesize("t", "target")
    match kind:
        case "observe":
            return (Observe("o1", "observed", formula=formula),)
        case "hypothesize":
            return (Hypothesize("h1", "guess", formula=formula),)
        case "support":
            return (target, Support("t", "e", "evidence", formula=formula))
        case "undermine":
            return (target, Undermine("t", "e", "counter", formula=formula))
        case "revise":
            return (target, Revise("t", formula=formula))
        case "resolve":
            return (target, Resolve("t", formula=formula))
    return (Question("q1", "why?", formula=formula),)


@functools.cache
def _formulas_over(
    atoms: tuple[str, ...], agents: tuple[str, ...], leaves: int
) -> st.SearchStrategy[rf.Formula]:
    # One strategy per vocabulary: Hypothesis validates each new strategy object, which
    # costs more than drawing from it.
    return formulas(atoms, agents, leaves)


def _names(worlds: Iterable[frozenset[str]]) -> list[list[str]]:
    return sorted(sorted(w) for w in worlds)


class EpistemicMachine(RuleBasedStateMachine):
    """M_t through the reference's updates, against the brute-force semantics of spec/epistemic.

    The system under test is the :class:`~gcv.reference.epistemic.model.PlausibilityModel`,
    changed by the update functions of :mod:`gcv.reference.epistemic.updates` (public and group
    announcements, lexicographic and conservative upgrades, both downgrades, awareness
    expansion) and by the :class:`~gcv.reference.verifier.Verifier`'s formula-carrying operations
    (their DEL realisations, Section 2's table), which is where bad input meets its typed
    checks.  The model is ``gcv.spec.epistemic``'s :class:`~gcv.spec.epistemic.EpistemicModel`,
    changed by the spec's ``process_*`` functions.  After every step: both have the same
    worlds, the same plausibility order for each agent and the same awareness sets; each
    order is a locally connected preorder (Definition A.1); K_i, B_i, conditional belief,
    E_G, C_G, A_i, X_i and the latest random formulas have the same truth sets; knowledge
    implies belief.
    """

    updates: EpistemicUpdates = EpistemicUpdates()

    def __init__(self) -> None:
        super().__init__()
        # ``start`` replaces it with a random model: 3-4 agents, 1-4 atoms, up to 8 worlds.
        self.model = PlausibilityModel.implicit(AGENTS, ATOMS).explicit()
        self.spec = to_spec_model(self.model)
        self.probes: list[rf.Formula] = []
        self.steps = 0
        self.largest = 0  # the most worlds W has had in this run

    # -- helpers ---------------------------------------------------------------------

    def _formula(self, data: st.DataObject, label: str = "formula", leaves: int = 3) -> rf.Formula:
        """A random formula over Ags and Prop_t; it joins the truth invariant's probes."""
        drawn = data.draw(_formulas_over(self.model.atoms, self.model.agents, leaves), label=label)
        self.probes = [*self.probes, drawn][-PROBES:]
        return drawn

    def _public_or_group(self, data: st.DataObject) -> tuple[str, ...] | None:
        if not data.draw(st.booleans(), label="to a group"):
            return None
        agents = st.sampled_from(self.model.agents)
        return tuple(data.draw(st.lists(agents, min_size=1, unique=True), label="group"))

    def _advance(self, model: PlausibilityModel, spec_model: se.EpistemicModel) -> None:
        self.steps += 1
        self.model, self.spec = model, spec_model
        self.largest = max(self.largest, model.size)

    def _refused(self, code: str, field: str | None, attempt: Callable[[], object]) -> None:
        """``attempt`` must raise the typed error ``code`` and leave M_t as it was."""
        self.steps += 1
        before = self.model.fingerprint()
        try:
            attempt()
        except GcvError as error:
            assert error.code == code, (error.code, code, str(error))
            if field is not None:
                assert error.field == field, (error.field, field, str(error))
        else:
            raise AssertionError(f"accepted, expected {code}")
        assert self.model.fingerprint() == before, "a refused update changed M_t"

    def _verifier(self) -> Verifier:
        """A conversation on the current model, declared as its M_0 (as Phase 1 declares one)."""
        return Verifier(self.model.agents, model=self.model)

    def _through(self, ops: tuple[Operation, ...], spec_model: se.EpistemicModel) -> None:
        """The turn must be applied and leave M_t as the spec's update leaves the model."""
        v = self._verifier()
        try:
            v.apply_turn(Turn(self.model.agents[0], ops))
        except GcvError as error:
            raise AssertionError(f"valid turn rejected: {error}") from error
        self._advance(v.model, spec_model)

    def _refused_turn(self, ops: tuple[Operation, ...], code: str, field: str | None) -> None:
        """The turn must be refused with ``code``, leaving M_t and the rest of D_t as they were."""
        v = self._verifier()
        digest = v.state.digest()
        self._refused(code, field, lambda: v.apply_turn(Turn(self.model.agents[0], ops)))
        assert v.model is self.model, "a refused turn replaced M_t"
        assert v.state.digest() == digest, "a refused turn changed D_t"

    def _unaware(self) -> list[tuple[str, str]]:
        return [
            (atom, agent)
            for atom in self.model.atoms
            for agent in self.model.agents
            if atom not in self.model.awareness[agent]
        ]

    def _prelude(self, data: st.DataObject) -> tuple[tuple[Operation, ...], se.EpistemicModel]:
        """Maybe an expansion, which changes M_t and comes first in a turn (a refused turn
        must undo it too), with the spec's model after it."""
        unaware = self._unaware()
        if not unaware or not data.draw(st.booleans(), label="expansion first"):
            return (), self.spec
        atom, agent = data.draw(st.sampled_from(unaware), label="expansion")
        after = se.process_awareness_expansion(self.spec, atom, (agent,))
        return (ExpandAwareness(atom, (agent,)),), after

    def _can_split(self) -> bool:
        return len(self.model.atoms) < len(EPISTEMIC_ATOMS) and self.model.size <= SPLIT_LIMIT

    def _new_atom(self) -> str:
        return next(a for a in EPISTEMIC_ATOMS if a not in self.model.atoms)

    # -- seeding ---------------------------------------------------------------------

    @initialize(model=models(max_atoms=4, max_worlds=SPLIT_LIMIT))
    def start(self, model: PlausibilityModel) -> None:
        """A random explicit model: cells, ranks and awareness sets drawn per agent."""
        self._advance(model, to_spec_model(model))

    # -- the updates of reference.epistemic.updates ----------------------------------

    @rule(data=st.data())
    def announce(self, data: st.DataObject) -> None:
        """[!psi], public or to a group; psi true nowhere is refused (no-surviving-world)."""
        psi, group = self._formula(data), self._public_or_group(data)
        spec_psi = to_spec_formula(psi)
        if not se.compute_truth_set(self.spec, spec_psi):
            # Outside the spec's definition: the reference must refuse it.
            self._refused(
                "no-surviving-world",
                "formula",
                lambda: self.updates.announce(self.model, psi, group),
            )
            return
        self._advance(
            self.updates.announce(self.model, psi, group),
            se.process_announcement(self.spec, spec_psi, group),
        )

    @rule(data=st.data())
    def lexicographic_upgrade(self, data: st.DataObject) -> None:
        """[up-up psi], public or for a group."""
        psi, group = self._formula(data), self._public_or_group(data)
        self._advance(
            self.updates.lexicographic_upgrade(self.model, psi, group),
            se.process_lexicographic_upgrade(self.spec, to_spec_formula(psi), group),
        )

    @rule(data=st.data())
    def conservative_upgrade(self, data: st.DataObject) -> None:
        """[up psi], public or for a group."""
        psi, group = self._formula(data), self._public_or_group(data)
        self._advance(
            self.updates.conservative_upgrade(self.model, psi, group),
            se.process_conservative_upgrade(self.spec, to_spec_formula(psi), group),
        )

    @rule(data=st.data(), how=st.sampled_from(Downgrade))
    def downgrade(self, data: st.DataObject, how: Downgrade) -> None:
        """Undermine's family, [up-up ~gamma] or [up ~gamma], public or for a group."""
        gamma, group = self._formula(data), self._public_or_group(data)
        spec_update = (
            se.process_lexicographic_downgrade
            if how is Downgrade.LEXICOGRAPHIC
            else se.process_conservative_downgrade
        )
        self._advance(
            self.updates.downgrade(self.model, gamma, how, group),
            spec_update(self.spec, to_spec_formula(gamma), group),
        )

    @precondition(lambda self: self._can_split())
    @rule(data=st.data())
    def expand_with_a_new_atom(self, data: st.DataObject) -> None:
        """Definition A.3: a new atom joins Prop_t and every world splits on it."""
        atom, group = self._new_atom(), self._public_or_group(data)
        self._advance(
            self.updates.expand(self.model, atom, group),
            se.process_awareness_expansion(self.spec, atom, group),
        )

    @rule(data=st.data())
    def expand_with_a_known_atom(self, data: st.DataObject) -> None:
        """An atom already in Prop_t: only the awareness sets change."""
        atom = data.draw(st.sampled_from(self.model.atoms), label="atom")
        group = self._public_or_group(data)
        self._advance(
            self.updates.expand(self.model, atom, group),
            se.process_awareness_expansion(self.spec, atom, group),
        )

    @rule(data=st.data())
    def probe(self, data: st.DataObject) -> None:
        """A larger random formula for the truth invariant."""
        self._formula(data, "probe", leaves=5)

    # -- the same updates through the Verifier's operations (Section 2's table) -----------

    @rule(data=st.data())
    def observe(self, data: st.DataObject) -> None:
        """Observe: [!psi]; psi true nowhere is refused, with the rest of the turn."""
        psi = self._formula(data)
        spec_psi = to_spec_formula(psi)
        op = Observe("o1", "observed", formula=psi)
        if not se.compute_truth_set(self.spec, spec_psi):
            prelude, after = self._prelude(data)
            if se.compute_truth_set(after, spec_psi):
                # The expansion made psi hold somewhere (an A_i or X_i formula): the turn
                # would be valid, so psi is announced without it.
                prelude = ()
            self._refused_turn((*prelude, op), "no-surviving-world", "formula")
            return
        self._through((op,), se.process_announcement(self.spec, spec_psi))

    @rule(data=st.data())
    def hypothesize(self, data: st.DataObject) -> None:
        """Hypothesize: [up-up gamma]."""
        gamma = self._formula(data)
        self._through(
            (Hypothesize("h1", "guess", formula=gamma),),
            se.process_lexicographic_upgrade(self.spec, to_spec_formula(gamma)),
        )

    @precondition(lambda self: self._can_split())
    @rule(data=st.data())
    def hypothesize_a_new_atom(self, data: st.DataObject) -> None:
        """Hypothesize introducing an atom: everyone becomes aware of it, then [up-up gamma]."""
        atom = self._new_atom()
        grown = se.process_awareness_expansion(self.spec, atom)
        gamma = data.draw(
            formulas((*self.model.atoms, atom), self.model.agents, 3), label="formula"
        )
        self._through(
            (Hypothesize("h1", "guess", formula=gamma, introduces=(atom,)),),
            se.process_lexicographic_upgrade(grown, to_spec_formula(gamma)),
        )

    @rule(data=st.data(), specific=st.booleans())
    def support(self, data: st.DataObject, specific: bool) -> None:
        """Support: [up gamma], or [up-up gamma] for gamma-specific evidence."""
        gamma = self._formula(data)
        spec_update = (
            se.process_lexicographic_upgrade if specific else se.process_conservative_upgrade
        )
        op = Support("t", "e", "evidence", formula=gamma, specific=specific)
        self._through(
            (Hypothesize("t", "target"), op), spec_update(self.spec, to_spec_formula(gamma))
        )

    @rule(data=st.data(), how=st.sampled_from(["lexicographic", "conservative"]))
    def undermine(self, data: st.DataObject, how: str) -> None:
        """Undermine: [up-up ~gamma] (B.2, T7) or [up ~gamma]."""
        gamma = self._formula(data)
        spec_update = (
            se.process_lexicographic_downgrade
            if how == "lexicographic"
            else se.process_conservative_downgrade
        )
        op = Undermine("t", "e", "counter", formula=gamma, downgrade=how)
        self._through(
            (Hypothesize("t", "target"), op), spec_update(self.spec, to_spec_formula(gamma))
        )

    @rule(data=st.data(), resolve=st.booleans())
    def revise_or_resolve(self, data: st.DataObject, resolve: bool) -> None:
        """Revise: [!~gamma]; consensual Resolve: [!gamma]; refused when no world survives."""
        gamma = self._formula(data)
        op: Operation = Resolve("t", formula=gamma) if resolve else Revise("t", formula=gamma)
        announced = to_spec_formula(gamma) if resolve else se.Not(to_spec_formula(gamma))
        ops = (Hypothesize("t", "target"), op)
        if not se.compute_truth_set(self.spec, announced):
            self._refused_turn(ops, "no-surviving-world", "formula")
            return
        self._through(ops, se.process_announcement(self.spec, announced))

    @rule(data=st.data())
    def expand_awareness(self, data: st.DataObject) -> None:
        """Expand-Awareness: a new atom for everyone or named agents while W may split, else a
        known atom; an expansion that makes nobody newly aware is refused (already-aware)."""
        if self._can_split() and data.draw(st.booleans(), label="new atom"):
            atom = self._new_atom()
        else:
            atom = data.draw(st.sampled_from(self.model.atoms), label="atom")
        group = self._public_or_group(data)
        op = ExpandAwareness(atom, group or ())
        named = group or self.model.agents
        if all(atom in self.model.awareness[agent] for agent in named):
            self._refused_turn((op,), "already-aware", "atom")
            return
        self._through((op,), se.process_awareness_expansion(self.spec, atom, group))

    # -- deliberately invalid input ----------------------------------------------------

    @rule(data=st.data(), where=st.sampled_from([*CARRIERS, "expand", "query"]))
    def reject_unknown_agent(self, data: st.DataObject, where: str) -> None:
        """A formula, an expansion or a query naming an agent outside Ags."""
        phi = self._formula(data)
        bad = rf.Knows(STRANGER, phi)
        problem = check_formula(self.model, bad)
        assert problem is not None and problem.code == "unknown-agent", problem
        match where:
            case "expand":
                op = ExpandAwareness(self.model.atoms[0], (STRANGER,))
                self._refused_turn((*self._prelude(data)[0], op), "unknown-agent", "agents")
            case "query":
                v = self._verifier()
                self._refused("unknown-agent", None, lambda: v.believes(STRANGER, phi))
                self._refused("unknown-agent", "formula", lambda: v.holds(bad))
            case _:
                ops = (*self._prelude(data)[0], *_carrying(where, bad))
                self._refused_turn(ops, "unknown-agent", "formula")

    @rule(data=st.data(), where=st.sampled_from([*CARRIERS, "query"]))
    def reject_unknown_atom(self, data: st.DataObject, where: str) -> None:
        """A formula or a query naming an atom outside Prop_t."""
        phi = self._formula(data)
        bad = rf.And((phi, rf.Atom(STRANGE_ATOM)))
        problem = check_formula(self.model, bad)
        assert problem is not None and problem.code == "unknown-atom", problem
        if where == "query":
            v = self._verifier()
            self._refused("unknown-atom", "formula", lambda: v.holds(bad))
            self._refused("unknown-atom", "at", lambda: v.holds(phi, at=[STRANGE_ATOM]))
            return
        ops = (*self._prelude(data)[0], *_carrying(where, bad))
        self._refused_turn(ops, "unknown-atom", "formula")

    @rule(data=st.data())
    def reject_announcement_true_nowhere(self, data: st.DataObject) -> None:
        """[!(phi & ~phi)], public or to a group, and as an observation: no-surviving-world."""
        phi = self._formula(data)
        psi = rf.And((phi, rf.Not(phi)))
        group = self._public_or_group(data)
        self._refused(
            "no-surviving-world", "formula", lambda: self.updates.announce(self.model, psi, group)
        )
        op = Observe("o1", "impossible", formula=psi)
        self._refused_turn((*self._prelude(data)[0], op), "no-surviving-world", "formula")

    @rule(text=st.sampled_from(MALFORMED))
    def reject_malformed_formula(self, text: str) -> None:
        """Text that does not parse: malformed-formula, and malformed-operation in a turn."""
        self._refused("malformed-formula", "formula", lambda: parse(text))
        encoded = {"op": "observe", "id": "o1", "claim": "x", "formula": text}
        self._refused("malformed-operation", "formula", lambda: operation_from_json(encoded))
        v = self._verifier()
        digest = v.state.digest()
        self._refused("malformed-formula", "formula", lambda: v.holds(text))
        assert v.state.digest() == digest, "a refused query changed D_t"

    @rule(data=st.data(), head=st.sampled_from(DEEP_HEADS), extra=st.integers(1, 200))
    def reject_too_deep_formula(self, data: st.DataObject, head: str, extra: int) -> None:
        """Nesting beyond MAX_DEPTH, as text or built value, is malformed-formula (never a
        RecursionError); exactly MAX_DEPTH is accepted."""
        agent = data.draw(st.sampled_from(self.model.agents), label="agent")
        prefix, atom = head.format(agent=agent), self.model.atoms[0]
        deepest = parse(prefix * (MAX_DEPTH - 1) + atom)
        assert deepest.depth == MAX_DEPTH, deepest.depth
        text = prefix * (MAX_DEPTH - 1 + extra) + atom
        self._refused("malformed-formula", "formula", lambda: parse(text))
        # A built value one past the bound is refused where it is given (the engine itself
        # may wrap a formula at the bound: ~gamma, B_a ~gamma).
        too_deep = rf.Not(deepest)
        self._refused("malformed-formula", "formula", lambda: self._verifier().holds(too_deep))
        self._refused(
            "malformed-operation", "formula", lambda: Observe("o1", "x", formula=too_deep)
        )
        encoded = {"op": "hypothesize", "id": "h1", "claim": "x", "formula": text}
        self._refused("malformed-operation", "formula", lambda: operation_from_json(encoded))

    @rule(data=st.data())
    def reject_duplicate_atom(self, data: st.DataObject) -> None:
        """Hypothesize introducing an atom already in Prop_t."""
        atom = data.draw(st.sampled_from(self.model.atoms), label="atom")
        op = Hypothesize("h1", "guess", formula=rf.Atom(atom), introduces=(atom,))
        self._refused_turn((*self._prelude(data)[0], op), "duplicate-atom", "introduces")

    # -- invariants ------------------------------------------------------------------

    @invariant()
    def reference_and_spec_have_the_same_model(self) -> None:
        mine = to_spec_model(self.model)
        assert len(set(self.model.worlds)) == self.model.size, "a world is stored twice"
        assert mine.worlds == self.spec.worlds, (
            "the world sets differ",
            _names(mine.worlds),
            _names(self.spec.worlds),
        )
        assert mine.atoms == self.spec.atoms, ("Prop differs", mine.atoms, self.spec.atoms)
        for agent in self.model.agents:
            assert mine.leq[agent] == self.spec.leq[agent], (
                "the plausibility order differs",
                agent,
                sorted((sorted(w), sorted(v)) for w, v in mine.leq[agent] ^ self.spec.leq[agent]),
            )
            assert mine.awareness[agent] == self.spec.awareness[agent], ("A_i differs", agent)

    @invariant()
    def each_order_is_a_locally_connected_preorder_within_each_cell(self) -> None:
        """Definition A.1 on the reference's ranks and cells, read as <=_i."""
        for agent in self.model.agents:
            cells, ranks = self.model.cells(agent), self.model.ranks(agent)
            assert len(cells) == len(ranks) == self.model.size, ("a world without a rank", agent)
            assert all(type(r) is int for r in ranks), ("ranks are integers", agent, ranks)
        assert se.is_plausibility_model(to_spec_model(self.model)), "Definition A.1"

    def _battery(self) -> list[rf.Formula]:
        """Every modality, for one agent and two atoms that rotate with the steps."""
        agents, atoms, k = self.model.agents, self.model.atoms, self.steps
        agent = agents[k % len(agents)]
        p, q = rf.Atom(atoms[k % len(atoms)]), rf.Atom(atoms[(k + 1) % len(atoms)])
        group = agents[: 2 + k % (len(agents) - 1)]
        return [
            rf.Knows(agent, p),
            rf.Believes(agent, p),
            rf.CondBelieves(agent, p, rf.Not(q)),
            rf.Everybody(group, q),
            rf.Common(group, rf.Or((p, q))),
            rf.Aware(agent, q),
            rf.Explicit(agent, p),
        ]

    @invariant()
    def truth_sets_agree_at_every_world(self) -> None:
        for f in [*self._battery(), *self.probes]:
            expected = se.compute_truth_set(self.spec, to_spec_formula(f))
            actual = reference_truth(self.model, f)
            assert actual == expected, (
                "the truth sets differ",
                rf.show(f),
                _names(actual),
                _names(expected),
            )

    @invariant()
    def knowledge_implies_belief(self) -> None:
        atom = rf.Atom(self.model.atoms[self.steps % len(self.model.atoms)])
        claims = [
            (agent, f, rf.Implies(rf.Knows(agent, f), rf.Believes(agent, f)))
            for f in (atom, *self.probes)
            for agent in self.model.agents
        ]
        # One evaluation of them all; on failure, name the first agent and formula.
        if truth_set(self.model, rf.And(tuple(c for _, _, c in claims))) != self._everywhere():
            agent, f = next(
                (i, f) for i, f, c in claims if truth_set(self.model, c) != self._everywhere()
            )
            raise AssertionError(("K_i phi without B_i phi", agent, rf.show(f)))

    def _everywhere(self) -> int:
        return (1 << self.model.size) - 1


DEEP_EXAMPLES: dict[type[RuleBasedStateMachine], int] = {
    DependencyMapMachine: 250,
    EpistemicMachine: 250,
}
"""Each machine's examples at most, whatever the profile asks: the ``deep`` profile's 3,000
would take the dependency-map machine alone about 55 minutes on 2 cores, while these keep
both machines together near 10 (docs/verification.md has the rates).  The ``fast`` profile
asks for fewer, so the README's test command runs exactly what it did."""


def machine_settings(machine: type[RuleBasedStateMachine]) -> settings:
    """The active profile (``fast``, or ``deep`` via GCV_HYPOTHESIS_PROFILE), with the
    machine's examples capped at :data:`DEEP_EXAMPLES`."""
    profile = settings.default
    assert profile is not None, "tests/conftest.py loads a profile"
    return settings(profile, max_examples=min(profile.max_examples, DEEP_EXAMPLES[machine]))


def test_the_dependency_map_machine() -> None:
    """Run under the active profile: ``fast`` by default, ``deep`` via GCV_HYPOTHESIS_PROFILE."""
    run_state_machine_as_test(DependencyMapMachine, settings=machine_settings(DependencyMapMachine))


def test_the_epistemic_machine() -> None:
    """Run under the active profile, as the first machine."""
    run_state_machine_as_test(EpistemicMachine, settings=machine_settings(EpistemicMachine))


def test_an_observation_is_read_after_the_turns_expansions() -> None:
    """Found by the epistemic machine (in its own expectation, not in the engine): Expand-
    Awareness applies first in a turn, so an observation that an agent is aware of an atom
    is refused alone (A_a s holds nowhere) but accepted after the turn's expansion."""
    model = build_model(["a", "b", "c"], ["p", "s"], awareness={"a": ["p"]})
    observed = Observe("o1", "a is aware of s", formula=parse("A[a] s"))
    v = Verifier(model.agents, model=model)
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("b", (observed,)))
    assert caught.value.code == "no-surviving-world", str(caught.value)
    v.apply_turn(Turn("b", (observed, ExpandAwareness("s", ("a",)))))
    assert v.is_aware("a", "s") and v.holds("A[a] s") and len(v.worlds()) == 4


# -- the machine must catch every broken engine ---------------------------------------------

HUNT = settings(
    max_examples=300,
    stateful_step_count=40,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: a find is enough
    suppress_health_check=list(HealthCheck),
    database=None,
)


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


EPISTEMIC_HUNT = settings(HUNT, derandomize=True)
"""The same hunt on a fixed sequence of examples, so its time does not vary from run to run
(each broken update is caught within the first few examples)."""


@pytest.mark.parametrize(
    "broken",
    broken_engines.BROKEN_EPISTEMIC,
    ids=[b.name for b in broken_engines.BROKEN_EPISTEMIC],
)
def test_the_epistemic_machine_catches_a_broken_engine(
    broken: broken_engines.BrokenUpdates,
) -> None:
    machine = type(
        f"EpistemicMachineOver{broken.name}",
        (EpistemicMachine,),
        {"updates": broken.updates},
    )
    with pytest.raises(AssertionError) as caught:
        run_state_machine_as_test(machine, settings=EPISTEMIC_HUNT)
    assert broken.caught_by in str(caught.value), (broken.caught_by, str(caught.value)[:2000])
