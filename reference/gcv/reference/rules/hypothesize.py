"""Hypothesize(gamma): a new active record, no commitment; [up-up gamma].

Mirrors ``process_hypothesize`` of ``spec/gcv/spec/transition.py``.  The atoms it introduces
join Prop_t first; gamma is then checked against the open abductive problems
(Definition A.2) and upgraded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

import gcv.reference.rules.form as form
import gcv.reference.rules.shared as shared
from gcv.reference.depmap import DependencyMap, StateView
from gcv.reference.epistemic.abduction import close_problems
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.updates import expand
from gcv.reference.errors import DuplicateAtom, PreconditionViolation
from gcv.reference.identifiers import AgentId
from gcv.reference.records import Kind
from gcv.reference.rules.rule import Registration, Row, Rule, formula_violation

__all__ = ["HYPOTHESIZE", "Hypothesize", "realisation"]


@dataclass(frozen=True, slots=True, repr=False)
class Hypothesize:
    """Hypothesize: register a hypothesis gamma as a new active record (DEL: [up-up gamma]).

    ``kind`` is ``hypothesis`` or ``position`` (an IBIS position, "adopt P_n").
    ``depends_on`` are the records it rests on.  No commitment is made.
    ``formula`` is gamma; ``introduces`` are the new atoms gamma brings into
    Prop_t (B.2's integration step: Prop_5 = Prop_4 + {h1, rate_bypass}), every
    agent becoming aware of them, before gamma is checked against the open
    abductive problems and upgraded.
    """

    name: ClassVar[str] = "hypothesize"
    __repr__ = form.show
    id: form.Identifier
    claim: form.Claim
    kind: Annotated[Kind, form.Kinds(Kind.HYPOTHESIS, Kind.POSITION)] = Kind.HYPOTHESIS
    depends_on: form.Identifiers = ()
    formula: Annotated[
        form.OptionalFormula,
        form.Described("gamma: checked against the open abductive problems, then [up-up gamma]."),
    ] = None
    introduces: Annotated[
        form.Atoms,
        form.Described("New atoms gamma brings into Prop_t; every agent becomes aware of them."),
    ] = ()

    def __post_init__(self) -> None:
        form.check_fields(self)


def preconditions(
    op: Hypothesize, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
    """The first clause of Table 3 ``op`` breaks in ``view``, or ``None``."""
    # T3.register.id-new, then T3.cite.* over depends_on (T3.register.depends-on-any-standing)
    return shared.registering(view, op.id, op.depends_on)


def epistemic(
    op: Hypothesize, view: StateView, speaker: AgentId, row: Row
) -> PreconditionViolation | None:
    """The first clause on M_t ``op`` breaks in ``view``, or ``None``."""
    # T3.hypothesize.introduces-new-atoms
    if op.introduces:
        assert view.model is not None, "Prop_t is M_t's, and this view carries none"
        for atom in op.introduces:
            if atom in view.model.atoms:
                return DuplicateAtom(f"atom {atom!r} is already in Prop_t", field="introduces")
    return formula_violation(view, op.formula, also=op.introduces)


def realisation(op: Hypothesize) -> shared.Realisation:
    """del.hypothesize: "[up-up gamma] (soft lexicographic upgrade)"."""
    return shared.Realisation(shared.Update.LEXICOGRAPHIC_UPGRADE)


def effect(op: Hypothesize, dmap: DependencyMap, speaker: AgentId, row: Row) -> None:
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


HYPOTHESIZE = Rule(
    value=Hypothesize,
    row=Row(registers=Registration.ALWAYS),
    preconditions=preconditions,
    epistemic=epistemic,
    effect=effect,
    realisation=realisation,
)
