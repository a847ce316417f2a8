"""Readings of the chosen clauses on M_t: the DEL realisations (``del.*``).

Also :func:`remembering`, which remembers Definition A.2's checks by value while it lasts,
so that replays of one conversation under many readings check each problem once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import gcv.reference.apply
import gcv.reference.epistemic.abduction
import gcv.reference.epistemic.effects
import gcv.reference.operations
import gcv.reference.rules.expand_awareness
import gcv.reference.rules.observe
import gcv.reference.rules.shared
from gcv.conformance.alternatives.patching import (
    APPLY,
    HOMES,
    Patch,
    conditional,
    decided,
    derived,
    pure,
    rule_changed,
    together,
    wrapped,
)
from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic.abduction import Problem
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.formula import Believes, Not, parse
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import holds_everywhere
from gcv.reference.epistemic.updates import expand, lexicographic_upgrade
from gcv.reference.errors import (
    MalformedFormula,
    NoSurvivingWorld,
    UnknownAgent,
)
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import (
    Operation,
)


def own_formula_only() -> Patch:
    """An operation on a target acts on its own formula only, never its target's."""

    def differs(dmap: DependencyMap, op: Any, reading: Any) -> bool:
        target = dmap.records.get(op.target)
        inherited = target is not None and target.formula is not None
        return op.formula is None and inherited and reading.update is not None

    def instead(original: Any) -> Any:
        return lambda dmap, op, reading: None

    return conditional(gcv.reference.rules.shared, "update_target", differs, instead)


def switch_ignored(kind: type[Operation], **default: object) -> Patch:
    """The operation's realisation ignores the field that selects its alternative."""

    def instead(original: Any) -> Any:
        def realisation(op: Operation) -> Any:
            changed: Any = dataclasses.replace  # the fields ``default`` names are ``kind``'s
            return original(changed(op, **default) if isinstance(op, kind) else op)

        return realisation

    return pure(HOMES[kind], "realisation", instead)


def expansion_prefers_the_atom_false() -> Patch:
    """Becoming aware of p makes the copies where p is false the more plausible."""

    def differs(model: PlausibilityModel, atom: str, *rest: Any) -> bool:
        return atom not in model.atoms

    def instead(original: Any) -> Any:
        def expand(model: Any, atom: str, *rest: Any) -> Any:
            return lexicographic_upgrade(original(model, atom, *rest), Not(parse(atom)))

        return expand

    return conditional(gcv.reference.rules.expand_awareness, "expand", differs, instead)


def surprise_read_before_the_turn(name: str, making: bool) -> AbstractContextManager[None]:
    """Each observation's surprise is checked in M_t before the turn's observations (its
    problem's M_chi is the reference's: M_t announced with the others)."""
    before: list[Any] = []

    def announcing(original: Any) -> Any:
        def announce(state: EpistemicState, observations: Any) -> EpistemicState:
            before[:] = [state.model.explicit()]
            announced: EpistemicState = original(state, observations)
            return announced

        return announce

    def surprising(original: Any) -> Any:
        def is_surprising(posed: Any, agent: Any, formula: Any) -> bool:
            theirs = original(posed, agent, formula)
            mine = original(before[0], agent, formula)
            if mine != theirs:
                decided(name, (agent, formula, mine))
            return bool(mine if making else theirs)

        return is_surprising

    # The turn's announcement, in Observe's home.
    return together(
        lambda: wrapped(gcv.reference.rules.observe, "announce_simultaneously", announcing),
        lambda: wrapped(gcv.reference.epistemic.effects, "is_surprising", surprising),
    )


_REMEMBERED: list[dict[object, Any]] = []


def _remembered(key: object, compute: Callable[[], Any]) -> Any:
    """``compute()``, or its value for ``key`` while :func:`remembering` lasts."""
    if not _REMEMBERED:
        return compute()
    memo = _REMEMBERED[-1]
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _problem_key(problem: Problem) -> tuple[object, ...]:
    return (problem.agent, problem.formula, problem.model.fingerprint())


@contextmanager
def remembering() -> Iterator[None]:
    """While it lasts, Definition A.2's checks (the reference's and the readings') are
    remembered by value: a model by its fingerprint (equal fingerprints, equal models), so
    replays of one conversation under many readings check each problem once."""
    _REMEMBERED.append({})

    def wrap(original: Any) -> Any:
        def check(current: Any, problem: Problem, gamma: Any, literal: bool = False) -> Any:
            key = ("check", current.fingerprint(), _problem_key(problem), gamma, literal)
            return _remembered(key, lambda: original(current, problem, gamma, literal=literal))

        return check

    try:
        with wrapped(gcv.reference.epistemic.abduction, "check_solution", wrap):
            yield
    finally:
        _REMEMBERED.pop()


