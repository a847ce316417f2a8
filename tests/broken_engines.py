"""Engines with one planted bug each, which the state machines must catch.

Hypothesis keeps "bad machines" to show that its stateful testing finds real bugs;
these are ours.  Each engine is a :class:`~gcv.reference.verifier.Verifier` with one
behaviour of the paper broken, and ``caught_by`` names the check expected to fail
(a fragment of its message): a machine invariant, a machine rule, or, where the
engine's own postcondition already refuses the state, that contract.
``tests/test_machine_dependency_map.py::test_the_machine_catches_a_broken_engine`` runs
the machine over each.

The epistemic machine drives M_t through :class:`EpistemicUpdates`, the update
functions of ``gcv.reference.epistemic.updates``; :data:`BROKEN_EPISTEMIC` swaps one of
them for a broken copy (the copies carry none of the originals' contracts, so only
the machine can catch them), and
``tests/test_machine_epistemic.py::test_the_epistemic_machine_catches_a_broken_engine``
runs the machine over each.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass

import gcv.reference.apply
import gcv.reference.operations
import gcv.reference.verifier
from gcv.reference.closure import Grounding, dependency_walk
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic import updates
from gcv.reference.epistemic.formula import Formula, Not
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import members, truth_set
from gcv.reference.errors import GcvError, PreconditionViolation
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.operations import Operation, Resolve, Support
from gcv.reference.records import Standing
from gcv.reference.verifier import Turn, TurnReport, Verifier


@contextmanager
def _table_row(name: str, **change: object) -> Iterator[None]:
    """Swap one row of the operation table (what the operation's checks and effect read),
    for one turn."""
    saved = gcv.reference.operations.ORDER
    gcv.reference.operations.ORDER = tuple(
        dataclasses.replace(rule, row=dataclasses.replace(rule.row, **change))  # type: ignore[arg-type]
        if rule.name == name
        else rule
        for rule in saved
    )
    try:
        yield
    finally:
        gcv.reference.operations.ORDER = saved


class UndermineLeavesTargetActive(Verifier):
    """Undermine adds its attack but leaves the target's label as it was (breaks Lemma 2.2)."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        with _table_row("undermine", target_becomes=None):
            return super().apply_turn(turn)


class SupportRevivesAbandoned(Verifier):
    """Support accepts an abandoned target (a wrong precondition row; changes no label)."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        with _table_row("support", target_standing=frozenset(Standing)):
            return super().apply_turn(turn)


def _forget_link(state: DependencyMap, record: RecordId, support: RecordId) -> None:
    """Remove ``support`` from Dep(``record``) and its reverse index alike, so only the
    effect, not the index, is wrong."""
    r, s = state._number[record], state._number[support]
    state._supports[r].remove(s)
    state._dependents[s].remove(r)


class SupportForgetsDependency(Verifier):
    """Support registers and commits its evidence but records no Dep link to it."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        report = super().apply_turn(turn)
        for op in turn.operations:
            if isinstance(op, Support):
                _forget_link(self.state, op.target, op.evidence)
        return report


class UndermineIgnoresTargetStanding(Verifier):
    """Undermine accepts a target of any standing (a wrong precondition row); Lemma 2.2 still
    holds, so only a comparison with the spec transition catches it."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        with _table_row("undermine", target_standing=frozenset(Standing)):
            return super().apply_turn(turn)


class ResolveForgetsSubsumes(Verifier):
    """Resolve labels its target resolved but records no Dep link from the subsumed records."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        report = super().apply_turn(turn)
        for op in turn.operations:
            if isinstance(op, Resolve):
                for subsumed in op.subsumes:
                    _forget_link(self.state, subsumed, op.target)
        return report


class ResolvePremisesAttackTarget(Verifier):
    """An authoritative Resolve's premises attack its target instead of only grounding it:
    the decision is then attacked while resolved (breaks Lemma 2.2)."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        report = super().apply_turn(turn)
        with self.state.transaction():
            for op in turn.operations:
                if isinstance(op, Resolve):
                    for premise in op.premises:
                        self.state.add_attack(premise, op.target)
        return report


class ResolveReadsTheTurnsStart(Verifier):
    """Resolve's precondition is read from the state the turn started in, not the state its
    earlier operations left: Undermine then Resolve on one active target resolves a record
    the turn has just attacked (breaks Lemma 2.2); a one-operation turn cannot show it."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        start = copy.deepcopy(self.state).view()
        check = gcv.reference.apply.find_violation

        def at_the_start(
            op: Operation, view: StateView, speaker: AgentId
        ) -> PreconditionViolation | None:
            return check(op, start if isinstance(op, Resolve) else view, speaker)

        gcv.reference.apply.find_violation = at_the_start
        try:
            return super().apply_turn(turn)
        finally:
            gcv.reference.apply.find_violation = check


class WrittenOrderTurn(Verifier):
    """A turn's operations apply in the order written, not in the fixed order of kinds
    (Section 2, "Updating D_t"): a one-operation turn cannot show it."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        saved = gcv.reference.apply.in_application_order
        gcv.reference.apply.in_application_order = lambda ops: list(enumerate(ops))
        try:
            return super().apply_turn(turn)
        finally:
            gcv.reference.apply.in_application_order = saved


class NonAtomicTurn(Verifier):
    """A rejected turn keeps the operations that would have applied on their own."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        try:
            return super().apply_turn(turn)
        except GcvError:
            for op in turn.operations:
                with suppress(GcvError):
                    super().apply_turn(Turn(turn.speaker, (op,)))
            raise


class ReverseClosureMissesCycle(Verifier):
    """Affected*(b) leaves out b even when b lies on a Dep cycle (the networkx pitfall)."""

    def affected_star(self, withdrawn: RecordId) -> tuple[RecordId, ...]:
        return tuple(r for r in super().affected_star(withdrawn) if r != withdrawn)


class WalkIgnoresStanding(Verifier):
    """The Verify walk follows Dep but never reads the standing labels."""

    def verify(self, candidate: RecordId | None) -> Grounding:
        if candidate is None or candidate not in self.state.records:
            return Grounding(candidate, False)
        n = self.state.numbering
        everyone_good = [1] * len(n.good)
        return dependency_walk(n.supports, everyone_good, n.number[candidate]).named(
            candidate, n.name
        )


@contextmanager
def _announcing_with(broken: Callable[..., PlausibilityModel]) -> Iterator[None]:
    """Swap [!psi] for ``broken`` wherever a loaded engine module holds it, for one turn
    (found by identity, so wherever the operation's DEL realisation lives)."""
    loaded = [m for m in list(sys.modules.values()) if m is not updates]  # it calls the original
    holders = [m for m in loaded if getattr(m, "announce", None) is updates.announce]
    for module in holders:
        module.announce = broken  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module in holders:
            module.announce = updates.announce  # type: ignore[attr-defined]


class AnnouncementKeepsWorlds(Verifier):
    """Every public [!psi] keeps one world where psi fails (a DEL divergence: the
    argumentation part of D_t is untouched)."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        with _announcing_with(_announcement_keeping_one_eliminated_world):
            return super().apply_turn(turn)


@dataclass(frozen=True)
class Broken:
    """A broken engine and a fragment of the failure message that must catch it."""

    factory: Callable[..., Verifier]
    caught_by: str


BROKEN = (
    # The engine's own apply_turn postcondition refuses the state first.
    Broken(UndermineLeavesTargetActive, "Lemma 2.2"),
    # The machine's rules and invariants.
    Broken(SupportRevivesAbandoned, "turn accepted, expected wrong-standing"),
    Broken(SupportForgetsDependency, "state differs from Table 3"),
    Broken(NonAtomicTurn, "a rejected turn changed the state"),
    # Only a rule that writes Undermine then Resolve on one target makes the turn; the
    # engine's postcondition then refuses the resolved, attacked record.
    Broken(ResolveReadsTheTurnsStart, "no operation moves a weakened or abandoned argument"),
    Broken(ReverseClosureMissesCycle, "Affected*"),
    Broken(WalkIgnoresStanding, "Verify"),
)


# -- the epistemic model: broken updates ----------------------------------------------------

Group = Sequence[AgentId] | None


@dataclass(frozen=True)
class EpistemicUpdates:
    """The update functions the epistemic machine applies to M_t (the reference's by default)."""

    announce: Callable[[PlausibilityModel, Formula, Group], PlausibilityModel] = updates.announce
    lexicographic_upgrade: Callable[[PlausibilityModel, Formula, Group], PlausibilityModel] = (
        updates.lexicographic_upgrade
    )
    conservative_upgrade: Callable[[PlausibilityModel, Formula, Group], PlausibilityModel] = (
        updates.conservative_upgrade
    )
    downgrade: Callable[
        [PlausibilityModel, Formula, updates.Downgrade, Group], PlausibilityModel
    ] = updates.downgrade
    expand: Callable[[PlausibilityModel, str, Group], PlausibilityModel] = updates.expand


def _chosen(model: PlausibilityModel, agents: Group) -> tuple[AgentId, ...]:
    return model.agents if agents is None else tuple(agents)


def _unstable_lexicographic_upgrade(
    model: PlausibilityModel, formula: Formula, agents: Group = None
) -> PlausibilityModel:
    """[up-up psi] that puts the psi-worlds first but forgets each side's old order."""
    model = model.explicit()
    flags = members(truth_set(model, formula), model.size)
    group = _chosen(model, agents)
    flat = tuple(0 if f == "1" else 1 for f in flags)
    return model.with_parts(ranks={a: flat if a in group else model.ranks(a) for a in model.agents})


def _conservative_upgrade_promoting_every_psi_world(
    model: PlausibilityModel, formula: Formula, agents: Group = None
) -> PlausibilityModel:
    """[up psi] that promotes every psi-world, not only the most plausible ones."""
    return updates.lexicographic_upgrade(model, formula, agents)


def _downgrade_that_upgrades(
    model: PlausibilityModel,
    formula: Formula,
    how: updates.Downgrade = updates.Downgrade.LEXICOGRAPHIC,
    agents: Group = None,
) -> PlausibilityModel:
    """Undermine's downgrade of gamma that forgets the negation: it upgrades gamma."""
    return updates.downgrade(model, Not(formula), how, agents)


def _announcement_keeping_one_eliminated_world(
    model: PlausibilityModel, formula: Formula, agents: Group = None
) -> PlausibilityModel:
    """Public [!psi] that lets the first world where psi fails survive."""
    result = updates.announce(model, formula, agents)  # still refuses psi true nowhere
    if agents is not None or result.size == model.size:
        return result
    model = model.explicit()
    inside = truth_set(model, formula)
    outside = ((1 << model.size) - 1) & ~inside
    return updates.restrict(model, inside | (outside & -outside))


def _expansion_without_split(
    model: PlausibilityModel, atom: str, agents: Group = None
) -> PlausibilityModel:
    """Awareness expansion that adds the atom to Prop_t and A_i but does not split W."""
    grown = updates.expand(model, atom, agents)
    if atom in model.atoms:
        return grown
    model = model.explicit()
    return grown.with_parts(
        worlds=model.worlds,
        cells={a: model.cells(a) for a in model.agents},
        ranks={a: model.ranks(a) for a in model.agents},
    )


def _group_announcement_made_public(
    model: PlausibilityModel, formula: Formula, agents: Group = None
) -> PlausibilityModel:
    """[!psi] to a group that eliminates worlds, as a public announcement does."""
    return updates.announce(model, formula, None)


@dataclass(frozen=True)
class BrokenUpdates:
    """A set of update functions with one planted bug, and the check that must catch it."""

    name: str
    updates: EpistemicUpdates
    caught_by: str


_RIGHT = EpistemicUpdates()

BROKEN_EPISTEMIC = (
    BrokenUpdates(
        "UnstableLexicographicUpgrade",
        dataclasses.replace(_RIGHT, lexicographic_upgrade=_unstable_lexicographic_upgrade),
        "the plausibility order differs",
    ),
    BrokenUpdates(
        "ConservativeUpgradePromotesEveryPsiWorld",
        dataclasses.replace(
            _RIGHT, conservative_upgrade=_conservative_upgrade_promoting_every_psi_world
        ),
        "the plausibility order differs",
    ),
    BrokenUpdates(
        "DowngradeThatUpgrades",
        dataclasses.replace(_RIGHT, downgrade=_downgrade_that_upgrades),
        "the plausibility order differs",
    ),
    BrokenUpdates(
        "AnnouncementKeepsOneEliminatedWorld",
        dataclasses.replace(_RIGHT, announce=_announcement_keeping_one_eliminated_world),
        "the world sets differ",
    ),
    BrokenUpdates(
        "GroupAnnouncementMadePublic",
        dataclasses.replace(_RIGHT, announce=_group_announcement_made_public),
        "the world sets differ",
    ),
    BrokenUpdates(
        "ExpansionWithoutSplit",
        dataclasses.replace(_RIGHT, expand=_expansion_without_split),
        "the world sets differ",
    ),
)
