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
from dataclasses import dataclass

import z3

from gcv.proofs.decode import Decoded, decode_map, decode_members, decode_record
from gcv.proofs.encode import REC, EncodedState, conflict_free, good, well_formed
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import CheckResult, prove
from gcv.spec import core, retraction

__all__ = ["OBLIGATION"]

_x, _y, _z = z3.Consts("x y z", REC)

Removed = Callable[[z3.ExprRef], z3.BoolRef]


def _survivor(s: EncodedState, removed: Removed) -> Callable[[z3.ExprRef], z3.BoolRef]:
    return lambda a: z3.And(s.ex[a], good(s.st[a]), z3.Not(removed(a)))


def conclusions(s: EncodedState, removed: Removed, beta: z3.ExprRef) -> dict[str, z3.BoolRef]:
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


def _one_step(s: EncodedState, beta: z3.ExprRef) -> Removed:
    return lambda a: z3.Or(a == beta, s.dep[a, beta])


@dataclass(frozen=True)
class Closure:
    """R*'s Affected*(beta) as the engine computes it, and Corollary 2.4's path predicate.

    ``path(x)``: x has a non-empty Dep path to beta (its two defining axioms and, for
    ``star``, its induction rule).  ``star``: the engine's result, a set containing
    Affected(beta), closed under the X_k step, and least (inside every such set; here
    instantiated for ``path``).  That ``gcv.reference.closure.reverse_closure`` returns such a
    set is the ``definition-2.3`` obligation."""

    path: z3.FuncDeclRef
    star: z3.ArrayRef
    nearer: z3.ArrayRef
    length: z3.ArrayRef

    @staticmethod
    def fresh() -> Closure:
        return Closure(
            z3.Function("path", REC, z3.BoolSort()),
            z3.Array("affected_star", REC, z3.BoolSort()),
            z3.Array("nearer", REC, REC),
            z3.Array("length", REC, z3.IntSort()),
        )

    def path_axioms(self, s: EncodedState, beta: z3.ExprRef) -> list[z3.BoolRef]:
        """Closed under the step, and every record with a path has a shortest one: a link
        into beta, or a link to a record with a path one step shorter (true of the real
        predicate; it makes ``path`` exact in every finite model, so twins decode)."""
        nearer, length = self.nearer, self.length
        witnessed = z3.ForAll(
            [_y],
            z3.Implies(
                self.path(_y),
                z3.Or(
                    s.dep[_y, beta],
                    z3.And(
                        self.path(nearer[_y]),
                        s.dep[_y, nearer[_y]],
                        length[nearer[_y]] < length[_y],
                        length[nearer[_y]] >= 0,
                    ),
                ),
            ),
        )
        return [*_closed_under_step(s, beta, lambda a: self.path(a)), witnessed]

    def path_least(self, s: EncodedState, beta: z3.ExprRef) -> z3.BoolRef:
        """Every closed set contains the records with a path: here, ``star``."""
        star = self.star
        closed = z3.And(_closed_under_step(s, beta, lambda a: star[a]))
        return z3.Implies(closed, z3.ForAll([_y], z3.Implies(self.path(_y), star[_y])))

    def star_closed(self, s: EncodedState, beta: z3.ExprRef) -> list[z3.BoolRef]:
        return _closed_under_step(s, beta, lambda a: self.star[a])

    def star_least(self) -> z3.BoolRef:
        """The engine's set lies inside every closed set: here, the path predicate."""
        return z3.ForAll([_y], z3.Implies(self.star[_y], self.path(_y)))


def _closed_under_step(s: EncodedState, beta: z3.ExprRef, member: Removed) -> list[z3.BoolRef]:
    return [
        z3.ForAll([_y], z3.Implies(s.dep[_y, beta], member(_y))),
        z3.ForAll([_x, _y], z3.Implies(z3.And(s.dep[_y, _x], member(_x)), member(_y))),
    ]


def _hypotheses(s: EncodedState, beta: z3.ExprRef) -> dict[str, z3.BoolRef]:
    return {
        "well-formed": well_formed(s),
        "Lemma 2.2": conflict_free(s),
        "beta registered": s.ex[beta],
        "beta outside S_t": z3.Not(good(s.st[beta])),
    }


