"""Model-based state machine of the epistemic model M_t (``reference/gcv/reference/epistemic/``):
the brute-force semantics of ``spec/gcv/spec/epistemic.py`` is the model.

:class:`EpistemicMachine` drives M_t through its update functions and through the
Verifier's formula-carrying operations; its docstring lists its rules and invariants.  It
follows the Hypothesis profile of ``tests/conftest.py`` (examples per run,
``stateful_step_count``), with at most :data:`tests.machines.DEEP_EXAMPLES` examples.
``tests/broken_engines.py`` keeps updates with planted bugs; the last test below shows that
the machine catches each of them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

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
from gcv.reference.verifier import Turn, Verifier
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
from tests.machines import AGENTS, ATOMS, HUNT, machine_settings

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

    def _upgrade(
        self,
        data: st.DataObject,
        update: Callable[..., PlausibilityModel],
        spec_update: Callable[..., se.EpistemicModel],
    ) -> None:
        """A drawn psi, public or for a group, through the reference's and the spec's upgrade."""
        psi, group = self._formula(data), self._public_or_group(data)
        self._advance(
            update(self.model, psi, group), spec_update(self.spec, to_spec_formula(psi), group)
        )

    @rule(data=st.data())
    def lexicographic_upgrade(self, data: st.DataObject) -> None:
        """[up-up psi], public or for a group."""
        self._upgrade(data, self.updates.lexicographic_upgrade, se.process_lexicographic_upgrade)

    @rule(data=st.data())
    def conservative_upgrade(self, data: st.DataObject) -> None:
        """[up psi], public or for a group."""
        self._upgrade(data, self.updates.conservative_upgrade, se.process_conservative_upgrade)

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


@pytest.mark.slow
def test_the_epistemic_machine() -> None:
    """Run under the active profile: ``fast`` by default, ``deep`` via GCV_HYPOTHESIS_PROFILE."""
    run_state_machine_as_test(EpistemicMachine, settings=machine_settings())


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


# -- the machine must catch every broken update ---------------------------------------------

EPISTEMIC_HUNT = settings(HUNT, derandomize=True)
"""The same hunt on a fixed sequence of examples, so its time does not vary from run to run
(each broken update is caught within the first few examples)."""


@pytest.mark.slow
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
