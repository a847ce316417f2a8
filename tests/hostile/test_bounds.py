"""Documented bounds hold exactly at the limit and refuse one past it; costs stay linear."""

from __future__ import annotations

import pytest

from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic import formula as rf
from gcv.reference.epistemic.formula import MAX_DEPTH, MAX_LENGTH, parse
from gcv.reference.errors import MalformedFormula, MalformedOperation
from gcv.reference.operations import Hypothesize, Observe, Operation, Question, Revise, Undermine
from gcv.reference.verifier import Turn, Verifier
from gcv.replay import replay
from gcv.trace import load_trace
from tests.benchmarks.bench_hostile import chain_trace

AT_LIMIT = "~" * (MAX_DEPTH - 1) + "p"  # depth MAX_DEPTH: 127 negations over an atom
PAST_LIMIT = "~" + AT_LIMIT


def test_the_parser_takes_the_limit_and_refuses_one_past_it() -> None:
    assert parse(AT_LIMIT).depth == MAX_DEPTH
    with pytest.raises(MalformedFormula, match=f"nested more than {MAX_DEPTH} deep"):
        parse(PAST_LIMIT)
    with pytest.raises(MalformedFormula, match=f"nested more than {MAX_DEPTH} deep"):
        parse("(" * MAX_DEPTH + "p" + ")" * MAX_DEPTH + " & " + PAST_LIMIT)


def _posed() -> Verifier:
    v = Verifier(["a", "b"], ["p", "q"])
    v.apply_turn(Turn("a", (Observe("o1", "q", formula=parse("q")),)))
    return v


def _with_deep_hypothesis() -> Verifier:
    v = _posed()
    v.apply_turn(Turn("a", (Hypothesize("h1", "deep", formula=parse(AT_LIMIT)),)))
    return v


# Each of these wrapped the formula in an operator (~gamma, B_a ~gamma) and then refused
# the formula the trace gave, although it was within the documented bound.
@pytest.mark.parametrize(
    ("start", "op"),
    [
        (_posed, Observe("o2", "deep", formula=parse(AT_LIMIT))),
        (_posed, Question("q1", "deep?", formula=parse(AT_LIMIT))),
        (_posed, Hypothesize("h1", "deep", formula=parse(AT_LIMIT))),  # o1 is an open problem
        (_with_deep_hypothesis, Undermine("h1", "o1")),
        (_with_deep_hypothesis, Revise("h1")),
    ],
    ids=["observe", "question", "hypothesize", "undermine", "revise"],
)
def test_an_operation_takes_a_formula_at_the_limit(start: object, op: Operation) -> None:
    v = start()  # type: ignore[operator]
    v.apply_turn(Turn("b", (op,)))


def test_an_operation_refuses_a_formula_past_the_limit() -> None:
    deep = rf.Not(parse(AT_LIMIT))
    with pytest.raises(MalformedOperation, match=f"at most {MAX_DEPTH} deep"):
        Observe("o2", "too deep", formula=deep)


def test_the_queries_take_a_formula_at_the_limit_and_refuse_one_past_it() -> None:
    v = _posed()
    deep = parse(AT_LIMIT)
    assert v.holds(deep) in (True, False)
    assert v.knows("a", deep) in (True, False)
    assert v.believes("a", deep) in (True, False)
    assert v.believes("a", deep, given=deep) in (True, False)
    for query in (v.holds, lambda f: v.knows("a", f), lambda f: v.believes("a", f)):
        with pytest.raises(MalformedFormula, match=f"at most {MAX_DEPTH} deep"):
            query(rf.Not(deep))


def test_the_atom_syntax_is_the_identifier_syntax_in_docs_schema_and_code() -> None:
    from gcv.trace import trace_schema

    pattern = trace_schema()["$defs"]["atom-names"]["items"]["pattern"]
    assert pattern.startswith("^[A-Za-z0-9]["), pattern
    assert "[A-Za-z0-9][A-Za-z0-9_.:']*" in (rf.__doc__ or ""), "the module documents it"
    with pytest.raises(MalformedFormula):
        parse("_p")
    assert not rf.is_atom_name("_p") and rf.is_atom_name("p_")


@pytest.mark.slow
def test_a_flat_formula_builds_its_node_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Cost, counted rather than timed: each & once rebuilt the whole tuple (O(n^2)).
    built: list[int] = []
    original = rf.And.__post_init__

    def counting(self: rf.And) -> None:
        built.append(len(self.parts))
        original(self)

    monkeypatch.setattr(rf.And, "__post_init__", counting)
    conjuncts = MAX_LENGTH // 2
    formula = parse("&".join(["p"] * conjuncts))
    assert isinstance(formula, rf.And) and len(formula.parts) == conjuncts
    assert sum(built) == conjuncts, f"{len(built)} nodes, {sum(built)} parts in all"


def test_replay_takes_no_digest_when_the_costly_checks_are_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A digest before every turn made replay quadratic in the number of turns.
    digests: list[None] = []
    original = DependencyMap.digest

    def counting(self: DependencyMap) -> str:
        digests.append(None)
        return original(self)

    monkeypatch.setattr(DependencyMap, "digest", counting)
    monkeypatch.setattr("gcv.replay.icontract.SLOW", False)
    result = replay(load_trace(chain_trace(100)))
    assert result.ok and len(result.turns) == 110 and digests == [], len(digests)
