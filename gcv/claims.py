"""The papers' checkable statements, each with where it is implemented and what checks it.

Every Definition, Lemma, Proposition and Corollary of the core paper, the outcomes of
its Phases, its efficiency claims, and the statements of the two spec modules have a
stable id here.  ``gcv paper`` prints the registry and writes ``docs/paper-map.md``;
``tests/test_paper.py`` fails when a statement has no check or names a test, proof
obligation, vector or benchmark that does not exist.

A status says how far the statement is checked, with one meaning each (:data:`MEANING`, printed
in docs/paper-map.md); ``gcv paper --check`` fails on a claim whose status lacks the reason or
the kind of check its meaning requires.

The reproduction labels mean the same wherever they are printed: ``gcv audit lineage``
prints each figure with its claim's status from here.  :data:`NUMBERED` lists the papers'
numbered items (definitions, lemmas, propositions, corollaries, theorems, examples, tables,
algorithms, figures, the restrictions (A1)-(A3)); ``gcv paper`` fails when one has no claim,
and ``tests/test_paper_items.py`` compares the list with what ``gcv.paper_items`` extracts
from the papers' text.

Whole, at about 1,600 lines: it is one registry, and most of it (six in seven lines) is the
table :data:`CLAIMS`, one row per statement in the papers' order; the few definitions above
it (the statuses and their meanings, :class:`Claim`, the numbered items) are what a row is
read with. Split by paper or by section, a reader checking a status against :data:`MEANING`
would open several files, and ``gcv paper`` would join them back in one order.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

__all__ = [
    "CITED_ONLY",
    "CLAIMS",
    "MEANING",
    "NEEDS_REASON",
    "NUMBERED",
    "PAPERS",
    "Claim",
    "Status",
    "is_registered",
]

PAPERS = {
    "core": "Grounded Continuation: A Linear-Time Runtime Verifier for LLM Conversations",
    "lineage": "Replication or Corroboration? An Axiomatic Framework for Evidential "
    "Dependence in Multi-Agent Debate (source-linked summary)",
    "gossip": "Epistemic-Probabilistic Model for Guarded Multi-Agent LLM Coordination (EPLA)",
}


class Status(enum.Enum):
    """How far a statement is checked."""

    PROVED_UNBOUNDED = "proved unbounded"
    PROVED_BOUNDED = "proved to a bound"
    TESTED = "tested"
    CHECKED = "checked"
    REPRODUCED = "reproduced"
    CONSISTENT_UNDER_INFERRED_READING = "consistent under an inferred reading"
    NOT_REPRODUCED = "not reproduced"
    REPRODUCED_ON_GENERATED_DATA = "reproduced on generated data"
    MEASURED = "measured"
    NOT_APPLICABLE = "not applicable"


MEANING: dict[Status, str] = {
    Status.PROVED_UNBOUNDED: "a Z3 obligation proves it for maps of every size, within the "
    "scope the statement names; what the obligation cites rather than encodes is listed as "
    "cited",
    Status.PROVED_BOUNDED: "a Z3 obligation proves it for every map up to a size",
    Status.TESTED: "property or example tests check the reference against the spec on it (the "
    "claim names an object of each)",
    Status.CHECKED: "tests check one implementation of it (a spec module that has no reference "
    "layer, or the engine or a tool alone) against values worked by hand, an independent "
    "computation in the tests or a property the paper states; no second implementation in "
    "the package is compared",
    Status.REPRODUCED: "a figure or outcome of the paper is computed, by the paper's method on "
    "the paper's data (or on what the paper states in full), and matches; a test or vector "
    "checks it; a scenario's reproduction names the encoding choices it rests on",
    Status.REPRODUCED_ON_GENERATED_DATA: "only where the paper's data cannot be had: run as "
    "the paper describes it, on seeded data generated to the data's described shape, and "
    "checked by a test or vector; the reason names what was generated and what it shows",
    Status.CONSISTENT_UNDER_INFERRED_READING: "it matches only under a reading, grid or "
    "parameter the paper does not state, inferred from its text or its reported figures; the "
    "reason names what was inferred",
    Status.NOT_REPRODUCED: "the paper's figure is not obtained: computed by the paper's "
    "method it does not match, or it cannot be computed here; the reason gives the closest "
    "value or what is missing",
    Status.MEASURED: "a benchmark prints figures, on generated data, consistent with it; a "
    "benchmark cannot fail, so this is neither a test nor a proof; the reason says what the "
    "figures show",
    Status.NOT_APPLICABLE: "nothing here can check it; the reason says why",
}
"""What each status word means: the one definition, printed in docs/paper-map.md and enforced
by ``gcv paper`` (:func:`gcv.paper.find_problems`)."""


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a paper.

    ``implemented_in`` names Python objects (``module.attribute``); ``tests`` names test
    functions (``tests/file.py::test_name``); ``obligations`` names proof obligations by
    id; ``vectors`` names conformance-vector ids (glob patterns allowed);
    ``benchmarks`` names benchmark scripts.  ``reason`` is required for every status that
    is not a full check (:data:`NEEDS_REASON`); ``encoding`` names the choices a scenario's
    reproduction rests on (how the paper's prose became operations and formulas);
    ``cites`` names the results a proof cites rather than encodes.
    """

    id: str
    paper: str
    label: str
    statement: str
    status: Status
    implemented_in: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    obligations: tuple[str, ...] = ()
    vectors: tuple[str, ...] = ()
    benchmarks: tuple[str, ...] = ()
    reason: str = ""
    encoding: str = ""
    cites: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise ValueError(f"{self.id}: unknown paper {self.paper!r}")
        if not self.reason and self.status in NEEDS_REASON:
            raise ValueError(f"{self.id}: a status short of a full check says why (reason=)")


NEEDS_REASON = frozenset(
    {
        Status.CONSISTENT_UNDER_INFERRED_READING,
        Status.NOT_REPRODUCED,
        Status.REPRODUCED_ON_GENERATED_DATA,
        Status.MEASURED,
        Status.NOT_APPLICABLE,
    }
)
"""The statuses whose claim must say why (what was inferred, the closest value, what is missing)."""

NUMBERED: dict[str, tuple[str, ...]] = {
    "core": (
        "Figure 1",
        "Definition 2.1",
        "Figure 2",
        "Lemma 2.1",
        "Lemma 2.2",
        "Proposition 2.3",
        "Definition 2.3",
        "Corollary 2.4",
        "Proposition 2.5",
        "(A1)",
        "(A2)",
        "(A3)",
        "Definition A.1",
        "Definition A.2",
        "Definition A.3",
        "Algorithm 1",
        "Table 1",
        "Table 2",
        "Figure 3",
        "Figure 4",
        "Table 3",
        "Table 4",
        "Figure 5",
    ),
    "gossip": (
        "Figure 1",
        "Definition 3.1",
        "Definition 3.2",
        "Definition 3.3",
        "Definition 3.4",
        "Definition 3.5",
        "Proposition 4.1",
        "Example 4.2",
        "Definition 5.1",
        "Lemma 5.2",
        "Lemma 5.3",
        "Theorem 5.4",
        "Definition 6.1",
        "Lemma 6.2",
        "Theorem 7.1",
    ),
    "lineage": ("Proposition 4", "Theorem 6", "Figure 2", "Table 2", "Table 3"),
}
"""Each paper's numbered items, in paper order, as the papers' text numbers them."""

CITED_ONLY: dict[str, dict[str, str]] = {
    "core": {
        "Lemma 2.3": 'cited once ("Lemmas 2.2 and 2.3", Section 4); no Lemma 2.3 is stated, and '
        "the guarantee meant is Proposition 2.3's",
    },
    "gossip": {
        "Remark 5.5": "cited, but the remark's text is not in the source",
        "Remark 7.2": "cited, but the remark's text is not in the source",
    },
}
"""Numbered items the papers' text cites but does not state, with why no claim names them."""


def is_registered(item: str, label: str) -> bool:
    """Check if the numbered ``item`` ("Lemma 2.1", "(A2)") is named by a claim ``label``.

    The kind may be plural in the label ("Definitions 3.3 and 3.5"); the number must stand
    alone, so "Table 2" is not named by "Section 7.2" nor "Proposition 4" by "Proposition
    4.1", except for a subfigure's letter ("Figure 4" is named by "Figure 4a,b").
    """
    kind, _, number = item.rpartition(" ")
    if not kind:
        return item in label
    return (
        kind in label
        and re.search(rf"(?<![\w.]){re.escape(number)}(?!\.?\d)(?![A-Za-z]{{2}}|[A-Za-z]\.)", label)
        is not None
    )


def _t(file: str, name: str) -> str:
    """A test function's node id."""
    return f"tests/{file}::{name}"


