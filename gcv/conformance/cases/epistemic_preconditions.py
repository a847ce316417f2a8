"""``epistemic/preconditions``: every epistemic rejection path, each leaving D_t, M_t included,
exactly as it was (spec/gcv/spec/normative.md, the clauses ``order.*`` and "M_t")."""

from __future__ import annotations

from typing import Any

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.cases.registry import case
from gcv.conformance.statements import (
    COMPOSITION,
    HYPOTHESIZE,
    OBSERVE,
    QUESTION,
    RESOLVE,
    REVISE,
    SUPPORT,
    UNDERMINE,
    UPDATES,
)
from gcv.conformance.vectors import EPISTEMIC_SUITE_VERSION
from gcv.reference.epistemic.formula import MAX_DEPTH, parse
from gcv.reference.operations import (
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)

__all__: list[str] = []

PQ = {"atoms": ("p", "q"), "added_in": EPISTEMIC_SUITE_VERSION}


def _unchanged(b: CaseBuilder, worlds: int) -> None:
    """What every rejection case asks afterwards: W_t, the queue and the map as they were."""
    b.query("worlds", equals=worlds)
    b.query("unexplained", agent="a")
    b.state(note="exactly the map before the rejected turn")


def _rejection(
    name: str,
    description: str,
    statement: str,
    op: Operation | dict[str, Any],
    code: str,
    field: str,
    *,
    setup: tuple[Operation, ...] = (),
) -> None:
    """Declare a case: optional set-up, then a turn whose operation breaks a precondition,
    written after a valid observation that must not apply either."""

    @case(
        f"epistemic/preconditions/{name}",
        f"{description}: rejected with {code}; the turn, including its valid announcement, "
        "changes nothing.",
        [statement, COMPOSITION],
        **PQ,
    )
    def _rejected(b: CaseBuilder) -> None:
        if setup:
            b.apply("a", *setup)
        worlds = len(b.query("worlds"))
        harmless = Observe("fresh", "a valid announcement written first", formula=parse("p | q"))
        b.apply("b", harmless, op, rejected=code, field=field)
        b.query("standing", "fresh", error="unknown-record")
        _unchanged(b, worlds)