def checks(budget: Budget) -> list[Check]:
    s, beta = EncodedState.fresh("s"), z3.Const("beta", REC)
    ms = budget.timeout_ms
    out = [
        Check(
            f"Proposition 2.3: {name}", prove([*_hypotheses(s, beta).values()], goal, timeout_ms=ms)
        )
        for name, goal in conclusions(s, _one_step(s, beta), beta).items()
    ]
    out += [Check(f"Corollary 2.4: {name}", result) for name, result in _corollary(budget).items()]
    return out


def _corollary_goals(
    s: EncodedState, beta: z3.ExprRef, c: Closure
) -> dict[str, tuple[list[z3.BoolRef], z3.BoolRef]]:
    """Corollary 2.4's conclusions about R* = {beta} | star, each with its hypotheses."""
    survivor = _survivor(s, lambda a: z3.Or(a == beta, c.star[a]))
    base = [*_hypotheses(s, beta).values(), *c.path_axioms(s, beta)]
    preserved = z3.ForAll(
        [_x], z3.Implies(z3.And(s.ex[_x], good(s.st[_x]), z3.Not(c.path(_x))), survivor(_x))
    )
    removed = z3.ForAll([_x], z3.Implies(c.path(_x), c.star[_x]))
    return {
        "every member of S_t with no Dep path to beta survives": (
            [*base, *c.star_closed(s, beta), c.star_least()],
            preserved,
        ),
        "R* holds every record with a Dep path to beta": (
            [*base, *c.star_closed(s, beta), c.path_least(s, beta), c.star_least()],
            removed,
        ),
    }


def _corollary(budget: Budget) -> dict[str, CheckResult]:
    s, beta, c = EncodedState.fresh("s"), z3.Const("beta", REC), Closure.fresh()
    return {
        name: prove(hypotheses, goal, timeout_ms=budget.timeout_ms)
        for name, (hypotheses, goal) in _corollary_goals(s, beta, c).items()
    }


def _corollary_twin(dropped: str, conclusion: str, budget: Budget, wrongly_removed: bool) -> Twin:
    """Corollary 2.4 without one property of the engine's set: confirmed when the spec's
    Affected*(beta) and the decoded removed set disagree on a record the conclusion is about
    (a member of S_t outside the spec's set removed, or a record inside it kept)."""
    s, beta, c = EncodedState.fresh("s"), z3.Const("beta", REC), Closure.fresh()
    hypotheses, goal = _corollary_goals(s, beta, c)[conclusion]
    drop = {"leastness": c.star_least(), "closure": c.star_closed(s, beta)[1]}[dropped]
    name = f"Corollary 2.4 without the {dropped} of Affected*"
    result = prove([h for h in hypotheses if not h.eq(drop)], goal, timeout_ms=budget.timeout_ms)
    if result.model is None:
        return Twin(name, result)
    d = Decoded(result.model)
    m, b = decode_map(d, s), decode_record(d, beta)
    star, spec_star = decode_members(d, c.star) & m.args, core.compute_affected_star(m, b)
    wrong = (star - spec_star) & core.get_active_set(m) if wrongly_removed else spec_star - star
    text = (
        f"withdrawing {b}: removes {sorted(star)}, the spec's Affected*({b}) = {sorted(spec_star)}"
    )
    return Twin(name, result, text, bool(wrong))


def _twin(
    dropped: str,
    conclusion: str,
    confirm: Callable[[core.DependencyMap, str], bool],
    budget: Budget,
) -> Twin:
    s, beta = EncodedState.fresh("s"), z3.Const("beta", REC)
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
        _corollary_twin(
            "leastness", "every member of S_t with no Dep path to beta survives", budget, True
        ),
        _corollary_twin("closure", "R* holds every record with a Dep path to beta", budget, False),
    ]


OBLIGATION = Obligation(
    id="proposition-2.3",
    statement="Proposition 2.3 / Corollary 2.4: removing beta and its (transitive) dependents "
    "leaves S_t conflict-free and admissible, and preserves every independent member",
    bound=lambda budget: "unbounded",
    checks=checks,
    twins=twins,
)
