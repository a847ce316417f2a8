"""The exhaustive small-scope refinement check (tests/refinement.py), and its teeth.

One exploration of :data:`tests.refinement.SMALL` is shared by the coverage tests: every
state the engine reaches with the identifier pool (r1, r2) and the agents (a, b), up to
renaming, every operation of the pool by each agent and every two-operation turn of the
pair pool in both written orders from each of them, each step equal to the spec
transition's and decided alike by the Z3 encoding's transition relation, and Verify and
Affected* of every record of every state checked by the pure walk and the compiled one of
reference/gcv/reference/closure.py; and the pool r1-r4 within three turns of D_0 (bounded).  Then
planted divergences, in the engine (a patched copy, as tests/broken_engines.py does), in the
encoding (a changed row) and in the queries, each make the exploration fail.  Last, the whole of D_t
(:data:`tests.refinement.EPISTEMIC`): M_t and the problem queue compared too, within two turns of
D_0, and a planted DEL divergence that only that comparison sees.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from gcv.proofs.encode import OPERATIONS, Rules, rows
from gcv.reference.operations import (
    Observe,
    Resolve,
    Revise,
    Undermine,
)
from gcv.reference.records import Standing
from gcv.reference.verifier import Turn, Verifier
from tests import broken_engines
from tests.refinement import EPISTEMIC, SMALL, Counts, Divergence, Explorer, Scope, operations

ROWS = rows()
"""The engine's rows of Table 3, by operation."""

pytestmark = pytest.mark.slow

_ONE = Scope(("r1",), SMALL.agents)
_TWO_SINGLE = dataclasses.replace(SMALL, pair_records=(), enumerate_every=10**6)
_QUIET = dataclasses.replace(SMALL, enumerate_every=10**6)

_NO_FRESH_IDENTIFIER = {
    ("expand-awareness", "expand-awareness"),  # the pair pool expands one atom
    ("hypothesize", "hypothesize"),  # each would rest on the other, not yet registered
}
"""Ordered pairs of kinds no two-operation turn over two records can have accepted: the
second needs an identifier the first (or its target) has not taken."""


@pytest.fixture(scope="module")
def counts() -> Counts:
    """The test command's exploration (it raises on the first divergence)."""
    result = Explorer(SMALL).run()
    print(*result.lines(), sep="\n")
    return result


def test_every_state_up_to_the_pool_size_is_reached(counts: Counts) -> None:
    assert sorted(counts.by_records) == [0, 1, 2], counts.by_records
    assert counts.states == 98, "the classes up to renaming (182 states before the reduction)"
    per_state = 2 * len(operations(SMALL.records, SMALL.agents))
    assert counts.transitions > counts.states * per_state, "two-operation turns were taken"


def test_every_kind_and_every_ordered_pair_of_kinds_is_accepted_and_refused(
    counts: Counts,
) -> None:
    """Each kind accepted and refused at least 20 times (a Question, which has no
    precondition of Table 3, only accepted); each pair of kinds in application order refused
    at least 20 times and accepted unless two records cannot make it so."""
    for kind in OPERATIONS:
        assert counts.coverage[f"accepted {kind}"] >= 20, kind
        refusable = kind != "question"
        assert (counts.coverage[f"refused {kind}"] >= 20) == refusable, kind
    order = list(OPERATIONS)
    for i, first in enumerate(order):
        for second in order[i:]:
            pair = f"{first}+{second}"
            refusable = (first, second) != ("question", "question")
            assert (counts.coverage[f"refused {pair}"] >= 20) == refusable, pair
            possible = (first, second) not in _NO_FRESH_IDENTIFIER
            assert (counts.coverage[f"accepted {pair}"] > 0) == possible, pair


def test_the_steps_that_matter_are_covered(counts: Counts) -> None:
    """Accepted decisions with premises, subsumption and dissent, and the interacting pairs
    on one target: Undermine then Resolve and Revise then Resolve are refused (Resolve reads
    the weakened or abandoned target), Support then Undermine accepted."""
    for needed in (
        "accepted authoritative resolve with premises",
        "accepted resolve with subsumes",
        "accepted resolve with dissent",
        "refused undermine then resolve on one target",
        "refused revise then resolve on one target",
        "accepted support then undermine on one target",
    ):
        assert counts.coverage[needed] >= 20, needed
    for impossible in ("undermine then resolve", "revise then resolve"):
        assert counts.coverage[f"accepted {impossible} on one target"] == 0, impossible


