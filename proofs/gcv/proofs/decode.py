"""Decode Z3 models back into ``spec/`` values, so counterexamples can be replayed."""

from __future__ import annotations

import z3

from gcv.proofs.encode import LABEL, REC, EncodedState
from gcv.spec import core

__all__ = ["Decoded", "decode_map", "decode_members", "decode_record", "is_definition_2_1_map"]


class Decoded:
    """A model's records, named r0, r1, ... in the model's order."""

    def __init__(self, model: z3.ModelRef) -> None:
        self.model = model
        self.universe: list[z3.ExprRef] = list(model.get_universe(REC) or [])
        self.names = {str(e): f"r{i}" for i, e in enumerate(self.universe)}

    def value(self, term: z3.ExprRef) -> z3.ExprRef:
        """``term`` evaluated in the model (completing it where it is silent)."""
        return self.model.eval(term, model_completion=True)

    def holds(self, term: z3.ExprRef) -> bool:
        """Whether the Boolean ``term`` is true in the model."""
        return bool(z3.is_true(self.value(term)))

    def name(self, record: z3.ExprRef) -> str:
        """The decoded name of a record term."""
        return self.names[str(self.value(record))]


def decode_record(d: Decoded, record: z3.ExprRef) -> str:
    """The name of the record ``record`` denotes in the model."""
    return d.name(record)


def decode_members(d: Decoded, members: z3.ArrayRef) -> frozenset[str]:
    """The records a set-valued array contains in the model."""
    return frozenset(d.names[str(e)] for e in d.universe if d.holds(members[e]))


def _label(d: Decoded, term: z3.ExprRef) -> str:
    value = d.value(term)
    assert value.sort() == LABEL, f"{term} is not a label"
    return str(value)


def decode_map(d: Decoded, s: EncodedState) -> core.DependencyMap:
    """The state ``s`` as the spec's dependency map (its registered records only)."""
    args = [e for e in d.universe if d.holds(s.ex[e])]
    name = {str(e): d.names[str(e)] for e in args}
    pairs = [(a, b) for a in args for b in args]
    return core.DependencyMap(
        args=frozenset(name.values()),
        att=frozenset((name[str(a)], name[str(b)]) for a, b in pairs if d.holds(s.att[a, b])),
        standing={name[str(e)]: _label(d, s.st[e]) for e in args},
        dep=frozenset((name[str(a)], name[str(b)]) for a, b in pairs if d.holds(s.dep[a, b])),
    )


def is_definition_2_1_map(d: Decoded, s: EncodedState) -> bool:
    """Whether the spec accepts ``s`` as a dependency map: every attack and Dep link of the
    model, over all its records, relates registered records (Definition 2.1)."""
    registered = {str(e) for e in d.universe if d.holds(s.ex[e])}
    pairs = [(a, b) for a in d.universe for b in d.universe]
    linked = [(a, b) for a, b in pairs if d.holds(s.att[a, b]) or d.holds(s.dep[a, b])]
    try:
        core.DependencyMap(
            args=frozenset(registered),
            att=frozenset((str(a), str(b)) for a, b in linked),
            standing={r: core.ACTIVE for r in registered},
            dep=frozenset(),
        )
    except AssertionError:  # the spec's "outside the definition"
        return False
    return True
