"""Engines that make a chosen clause's paper-compatible alternative, one reading each.

Each entry of :data:`READINGS` patches the reference, for as long as its context lasts,
so that it reads one chosen clause of ``spec/gcv/spec/transition.py`` another way the papers allow
(the clause's ``alternative``; spec/gcv/spec/normative.md).  :data:`ALTERNATIVES` holds each
clause's first reading, under the clause's id; a clause whose alternative names two
readings has its second in :data:`READINGS` too, as ``CLAUSE:READING``.  The patches
compose: each wraps whatever the patched name holds when it is entered, so
:func:`all_alternatives` is an implementation making every first reading at once.

A reading can also be *probed* (:meth:`Reading.probe`): the reference then behaves as
itself, and the reading notes (:func:`tracking`) where it would have decided otherwise.
Made, it notes where it did.  A reading that never decides otherwise on a conversation
cannot change an answer of it, made or not: that is how the vectors' generator keeps the
combinations of readings it tries small (:mod:`gcv.conformance.cases.blame`).  A reading's
own bookkeeping (the issue ids of ``T3.question.issue-ids-apart``) is kept in both modes,
so a conversation probed up to some step can go on with the reading made.

The machinery a reading is built from is :mod:`~gcv.conformance.alternatives.patching`;
the readings themselves are grouped by what their clauses are about (``commitments``,
``error_order``, ``queries``, ``turns``, ``preconditions``, ``epistemic``); this module
holds the table of them.  The package imports only the reference and its protocol session.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager

from gcv.conformance.alternatives.commitments import (
    consensus_commits_only_the_speaker,
    existing_evidence_commits_nobody,
    hypothesis_commits_speaker,
    revise_keeps_commitments,
)
from gcv.conformance.alternatives.epistemic import (
    empty_announcement_ignored,
    expansion_prefers_the_atom_false,
    own_formula_only,
    remembering,
    solution_read_in_the_current_model,
    solution_read_in_the_model_as_it_arose,
    surprise_read_before_the_turn,
    switch_ignored,
    unknown_agent_malformed,
)
from gcv.conformance.alternatives.error_order import (
    epistemic_before_table,
    fields_last_first,
    first_failing_as_written,
    registration_before_self_reference,
    speaker_before_form,
    speaker_checked_last,
)
from gcv.conformance.alternatives.patching import (
    HOMES,
    Patch,
    Reading,
    Tracker,
    after_apply,
    before_apply,
    cited_field,
    clause_of,
    each,
    table_row,
    together,
    tracking,
)
from gcv.conformance.alternatives.preconditions import (
    decision_fields_anywhere,
    dissenting_speaker_accepted,
    evidence_always_new,
    evidence_may_be_target,
    existing_evidence_with_dependencies,
    expansion_of_nothing_accepted,
    form_relaxed,
    is_blank,
    kind_merged,
    known_atoms_not_introduced,
    one_namespace,
    premises_outside_dep,
    self_citation_accepted,
    support_of_s_t_only,
)
from gcv.conformance.alternatives.queries import unregistered_record_answers_empty
from gcv.conformance.alternatives.turns import (
    ORDERS,
    empty_list_as_given,
    every_utterance_numbered,
    fixed_order,
    later_decision_replaces_dissent,
    no_operations_refused,
    observations_one_after_another,
    reversed_within_kind,
)
from gcv.reference.operations import Revise, Undermine
from gcv.reference.records import Kind, Standing

__all__ = [
    "ALTERNATIVES",
    "HOMES",
    "ORDERS",
    "READINGS",
    "Reading",
    "Tracker",
    "all_alternatives",
    "clause_of",
    "readings",
    "remembering",
    "tracking",
]

_PATCHES: dict[str, Patch] = {
    "turn.speaker-checked-first": speaker_checked_last,
    "turn.well-formed-first": speaker_before_form,
    "query.record-registered": unregistered_record_answers_empty,
    "turn.numbering": every_utterance_numbered,
    "turn.no-operations": no_operations_refused,
    **{name: fixed_order(order) for name, order in ORDERS.items()},
    "order.within-kind-as-written": reversed_within_kind(),
    "order.first-failing-operation": first_failing_as_written,
    "order.simultaneous-observations": observations_one_after_another,
    "order.fields": fields_last_first(),
    "order.cited-record-checks": registration_before_self_reference(),
    "order.epistemic-after-table": epistemic_before_table,
    "T3.cite.not-self": self_citation_accepted(),
    "T3.register.depends-on-any-standing": each(
        cited_field("depends_on", in_good_standing=True),
        cited_field("evidence_depends_on", in_good_standing=True),
    ),
    "T3.evidence.not-target": evidence_may_be_target(),
    "T3.evidence.existing-in-good-standing": evidence_always_new(),
    "T3.evidence.existing-commits-speaker": after_apply(existing_evidence_commits_nobody),
    "T3.expand-awareness.changes-something": before_apply(expansion_of_nothing_accepted),
    "del.expand-awareness.copies-equally-plausible": expansion_prefers_the_atom_false(),
    "T3.observe.kind": kind_merged(Kind.PREMISE, Kind.OBSERVATION),
    "T3.hypothesize.kind": kind_merged(Kind.POSITION, Kind.HYPOTHESIS),
    "T3.hypothesize.no-commitment": after_apply(hypothesis_commits_speaker),
    "T3.hypothesize.introduces-new-atoms": before_apply(known_atoms_not_introduced),
    "del.hypothesize.solves": solution_read_in_the_current_model(),
    "del.hypothesize.solves:as-it-arose": solution_read_in_the_model_as_it_arose(),
    "T3.support.target-standing": table_row("support", target_standing=frozenset(Standing)),
    "T3.support.target-standing:s-t": support_of_s_t_only(),
    "del.undermine.conservative": switch_ignored(Undermine, downgrade="lexicographic"),
    "T3.revise.attackers-in-good-standing": cited_field("attackers", in_good_standing=False),
    "T3.revise.retracts-commitment": revise_keeps_commitments,
    "del.revise.announce": switch_ignored(Revise, announce=None),
    "T3.resolve.subsumes-any-standing": cited_field("subsumes", in_good_standing=True),
    "T3.resolve.premises-in-good-standing": cited_field("premises", in_good_standing=False),
    "T3.resolve.premises-join-dep": before_apply(premises_outside_dep),
    "T3.resolve.dissenter-not-speaker": dissenting_speaker_accepted(),
    "T3.resolve.commitments": after_apply(consensus_commits_only_the_speaker),
    "T3.resolve.dissent-accumulates": after_apply(later_decision_replaces_dissent),
    "form.empty-list-as-absent": empty_list_as_given(),
    "T3.resolve.decision-fields": decision_fields_anywhere,
    "form.claim-not-blank": form_relaxed("check_claim", is_blank),
    "form.evidence-depends-on-needs-claim": form_relaxed(
        "check_evidence_dependencies", existing_evidence_with_dependencies
    ),
    "del.formula.agents-in-ags": unknown_agent_malformed(),
    "del.formula.own-else-target": own_formula_only(),
    "del.announcement.some-world-survives": empty_announcement_ignored,
    "del.observe.poses-problems": surprise_read_before_the_turn,
    "T3.question.issue-ids-apart": one_namespace,
}

READINGS: dict[str, Reading] = {name: Reading(name, patch) for name, patch in _PATCHES.items()}
"""Every reading, by name: each chosen clause's first under the clause's id, a further one
as ``CLAUSE:READING``, in the order they are entered (which is how they compose)."""

ALTERNATIVES: dict[str, Reading] = {
    name: reading for name, reading in READINGS.items() if ":" not in name
}
"""Chosen clause id -> a context in which the reference makes its first alternative."""


def readings(made: Sequence[str] = (), probed: Sequence[str] = ()) -> AbstractContextManager[None]:
    """The reference making the readings ``made`` and probing ``probed`` (names of
    :data:`READINGS`), entered in :data:`READINGS`'s order whatever the order given."""
    making, probing = set(made), set(probed)
    chosen = [
        (lambda r=r: r()) if r.name in making else (lambda r=r: r.probe())
        for r in READINGS.values()
        if r.name in making or r.name in probing
    ]
    return together(*chosen)


def all_alternatives() -> AbstractContextManager[None]:
    """The reference making every alternative of :data:`ALTERNATIVES` at once."""
    return readings(made=list(ALTERNATIVES))
