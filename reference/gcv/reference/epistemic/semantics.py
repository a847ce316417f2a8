"""Truth in M_t (Appendix A.1, Definition A.3): the set of worlds where a formula holds.

:func:`truth_set` computes [[phi]] as a bitset over the model's storage
indices (bit w set iff phi holds at world w).  Boolean connectives are single
big-integer operations; each modality makes one pass over W, grouping worlds
by cell, so evaluating phi costs O(|phi| * |W|).

Mirrors ``gcv.spec.epistemic.is_true``, which states the same clauses world by world.

References
----------
Baltag, Alexandru, and Sonja Smets. 2008. "A Qualitative Theory of Dynamic
Interactive Belief Revision." In *Logic and the Foundations of Game and
Decision Theory (LOFT 7)*, 11-58. Amsterdam University Press.
Fagin, Ronald, and Joseph Y. Halpern. 1987. "Belief, Awareness, and Limited
Reasoning." *Artificial Intelligence* 34 (1): 39-76.
https://doi.org/10.1016/0004-3702(87)90003-8.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import icontract

from gcv.reference.epistemic.formula import (
    And,
    Atom,
    Aware,
    Believes,
    Common,
    CondBelieves,
    Const,
    Everybody,
    Explicit,
    Formula,
    Iff,
    Implies,
    Knows,
    Not,
    Or,
    agents_of,
    atoms_of,
)
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.errors import PreconditionViolation, UnknownAgent, UnknownAtom
from gcv.reference.identifiers import AgentId

__all__ = [
    "check_formula",
    "holds_everywhere",
    "is_ordered",
    "members",
    "truth_set",
]


def everything(model: PlausibilityModel) -> int:
    """The bitset of all of W."""
    return (1 << model.size) - 1


def members(mask: int, size: int) -> str:
    """The bitset as a string of '0'/'1' flags indexed by world (one O(|W|) conversion)."""
    return format(mask, f"0{size}b")[::-1]


def _from_flags(flags: str) -> int:
    return int(flags[::-1], 2)


def _keep_cells(labels: Sequence[int], bad: Iterable[int]) -> int:
    """The worlds whose label is not among ``bad`` (a cell is kept whole or dropped whole)."""
    dropped = set(bad)
    return _from_flags("".join("0" if label in dropped else "1" for label in labels))


def _knows(labels: Sequence[int], inside: int, size: int) -> int:
    # A cell is in [[K phi]] iff none of its worlds is outside [[phi]].
    outside = members(~inside & ((1 << size) - 1), size)
    return _keep_cells(labels, (labels[w] for w, f in enumerate(outside) if f == "1"))


def _believes(
    labels: Sequence[int], ranks: Sequence[int], inside: int, condition: int, size: int
) -> int:
    # The most plausible condition-worlds of each cell must all lie in [[phi]]; a
    # cell with no condition-world believes everything (vacuously).
    where = members(condition, size)
    best: dict[int, int] = {}
    for w, flag in enumerate(where):
        if flag == "1":
            label, rank = labels[w], ranks[w]
            if rank < best.get(label, rank + 1):
                best[label] = rank
    flags = members(inside, size)
    bad = (
        labels[w]
        for w, flag in enumerate(where)
        if flag == "1" and ranks[w] == best[labels[w]] and flags[w] == "0"
    )
    return _keep_cells(labels, bad)


def _is_bitset_over(model: PlausibilityModel, mask: int) -> bool:
    return 0 <= mask <= everything(model)


@icontract.ensure(lambda model, result: _is_bitset_over(model, result), "[[phi]] is a subset of W")
def truth_set(model: PlausibilityModel, formula: Formula) -> int:
    """[[formula]] in ``model``: bit w set iff the formula holds at the world stored at w.

    Materialises an implicit model.  The formula's atoms and agents must be
    in the model (see :func:`check_formula`).

    Examples
    --------
    >>> from gcv.reference.epistemic.model import build_model
    >>> from gcv.reference.epistemic.formula import parse
    >>> m = build_model(["a", "b"], ["p"], observes={"a": ["p"]})
    >>> bin(truth_set(m, parse("K[a] p"))), bin(truth_set(m, parse("K[b] p | K[b] ~p")))
    ('0b10', '0b0')
    """
    explicit = model.explicit()
    memo: dict[int, int] = {}
    return _evaluate(explicit, formula, memo)


def _evaluate(model: PlausibilityModel, formula: Formula, memo: dict[int, int]) -> int:
    # Subformulas are shared values, so memoise by identity within one evaluation.
    key = id(formula)
    if key in memo:
        return memo[key]
    size, full = model.size, everything(model)
    result: int
    match formula:
        case Const(value):
            result = full if value else 0
        case Atom(name):
            result = model.atom_extension(name)
        case Not(body):
            result = full & ~_evaluate(model, body, memo)
        case And(parts):
            result = full
            for part in parts:
                result &= _evaluate(model, part, memo)
        case Or(parts):
            result = 0
            for part in parts:
                result |= _evaluate(model, part, memo)
        case Implies(left, right):
            result = (full & ~_evaluate(model, left, memo)) | _evaluate(model, right, memo)
        case Iff(left, right):
            result = full & ~(_evaluate(model, left, memo) ^ _evaluate(model, right, memo))
        case Knows(agent, body):
            result = _knows(model.cells(agent), _evaluate(model, body, memo), size)
        case Believes(agent, body):
            result = _believes(
                model.cells(agent), model.ranks(agent), _evaluate(model, body, memo), full, size
            )
        case CondBelieves(agent, body, condition):
            result = _believes(
                model.cells(agent),
                model.ranks(agent),
                _evaluate(model, body, memo),
                _evaluate(model, condition, memo),
                size,
            )
        case Everybody(group, body):
            inside = _evaluate(model, body, memo)
            result = full
            for agent in group:
                result &= _knows(model.cells(agent), inside, size)
        case Common(group, body):
            labels = model.component_labels(frozenset(group))
            result = _knows(labels, _evaluate(model, body, memo), size)
        case Aware(agent, body):
            # A_i(w) is the same at every world: true everywhere or nowhere.
            result = full if atoms_of(body) <= model.awareness[agent] else 0
        case Explicit(agent, body):
            aware = atoms_of(body) <= model.awareness[agent]
            result = _knows(model.cells(agent), _evaluate(model, body, memo), size) if aware else 0
        case _:
            raise AssertionError(f"unknown formula {formula!r}")
    memo[key] = result
    return result


@icontract.ensure(
    lambda result: result is None or isinstance(result, PreconditionViolation),
    "a violation is reported as a typed PreconditionViolation, never raised",
)
def check_formula(
    model: PlausibilityModel,
    formula: Formula,
    field: str = "formula",
    *,
    also: Iterable[str] = (),
) -> PreconditionViolation | None:
    """The first reason ``formula`` cannot be evaluated in ``model``: an unknown agent or atom.

    ``also`` are atoms about to join Prop_t (they count as known).

    >>> from gcv.reference.epistemic.formula import parse
    >>> check_formula(PlausibilityModel.implicit(["a"], ["p"]), parse("K[b] q")).code
    'unknown-agent'
    """
    unknown_agents = sorted(agents_of(formula) - set(model.agents))
    if unknown_agents:
        return UnknownAgent(f"the formula names agents {unknown_agents} not in Ags", field=field)
    unknown_atoms = sorted(atoms_of(formula) - set(model.atoms) - set(also))
    if unknown_atoms:
        return UnknownAtom(f"the formula names atoms {unknown_atoms} not in Prop_t", field=field)
    return None


@icontract.require(
    lambda model, formula: check_formula(model, formula) is None,
    "the formula is over Ags and Prop_t",
    enabled=icontract.SLOW,
)
def holds_everywhere(model: PlausibilityModel, formula: Formula) -> bool:
    """M |= phi: the formula holds at every world of W.

    >>> from gcv.reference.epistemic.formula import parse
    >>> holds_everywhere(PlausibilityModel.implicit(["a"], ["p"]), parse("p | ~p"))
    True
    """
    return truth_set(model, formula) == everything(model)


def _strictly_before(model: PlausibilityModel, agent: AgentId, better: int, worse: int) -> bool:
    # Within every cell, the worst better-world must rank strictly below the best worse-world.
    labels, ranks = model.cells(agent), model.ranks(agent)
    size = model.size
    high: dict[int, int] = {}
    for w, flag in enumerate(members(better, size)):
        if flag == "1":
            high[labels[w]] = max(high.get(labels[w], ranks[w]), ranks[w])
    return all(
        ranks[w] > high[labels[w]]
        for w, flag in enumerate(members(worse, size))
        if flag == "1" and labels[w] in high
    )


@icontract.require(lambda layers: len(layers) >= 2, "an ordering compares at least two layers")
def is_ordered(model: PlausibilityModel, agent: AgentId, layers: Sequence[Formula]) -> bool:
    """Whether agent i's plausibility puts the layers in order, each non-empty.

    True iff every layer holds somewhere in W, and for k < l every world of
    layer k is strictly more plausible (w <_i v) than every world of layer l in
    the same cell.  B.2 prints orderings this way, e.g. after T7:
    w_{h1 & ~h2} <_i w_{~h1 & ~h2} <_i w_{h1 & h2} <_i w_{~h1 & h2}.

    >>> from gcv.reference.epistemic.formula import parse
    >>> from gcv.reference.epistemic.model import build_model
    >>> m = build_model(["a"], ["p"], ranks={"a": [(["p"], 0), ([], 1)]})
    >>> is_ordered(m, "a", [parse("p"), parse("~p")]), is_ordered(m, "a", [parse("~p"), parse("p")])
    (True, False)
    """
    sets = [truth_set(model, layer) for layer in layers]
    if not all(sets):
        return False
    # Strict precedence is transitive within a cell, so consecutive layers suffice
    # only when every layer is non-empty in the cells concerned; compare all pairs.
    return all(
        _strictly_before(model, agent, sets[k], sets[m])
        for k in range(len(sets))
        for m in range(k + 1, len(sets))
    )
