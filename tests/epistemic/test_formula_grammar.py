"""spec/gcv/spec/protocol/formulas.md states what the parser does: its examples, precedence,
associativity and bounds are checked here against ``gcv.reference.epistemic.formula``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gcv.reference.epistemic.formula import MAX_DEPTH, MAX_LENGTH, parse, show
from gcv.reference.errors import MalformedFormula

PAGE = Path(__file__).resolve().parents[2] / "spec" / "gcv" / "spec" / "protocol" / "formulas.md"


def _examples() -> list[tuple[str, str]]:
    """The rows of the page's "text | reads as" table, with ``\\|`` read as ``|``."""
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|$", PAGE.read_text("utf-8"), re.MULTILINE)
    return [(text.replace("\\|", "|"), reading.replace("\\|", "|")) for text, reading in rows]


def _refused(text: str) -> bool:
    try:
        parse(text)
    except MalformedFormula:
        return True
    return False


def test_the_page_has_its_examples() -> None:
    assert len(_examples()) >= 10


@pytest.mark.parametrize(("text", "reading"), _examples())
def test_each_example_reads_as_the_page_says(text: str, reading: str) -> None:
    assert parse(text) == parse(reading), (show(parse(text)), show(parse(reading)))


def test_a_reading_of_the_other_precedence_or_grouping_is_another_formula() -> None:
    # The table's check could not pass with the opposite binding or associativity.
    assert parse("p & q | r") != parse("p & (q | r)")
    assert parse("p -> q -> r") != parse("(p -> q) -> r")
    assert parse("p -> q <-> r") != parse("p -> (q <-> r)")
    assert parse("~p & q") != parse("~(p & q)")


def test_conjunction_and_disjunction_are_n_ary_and_keep_their_parentheses() -> None:
    assert len(parse("p & q & r").parts) == 3  # type: ignore[attr-defined]
    assert parse("(p & q) & r") != parse("p & q & r")
    assert parse("q & p") != parse("p & q")
    assert show(parse("(p & q) & r")) == "(p & q) & r"


def test_depth_counts_operators_an_atom_being_one() -> None:
    assert MAX_DEPTH == 128
    assert [parse(t).depth for t in ("p", "~p", "p & q & r", "(p & q) & r")] == [1, 2, 2, 3]
    assert parse("~" * 127 + "p").depth == 128
    assert _refused("~" * 128 + "p")
    nested = "B[a given " * 127 + "p" + "] q" * 127  # each level one deeper: 128
    assert parse(nested).depth == 128
    assert _refused("B[a given " * 128 + "p" + "] q" * 128)


def test_at_most_128_groups_are_open_at_once_parentheses_included() -> None:
    assert parse("(" * 128 + "p" + ")" * 128).depth == 1
    assert _refused("(" * 129 + "p" + ")" * 129)
    # A conditional belief's condition is an open group too: 64 of them, each around a
    # parenthesis, is 128 groups; one more is 130.
    assert not _refused("B[a given (" * 64 + "p" + ")] q" * 64)
    assert _refused("B[a given (" * 65 + "p" + ")] q" * 65)


def test_text_is_at_most_100000_characters() -> None:
    assert MAX_LENGTH == 100_000
    assert parse("p" + " " * (MAX_LENGTH - 1)) == parse("p")
    assert _refused("p" + " " * MAX_LENGTH)


def test_tokens_as_the_page_says() -> None:
    assert parse("K[a]p") == parse("K[a] p") and parse("p&q") == parse("p & q")
    assert _refused("K [a] p")  # the atom K, then another formula
    assert _refused("E[a, b] p")  # no spaces inside the brackets
    assert _refused("a-b")  # no '-' in an atom
    assert parse("K[a-b] p").agent == "a-b"  # type: ignore[attr-defined]
    assert show(parse("B[a  given   ~q] (p)")) == "B[a given ~q] p"
    assert show(parse("C[a,b] p")) == "C[a,b] p"


def test_json_nesting_counts_the_line_object_as_level_one() -> None:
    from gcv.jsoninput import MAX_JSON_DEPTH, parse_json
    from gcv.reference.errors import GcvError

    assert MAX_JSON_DEPTH == 32
    deepest = '{"x": ' + "[" * 31 + "]" * 31 + "}"  # the object and 31 arrays
    assert parse_json(deepest, 1000, GcvError) is not None
    with pytest.raises(GcvError, match="nested more than 32 deep"):
        parse_json('{"x": ' + "[" * 32 + "]" * 32 + "}", 1000, GcvError)
    formula = "~" * 100 + "p"  # a string is no level, whatever it holds
    assert parse_json('{"x": [[' + f'"{formula}"' + "]]}", 1000, GcvError) is not None