def _unchecked(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` without the contracts icontract wrapped it in: a reading is an engine
    other than the reference, and the reference's own checks, run beside it, keep theirs
    (under ICONTRACT_SLOW the upgrade's on the models a problem arose in, brought to
    Prop_t, took minutes on the Phase 2 replay)."""
    found: Callable[..., Any] = getattr(function, "__wrapped__", function)
    return found


def _explains(model: PlausibilityModel, problem: Problem, gamma: Any) -> bool:
    """Definition A.2's explanatory check read in ``model``: M[up-up gamma] satisfies B_i chi."""

    def compute() -> bool:
        agent = problem.agent
        upgraded = _unchecked(lexicographic_upgrade)(model, gamma, [agent])
        return holds_everywhere(upgraded, Believes(agent, problem.formula))

    key = ("explains", model.fingerprint(), problem.agent, problem.formula, gamma)
    return bool(_remembered(key, compute))


def _explanation_read_in(
    reader: Callable[[], Callable[[PlausibilityModel, Problem], PlausibilityModel]],
) -> Patch:
    """A reading of Definition A.2 whose explanatory check reads ``model_of(M_t, problem)``
    (``model_of`` made by ``reader`` each time the reading is entered); consistency and
    non-triviality are read in M_t, as the reference reads them."""

    def patch(name: str, making: bool) -> AbstractContextManager[None]:
        model_of = reader()

        def wrap(original: Any) -> Any:
            def check(current: Any, problem: Problem, gamma: Any, literal: bool = False) -> Any:
                theirs = original(current, problem, gamma, literal=literal)
                explanatory = _explains(model_of(current, problem), problem, gamma)
                if explanatory == theirs.explanatory:
                    return theirs
                mine = dataclasses.replace(theirs, explanatory=explanatory)
                decided(name, mine)
                return mine if making else theirs

            return check

        return wrapped(gcv.reference.epistemic.abduction, "check_solution", wrap)

    return patch


def solution_read_in_the_current_model() -> Patch:
    """Definition A.2's explanatory check reads M_t, not the model the problem arose in
    (the literal reading: Verifier(..., literal_abduction=True))."""
    return _explanation_read_in(lambda: lambda current, problem: current)


def solution_read_in_the_model_as_it_arose() -> Patch:
    """Definition A.2's explanatory check reads the model the problem arose in as it was:
    brought to Prop_t by Definition A.3's expansion, not restricted to the worlds that agree
    with M_t on the other atoms."""

    def reader() -> Callable[[PlausibilityModel, Problem], PlausibilityModel]:
        # Each problem's model, brought to each Prop_t once while the reading lasts.
        brought: dict[tuple[int, tuple[str, ...]], tuple[PlausibilityModel, PlausibilityModel]]
        brought = {}

        def as_it_arose(current: PlausibilityModel, problem: Problem) -> PlausibilityModel:
            key = (id(problem.model), tuple(sorted(current.atoms)))
            cached = brought.get(key)
            if cached is not None and cached[0] is problem.model:
                return cached[1]

            def bring() -> PlausibilityModel:
                arose = problem.model
                for atom in sorted(current.atoms):
                    if atom not in arose.atoms:
                        arose = _unchecked(expand)(arose, atom)
                return arose

            found = _remembered(("arose", problem.model.fingerprint(), key[1]), bring)
            brought[key] = (problem.model, found)
            return found  # type: ignore[no-any-return]

        return as_it_arose

    return _explanation_read_in(reader)


def empty_announcement_ignored(name: str, making: bool) -> AbstractContextManager[None]:
    """An announcement true at no world leaves M_t as it was; the turn is accepted."""

    def ignoring(original: Any) -> Any:
        def apply(*args: Any, **kw: Any) -> None:
            try:
                original(*args, **kw)
            except NoSurvivingWorld:
                decided(name)
                if not making:
                    raise

        return apply

    return together(
        lambda: wrapped(*APPLY, ignoring),
        rule_changed(
            "observe",
            lambda rule: dataclasses.replace(
                rule, settle=None if rule.settle is None else ignoring(rule.settle)
            ),
        ),
    )


def unknown_agent_malformed() -> Patch:
    """A formula naming an agent outside Ags is not a formula of the language."""

    def derive(theirs: Any, op: Operation, view: Any, speaker: AgentId) -> Any:
        if isinstance(theirs, UnknownAgent) and theirs.field == "formula":
            return MalformedFormula(str(theirs), field="formula")
        return theirs

    return derived(gcv.reference.apply, "find_violation", derive)
