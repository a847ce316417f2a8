"""Hypothesize(gamma): a new active record, no commitment; [up-up gamma].

Mirrors ``process_hypothesize`` of ``spec/transition.py``.  The atoms it introduces
join Prop_t first; gamma is then checked against the open abductive problems
(Definition A.2) and upgraded.
"""

from __future__ import annotations

import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic.abduction import close_problems
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.updates import expand
from gcv.reference.errors import DuplicateAtom, PreconditionViolation
from gcv.reference.identifiers import AgentId
from gcv.reference.operations import Hypothesize
from gcv.reference.rules.row import Registration, Rule

__all__ = ["ROW", "apply", "find_epistemic_violation", "find_violation", "realisation"]

ROW = Rule(registers=Registration.ALWAYS)


def find_violation(op: Hypothesize, view: StateView) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``, or ``None``."""
    # T3.register.id-new, then T3.cite.* over depends_on (T3.register.depends-on-any-standing)
    return shared.registering(view, op.id, op.depends_on)


def find_epistemic_violation(
    op: Hypothesize, model: PlausibilityModel
) -> PreconditionViolation | None:
    """The first epistemic clause ``op`` breaks in ``model``, or ``None``."""
    # T3.hypothesize.introduces-new-atoms
    for atom in op.introduces:
        if atom in model.atoms:
            return DuplicateAtom(f"atom {atom!r} is already in Prop_t", field="introduces")
    return shared.formula_violation(model, op.formula, also=op.introduces)


def realisation(op: Hypothesize) -> shared.Realisation:
    """del.hypothesize: "[up-up gamma] (soft lexicographic upgrade)"."""
    return shared.Realisation(shared.Update.LEXICOGRAPHIC_UPGRADE)


def apply(dmap: DependencyMap, op: Hypothesize, speaker: AgentId) -> None:
    """Register the hypothesis (T3.hypothesize.no-commitment: nobody commits), then its
    effect on M_t."""
    # T3.register.new-active, T3.register.dep; T3.hypothesize.kind: the kind the trace gives
    shared.register(dmap, op.id, op.claim, op.kind, speaker, op.depends_on, op.formula)
    if not op.introduces and op.formula is None:
        return
    state = dmap.epistemic
    model = state.model
    # del.hypothesize.introduces: the new atoms join Prop_t and every A_i first.
    for atom in op.introduces:
        model = expand(model, atom)
    problems = state.problems
    if op.formula is not None:
        # del.hypothesize.solves (Definition A.2), read before gamma's upgrade.
        problems = close_problems(
            problems, model, op.formula, op.id, dmap.standing, literal=dmap.literal_abduction
        )
        model = shared.realise(model, realisation(op), op.formula)
    dmap.replace_epistemic(EpistemicState(model, problems))
