"""Engines with one planted bug each, which the state machine must catch.

Hypothesis keeps "bad machines" to show that its stateful testing finds real bugs;
these are ours.  Each engine is a :class:`~reference.verifier.Verifier` with one
behaviour of the paper broken, and ``caught_by`` names the check expected to fail
(a fragment of its message): a machine invariant, a machine rule, or, where the
engine's own postcondition already refuses the state, that contract.
``tests/test_state_machine.py::test_the_machine_catches_a_broken_engine`` runs the
machine over each.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from types import MappingProxyType, ModuleType

import reference.apply
import reference.preconditions
from reference.closure import Grounding, dependency_walk
from reference.errors import GcvError
from reference.operations import OperationKind, Support
from reference.records import RecordId, Standing
from reference.rules import RULES
from reference.verifier import Turn, TurnReport, Verifier


@contextmanager
def _table_row(module: ModuleType, kind: OperationKind, **change: object) -> Iterator[None]:
    """Swap one row of the operation table as ``module`` sees it, for one turn."""
    table = dict(RULES)
    table[kind] = dataclasses.replace(table[kind], **change)  # type: ignore[arg-type]
    saved = module.RULES
    module.RULES = MappingProxyType(table)
    try:
        yield
    finally:
        module.RULES = saved


class UndermineLeavesTargetActive(Verifier):
    """Undermine adds its attack but leaves the target's label as it was (breaks Lemma 2.2)."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        with _table_row(reference.apply, OperationKind.UNDERMINE, target_becomes=None):
            return super().apply_turn(turn)


class SupportRevivesAbandoned(Verifier):
    """Support accepts an abandoned target (a wrong precondition row; changes no label)."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        with _table_row(
            reference.preconditions, OperationKind.SUPPORT, target_standing=frozenset(Standing)
        ):
            return super().apply_turn(turn)


class SupportForgetsDependency(Verifier):
    """Support registers and commits its evidence but records no Dep link to it."""

    def apply_turn(self, turn: Turn) -> TurnReport:
        report = super().apply_turn(turn)
        for op in turn.operations:
            if isinstance(op, Support):
                # Remove the link from Dep and its reverse index alike, so only the
                # effect, not the index, is wrong.
                del self.state._dep[op.target][op.evidence]
                del self.state._rdep[op.evidence][op.target]
        return report


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
        everyone_active = dict.fromkeys(self.state.standing, Standing.ACTIVE)
        return dependency_walk(self.state.dep, everyone_active, candidate)


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
    Broken(ReverseClosureMissesCycle, "Affected*"),
    Broken(WalkIgnoresStanding, "Verify"),
)
