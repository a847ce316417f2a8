"""The formula language: parser and printer round-trip; bad text is a typed error."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given

from gcv.reference.epistemic.formula import (
    MAX_DEPTH,
    And,
    Atom,
    Believes,
    CondBelieves,
    Everybody,
    Iff,
    Implies,
    Knows,
    Not,
    Or,
    agents_of,
    atoms_of,
    parse,
    show,
)
from gcv.reference.errors import MalformedFormula
from tests.epistemic.support import AGENTS, ATOMS, formulas

p, q, r = Atom("p"), Atom("q"), Atom("r")


@given(formulas(ATOMS, AGENTS, max_leaves=12))
def test_parse_inverts_show(f: object) -> None:
    text = show(f)  # type: ignore[arg-type]
    assert parse(text) == f, text
    assert show(parse(text)) == text, "the printed form is canonical"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("p & q & r", And((p, q, r))),
        ("(p & q) & r", And((And((p, q)), r))),
        ("p & (q & r)", And((p, And((q, r))))),
        ("p | q & r", Or((p, And((q, r))))),
        ("p -> q -> r", Implies(p, Implies(q, r))),
        ("(p -> q) -> r", Implies(Implies(p, q), r)),
        ("p <-> q -> r", Iff(p, Implies(q, r))),
        ("~p & q", And((Not(p), q))),
        ("K[a] p -> q", Implies(Knows("a", p), q)),
        ("K[a] (p -> q)", Knows("a", Implies(p, q))),
        ("B[a given q | r] p", CondBelieves("a", p, Or((q, r)))),
        ("B[a given q] B[b] p", CondBelieves("a", Believes("b", p), q)),
        ("E[a,b] ~p", Everybody(("a", "b"), Not(p))),
        ("  ~ ( p )  ", Not(p)),
    ],
)
def test_precedence_and_grouping(text: str, expected: object) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "p &",
        "& p",
        "(p",
        "p)",
        "p q",
        "K[a p",
        "K[a,b] p",
        "E[] p",
        "E[a,a] p",
        "C[a given q] p",
        "B[a given q p",
        "B[a given ] p",
        "true2 && p",
        "p -",
        "x-y",
        "K[a]",
        "K [a] p",
    ],
)
def test_malformed_text_is_a_typed_error(text: str) -> None:
    with pytest.raises(MalformedFormula) as caught:
        parse(text)
    assert caught.value.code == "malformed-formula"
    assert caught.value.field == "formula"


@pytest.mark.parametrize(
    "text",
    [
        "~" * 100_000 + "p",
        "~" * 99_990 + "p",
        "(" * 99_990 + "p" + ")" * 9,
        "K[a] " * 19_999 + "p",
        "p -> " * 24_000 + "p",
        "(" * (MAX_DEPTH + 1) + "p" + ")" * (MAX_DEPTH + 1),
    ],
    ids=["100k-negations", "deep-negations", "deep-parens", "deep-modal", "deep-arrows", "parens"],
)
def test_a_very_deep_formula_is_a_typed_error_not_a_recursion_error(text: str) -> None:
    limit = sys.getrecursionlimit()
    with pytest.raises(MalformedFormula) as caught:
        parse(text)
    assert caught.value.code == "malformed-formula"
    assert sys.getrecursionlimit() == limit


def test_the_deepest_accepted_formula_round_trips() -> None:
    text = "~" * (MAX_DEPTH - 1) + "p"
    f = parse(text)
    assert f.depth == MAX_DEPTH and show(f) == text
    with pytest.raises(MalformedFormula):
        parse("~" + text)
    # Groups count against the bound too, up to it and not past it (the "parens" row above).
    assert parse("(" * MAX_DEPTH + "p" + ")" * MAX_DEPTH) == Atom("p")
    # The engine may wrap a given formula (~gamma, B_a ~gamma): values nest a few levels
    # deeper than any input, up to a ceiling of their own.
    deeper = Not(f)
    with pytest.raises(MalformedFormula):
        for _ in range(MAX_DEPTH):
            deeper = Not(deeper)


def test_constructors_check_their_parts() -> None:
    with pytest.raises(MalformedFormula):
        Atom("true")
    with pytest.raises(MalformedFormula):
        And((p,))
    with pytest.raises(MalformedFormula):
        Everybody((), p)
    with pytest.raises(MalformedFormula):
        Knows("a b", p)
    with pytest.raises(MalformedFormula):
        Not("p")  # type: ignore[arg-type]


def test_atoms_and_agents() -> None:
    f = parse("C[a,b] (K[c] p -> B[d given q] ~r) & A[e] true")
    assert atoms_of(f) == {"p", "q", "r"}
    assert agents_of(f) == {"a", "b", "c", "d", "e"}
