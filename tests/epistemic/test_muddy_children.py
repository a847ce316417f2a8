"""Phase 1 (B.1): the muddy children, the shipped trace and the general puzzle.

The general statement (n children, k of them muddy: the muddy ones first know that they
are muddy in round k, the clean ones that they are clean in round k + 1) is checked for
every n up to 8 and every k, on the reference's model; the muddy half through the
Verifier's turns and, for small n, on the spec's brute-force model.
"""

from __future__ import annotations

from importlib import resources

import pytest

from gcv.reference.epistemic.formula import And, Atom, Formula, Knows, Not, Or, parse
from gcv.reference.epistemic.model import PlausibilityModel, build_model
from gcv.reference.epistemic.semantics import members, truth_set
from gcv.reference.epistemic.updates import announce
from gcv.reference.operations import Observe
from gcv.reference.verifier import Turn, Verifier
from gcv.replay import replay
from gcv.spec import epistemic as se
from gcv.trace import load_trace

CHILDREN = "abcdefgh"


def _trace_text() -> bytes:
    return (
        resources.files("gcv.spec").joinpath("scenarios", "phase1-muddy-children.json").read_bytes()
    )


def test_the_phase1_trace_replays_with_every_expectation() -> None:
    result = replay(load_trace(_trace_text()))
    assert result.ok, [c for c in result.checks if not c.ok]


def test_m0_is_b1s_model() -> None:
    m0 = load_trace(_trace_text()).model
    assert m0 is not None and m0.size == 8, "|W_0| = 8"
    name = {frozenset(): "CCC"}
    for world in m0.valuations():
        name[world] = "".join("M" if f"m_{c}" in world else "C" for c in "abc")
    cells: dict[int, set[str]] = {}
    for w, label in enumerate(m0.cells("a")):
        cells.setdefault(label, set()).add(name[m0.valuations()[w]])
    # B.1: "For Alice (sees Bob=M, Carol=C): ~a groups {MMC,CMC}, {MMM,CMM}, {MCM,CCM}, {MCC,CCC}."
    expected = [{"MMC", "CMC"}, {"MMM", "CMM"}, {"MCM", "CCM"}, {"MCC", "CCC"}]
    assert sorted(map(sorted, cells.values())) == sorted(map(sorted, expected))


def _knows_own(child: str) -> Formula:
    m = Atom(f"m_{child}")
    return Or((Knows(child, m), Knows(child, Not(m))))


def _nobody_knows(children: str) -> Formula:
    parts = tuple(Not(_knows_own(c)) for c in children)
    return parts[0] if len(parts) == 1 else And(parts)


def _puzzle(n: int) -> PlausibilityModel:
    children = CHILDREN[:n]
    atoms = [f"m_{c}" for c in children]
    observes = {c: [a for a in atoms if a != f"m_{c}"] for c in children}
    start = build_model(list(children), atoms, observes=observes)
    return announce(start, Or(tuple(Atom(a) for a in atoms)) if n > 1 else Atom(atoms[0]))


def _holds_at(m: PlausibilityModel, f: Formula, world: frozenset[str]) -> bool:
    return members(truth_set(m, f), m.size)[m.index_of(world)] == "1"


def _answers(m: PlausibilityModel, children: str, actual: frozenset[str]) -> Formula:
    """A round's simultaneous truthful answers to "do you know whether you are muddy?"."""
    said = [
        _knows_own(c) if _holds_at(m, _knows_own(c), actual) else Not(_knows_own(c))
        for c in children
    ]
    return said[0] if len(said) == 1 else And(tuple(said))


