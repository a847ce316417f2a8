"""The exhaustive small-scope refinement check (tests/refinement.py), and its teeth.

One exploration of :data:`tests.refinement.SMALL` is shared by the coverage tests: every
state the engine reaches with the identifier pool (r1, r2) and the agents (a, b), every
operation of the pool by each agent and every two-operation turn of the pair pool in both
orders from each of them, each step equal to the spec transition's, a sample of them
checked against the Z3 encoding, and Verify and Affected* of every record of every state
checked in both marking phases of reference/closure.py.  Then planted divergences, in the
engine (a patched copy of its table or effects, as tests/broken_engines.py does), in the
encoding (a changed row) and in the queries, each make the exploration fail.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from proofs.encode import Rules
from reference.operations import OperationKind
from reference.records import Standing
from reference.rules import RULES
from reference.verifier import Verifier
from tests import broken_engines
from tests.refinement import (
    SAMPLE_EVERY,
    SMALL,
    Counts,
    Divergence,
    Explorer,
    Scope,
    operations,
)

_ONE = Scope(("r1",), SMALL.agents, pairs=False)
_TWO_SINGLE = dataclasses.replace(SMALL, pairs=False)


@pytest.fixture(scope="module")
def counts() -> Counts:
    """The test command's exploration (it raises on the first divergence)."""
    result = Explorer(SMALL, sample=lambda n: n % SAMPLE_EVERY == 0).run()
    print(*result.lines(), sep="\n")
    return result


def test_every_state_up_to_the_pool_size_is_reached(counts: Counts) -> None:
    assert sorted(counts.by_records) == [0, 1, 2], counts.by_records
    assert counts.accepted > 0 and counts.transitions > counts.accepted
    per_state = 2 * len(operations(SMALL.records, SMALL.agents))
    assert counts.transitions > counts.states * per_state, "two-operation turns were taken"


def test_the_steps_that_matter_are_covered(counts: Counts) -> None:
    """Accepted decisions with premises, subsumption and dissent; Undermine-then-Resolve on
    one target (refused: Resolve reads the weakened target); every kind accepted alone and
    every pair of kinds accepted together at least once."""
    for needed in (
        "accepted authoritative resolve with premises",
        "accepted resolve with subsumes",
        "accepted resolve with dissent",
        "refused undermine then resolve on one target",
    ):
        assert counts.coverage[needed] > 0, needed
    for kind in OperationKind:
        assert counts.coverage[f"accepted {kind.value}"] > 0, kind
    accepted_pairs = {c for c in counts.coverage if c.startswith("accepted ") and "+" in c}
    assert len(accepted_pairs) >= 20, sorted(accepted_pairs)


def test_the_encoding_was_asked_and_the_queries_run(counts: Counts) -> None:
    assert counts.encoded >= counts.transitions // SAMPLE_EVERY // 2, counts.encoded
    assert counts.queries > 0
    assert counts.enumerated == counts.states and counts.allowed > counts.states, counts.allowed


def test_every_refusal_code_of_the_pool_is_seen(counts: Counts) -> None:
    expected = {"already-aware", "duplicate-record", "self-reference", "unknown-record"}
    assert expected | {"wrong-standing"} <= set(counts.codes), counts.codes


# -- the check fails on planted divergences -----------------------------------------------------


@pytest.mark.parametrize(
    ("engine", "caught_by"),
    [
        (broken_engines.UndermineIgnoresTargetStanding, "spec wrong-standing"),
        (broken_engines.ResolveForgetsSubsumes, "D_t\\+1 differs"),
        (broken_engines.SupportRevivesAbandoned, "spec wrong-standing"),
        (broken_engines.SupportForgetsDependency, "D_t\\+1 differs"),
        (broken_engines.ReverseClosureMissesCycle, "Affected\\*"),
        (broken_engines.WalkIgnoresStanding, "Verify"),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_a_planted_divergence_in_the_engine_is_caught(
    engine: type[Verifier], caught_by: str
) -> None:
    with pytest.raises(Divergence, match=caught_by):
        Explorer(_TWO_SINGLE, engine=engine, sample=lambda _: False).run()


@pytest.mark.parametrize(
    ("engine", "caught_by"),
    [
        (broken_engines.NonAtomicTurn, "a refused turn changed the engine"),
        (broken_engines.WrittenOrderTurn, r"engine [a-z-]+ at \d, spec [a-z-]+ at \d"),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_a_composition_bug_is_caught_only_by_two_operation_turns(
    engine: type[Verifier], caught_by: str
) -> None:
    """Each agrees with the spec on every one-operation turn (over one record)."""
    Explorer(_ONE, engine=engine, sample=lambda _: False).run()
    with pytest.raises(Divergence, match=caught_by):
        Explorer(SMALL, engine=engine, sample=lambda _: False).run()


_ACTIVE, _ANY = frozenset({Standing.ACTIVE}), frozenset(Standing)


def _row(kind: OperationKind, **change: object) -> Rules:
    table = dict(RULES)
    table[kind] = dataclasses.replace(table[kind], **change)  # type: ignore[arg-type]
    return MappingProxyType(table)


@pytest.mark.parametrize(
    ("scope", "kind", "change", "caught_by"),
    [
        (_ONE, OperationKind.REVISE, {"target_standing": _ACTIVE}, "precondition"),
        (_ONE, OperationKind.RESOLVE, {"target_standing": _ANY}, "the encoding allows"),
        (_TWO_SINGLE, OperationKind.UNDERMINE, {"target_becomes": Standing.ACTIVE}, "differs"),
    ],
    ids=lambda x: getattr(x, "value", ""),
)
def test_a_planted_divergence_in_the_encoding_is_caught(
    scope: Scope, kind: OperationKind, change: dict[str, object], caught_by: str
) -> None:
    """Every step through the encoding, with one row of its table changed."""
    with pytest.raises(Divergence, match=caught_by):
        Explorer(scope, rules=_row(kind, **change)).run()


def test_the_enumeration_finds_a_step_the_encoding_allows_and_the_engine_refuses() -> None:
    """With no step sampled, the enumeration alone catches an encoding whose Resolve accepts
    a target of any standing."""
    rules = _row(OperationKind.RESOLVE, target_standing=_ANY)
    with pytest.raises(Divergence, match="the encoding allows Resolve"):
        Explorer(_ONE, rules=rules, sample=lambda _: False).run()