def test_every_step_is_decided_by_the_encoding(counts: Counts) -> None:
    assert counts.encoded + counts.unmodelled.total() == counts.transitions
    assert set(counts.unmodelled) == {"already-aware (atom)", "self-reference (dissenters)"}
    assert counts.queries > 0
    assert counts.enumerated > 1 and counts.allowed > counts.enumerated, counts.allowed


def test_every_refusal_code_of_the_pool_is_seen(counts: Counts) -> None:
    expected = {"already-aware", "duplicate-record", "self-reference", "unknown-record"}
    assert expected | {"wrong-standing"} <= set(counts.codes), counts.codes


# -- the check fails on planted divergences -----------------------------------------------------


@pytest.mark.parametrize(
    ("engine", "caught_by"),
    [
        (broken_engines.UndermineIgnoresTargetStanding, "wrong-standing"),
        (broken_engines.ResolveForgetsSubsumes, "D_t\\+1 differs"),
        (broken_engines.ResolvePremisesAttackTarget, "D_t\\+1 differs.*'att'"),
        (broken_engines.SupportRevivesAbandoned, "wrong-standing"),
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
        Explorer(_TWO_SINGLE, engine=engine).run()


@pytest.mark.parametrize(
    ("engine", "caught_by"),
    [
        (broken_engines.NonAtomicTurn, "a refused turn changed the engine"),
        # Hypothesize(r1) resting on r2, written before Observe(r1): the written order
        # refuses it for r2, the fixed order for r1 registered twice.
        (broken_engines.WrittenOrderTurn, "engine unknown-record at 0, spec duplicate-record"),
        (broken_engines.ResolveReadsTheTurnsStart, "the spec accepts"),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_a_composition_bug_is_caught_only_by_two_operation_turns(
    engine: type[Verifier], caught_by: str
) -> None:
    """Each agrees with the spec and the encoding on every one-operation turn (over one
    record: over two, each is caught only at a two-operation turn too)."""
    Explorer(_ONE, engine=engine).run()
    with pytest.raises(Divergence, match=caught_by):
        Explorer(_QUIET, engine=engine).run()


def test_resolve_reading_the_turns_start_breaks_undermine_then_resolve() -> None:
    """The turn the issue names: Undermine then Resolve on one active target is refused by
    the spec; the engine whose Resolve reads the turn's start state resolves an attacked
    record, which its own postcondition then refuses (a weakened record back in S_t)."""
    explorer = Explorer(_QUIET, engine=broken_engines.ResolveReadsTheTurnsStart)
    observed = explorer.step(explorer.root, Turn("a", (Observe("r1", "c"),)))
    assert observed is not None and observed.spec.label("r1") == "active"
    turn = Turn("a", (Resolve("r1"), Undermine("r1", "r2", "e")))
    with pytest.raises(Divergence, match=r"the engine raised ViolationError|the spec refuses"):
        explorer.step(observed, turn)
    real = Explorer(_QUIET)
    observed = real.step(real.root, Turn("a", (Observe("r1", "c"),)))
    assert observed is not None and real.step(observed, turn) is None, "the engine refuses it"


_ACTIVE, _ANY = frozenset({Standing.ACTIVE}), frozenset(Standing)


def _row(kind: str, **change: object) -> Rules:
    table = dict(ROWS)
    table[kind] = dataclasses.replace(table[kind], **change)  # type: ignore[arg-type]
    return MappingProxyType(table)


@pytest.mark.parametrize(
    ("scope", "kind", "change", "caught_by"),
    [
        (_ONE, "revise", {"target_standing": _ACTIVE}, "precondition"),
        (_ONE, "resolve", {"target_standing": _ANY}, "the encoding allows"),
        (_TWO_SINGLE, "undermine", {"target_becomes": Standing.ACTIVE}, "differs"),
    ],
    ids=lambda x: x if x in OPERATIONS else "",
)
def test_a_planted_divergence_in_the_encoding_is_caught(
    scope: Scope, kind: str, change: dict[str, object], caught_by: str
) -> None:
    """Every step through the encoding, with one row of its table changed."""
    with pytest.raises(Divergence, match=caught_by):
        Explorer(scope, rules=_row(kind, **change)).run()


def test_the_enumeration_finds_a_step_the_encoding_allows_and_the_engine_refuses() -> None:
    """The solver's enumeration alone (cited sets of any size) catches an encoding whose
    Resolve accepts a target of any standing, from a state where no pool step is taken."""
    explorer = Explorer(_ONE, rules=_row("resolve", target_standing=_ANY))
    observed = explorer.step(explorer.root, Turn("a", (Observe("r1", "c"),)))
    assert observed is not None
    abandoned = explorer.step(observed, Turn("a", (Revise("r1"),)))
    assert abandoned is not None
    with pytest.raises(Divergence, match=r"the encoding allows .*Resolve"):
        explorer.every_allowed_step_is_accepted(abandoned)


def test_a_depth_bound_expands_exactly_the_states_within_it() -> None:
    """Bounded at the scope's own depth, the exploration is the unbounded one; one turn
    shorter, it expands fewer states and counts the ones it left unexpanded."""
    whole = Explorer(_ONE).run()
    at_depth = Explorer(dataclasses.replace(_ONE, depth=whole.depth)).run()
    assert (at_depth.states, at_depth.transitions, at_depth.beyond) == (
        whole.states,
        whole.transitions,
        0,
    )
    shorter = Explorer(dataclasses.replace(_ONE, depth=whole.depth - 1)).run()
    assert shorter.depth == whole.depth - 1
    assert shorter.states + shorter.beyond == whole.states, "the frontier is the last layer"
    assert shorter.beyond > 0 and shorter.transitions < whole.transitions


def test_four_records_within_three_turns_of_d0_hold_no_divergence() -> None:
    """Four records, bounded (the whole space is out of reach: docs/verification.md): every
    step out of every state within three turns of D_0, three-record states among them, each
    checked as in the two-record run; the exploration raises on the first divergence."""
    four = dataclasses.replace(SMALL, records=("r1", "r2", "r3", "r4"), depth=3)
    counts = Explorer(four).run()
    print(*counts.lines(), sep="\n")
    assert counts.depth == 3 and counts.beyond > 0
    assert max(counts.by_records) == 3 and counts.transitions > 30_000


# -- the whole of D_t: M_t and the problem queue -------------------------------------------------

_EPISTEMIC = dataclasses.replace(EPISTEMIC, depth=2)
"""Every step out of every state within two turns of D_0 (94 states up to renaming of the
records, 908 more reached): the whole space with formulas on the claims grows past the test
command's budget by the third turn (each state takes about 200 steps, each with the spec's
brute-force DEL update)."""


def test_m_t_and_the_problem_queue_agree_on_every_step() -> None:
    """Engine and spec agree on M_t (worlds and each <=_i) and the problem queue as well as
    the argumentation, from every state within two turns, cited sets of sizes 0 to 2, and
    the solver enumerates the encoding's allowed steps from every state expanded."""
    counts = Explorer(_EPISTEMIC).run()
    print(*counts.lines(), sep="\n")
    assert counts.states == 94 and counts.beyond == 908, (counts.states, counts.beyond)
    assert counts.enumerated == counts.states, "the solver enumerates from every state"
    assert counts.codes["no-surviving-world"] > 0, "announcements refused by M_t are taken"
    for kind in ("observe", "hypothesize", "question", "revise", "resolve", "undermine"):
        assert counts.coverage[f"accepted {kind}"] >= 20, kind
    pool = Explorer(_EPISTEMIC).singles
    assert [op for op in pool if len(getattr(op, "depends_on", ())) == 2], "cited sets of two"
    # every choice an operation makes of its update of M_t (Section 2's table)
    assert {getattr(op, "downgrade", None) for op in pool} >= {"lexicographic", "conservative"}
    assert {getattr(op, "specific", None) for op in pool} >= {True, False}
    assert {(op.announces, bool(op.attackers)) for op in pool if isinstance(op, Revise)} == {
        (True, True),
        (True, False),
        (False, True),
        (False, False),
    }


def test_an_announcement_that_keeps_worlds_is_caught() -> None:
    """A planted DEL divergence: every public [!psi] keeps one world where psi fails; the
    argumentation part is untouched, so only the comparison of M_t catches it."""
    first, broken = dataclasses.replace(_EPISTEMIC, depth=1), broken_engines.AnnouncementKeepsWorlds
    Explorer(dataclasses.replace(first, epistemic=False), engine=broken).run()  # blind to it
    with pytest.raises(Divergence, match="M_t differs"):
        Explorer(first, engine=broken).run()
