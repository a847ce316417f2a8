"""Which lemma needs which precondition: drop one clause of one operation's precondition
and see which invariant's consecution check stops being proved.

An entry is ``needed`` when the check comes back with a counterexample without the
clause, ``-`` when it is still proved (the clause is redundant for that property;
it may still be there for another reason, which spec/gcv/spec/normative.md gives).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from gcv.progress import progress
from gcv.proofs.encode import (
    OPERATIONS,
    EncodedState,
    Params,
    conflict_free,
    no_return_to_good_standing,
    transition,
    well_formed,
)
from gcv.proofs.obligations.standing import abandoned_stays_abandoned
from gcv.proofs.solver import DEFAULT_TIMEOUT_MS, Outcome, prove

__all__ = ["PROPERTIES", "Row", "necessity_table", "render_markdown"]

PROPERTIES: dict[str, Callable[[EncodedState, EncodedState], z3.BoolRef]] = {
    "well-formed": lambda before, after: well_formed(after),
    "Lemma 2.2": lambda before, after: conflict_free(after),
    "no return to S_t": no_return_to_good_standing,
    "abandoned stays abandoned": abandoned_stays_abandoned,
}


@dataclass(frozen=True)
class Row:
    """One precondition clause and, per property, the outcome without it."""

    operation: str
    clause: str
    outcomes: dict[str, Outcome]

    def needed_for(self) -> list[str]:
        """The properties that fail without the clause."""
        return [p for p, o in self.outcomes.items() if o is Outcome.COUNTEREXAMPLE]


def necessity_table(timeout_ms: int = DEFAULT_TIMEOUT_MS, quiet: bool = True) -> list[Row]:
    """Every clause of every operation's precondition, dropped one at a time.

    A bar counts the operations on a terminal unless ``quiet``.
    """
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    rows = []
    for op in progress(OPERATIONS, "operations", quiet=quiet):
        full = transition(op, s, p)
        for clause in full.clauses:
            t = full.without(clause)
            hypotheses = [well_formed(s), conflict_free(s), t.precondition]
            outcomes = {
                name: prove(hypotheses, prop(s, t.after), timeout_ms=timeout_ms).outcome
                for name, prop in PROPERTIES.items()
            }
            rows.append(Row(op, clause, outcomes))
    return rows


def render_markdown(rows: list[Row]) -> str:
    """The table as Markdown."""
    header = "| operation | precondition clause | " + " | ".join(PROPERTIES) + " |"
    lines = [header, "|" + "---|" * (len(PROPERTIES) + 2)]
    for row in rows:
        cells = [
            "needed"
            if row.outcomes[p] is Outcome.COUNTEREXAMPLE
            else ("-" if row.outcomes[p] is Outcome.PROVED else row.outcomes[p].value)
            for p in PROPERTIES
        ]
        lines.append(f"| {row.operation} | {row.clause} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