@pytest.mark.parametrize("n", range(1, 9))
def test_the_muddy_know_in_round_k_and_the_clean_in_round_k_plus_1(n: int) -> None:
    children = CHILDREN[:n]
    for k in range(1, n + 1):
        muddy, clean = children[:k], children[k:]
        actual = frozenset(f"m_{c}" for c in muddy)
        m = _puzzle(n)
        for round_ in range(1, k + 2):
            knowing = [c for c in children if _holds_at(m, _knows_own(c), actual)]
            expected = [c for c in muddy if round_ >= k] + [c for c in clean if round_ > k]
            assert knowing == expected, (n, k, round_, knowing)
            if clean and round_ == k + 1:
                assert all(_holds_at(m, Knows(c, Not(Atom(f"m_{c}"))), actual) for c in clean)
            m = announce(m, _answers(m, children, actual))


@pytest.mark.parametrize("n", [3, 5])
def test_the_puzzle_through_the_verifiers_turns(n: int) -> None:
    children = CHILDREN[:n]
    atoms = [f"m_{c}" for c in children]
    observes = {c: [a for a in atoms if a != f"m_{c}"] for c in children}
    for k in range(1, n + 1):
        model = build_model(list(children), atoms, observes=observes)
        v = Verifier(list(children), atoms, model)
        v.apply_turn(Turn("a", (Observe("f0", "one is muddy", formula=parse(" | ".join(atoms))),)))
        actual = atoms[:k]
        for round_ in range(1, k):
            assert not v.knows("a", "m_a", at=actual), (n, k, round_)
            answers = tuple(
                Observe(f"r{round_}{c}", "I don't know", formula=Not(_knows_own(c)))
                for c in children
            )
            v.apply_turn(Turn("a", answers))
        assert all(v.knows(c, f"m_{c}", at=actual) for c in children[:k]), (n, k)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_spec_tells_the_same_story(n: int) -> None:
    children = tuple(CHILDREN[:n])
    for k in range(1, n + 1):
        m = se.compute_muddy_children_model(children)
        m = se.process_announcement(m, se.Or(tuple(se.Atom(f"m_{c}") for c in children)))
        actual = frozenset(f"m_{c}" for c in children[:k])
        for _ in range(1, k):
            m = se.process_announcement(m, se.compute_nobody_knows(children))
        knowing = [c for c in children if se.is_true(m, actual, se.Knows(c, se.Atom(f"m_{c}")))]
        assert knowing == list(children[:k]), (n, k)


def _after_round_one() -> PlausibilityModel:
    m = _puzzle(3)
    return announce(m, _nobody_knows("abc"))


def test_answers_that_state_knowledge_let_carol_deduce_she_is_clean() -> None:
    # B.1: Carol "doesn't know yet, but can deduce from Alice's and Bob's round-2 answers".
    # Read as "I know I'm muddy", the answers tell her; read as the bare facts they do not.
    mmc = frozenset({"m_a", "m_b"})
    m = _after_round_one()
    assert not _holds_at(m, Knows("c", Not(Atom("m_c"))), mmc)
    told = announce(announce(m, Knows("a", Atom("m_a"))), Knows("b", Atom("m_b")))
    assert [sorted(w) for w in told.valuations()] == [["m_a", "m_b"]]
    assert _holds_at(told, Knows("c", Not(Atom("m_c"))), mmc)
    facts = announce(announce(m, Atom("m_a")), Atom("m_b"))
    assert not _holds_at(facts, Knows("c", Not(Atom("m_c"))), mmc), "W = {MMM, MMC}"


def test_the_trace_announces_round_two_answers_as_knowledge() -> None:
    trace = load_trace(_trace_text())
    said = [op.formula for turn in trace.turns[4:] for op in turn.turn.operations]
    assert said == [parse("K[a] m_a"), parse("K[b] m_b"), parse("K[c] ~m_c")]


def test_announced_one_at_a_time_bobs_i_dont_know_would_be_false() -> None:
    # Why the round's answers are one simultaneous announcement (spec/gcv/spec/normative.md).
    m = announce(_puzzle(3), Not(_knows_own("a")))
    assert not _holds_at(m, Not(_knows_own("b")), frozenset({"m_a", "m_b"})), (
        "after Alice's answer alone, Bob at MMC knows he is muddy"
    )