_rejection(
    "observe-formula-unknown-atom",
    "An Observe whose formula names an atom outside Prop_t",
    OBSERVE,
    Observe("o1", "zz holds", formula=parse("p & zz")),
    "unknown-atom",
    "formula",
)
_rejection(
    "observe-formula-unknown-agent",
    "An Observe whose formula names an agent outside Ags",
    OBSERVE,
    Observe("o1", "zz knows p", formula=parse("K[zz] p")),
    "unknown-agent",
    "formula",
)
_rejection(
    "observe-formula-malformed",
    "An Observe whose formula does not parse (inside an operation: malformed-operation)",
    OBSERVE,
    {"op": "observe", "id": "o1", "claim": "p and", "formula": "p &"},
    "malformed-operation",
    "formula",
)
_rejection(
    "observe-formula-too-deep",
    f"An Observe whose formula nests deeper than {MAX_DEPTH}",
    OBSERVE,
    {"op": "observe", "id": "o1", "claim": "deep", "formula": "~" * (MAX_DEPTH + 1) + "p"},
    "malformed-operation",
    "formula",
)
_rejection(
    "observe-no-surviving-world",
    "An Observe announcing a formula true at no world",
    OBSERVE,
    Observe("o1", "p and not p", formula=parse("p & ~p")),
    "no-surviving-world",
    "formula",
)
_rejection(
    "observe-contradicts-the-turns-announcement",
    "Two observations of one turn whose formulas hold together nowhere (the error names the "
    "observation after which no world is left)",
    OBSERVE,
    Observe("o1", "neither p nor q", formula=parse("~p & ~q")),
    "no-surviving-world",
    "formula",
)
_rejection(
    "observe-contradicts-what-is-known",
    "An Observe of ~p after p was announced",
    OBSERVE,
    Observe("o2", "not p", formula=parse("~p")),
    "no-surviving-world",
    "formula",
    setup=(Observe("o1", "p holds", formula=parse("p")),),
)
_rejection(
    "hypothesize-introduces-a-known-atom",
    "A Hypothesize introducing an atom already in Prop_t",
    HYPOTHESIZE,
    Hypothesize("h1", "p again", formula=parse("p"), introduces=("p",)),
    "duplicate-atom",
    "introduces",
)
_rejection(
    "hypothesize-formula-atom-not-introduced",
    "A Hypothesize whose formula uses an atom it does not introduce",
    HYPOTHESIZE,
    Hypothesize("h1", "h1 causes p", formula=parse("h1 & (h1 -> zz)"), introduces=("h1",)),
    "unknown-atom",
    "formula",
)
_rejection(
    "support-formula-unknown-atom",
    "A Support whose own formula names an atom outside Prop_t",
    SUPPORT,
    Support("h1", "e1", evidence_claim="fits zz", formula=parse("zz")),
    "unknown-atom",
    "formula",
    setup=(Hypothesize("h1", "p holds", formula=parse("p")),),
)
_rejection(
    "undermine-formula-unknown-agent",
    "An Undermine whose own formula names an agent outside Ags",
    UNDERMINE,
    Undermine("h1", "e1", evidence_claim="zz doubts it", formula=parse("B[zz] p")),
    "unknown-agent",
    "formula",
    setup=(Hypothesize("h1", "p holds", formula=parse("p")),),
)
_rejection(
    "revise-no-surviving-world",
    "A Revise without attackers of an observation every agent knows: [!~psi] leaves no world",
    REVISE,
    Revise("o1"),
    "no-surviving-world",
    "formula",
    setup=(Observe("o1", "p holds", formula=parse("p")),),
)
_rejection(
    "resolve-no-surviving-world",
    "A consensual Resolve of a hypothesis every agent knows false: [!gamma] leaves no world",
    RESOLVE,
    Resolve("h1"),
    "no-surviving-world",
    "formula",
    setup=(
        Observe("o1", "not p", formula=parse("~p")),
        Hypothesize("h1", "p after all", formula=parse("p")),
    ),
)
_rejection(
    "resolve-authoritative-with-formula",
    "An authoritative Resolve carrying a formula (a decision announces nothing)",
    RESOLVE,
    {"op": "resolve", "target": "h1", "authoritative": True, "formula": "p"},
    "malformed-operation",
    "formula",
    setup=(Hypothesize("h1", "p holds", formula=parse("p")),),
)
_rejection(
    "question-formula-unknown-atom",
    "A Question whose formula names an atom outside Prop_t",
    QUESTION,
    Question("q1", "why zz?", formula=parse("zz")),
    "unknown-atom",
    "formula",
)


@case(
    "epistemic/preconditions/simultaneous-observations-contradict",
    "Two observations of one turn that contradict each other leave no world: the turn is "
    "rejected with no-surviving-world, naming the observation after which none is left.",
    [OBSERVE, COMPOSITION, UPDATES],
    **PQ,
)
def _contradiction(b: CaseBuilder) -> None:
    first, second = Observe("o1", "p", formula=parse("p")), Observe("o2", "~p", formula=parse("~p"))
    b.apply("a", first, second, rejected="no-surviving-world", field="formula")
    b.apply("a", second, first, rejected="no-surviving-world", field="formula")
    _unchanged(b, 4)


@case(
    "epistemic/preconditions/table-3-before-epistemic",
    "An operation breaking a precondition of Table 3 and an epistemic one gets Table 3's code; "
    "among the epistemic ones the introduced atoms come first, then the formula's agents, then "
    "its atoms (normative: precondition order).",
    [OBSERVE, HYPOTHESIZE],
    **PQ,
)
def _order(b: CaseBuilder) -> None:
    b.apply("a", Observe("o1", "p holds", formula=parse("p")))
    twice = Observe("o1", "zz holds", formula=parse("zz"))
    b.apply("a", twice, rejected="duplicate-record", field="id")
    both = Hypothesize("h1", "p again", formula=parse("K[zz] zz"), introduces=("p",))
    b.apply("a", both, rejected="duplicate-atom", field="introduces")
    agent_then_atom = Hypothesize("h1", "zz knows zz", formula=parse("K[zz] zz"))
    b.apply("a", agent_then_atom, rejected="unknown-agent", field="formula")
    _unchanged(b, 2)
