"""Proposition 2.3 and Corollary 2.4 (selective retraction), unbounded.

For a map satisfying Lemma 2.2 (with the well-formedness it is proved with) and a
withdrawn premise beta outside S_t: with R = {beta} | Affected(beta), the
survivors S' = S_t minus R are conflict-free and admissible in AF_t|R, and every
member of S_t without a direct Dep link to beta survives.  The same with
R* = {beta} | Affected*(beta), where Affected* is any set containing Affected(beta)
and closed under the X_k step (Definition 2.3; the least such set is the one
proved exact in ``affected.py``).  That some preferred extension of AF_t|R
contains S' follows from admissibility by Dung's theorem (Dung 1995, Theorem 11:
every admissible set is contained in a preferred extension) and is cited, not
encoded.
"""

from __future__ import annotations

from collections.abc import Callable

import z3

from proofs.decode import Decoded, decode_map, decode_record
from proofs.encode import REC, State, conflict_free, good, well_formed
from proofs.registry import Budget, Check, Obligation, Twin
from proofs.solver import prove
from spec import core, retraction

__all__ = ["OBLIGATION"]

_x, _y, _z = z3.Consts("x y z", REC)

Removed = Callable[[z3.ExprRef], z3.BoolRef]


def _survivor(s: State, removed: Removed) -> Callable[[z3.ExprRef], z3.BoolRef]:
    return lambda a: z3.And(s.ex[a], good(s.st[a]), z3.Not(removed(a)))


def conclusions(s: State, removed: Removed, beta: z3.ExprRef) -> dict[str, z3.BoolRef]:
    """The proposition's conclusions for the removed set ``removed``."""
    survivor = _survivor(s, removed)

    def kept(a: z3.ExprRef) -> z3.BoolRef:  # Args of AF|R
        return z3.And(s.ex[a], z3.Not(removed(a)))

    conflict_free_survivors = z3.ForAll(
        [_x, _y], z3.Implies(z3.And(survivor(_x), survivor(_y)), z3.Not(s.att[_x, _y]))
    )
    defended = z3.ForAll(
        [_x, _y],
        z3.Implies(
            z3.And(survivor(_x), kept(_y), s.att[_y, _x]),
            z3.Exists([_z], z3.And(survivor(_z), s.att[_z, _y])),
        ),
    )
    return {
        "S' is conflict-free in AF|R": conflict_free_survivors,
        "S' is admissible in AF|R": z3.And(conflict_free_survivors, defended),
        "members of S_t not resting on beta survive": z3.ForAll(
            [_x],
            z3.Implies(
                z3.And(s.ex[_x], good(s.st[_x]), z3.Not(s.dep[_x, beta])),
                survivor(_x),
            ),
        ),
    }


def _one_step(s: State, beta: z3.ExprRef) -> Removed:
    return lambda a: z3.Or(a == beta, s.dep[a, beta])


def _closure_axioms(s: State, beta: z3.ExprRef, star: z3.FuncDeclRef) -> list[z3.BoolRef]:
    return [
        z3.ForAll([_y], z3.Implies(s.dep[_y, beta], star(_y))),
        z3.ForAll([_x, _y], z3.Implies(z3.And(s.dep[_y, _x], star(_x)), star(_y))),
    ]


def _hypotheses(s: State, beta: z3.ExprRef) -> dict[str, z3.BoolRef]:
    return {
        "well-formed": well_formed(s),
        "Lemma 2.2": conflict_free(s),
        "beta registered": s.ex[beta],
        "beta outside S_t": z3.Not(good(s.st[beta])),
    }


def checks(budget: Budget) -> list[Check]:
    s, beta = State.fresh("s"), z3.Const("beta", REC)
    star = z3.Function("affected_star", REC, z3.BoolSort())
    ms = budget.timeout_ms
    out = [
        Check(
            f"Proposition 2.3: {name}", prove([*_hypotheses(s, beta).values()], goal, timeout_ms=ms)
        )
        for name, goal in conclusions(s, _one_step(s, beta), beta).items()
    ]
    closure: Removed = lambda a: z3.Or(a == beta, star(a))  # noqa: E731
    survivor = _survivor(s, closure)
    hypotheses = [*_hypotheses(s, beta).values(), *_closure_axioms(s, beta, star)]
    out.append(
        Check(
            "Corollary 2.4: S_t minus R* is conflict-free in AF|R*",
            prove(
                hypotheses,
                conclusions(s, closure, beta)["S' is conflict-free in AF|R"],
                timeout_ms=ms,
            ),
        )
    )
    out.append(
        Check(
            "Corollary 2.4: members of S_t with no Dep path to beta survive",
            prove(
                hypotheses,
                z3.ForAll(
                    [_x],
                    z3.Implies(z3.And(s.ex[_x], good(s.st[_x]), z3.Not(star(_x))), survivor(_x)),
                ),
                timeout_ms=ms,
            ),
        )
    )
    return out


def _twin(
    dropped: str,
    conclusion: str,
    confirm: Callable[[core.DependencyMap, str], bool],
    budget: Budget,
) -> Twin:
    s, beta = State.fresh("s"), z3.Const("beta", REC)
    goal = conclusions(s, _one_step(s, beta), beta)[conclusion]
    kept = [h for name, h in _hypotheses(s, beta).items() if name != dropped]
    name = f"without {dropped}"
    result = prove(kept, goal, timeout_ms=budget.timeout_ms)
    if result.model is None:
        return Twin(name, result)
    d = Decoded(result.model)
    m, b = decode_map(d, s), decode_record(d, beta)
    return Twin(name, result, f"withdrawing {b} from {sorted(m.args)}", confirm(m, b))


def twins(budget: Budget) -> list[Twin]:
    def conflicting(m: core.DependencyMap, b: str) -> bool:
        removed = retraction.compute_one_step_removal(m, b)
        return not retraction.is_survivor_set_conflict_free(m, removed)

    def lost(m: core.DependencyMap, b: str) -> bool:
        removed = retraction.compute_one_step_removal(m, b)
        active = core.get_active_set(m)
        independent = {a for a in active if (a, b) not in m.dep}
        return not independent <= active - removed

    return [
        _twin("Lemma 2.2", "S' is conflict-free in AF|R", conflicting, budget),
        _twin("beta outside S_t", "members of S_t not resting on beta survive", lost, budget),
    ]


OBLIGATION = Obligation(
    id="proposition-2.3",
    statement="Proposition 2.3 / Corollary 2.4: removing beta and its (transitive) dependents "
    "leaves S_t conflict-free and admissible, and preserves every independent member",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=twins,
)