CLAIMS: tuple[Claim, ...] = (
    # -- the core paper, Section 2 ------------------------------------------------
    Claim(
        "core.def-2.1",
        "core",
        "Definition 2.1",
        "D_t = (M, AF, Cm, Dep) with standing labels; S_t = the arguments labelled "
        "active or resolved",
        Status.TESTED,
        implemented_in=(
            "gcv.spec.core.DependencyMap",
            "gcv.spec.core.get_active_set",
            "gcv.reference.depmap.DependencyMap",
            "gcv.reference.records.GOOD_STANDING",
        ),
        tests=(_t("test_operations.py", "test_random_turns_keep_every_invariant"),),
    ),
    Claim(
        "core.runtime-check",
        "core",
        "Section 2, the runtime check",
        "a candidate is grounded iff every argument of Dep*(alpha_c) belongs to S_t; "
        "a candidate with no associated record is ungrounded",
        Status.TESTED,
        implemented_in=("gcv.spec.core.is_grounded", "gcv.reference.verifier.Verifier.verify"),
        tests=(
            _t("test_closure.py", "test_walk_accepts_exactly_when_the_closure_is_in_good_standing"),
            _t("test_operations.py", "test_unknown_records_in_queries_are_typed_errors"),
        ),
        vectors=("core/queries/verify-*",),
    ),
    Claim(
        "core.lemma-2.1",
        "core",
        "Lemma 2.1",
        "the walk accepts iff Dep*(alpha_c) is inside S_t, and on acceptance returns "
        "exactly this dependency closure (proved unbounded for the walk with its worklist "
        "abstracted to a set: partial correctness by lemma-2.1, termination by "
        "worklist-once, each record entering the worklist once with every pop counted, the "
        "bound |Args_t| by pigeonhole; the unrolled walk to a bound; and by walk-loops for "
        "an encoding of dependency_walk and _path_to from entry to return, over the "
        "code's own state: accepting with exactly Dep*(alpha_c), each record once, or "
        "rejecting with a witness outside S_t and a Dep path to it, each loop with a "
        "decreasing measure; the encoding is tied to the whole functions by syntax tree, "
        "not derived from them)",
        Status.PROVED_UNBOUNDED,
        implemented_in=("gcv.reference.closure.dependency_walk",),
        tests=(
            _t("test_closure.py", "test_accepted_walk_returns_exactly_dep_star"),
            _t(
                "test_closure.py",
                "test_rejected_walk_gives_a_shortest_path_to_a_record_outside_s_t",
            ),
            _t("test_proofs_walk_loop.py", "test_the_encoded_functions_are_the_codes"),
        ),
        obligations=("lemma-2.1", "worklist-once", "lemma-2.1-bounded", "walk-loops"),
        vectors=(
            "core/queries/verify-*",
            "findings/proofs/lemma-2.1-*",
        ),
    ),
    Claim(
        "core.lemma-2.2",
        "core",
        "Lemma 2.2",
        "under the operation preconditions of Table 3, no argument of S_t is the target "
        "of an attack; S_t is conflict-free at every turn",
        Status.PROVED_UNBOUNDED,
        implemented_in=("gcv.spec.core.is_conflict_free_map", "gcv.reference.operations.ORDER"),
        tests=(
            _t("test_operations.py", "test_random_turns_keep_every_invariant"),
            _t("test_scenarios.py", "test_reference_agrees_with_spec_after_every_turn"),
            _t("test_proofs_tied.py", "test_encoding_and_engine_agree_step_by_step"),
        ),
        obligations=("lemma-2.2", "composition"),
        vectors=("core/queries/conflict-free-after-attacks",),
    ),
    Claim(
        "core.no-return",
        "core",
        "Section 2 (proof of Lemma 2.2)",
        "no operation moves a weakened or abandoned argument back into S_t",
        Status.PROVED_UNBOUNDED,
        implemented_in=("gcv.reference.verifier.keeps_out_of_standing_out",),
        tests=(_t("test_operations.py", "test_random_turns_keep_every_invariant"),),
        obligations=("no-return", "abandoned-final"),
    ),
    Claim(
        "core.table-3",
        "core",
        "Table 3 and Algorithm 1",
        "each operation's preconditions (Table 3) and its per-operation rule (Algorithm 1, "
        "described in prose only), as spec/gcv/spec/normative.md completes the prose",
        Status.TESTED,
        implemented_in=(
            "gcv.spec.transition.process_turn",
            "gcv.spec.clauses.CLAUSES",
            "gcv.reference.operations.ORDER",
            "gcv.reference.apply.find_violation",
            "gcv.reference.apply.apply_operation",
        ),
        tests=(
            _t(
                "test_operations.py",
                "test_rejection_names_the_operation_field_and_record_and_changes_nothing",
            ),
            _t("test_operations.py", "test_every_operation_but_question_has_a_rejection_row"),
            _t("test_proofs_tied.py", "test_encoding_and_engine_agree_step_by_step"),
            _t("test_transition.py", "test_every_scenario_turn_is_the_spec_transition"),
            _t(
                "test_transition.py",
                "test_generated_multi_operation_turns_are_the_spec_transition",
            ),
            _t("test_transition.py", "test_every_clause_has_one_normative_entry_with_its_source"),
        ),
        obligations=("table-3",),
        vectors=(
            "core/operations/*",
            "core/preconditions/*",
            "core/wellformed/*",
        ),
    ),
    Claim(
        "core.fixed-order",
        "core",
        "Section 2, per-turn composition",
        "the engine applies a turn's operation instances in a fixed order, composed "
        "into one per-turn transition (all or none)",
        Status.TESTED,
        implemented_in=(
            "gcv.spec.transition.ORDER",
            "gcv.reference.operations.ORDER",
            "gcv.reference.verifier.Verifier.apply_turn",
        ),
        tests=(
            _t("test_operations.py", "test_operations_apply_in_the_fixed_order_not_as_written"),
            _t("test_transition.py", "test_turns_whose_operations_interact"),
            _t(
                "test_operations.py",
                "test_rejection_names_the_operation_field_and_record_and_changes_nothing",
            ),
        ),
        vectors=("core/turns/*",),
    ),
    Claim(
        "core.prop-2.3",
        "core",
        "Proposition 2.3",
        "with beta withdrawn and R = {beta} | Affected(beta), S_t minus R is "
        "conflict-free and admissible in AF_t|R, and every member of S_t not resting directly "
        "on beta is preserved (proved unbounded); that some preferred extension contains it "
        "follows by Dung's Theorem 11, cited, not proved here",
        Status.PROVED_UNBOUNDED,
        implemented_in=("gcv.spec.retraction.is_selective_retraction_sound",),
        tests=(_t("test_retraction.py", "test_selective_retraction_is_sound"),),
        obligations=("proposition-2.3",),
        vectors=("core/queries/selective-retraction",),
        cites=(
            "Dung 1995, Theorem 11: every admissible set is contained in a preferred "
            "extension (the proposition-2.3 obligation cites it, not encodes it)",
        ),
    ),
    Claim(
        "core.def-2.3",
        "core",
        "Definition 2.3",
        "Affected(beta), the X_k sequence and Affected*(beta) = the union of the X_k, "
        "records out of standing included",
        Status.PROVED_UNBOUNDED,
        implemented_in=(
            "gcv.spec.core.compute_affected",
            "gcv.spec.core.compute_affected_iteration",
            "gcv.spec.core.compute_affected_star",
            "gcv.reference.closure.reverse_closure",
        ),
        tests=(_t("test_closure.py", "test_affected_star_is_the_union_of_the_x_k"),),
        obligations=("definition-2.3", "closure-loops", "definition-2.3-bounded"),
        vectors=(
            "core/queries/affected-*",
            "core/queries/cycle-by-*",
            "findings/proofs/definition-2.3-*",
        ),
    ),
    Claim(
        "core.def-2.3.rounds",
        "core",
        "Definition 2.3 (stabilisation)",
        "the sequence X_k stabilises within |Args_t| rounds",
        Status.PROVED_UNBOUNDED,
        implemented_in=("gcv.spec.core.compute_affected_iteration",),
        tests=(
            _t("test_closure.py", "test_x_k_stabilises_within_args_rounds"),
            _t("test_closure.py", "test_the_stabilisation_bound_is_reached_by_a_chain"),
        ),
        obligations=("definition-2.3-rounds", "definition-2.3-bounded"),
    ),
    Claim(
        "core.cor-2.4",
        "core",
        "Corollary 2.4",
        "Affected*(beta) contains exactly the arguments with a non-empty recorded "
        "dependency path to beta; removing R* keeps S_t conflict-free and preserves "
        "every argument with no such path",
        Status.PROVED_UNBOUNDED,
        implemented_in=(
            "gcv.spec.core.has_dependency_path",
            "gcv.spec.retraction.is_closure_retraction_sound",
        ),
        tests=(
            _t("test_closure.py", "test_affected_star_is_reverse_reachability_by_a_nonempty_path"),
            _t("test_retraction.py", "test_one_step_removal_can_miss_indirect_dependents"),
        ),
        obligations=("definition-2.3", "proposition-2.3"),
        cites=(
            "Dung 1995, Theorem 11, cited by the proposition-2.3 obligation for Proposition "
            "2.3's preferred extension; this statement does not rest on it",
        ),
    ),
    Claim(
        "core.prop-2.5.queries",
        "core",
        "Proposition 2.5 (queries)",
        "Verify and Affected* take O(|Args_t| + |Dep_t|) time over a maintained reverse "
        "index, Affected* O(1 + |Affected*(beta)| + m_beta)",
        Status.MEASURED,
        implemented_in=(
            "gcv.reference.closure.dependency_walk",
            "gcv.reference.closure.reverse_closure",
        ),
        obligations=("worklist-once",),
        benchmarks=("tests/benchmarks/bench_queries.py",),
        reason=(
            "measured by a benchmark, not tested: it generates maps of growing size (the paper's "
            "states of 13-2000 turns cannot be had) and prints time per visited record, flat as "
            "|Args_t| + |Dep_t| grows; a measurement consistent with the bound, not a proof of "
            "it (the worklist-once obligation proves each record enters the walk's worklist once)"
        ),
    ),
    # -- the core paper, the epistemic model M_t (Appendix A.1, Definitions A.1-A.3) --------
    Claim(
        "core.def-a.1",
        "core",
        "Definition A.1 and its Convention",
        "an epistemic plausibility model has a non-empty W, per agent a reflexive, "
        "transitive, locally connected preorder <=_i and a valuation; i knows phi at w iff "
        "phi holds throughout w's ~_i-cell, and believes phi iff phi holds at the "
        "<=_i-minimal worlds of the cell (Baltag-Smets reading)",
        Status.TESTED,
        implemented_in=(
            "gcv.spec.epistemic.is_plausibility_model",
            "gcv.spec.epistemic.is_true",
            "gcv.reference.epistemic.model.PlausibilityModel",
            "gcv.reference.epistemic.semantics.truth_set",
        ),
        tests=(
            _t("epistemic/test_agreement.py", "test_random_models_are_plausibility_models"),
            _t("epistemic/test_agreement.py", "test_truth_agrees_on_random_models_and_formulas"),
            _t("epistemic/test_agreement.py", "test_an_implicit_model_is_its_materialisation"),
            _t("test_machine_epistemic.py", "test_the_epistemic_machine"),
        ),
        vectors=(
            "epistemic/queries/*",
            "scenarios/phase1-muddy-children/*",
        ),
    ),
    Claim(
        "core.a.1.updates",
        "core",
        "Appendix A.1, Updates",
        "[!psi] eliminates every world outside [[psi]]; [up-up psi] makes every psi-world "
        "strictly more plausible than every ~psi-world, keeping the order within each side; "
        "[up psi] promotes the most plausible psi-worlds, keeping every other comparison",
        Status.TESTED,
        implemented_in=(
            "gcv.spec.epistemic.process_announcement",
            "gcv.spec.epistemic.process_lexicographic_upgrade",
            "gcv.spec.epistemic.process_conservative_upgrade",
            "gcv.reference.epistemic.updates.announce",
            "gcv.reference.epistemic.updates.lexicographic_upgrade",
            "gcv.reference.epistemic.updates.conservative_upgrade",
        ),
        tests=(
            _t("epistemic/test_agreement.py", "test_models_and_truth_agree_after_random_updates"),
            _t(
                "epistemic/test_updates.py",
                "test_lexicographic_upgrade_puts_psi_first_and_keeps_each_side_in_order",
            ),
            _t(
                "epistemic/test_updates.py",
                "test_the_agreement_check_catches_an_upgrade_that_forgets_the_order",
            ),
            _t("test_machine_epistemic.py", "test_the_epistemic_machine"),
            _t("test_machine_epistemic.py", "test_the_epistemic_machine_catches_a_broken_engine"),
        ),
        vectors=(
            "epistemic/operations/observe-*",
            "epistemic/operations/hypothesize-upgrades",
            "epistemic/operations/support-*",
            "epistemic/operations/undermine-*",
            "epistemic/operations/revise-*",
            "epistemic/operations/resolve-*",
            "epistemic/preconditions/*-no-surviving-world",
        ),
    ),
    Claim(
        "core.a.1.updates.closed",
        "core",
        "Definition A.1 under the updates",
        "[!psi] (psi true at some world), [up-up psi], [up psi], the downgrades and "
        "awareness expansion, public or to a group, map an epistemic plausibility model to "
        "one (proved unbounded in |W|, for two agents, one in the update's group and one "
        "outside it, by an encoding of A.1 and of each update over an uninterpreted sort of "
        "worlds; not proved for three or more agents; tied to the reference by evaluating the "
        "same definitions on every model of up to three worlds and two agents)",
        Status.PROVED_UNBOUNDED,
        implemented_in=(
            "gcv.reference.epistemic.updates.announce",
            "gcv.reference.epistemic.updates.lexicographic_upgrade",
            "gcv.reference.epistemic.updates.conservative_upgrade",
            "gcv.reference.epistemic.updates.downgrade",
            "gcv.reference.epistemic.updates.expand",
        ),
        tests=(
            _t("test_proofs_plausibility.py", "test_the_encoded_update_is_the_engines"),
            _t("test_proofs_plausibility.py", "test_the_tie_catches_an_upgrade_across_cells"),
        ),
        obligations=("definition-a.1-updates",),
    ),
    Claim(
        "core.def-a.2",
        "core",
        "Definition A.2",
        "gamma solves the abductive problem (B_i, chi) iff it is consistent (M does not "
        "satisfy B_i ~gamma), explanatory (M[up-up gamma] satisfies B_i chi) and non-trivial "
        "(gamma != chi, M does not satisfy B_i gamma, gamma != true); implemented under two "
        "readings of the explanatory M, each reference reading tested against the same spec "
        "reading: M_chi^t, the problem's model with what was learned since (the engine's "
        "default, spec/gcv/spec/normative.md del.hypothesize.solves), and M_t, the one M of all "
        "three conditions as the definition writes it (literal_abduction=True)",
        Status.TESTED,
        implemented_in=(
            "gcv.spec.epistemic.is_abductive_solution",
            "gcv.reference.epistemic.abduction.check_solution",
        ),
        tests=(
            _t("epistemic/test_abduction.py", "test_the_abduction_check_agrees_with_the_spec"),
            _t("epistemic/test_abduction.py", "test_b2_t5_h1_solves_o7_but_not_o8"),
            _t(
                "epistemic/test_abduction.py",
                "test_a_problem_reopens_when_its_solution_leaves_s_t_and_a_later_one_closes_it",
            ),
        ),
        vectors=(
            "epistemic/operations/observe-poses-abductive-problems",
            "epistemic/operations/hypothesize-solves-a-problem",
            "epistemic/operations/question-queues-a-problem",
            "scenarios/phase2-epistemic/*",
        ),
    ),
    Claim(
        "core.def-a.3",
        "core",
        "Definition A.3",
        "an awareness structure adds A_i; A_i phi iff phi is in A_i(w); X_i phi iff K_i phi "
        "and A_i phi; awareness expansion adds to A_i and splits each world into copies that "
        "differ on the new proposition",
        Status.TESTED,
        implemented_in=(
            "gcv.spec.epistemic.process_awareness_expansion",
            "gcv.reference.epistemic.updates.expand",
        ),
        tests=(
            _t("epistemic/test_agreement.py", "test_truth_agrees_on_random_models_and_formulas"),
            _t(
                "epistemic/test_updates.py",
                "test_expansion_splits_every_world_and_keeps_cells_and_ranks",
            ),
            _t("test_machine_epistemic.py", "test_the_epistemic_machine"),
        ),
        vectors=(
            "epistemic/operations/expand-awareness-*",
            "epistemic/operations/hypothesize-introduces-atoms",
            "epistemic/queries/declared-model",
        ),
    ),
    Claim(
        "core.del-table",
        "core",
        "Section 2's operation table and Table 3 (DEL realisations)",
        "Observe [!psi]; Hypothesize [up-up gamma]; Support [up gamma], or [up-up gamma] with "
        "gamma-specific evidence; Undermine a downgrade of gamma; Revise [!~gamma] or an "
        "attack; Expand-Awareness adds p and refines W; Resolve consensual [!gamma] or a "
        "decision; Question queues chi; applied in the same atomic turn as the argumentation "
        "effect",
        Status.TESTED,
        implemented_in=(
            "gcv.reference.operations.realisation",
            "gcv.reference.apply.apply_operation",
            "gcv.spec.epistemic.DEL_REALISATIONS",
            "gcv.spec.transition.realisation",
        ),
        tests=(
            _t("epistemic/test_operations.py", "test_the_del_table_is_the_papers"),
            _t(
                "epistemic/test_operations.py",
                "test_random_conversations_with_formulas_agree_with_the_spec",
            ),
            _t(
                "epistemic/test_operations.py",
                "test_bad_epistemic_input_is_refused_and_leaves_d_t_unchanged",
            ),
            _t("test_machine_epistemic.py", "test_the_epistemic_machine"),
        ),
        vectors=(
            "epistemic/operations/*",
            "epistemic/preconditions/*",
        ),
    ),
    Claim(
        "core.prop-2.5.restrictions",
        "core",
        "Proposition 2.5, restrictions (A1), (A2) and (A3)",
        "the scenarios satisfy (A1) at most 12 agents, (A2) an acyclic attack graph and (A3) "
        "an explicit finite world set W for M_t",
        Status.CHECKED,
        implemented_in=("gcv.reference.verifier.Verifier.worlds",),
        tests=(
            _t("test_scenarios.py", "test_the_scenarios_satisfy_a1_a2_and_a3"),
            _t("test_restrictions.py", "test_an_acyclic_check_that_can_fail"),
        ),
    ),
    Claim(
        "core.prop-2.5.standing",
        "core",
        "Proposition 2.5 (standing updates)",
        "O(1) per standing update: an operation writes its target's label and no other",
        Status.CHECKED,
        implemented_in=("gcv.reference.depmap.DependencyMap",),
        tests=(
            _t(
                "test_restrictions.py",
                "test_a_standing_update_writes_one_label_whatever_the_map_size",
            ),
        ),
    ),
    Claim(
        "core.prop-2.5.acyclic",
        "core",
        "Proposition 2.5 (proof: acyclic attack graphs)",
        "when Att is acyclic, the grounded, complete, preferred and stable semantics yield the "
        "same unique extension, computable in O(|Args| + |Att|) by topological processing",
        Status.CHECKED,
        implemented_in=(
            "gcv.spec.dung.is_acyclic",
            "gcv.spec.dung.compute_acyclic_grounded_extension",
        ),
        tests=(
            _t(
                "test_dung.py",
                "test_on_every_acyclic_framework_of_up_to_three_arguments_the_semantics_collapse",
            ),
            _t(
                "test_dung.py",
                "test_on_every_acyclic_framework_of_five_arguments_the_semantics_collapse",
            ),
            _t("test_dung.py", "test_slow_every_acyclic_framework_collapses"),
            _t("test_dung.py", "test_a_cycle_breaks_the_collapse"),
        ),
    ),
    Claim(
        "core.prop-2.5.updates",
        "core",
        "Proposition 2.5 (updates)",
        "under (A3) a hard announcement costs O(|W|) and a soft upgrade O(|W| log |W|)",
        Status.MEASURED,
        implemented_in=(
            "gcv.reference.epistemic.updates.announce",
            "gcv.reference.epistemic.updates.lexicographic_upgrade",
        ),
        benchmarks=("tests/benchmarks/bench_epistemic.py",),
        reason=(
            "measured by a benchmark, not tested: it generates world sets of growing size (the "
            "paper's models cannot be had) and prints the cost of an announcement and of an "
            "upgrade against |W| and |W| log |W|; a measurement consistent with the bound, not "
            "a proof of it"
        ),
    ),
    Claim(
        "core.phase-1",
        "core",
        "Appendix B.1 (Phase 1) and Figure 5",
        "the muddy children: M0 has 8 worlds, the father's announcement leaves 7, the three "
        "'I don't know' answers 4, the round-2 answers (what each child knows) MMC, and Carol "
        "deduces she is clean from Alice's and Bob's answers, with B.1's knowledge facts at "
        "each step; with k of n children muddy, the muddy ones first know in round k and the "
        "clean ones in round k + 1",
        Status.REPRODUCED,
        implemented_in=("gcv.replay.replay", "gcv.spec.epistemic.compute_muddy_children_model"),
        tests=(
            _t("test_scenarios.py", "test_the_scenario_labels_each_turn_as_the_paper_does"),
            _t(
                "test_scenarios.py",
                "test_phase1_each_answer_is_what_its_child_did_not_know_in_m1",
            ),
            _t(
                "epistemic/test_muddy_children.py",
                "test_the_phase1_trace_replays_with_every_expectation",
            ),
            _t("epistemic/test_muddy_children.py", "test_m0_is_b1s_model"),
            _t(
                "epistemic/test_muddy_children.py",
                "test_the_muddy_know_in_round_k_and_the_clean_in_round_k_plus_1",
            ),
            _t(
                "epistemic/test_muddy_children.py",
                "test_answers_that_state_knowledge_let_carol_deduce_she_is_clean",
            ),
        ),
        vectors=("scenarios/phase1-muddy-children/*",),
        encoding="M0 declared, each child seeing the other two foreheads and the father all "
        "three; the father's sentence an Observe of m_a | m_b | m_c; the three 'I don't know' "
        "an Observe each, in B.1's order, with the effect of simultaneous answers: Alice's as "
        "her formula ~K[a] m_a & ~K[a] ~m_a, Bob's and Carol's as the sets of worlds where "
        "theirs held in M1, written over the atoms (m_a | m_c, m_a | m_b; a test checks each "
        "against its formula in M1); the round-2 answers consensual Resolves of each child's "
        "own round-1 record announcing what the child knows (K[a] m_a, K[b] m_b, K[c] ~m_c)",
    ),
    Claim(
        "core.phase-2.epistemic",
        "core",
        "Appendix B.2 (Phase 2, the symbolic model)",
        "mis_monitor is outside every A_i until T4 and inside after; h1-worlds are upgraded "
        "after T5; the orderings printed after T6 and T7; after T7 every agent believes ~h2 "
        "but does not know it; after T9 every agent knows ~h2; after T12 every h4-world "
        "precedes every ~h4-world",
        Status.REPRODUCED,
        implemented_in=("gcv.replay.replay",),
        tests=(
            _t("epistemic/test_phase2.py", "test_every_expectation_holds"),
            _t("epistemic/test_phase2.py", "test_the_epistemic_trace_is_phase_2_with_formulas"),
            _t(
                "epistemic/test_phase2.py",
                "test_h2_is_believed_false_after_t7_and_known_false_after_t9_for_every_agent",
            ),
        ),
        vectors=("scenarios/phase2-epistemic/*",),
        encoding="each observation announces one of B.2's observable atoms (o4 p_auth | p_pay, "
        "o8 and o8' p_redis, o9 p_tok); a hypothesis is its atom conjoined with its chain read "
        "materially: h1 read as gamma_1 = h1 & (p_redis -> rate_bypass) & (rate_bypass -> "
        "p_stripe429), h2 as h2 & (p_redis -> p_auth), h3 and h4 positing tok_bug; every "
        "update public; T7's Undermine [up-up ~gamma_2], T9's Revise [!~gamma_2], T12's Revise "
        "the attack (h4, h2) alone, T13's Resolve consensual [!gamma_4]; the turns, records and "
        "Dep links of phase2-debugging",
    ),
    Claim(
        "core.phase-2.abduction",
        "core",
        "Appendix B.2 (Phase 2, the abductive steps)",
        "of B.2's statements about abductive problems, those the engine's default reading "
        "keeps: o1, o6 and o8 pose problems for every agent and o7 one for Bob; h1 answers o7 "
        "(T5), h2 := (p_redis -> p_auth) o1 (T6), h3 o6 (T11), h4 o8 (T12); o6 is open from "
        "T2 to T10 and explained after T11; after T5 o7 is explained and o1 and o8 are not; "
        "after T6 o1 and o7 are explained and o6 is not; after T9 o1, o5 and o6 are "
        "unexplained; o7 is explained after T11",
        Status.CONSISTENT_UNDER_INFERRED_READING,
        implemented_in=(
            "gcv.reference.epistemic.abduction.close_problems",
            "gcv.spec.abduction_readings.CHOSEN",
            "gcv.spec.abduction_statements.STATEMENTS",
        ),
        tests=(
            _t("epistemic/test_phase2.py", "test_every_expectation_holds"),
            _t(
                "epistemic/test_phase2.py", "test_the_engines_queue_is_the_oracles_after_every_turn"
            ),
            _t(
                "epistemic/test_readings.py",
                "test_the_engines_readings_leave_open_what_the_oracles_queue_leaves_open",
            ),
            _t(
                "epistemic/test_readings.py",
                "test_the_generated_section_of_docs_epistemic_is_current",
            ),
            _t("epistemic/test_readings.py", "test_each_statement_is_b2s_words"),
            _t(
                "epistemic/test_abduction.py",
                "test_both_readings_agree_with_the_spec_on_phase_2_where_it_affords",
            ),
            _t("epistemic/test_abduction.py", "test_b2_t5_h1_solves_o7_but_not_o8"),
            _t(
                "epistemic/test_abduction.py",
                "test_b2_t6_h2_answers_o1_with_what_was_learned_since_but_not_o8",
            ),
        ),
        vectors=("scenarios/phase2-epistemic/replay",),
        reason="inferred: the explanatory check reads M_chi^t, the model the problem arose in "
        "with what was learned since (spec/gcv/spec/normative.md, del.hypothesize.solves), not "
        "Definition A.2's one M; of B.2's 28 statements this reading keeps 23 of 28, as many "
        "as any reading of the family docs/epistemic.md states (gcv audit readings); the "
        "literal reading (M_t, literal_abduction) keeps 16",
        encoding="core.phase-2.epistemic's",
    ),
    Claim(
        "core.phase-2.explained",
        "core",
        "Appendix B.2 (Phase 2, what is explained)",
        "all of B.2's 28 statements about which problems are posed and answered and which "
        "observations are explained, together (T6's 'Observations explained by h1 & h2: o1, "
        "o2, o7, o8. Remaining unexplained: o6', T9's 'Observations now unexplained: o1, o5, "
        "o6' and T12's 'h1 & h3 & h4 ... explaining all observations' included)",
        Status.NOT_REPRODUCED,
        implemented_in=(
            "gcv.audits.readings.compute_table",
            "gcv.audits.readings.compute_minimum_conflicts",
            "gcv.audits.readings.search",
        ),
        tests=(
            _t(
                "epistemic/test_readings.py",
                "test_the_generated_section_of_docs_epistemic_is_current",
            ),
            _t("epistemic/test_readings.py", "test_each_conflict_is_minimal_and_none_is_smaller"),
            _t("epistemic/test_readings.py", "test_each_statement_is_b2s_words"),
            _t("epistemic/test_readings.py", "test_each_value_quotes_the_paper"),
            _t("epistemic/test_readings.py", "test_cells_worked_by_hand"),
        ),
        reason="no reading keeps them all: under each of the 3,456 readings of the family "
        "docs/epistemic.md states (nine dimensions, each value grounded in the paper's words; "
        "gcv audit readings), some statement fails. The smallest sets no reading keeps "
        "together are 37 pairs, each checked minimal: one of 'o2 explained after T6', T6's "
        "and T9's lists as the whole, and 'nothing open after T13', which only M_t satisfies "
        "(no hypothesis's formula mentions p_pay, p_db or p_tok, no Dep link reaches o2 or "
        "o3), with one of nine statements M_t breaks (o6 open T2-T10, o1 and o8 open after "
        "T5, o6 open after T6, o1, o5 and o6 after T9, o6 after T10: under M_t h1 explains "
        "every problem at T5); and 'o8 open after T5' with 'o8 explained after T6'. The "
        "default reading keeps 23 of 28, the literal 16",
        encoding="core.phase-2.epistemic's; B.2's sentences read as one statement per "
        "observation named, and a list given as the whole ('Remaining unexplained', "
        "'Observations now unexplained') as one more, that nothing else is open",
    ),
    Claim(
        "core.dung",
        "core",
        "Section 2, Preliminaries (Dung 1995)",
        "conflict-free, admissible and preferred sets of an argumentation framework",
        Status.CHECKED,
        implemented_in=(
            "gcv.spec.dung.compute_preferred_extensions",
            "gcv.spec.dung.is_admissible",
        ),
        tests=(
            _t("test_dung.py", "test_preferred_extensions_agree"),
            _t("test_dung.py", "test_admissible_sets_agree"),
        ),
    ),
    Claim(
        "core.renderer",
        "core",
        "Section 3 and Figure 2, the context renderer",
        "the renderer flags an ungrounded continuation: 'decision alpha no longer "
        "grounded; affected by retraction of a3; depends on a1, a2'",
        Status.REPRODUCED,
        implemented_in=(
            "gcv.reference.render.render_grounding",
            "gcv.reference.render.render_turn",
        ),
        tests=(
            _t("test_scenarios.py", "test_phase3_renderer_flags_the_decision_in_the_papers_words"),
        ),
    ),
    Claim(
        "core.loop",
        "core",
        "Section 3, Figure 2",
        "the verifier runs as a loop between an LLM Interpreter, the engine and the context "
        "renderer, which writes the changed state into the LLM's context; a candidate "
        "continuation is checked before it is used (gcv mcp: the loop as tools for an agent)",
        Status.CHECKED,
        implemented_in=(
            "gcv.agent.tools.call_tool",
            "gcv.agent.server.build_server",
        ),
        tests=(
            _t("test_mcp.py", "test_phase2_in_process_agrees_with_replay"),
            _t(
                "test_mcp.py",
                "test_explain_names_the_attack_the_revision_and_the_withdrawn_premise",
            ),
        ),
    ),
    Claim(
        "core.interpreter",
        "core",
        "Section 3, the LLM Interpreter",
        "for each utterance the Interpreter classifies it into the eight operations and extracts "
        "their arguments; the engine applies the extracted operations (native arm: the trace's "
        "own operations; end-to-end arm: a model's, validated, all or none)",
        Status.CHECKED,
        implemented_in=(
            "gcv.interpret.native.NativeInterpreter",
            "gcv.interpret.llm.LLMInterpreter",
            "gcv.interpret.validate.read_reply",
            "gcv.interpret.turn.interpret_turn",
        ),
        tests=(
            _t("interpret/test_validate.py", "test_a_reply_is_applied_whole_or_not_at_all"),
            _t("interpret/test_client.py", "test_a_turn_travels_to_the_endpoint_and_back"),
        ),
    ),
    Claim(
        "core.table-2",
        "core",
        "Table 2 and Section 4.3 (prompt ablation)",
        "classification is scored by multi-label F1 and exact match, overall and on the key "
        "shifts (as core.phase-2.key-shifts reads them), under the Minimal, Definitions and "
        "State-augmented prompt conditions",
        Status.NOT_REPRODUCED,
        implemented_in=(
            "gcv.interpret.evaluate.evaluate",
            "gcv.interpret.metrics.score",
            "gcv.interpret.prompts.build_messages",
        ),
        tests=(
            _t(
                "interpret/test_evaluate.py",
                "test_the_native_interpreter_reproduces_the_gold_labels",
            ),
            _t("interpret/test_evaluate.py", "test_perturbed_labels_score_as_counted_by_hand"),
            _t(
                "interpret/test_evaluate.py",
                "test_phase2_key_shifts_are_the_standing_and_awareness_changes_of_b2",
            ),
        ),
        reason=(
            "no per-model figure is reproduced: they need the paper's unpublished prompts and "
            "hosted models; the harness, the three conditions and the native arm (F1 1.0) run "
            "(gcv interpret-eval measures any local model)"
        ),
    ),
    Claim(
        "core.phase-2.key-shifts",
        "core",
        "Table 2, Section 4 and Appendix B.2 (the key shifts)",
        "Table 2 scores Phase 2's classification overall and on its key shifts",
        Status.CONSISTENT_UNDER_INFERRED_READING,
        implemented_in=("gcv.interpret.evaluate.is_key_shift",),
        tests=(
            _t(
                "interpret/test_evaluate.py",
                "test_phase2_key_shifts_are_the_standing_and_awareness_changes_of_b2",
            ),
            _t("interpret/test_evaluate.py", "test_a_key_shift_is_read_off_the_engines_journal"),
        ),
        reason="inferred: the paper defines them (Section 4, Models and metrics: 'each "
        "scenario's key shifts, the turns at which standing or awareness changes'); read with "
        "a newly registered record not counted as a standing change (it enters active and no "
        "label moves; counted, nearly every turn would be one), they are T4, T7, T9 and T13. "
        "B.2 uses the words otherwise: its 'key shifts' are h1's upgrade after T5, h2's "
        "downgrade at T7 and elimination at T9, mis_monitor entering every A_i at T4 and only "
        "h4-worlds after T13, and it names 'the two key epistemic shifts at T7-T9 ... and T12' "
        "(T12: 'Why this is the key epistemic shift'); T5 changes plausibility only, and T12's "
        "Revise leaves h2 abandoned, as it was, so neither is a key shift by Section 4's words",
    ),
    Claim(
        "core.table-4",
        "core",
        "Table 4 (Phase 3 classification)",
        "Phase 3 (19 turns) classification under the Definitions condition, F1 and exact "
        "match over 5 runs per cell",
        Status.NOT_REPRODUCED,
        implemented_in=("gcv.interpret.runs.repeat", "gcv.interpret.runs.spread"),
        tests=(
            _t(
                "interpret/test_runs.py",
                "test_table_4_phase_3_under_definitions_with_the_native_arm",
            ),
            _t(
                "interpret/test_runs.py",
                "test_a_gold_run_and_the_perturbed_run_give_the_hand_counted_spread",
            ),
        ),
        reason=(
            "no per-model figure is reproduced: they need the paper's unpublished prompts and "
            "hosted models; the protocol (N runs per cell, mean and sample deviation, tokens per "
            "run) runs on any endpoint (gcv interpret-eval --runs 5 phase3-deliberation)"
        ),
    ),
    # -- the core paper, Phases 2 and 3 ------------------------------------------------
    Claim(
        "core.phase-2.lifecycle",
        "core",
        "Appendix B.2 (Phase 2)",
        "h2 is active at T6, weakened at T7, abandoned at T9; h4 is resolved at T13 "
        "with h1 and h3 linked to it",
        Status.REPRODUCED,
        implemented_in=("gcv.replay.replay",),
        tests=(
            _t("test_scenarios.py", "test_phase2_h2_lifecycle"),
            _t("test_scenarios.py", "test_phase2_h4_resolved_with_h1_and_h3_linked_to_it"),
        ),
        vectors=("scenarios/phase2-debugging/*",),
        encoding="B.2's operations as its walkthrough labels them, one turn per utterance (T8 "
        "a Question); the evidence of each Support a record (e1 at T6, e2 at T13) and o9 the "
        "evidence of T7's Undermine; T12 a Hypothesize of h4 and a Revise of the abandoned h2 "
        "with h4 as attacker; T13's Resolve of h4 subsuming h1 and h3",
    ),
    Claim(
        "core.phase-2.retraction",
        "core",
        "Section 3 and Section 4.4 (Phase 2)",
        "Affected*(o5) = {h3, h4, h1} via o5 -> h3 -> h4 -> h1; over the four retraction "
        "queries (o8, o9, o6, o5) the one-step query returns the whole set for one of them "
        "and Affected* for all four",
        Status.REPRODUCED,
        implemented_in=("gcv.reference.verifier.Verifier.affected_star",),
        tests=(
            _t("test_scenarios.py", "test_phase2_three_hop_retraction_of_o5"),
            _t("test_scenarios.py", "test_phase2_the_four_retraction_queries_of_section_4_4"),
        ),
        vectors=("scenarios/phase2-debugging/*",),
        encoding="the Dep links the trace records: Dep(h1) = {o7, o8} (B.2: 'Supported by: o7, "
        "o8'), with e1 from T6 and h4 from T13; Dep(h2) = {o8}; Dep(h3) = {o5, o6, o9}, chosen "
        "(B.2 names the path o5 -> h3 and h3 'Explains o6'; o9 pins the tokens as expired); "
        "Dep(h4) = {h3} (B.2: 'h3 in Dep(h4)'), with e2 from T13, resting on o8' (chosen)",
    ),
    Claim(
        "core.sec-4.4.decisions",
        "core",
        "Section 4.4 (Phase 2, the dependency decisions)",
        "the four retraction queries of the authored Phase 2 scenario carry 16 dependency "
        "decisions",
        Status.CONSISTENT_UNDER_INFERRED_READING,
        implemented_in=("gcv.reference.verifier.Verifier.affected_star",),
        tests=(_t("test_scenarios.py", "test_phase2_the_four_retraction_queries_of_section_4_4"),),
        reason="inferred: a decision read as whether one of the four hypotheses h1-h4 is "
        "affected by one of the four queries, so 4 x 4 = 16 by construction, not computed; "
        "the paper does not say how it counts. The test checks each of the 16 decisions "
        "against the recorded Dep paths (Corollary 2.4), not the count",
    ),
    Claim(
        "core.phase-3",
        "core",
        "Section 3 and Appendix B.3 (Phase 3)",
        "T1: Args_1 = {timeline}, Cm(a) = {timeline}; Prop grows from {timeline, P1, P2} to "
        "the 11 atoms Appendix A counts; Alice's authoritative decision for Yjs rests on a1, "
        "a2, a3 with Bob's dissent recorded; when a3 flips, Affected*(a3) flags exactly the "
        "Yjs decision while the access-control resolution stays grounded",
        Status.CHECKED,
        implemented_in=("gcv.replay.replay",),
        tests=(
            _t("test_scenarios.py", "test_phase3_t1_registers_what_b3_states"),
            _t("test_scenarios.py", "test_the_scenario_labels_each_turn_as_the_paper_does"),
            _t("test_scenarios.py", "test_phase3_positions_enter_prop_by_their_hypothesize"),
            _t("test_scenarios.py", "test_phase3_model_has_the_eleven_atoms_the_paper_counts"),
            _t("test_scenarios.py", "test_phase3_affected_star_of_a3_is_exactly_the_decision"),
            _t("test_scenarios.py", "test_phase3_the_decision_was_grounded_before_a3_flipped"),
        ),
        vectors=("scenarios/phase3-deliberation/*",),
    ),
    # -- the core paper, Section 4 --------------------------------------------------------
    Claim(
        "core.sec-4.4.recon",
        "core",
        "Section 4.4 (RECON)",
        "over 64 counterfactual scenarios from 16 RECON case files the one-step query is "
        "exact on 13 and Affected* on all 64, recovering 198 dependent steps with no false "
        "positives",
        Status.NOT_REPRODUCED,
        implemented_in=(
            "gcv.experiments.casefiles.generate_case_file",
            "gcv.experiments.casefiles.retraction_study",
        ),
        tests=(
            _t(
                "test_experiments.py",
                "test_affected_star_is_exact_on_every_scenario_and_one_step_never_over_includes",
            ),
            _t(
                "test_experiments.py",
                "test_the_generators_gold_sets_are_definition_2_3s_affected_star",
            ),
        ),
        reason=(
            "RECON is not here; on 16 generated case files in the described shape Affected* is "
            "exact on all 64 with no false positives, but the one-step count (13 of 64) and the "
            "198 dependent steps are the generator's own numbers, not RECON's "
            "(docs/experiments.md)"
        ),
    ),
    Claim(
        "core.sec-1.evidence",
        "core",
        "Section 1, Figure 1 and Sections 4.1-4.2 (evidence)",
        "the maintained state supplies QA models with currently active evidence, following "
        "subject-object links from the entities a question names; superseded facts are left "
        "out, and on 336 of 400 multi-hop questions the active records chain to the gold answer",
        Status.REPRODUCED_ON_GENERATED_DATA,
        implemented_in=("gcv.evidence.FactMemory.evidence",),
        tests=(
            _t(
                "test_evidence.py",
                "test_evidence_follows_subject_object_links_through_current_facts_only",
            ),
            _t(
                "test_experiments.py",
                "test_verifier_evidence_never_holds_a_superseded_fact_and_holds_every_gold_chain",
            ),
        ),
        reason="on generated streams every question has an active chain: the generator's gold "
        "answers follow the current facts, while the paper's 64 exceptions come from the "
        "benchmark's own gold answers (docs/experiments.md)",
    ),
    Claim(
        "core.sec-4.5.tokens",
        "core",
        "Section 4.5 (token cost, Figure 4a,b)",
        "on MemAB-FC the verifier sends 97-174 tokens per query, RAG's top-50 facts 753-811 "
        "at every length, and the full context grows with the stream (to 114.5K)",
        Status.REPRODUCED_ON_GENERATED_DATA,
        implemented_in=("gcv.experiments.arms.measure_stream",),
        tests=(
            _t(
                "test_experiments.py",
                "test_verifier_cost_is_flat_in_stream_length_while_full_context_grows",
            ),
        ),
        reason="generated 6K-262K-token streams counted in cl100k_base tokens: the verifier's "
        "cost is flat and BM25's near it, as in the paper; full context is the whole stream, "
        "not cut to a window (docs/experiments.md)",
    ),
    Claim(
        "core.sec-4.5.latency",
        "core",
        "Section 4.5 (retraction latency, Figure 4c) and Section 6",
        "with a reverse dependency index a retraction query takes 0.25-0.46 us over states of "
        "13-2000 turns, against 1.1-190 us for history replay, 4x at 13 turns to 415x at 2000; "
        "under a microsecond over 13-2000 turns",
        Status.NOT_REPRODUCED,
        implemented_in=(
            "gcv.reference.verifier.Verifier.affected_star",
            "gcv.reference.closure.COMPILED",
        ),
        tests=(
            _t(
                "test_walk_kernel.py",
                "test_compiled_and_pure_agree_on_every_record_of_a_generated_map",
            ),
        ),
        benchmarks=("tests/benchmarks/bench_walks.py", "tests/benchmarks/suite.py"),
        reason="measured, not repeated: the paper states neither its language, its machine "
        "nor its timer, so its method cannot be run again. What was done (docs/performance.md, "
        "'The walks', one run): Affected*(o5) through Verifier.affected_star, python -O, the "
        "calling thread's CPU time, median of 7 interleaved passes on 2 shared cores, on the "
        "paper's Phase 2 (13 turns) and generated continuations of it: 0.33-0.34 us with the "
        "compiled walk over 13 to 200,000 turns (0.33 us over 13-2,000: inside the "
        "paper's 0.25-0.46 us, and under a microsecond), 1.26-1.37 us with the pure Python "
        "walk; flat in history length as the paper says. Replay/query (the earlier full run): "
        "4x at 13 turns as in the paper, 1,318x at 2,000 (paper: 415x)",
    ),
    Claim(
        "core.sec-4.2",
        "core",
        "Table 1, Figure 3 and Sections 4.1-4.3 (QA results)",
        "accuracy on ReviseQA, MemAB-FC and BEAM under five QA models (Table 1), and the "
        "end-to-end arm's QA accuracy and faithfulness figures",
        Status.NOT_APPLICABLE,
        reason="the benchmarks' datasets and hosted models are outside this project",
    ),
    # -- EPLA: the epistemic gossip guard (spec/gcv/spec/gossip) -----------------------------------
    Claim(
        "gossip.def-3.1",
        "gossip",
        "Definition 3.1",
        "views: calls not involving a are invisible to a; a call involving a appends the "
        "call with a's resulting local state; R_a is view equality",
        Status.CHECKED,
        implemented_in=(
            "gcv.spec.gossip.views.compute_view",
            "gcv.spec.gossip.views.is_view_equivalent",
        ),
        tests=(
            _t("gossip/test_calls_views.py", "test_calls_not_involving_the_agent_are_invisible"),
            _t("gossip/test_calls_views.py", "test_view_records_own_calls_with_resulting_state"),
        ),
    ),
    Claim(
        "gossip.def-3.2",
        "gossip",
        "Definition 3.2",
        "admissible epistemic lottery gossip models: strictly positive weights, finite "
        "class sums; P_a(phi); knowledge as probability one",
        Status.CHECKED,
        implemented_in=(
            "gcv.spec.gossip.lottery.compute_model",
            "gcv.spec.gossip.lottery.compute_probability",
        ),
        tests=(
            _t(
                "gossip/test_lottery_lemmas.py",
                "test_inadmissible_lotteries_are_refused_with_a_clear_error",
            ),
            _t("gossip/test_lottery_lemmas.py", "test_knowledge_is_probability_one"),
        ),
    ),
    Claim(
        "gossip.def-3.5",
        "gossip",
        "Definitions 3.3 and 3.5",
        "the knowledge fragment L_K and the source-compatible fragment L_K,src, with the "
        "translation tau into the Apt-Wojtczak language",
        Status.CHECKED,
        implemented_in=(
            "gcv.spec.gossip.formulas.is_in_knowledge_fragment",
            "gcv.spec.gossip.formulas.is_source_compatible",
            "gcv.spec.gossip.formulas.compute_translation",
        ),
        tests=(
            _t(
                "gossip/test_formulas.py",
                "test_knowledge_fragment_allows_nesting_but_no_probability_atoms",
            ),
            _t("gossip/test_formulas.py", "test_translation_clauses"),
        ),
    ),
    Claim(
        "gossip.prop-4.1",
        "gossip",
        "Proposition 4.1",
        "knowledge in an admissible lottery model is S5",
        Status.CHECKED,
        implemented_in=("gcv.spec.gossip.lottery.is_s5_at",),
        tests=(_t("gossip/test_lottery_lemmas.py", "test_knowledge_is_s5"),),
    ),
    Claim(
        "gossip.ex-4.2",
        "gossip",
        "Example 4.2",
        "ac and bc;ac give a different views although a's calls coincide",
        Status.REPRODUCED,
        implemented_in=("gcv.spec.gossip.views.compute_example_4_2",),
        tests=(
            _t("gossip/test_calls_views.py", "test_example_4_2_same_a_calls_different_views"),
            _t("gossip/test_decide.py", "test_example_4_2_knowledge_after_bc_ac"),
        ),
    ),
    Claim(
        "gossip.def-5.1",
        "gossip",
        "Definition 5.1, Section 2 and Figure 1",
        "the Guard permits a call iff it is structurally available and its precondition "
        "holds; in the Section 2 example the first ab call is permitted and the second "
        "denied with the failed-precondition label",
        Status.REPRODUCED,
        implemented_in=(
            "gcv.spec.gossip.guard.compute_guard",
            "gcv.spec.gossip.execution.compute_section_2_example",
        ),
        tests=(
            _t(
                "gossip/test_guard_execution.py",
                "test_guard_denies_a_false_precondition_even_when_available",
            ),
            _t(
                "gossip/test_guard_execution.py",
                "test_section_2_example_permit_then_deny_with_the_failed_precondition_label",
            ),
            _t(
                "gossip/test_guard_execution.py",
                "test_repeated_commit_is_idempotent_and_does_not_repeat_the_effect",
            ),
        ),
    ),
    Claim(
        "gossip.lemma-5.2",
        "gossip",
        "Lemma 5.2",
        "lottery transparency: an L_K formula holds in a lottery model iff it holds in "
        "the underlying Kripke model",
        Status.CHECKED,
        implemented_in=("gcv.spec.gossip.lottery.is_lottery_transparent",),
        tests=(
            _t("gossip/test_lottery_lemmas.py", "test_lemma_5_2_lottery_transparency"),
            _t("gossip/test_lottery_lemmas.py", "test_lemma_5_2_fails_with_a_zero_weight"),
        ),
    ),
    Claim(
        "gossip.lemma-5.3",
        "gossip",
        "Lemma 5.3 and Definition 3.4",
        "source correspondence: a formula of L_K,src holds in the source instance iff its "
        "translation tau holds in the Apt-Wojtczak model",
        Status.CONSISTENT_UNDER_INFERRED_READING,
        implemented_in=("gcv.spec.gossip.source.is_source_corresponding",),
        tests=(
            _t(
                "gossip/test_lottery_lemmas.py",
                "test_lemma_5_3_source_correspondence_on_a_bounded_domain",
            ),
            _t(
                "gossip/test_lottery_lemmas.py",
                "test_lemma_5_3_would_catch_a_translation_with_swapped_indices",
            ),
        ),
        reason=(
            "the Apt-Wojtczak relation is inferred from the text (their papers are not available "
            "here); checked on histories of bounded length (docs/gossip.md)"
        ),
    ),
    Claim(
        "gossip.thm-5.4",
        "gossip",
        "Theorem 5.4",
        "guards in the source-compatible fragment are decidable: K_a(theta) for factual "
        "theta over the infinite H_src is decided exactly by a finite search",
        Status.CHECKED,
        implemented_in=(
            "gcv.spec.gossip.decide.compute_compatible_states",
            "gcv.spec.gossip.decide.is_known_in_source",
        ),
        tests=(
            _t("gossip/test_decide.py", "test_agreement_three_agents"),
            _t("gossip/test_decide.py", "test_agreement_four_agents"),
            _t(
                "gossip/test_decide.py",
                "test_a_search_that_ignores_observed_states_disagrees_with_brute_force",
            ),
        ),
    ),
    Claim(
        "gossip.def-6.1",
        "gossip",
        "Definition 6.1",
        "three-source lottery reweighting with its normaliser conditions",
        Status.CHECKED,
        implemented_in=("gcv.spec.gossip.reweighting.compute_reweighting",),
        tests=(
            _t("gossip/test_lottery_lemmas.py", "test_three_source_reweighting_by_hand"),
            _t(
                "gossip/test_lottery_lemmas.py",
                "test_reweighting_factors_and_normaliser_are_checked",
            ),
        ),
    ),
    Claim(
        "gossip.lemma-6.2",
        "gossip",
        "Lemma 6.2",
        "positive admissible reweighting preserves L_K truth and guard decisions",
        Status.CHECKED,
        implemented_in=("gcv.spec.gossip.reweighting.is_guard_invariant",),
        tests=(
            _t(
                "gossip/test_lottery_lemmas.py",
                "test_lemma_6_2_positive_reweighting_preserves_l_k_and_guards",
            ),
            _t("gossip/test_lottery_lemmas.py", "test_lemma_6_2_fails_for_a_zero_factor"),
        ),
    ),
    Claim(
        "gossip.thm-7.1",
        "gossip",
        "Theorem 7.1",
        "ranking progress: with a rank that never increases and drops with probability at "
        "least epsilon, E[T] <= rho(x0) / epsilon",
        Status.CHECKED,
        implemented_in=("gcv.spec.gossip.ranking.compute_ranking_estimate",),
        tests=(
            _t("gossip/test_ranking.py", "test_bound_holds_for_the_guarded_gossip_process"),
            _t("gossip/test_ranking.py", "test_counter_process_attains_the_bound"),
            _t("gossip/test_ranking.py", "test_bound_fails_when_rank_can_increase"),
        ),
    ),
    # -- Replication or Corroboration?: the lineage quotient (spec/gcv/spec/lineage) ---------------
    Claim(
        "lineage.units",
        "lineage",
        "Section 3.1 and A.1",
        "occurrences group into root-role units whose strength is the maximum over their "
        "renderings (absorption)",
        Status.CHECKED,
        implemented_in=("gcv.spec.lineage.model.compute_units",),
        tests=(
            _t("lineage/test_lineage_model.py", "test_units_take_the_maximum_over_renderings"),
            _t(
                "lineage/test_lineage_model.py",
                "test_a1_maximum_is_forced_by_singleton_and_absorption",
            ),
        ),
    ),
    Claim(
        "lineage.principles",
        "lineage",
        "Section 4",
        "the principles RRI, LNI, CRI, FLR and qFLR, checkable on any judge; only the "
        "lineage quotient satisfies RRI, LNI and FLR together",
        Status.CHECKED,
        implemented_in=("gcv.spec.lineage.principles.find_violations",),
        tests=(
            _t(
                "lineage/test_lineage_principles.py",
                "test_checkers_flag_exactly_the_expected_principles",
            ),
            _t(
                "lineage/test_lineage_principles.py",
                "test_lineage_dfquad_satisfies_every_principle_but_cri",
            ),
        ),
    ),
    Claim(
        "lineage.prop-4.1",
        "lineage",
        "Section 4.1",
        "RRI is exactly threshold-uniform replication immunity",
        Status.CHECKED,
        implemented_in=("gcv.spec.lineage.principles.is_threshold_uniform_immune",),
        tests=(
            _t(
                "lineage/test_lineage_principles.py",
                "test_prop_4_1_rri_is_threshold_uniform_immunity",
            ),
        ),
    ),
    Claim(
        "lineage.prop-4",
        "lineage",
        "Proposition 4 (Appendix B.2)",
        "for a direct topic leaf, strict fresh-root response holds exactly when its side's "
        "aggregate strictly increases; every eligible direct supporter strictly increases the "
        "score, and the attacker result is symmetric",
        Status.CHECKED,
        implemented_in=("gcv.spec.lineage.response.is_strict_direct_response",),
        tests=(
            _t(
                "lineage/test_lineage_response.py",
                "test_prop_4_strict_response_iff_the_aggregate_rises",
            ),
        ),
    ),
    Claim(
        "lineage.boundary",
        "lineage",
        "Section 4.2 (information boundary)",
        "an interface that maps a replica and a matched fresh root to the same observation "
        "cannot satisfy both RRI and strict FLR",
        Status.CHECKED,
        implemented_in=("gcv.spec.lineage.principles.is_information_boundary_witness",),
        tests=(_t("lineage/test_lineage_principles.py", "test_information_boundary"),),
    ),
    Claim(
        "lineage.game",
        "lineage",
        "Section 4.3",
        "under RRI replication-only deviations cannot change the verdict and costly "
        "replication is strictly dominated; occurrence-sensitive and content-keyed judges "
        "admit profitable deviations",
        Status.CHECKED,
        implemented_in=("gcv.spec.lineage.game.find_profitable_deviations",),
        tests=(
            _t("lineage/test_lineage_game.py", "test_occurrence_sensitive_judges_reward_a_relay"),
            _t("lineage/test_lineage_game.py", "test_lineage_quotient_is_neutral_to_both"),
        ),
    ),
    Claim(
        "lineage.dfquad",
        "lineage",
        "Section 6 (DF-QuAD, Rago et al. 2016)",
        "DF-QuAD: probabilistic-sum aggregation and the standard combination",
        Status.CHECKED,
        implemented_in=("gcv.spec.lineage.dfquad.compute_dfquad_strengths",),
        tests=(
            _t("lineage/test_lineage_dfquad.py", "test_dfquad_agrees_with_formal_argumentation"),
        ),
    ),
    Claim(
        "lineage.lifting",
        "lineage",
        "Section 6 (generic lifting)",
        "the lifting quotients equivalent occurrence nodes before evaluation and rejects "
        "malformed classes",
        Status.CHECKED,
        implemented_in=("gcv.spec.lineage.quotient.check_compatibility",),
        tests=(
            _t("lineage/test_lineage_quotient.py", "test_compatibility_rejects_malformed_classes"),
            _t(
                "lineage/test_lineage_structural.py",
                "test_lineage_lifting_passes_every_structural_check",
            ),
        ),
    ),
    Claim(
        "lineage.modulus",
        "lineage",
        "Section 6.1 and B.5 (response modulus)",
        "a fresh direct supporter moves the score by at least t(1 - v_s) min{v0, 1 - v0}, "
        "the attacker alike, tightly; B.5's configuration gives 0.00128 (the proof assumes, "
        "and does not derive from gcv.spec.lineage, Section 5's reduction of LQ-DF-QuAD on a "
        "direct star to v0 and the two aggregates, and the fresh-root rule that a fresh "
        "report joins as a new root leaf; both are tested)",
        Status.PROVED_UNBOUNDED,
        implemented_in=("gcv.spec.lineage.response.compute_response_modulus",),
        tests=(
            _t(
                "lineage/test_lineage_response.py",
                "test_modulus_exhaustively_on_a_grid_with_its_tightness",
            ),
            _t("lineage/test_lineage_response.py", "test_b5_configuration_figures"),
        ),
        obligations=("lineage-modulus",),
    ),
    Claim(
        "lineage.thm-6",
        "lineage",
        "Theorem 6, B.3 and B.4",
        "fresh roots at intermediate nodes move the topic with the parity-determined sign "
        "when all paths share attack parity; opposite parities can cancel",
        Status.CHECKED,
        implemented_in=("gcv.spec.lineage.response.compute_predicted_sign",),
        tests=(
            _t("lineage/test_lineage_response.py", "test_theorem_6_parity_determined_sign"),
            _t("lineage/test_lineage_response.py", "test_b4_opposite_parities_cancel"),
            _t("lineage/test_lineage_audit.py", "test_propagation_on_the_dags"),
        ),
    ),
    Claim(
        "lineage.b6",
        "lineage",
        "Appendix B.6",
        "a false split inflates: 1 - (1 - t)^m > t",
        Status.CHECKED,
        implemented_in=("gcv.spec.lineage.response.is_split_inflating",),
        tests=(
            _t(
                "lineage/test_lineage_response.py",
                "test_b6_false_split_inflates_and_false_merge_suppresses",
            ),
        ),
    ),
    Claim(
        "lineage.toy",
        "lineage",
        "Section 7.1 (toy debate, Figure 2)",
        "a replica moves per-occurrence DF-QuAD from .5 to .42 and reverses the verdict; "
        "the lineage quotient stays at .5; matched fresh reports move it to .42 and .58, the "
        ".08 bound; Max-QuAD and the content quotient ignore both",
        Status.REPRODUCED,
        implemented_in=("gcv.spec.lineage.audit.compute_toy_debate",),
        tests=(_t("lineage/test_lineage_audit.py", "test_toy_debate"),),
    ),
    Claim(
        "lineage.table-2",
        "lineage",
        "Section 7.2 and C.1 (structural audit, Table 2)",
        "over 28,224 direct-star profiles only the lineage quotient meets the joint target: "
        "CD, RSS8, RFR8 and FASR zero, FLG .0298, MinG .0013",
        Status.CONSISTENT_UNDER_INFERRED_READING,
        implemented_in=(
            "gcv.spec.lineage.audit.run_star_audit",
            "gcv.spec.lineage.audit.run_dag_audit",
        ),
        tests=(
            _t("lineage/test_lineage_audit.py", "test_table_2_lineage_row"),
            _t("lineage/test_lineage_audit.py", "test_grid_sizes"),
            _t("lineage/test_lineage_audit.py", "test_dag_audit"),
        ),
        reason="inferred: the star grid {.2, .4, .6, .8} with 1-3 supporters and 1-3 "
        "attackers, which the summary does not state, chosen because it gives the four "
        "reported figures at once (28,224 profiles, FLG .0298, MinG .0013 and B.5's .00128); "
        "the other judges' rows are not in the summary",
    ),
    Claim(
        "lineage.c1.dag",
        "lineage",
        "Section 7.2 and C.1 (the DAG audit)",
        "2,052 chain, fork and diamond DAGs with strengths in {0.2, 0.5, 0.8}, 2,700 replica "
        "tests and 4,104 fresh interventions: lineage lifting has zero maximum clean "
        "deviation and replication shift, and the response modulus holds on every test",
        Status.REPRODUCED,
        implemented_in=(
            "gcv.spec.lineage.audit.run_dag_audit",
            "gcv.spec.lineage.audit.generate_dags",
        ),
        tests=(
            _t("lineage/test_lineage_audit.py", "test_grid_sizes"),
            _t("lineage/test_lineage_audit.py", "test_dag_audit"),
        ),
    ),
    Claim(
        "lineage.c1.dag-min-gain",
        "lineage",
        "Section 7.2 and C.1 (the DAG audit's minimum gain)",
        "lineage lifting's minimum signed fresh-root gain over the DAGs is 1.28e-4",
        Status.CONSISTENT_UNDER_INFERRED_READING,
        implemented_in=("gcv.spec.lineage.audit.DAG_FRESH_STRENGTH",),
        tests=(_t("lineage/test_lineage_audit.py", "test_dag_audit"),),
        reason="inferred: the fresh roots' strength .4, which the summary does not state and "
        "which lies outside the stated grid {0.2, 0.5, 0.8}; the minimum is linear in it, and "
        "on the grid's values it is 6.4e-5, 1.6e-4 and 2.56e-4, none of them 1.28e-4. The "
        "summary cites Table 2 for the figure, whose MinG is .0013, so 1.28e-3 may be meant",
    ),
    Claim(
        "lineage.b5",
        "lineage",
        "Appendix B.5 (the configuration)",
        "at B.5's configuration t(1 - v_s) = .0064, min{v0, 1 - v0} = .2, the modulus is "
        ".00128, and the fresh supporter's gain attains it",
        Status.REPRODUCED,
        implemented_in=("gcv.spec.lineage.response.compute_b5_figures",),
        tests=(_t("lineage/test_lineage_response.py", "test_b5_configuration_figures"),),
    ),
    Claim(
        "lineage.averitec",
        "lineage",
        "Section 7.3 (AVeriTeC audit, Table 3)",
        "matched interventions on 277 AVeriTeC-derived profiles",
        Status.NOT_APPLICABLE,
        reason="needs the AVeriTeC dataset and a frozen NLI model, which this project does "
        "not ship",
    ),
)
