"""Every expected-value table of the tests, with its source; none is the engine's output.

A *table* is a module-level constant of literal data (a display, a comprehension, or
constructors of literal values such as ``Fraction(6, 7)``) or a literal argument table of
``pytest.mark.parametrize``, anywhere under ``tests/`` but the benchmarks; and the
expectations of each built-in scenario (``spec/gcv/spec/scenarios/*.json``), by query.  Each is
listed below with where its values come from:

- **paper**: the paper's words or figures, the place named;
- **hand**: worked out by hand from the definitions, the derivation written beside the table
  (or where named);
- **oracle**: recomputed, in the test named, by a computation that is not the engine (the
  spec, the bit-parallel oracle, an independent implementation in the tests);
- **spec**: the project's stated contract, where the papers are silent: a clause, error code
  or exit code written in spec/gcv/spec/normative.md, spec/gcv/spec/protocol/protocol.md or a
  command's documentation (README, docs/);
- **inputs**: no expected values: what a test runs (agents, commands, planted bugs, settings).

The test fails on a table found and not listed, on a listed table that is gone, and on any
source outside these five, so a table copied from the engine's output has nowhere to go.
``path::*`` lists every table of a file not listed by name, new ones too: it is kept for files
that hold nothing but inputs, or tables of one source.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("paper", "hand", "oracle", "spec", "inputs")


@dataclass(frozen=True)
class Source:
    """Where a table's values come from: one of :data:`KINDS`, and the place."""

    kind: str
    where: str


def paper(where: str) -> Source:
    return Source("paper", where)


def hand(where: str) -> Source:
    return Source("hand", where)


def oracle(where: str) -> Source:
    return Source("oracle", where)


def spec(where: str) -> Source:
    return Source("spec", where)


def inputs(what: str) -> Source:
    return Source("inputs", what)


CODES = (
    "the error codes of spec/gcv/spec/normative.md ('Error codes') and gcv.errors, as documented"
)
EXITS = "the exit codes the commands document (README, 'Exit codes'; docs/conformance.md)"
STORE = "the store's documented refusals (docs/sessions.md): store-* codes and messages"

TABLES: dict[str, Source] = {
    # -- the papers ----------------------------------------------------------------------
    "tests/test_scenarios.py::STATED_LABELS": paper("B.1's and B.3's operation labels, quoted"),
    "tests/test_scenarios.py::test_phase1_each_answer_is_what_its_child_did_not_know_in_m1": hand(
        "B.1's 'I don't know' held in M1 exactly where the other two children are not both "
        "clean (the phase1 trace's notes)"
    ),
    "tests/lineage/test_lineage_audit.py::TABLE_2_LQ": paper("lineage summary, Table 2, LQ row"),
    "tests/lineage/test_lineage_audit.py::test_toy_debate": inputs("fresh-report strengths"),
    (
        "tests/lineage/test_lineage_principles.py::"
        "test_checkers_flag_exactly_the_expected_principles"
    ): hand(
        "each judge's principles from the summary's statements (occurrence counting and "
        "plurality violate RRI; the content quotient keeps CRI and violates RRI and FLR; "
        "Max-QuAD ignores fresh reports) and the definitions; each broken judge breaks the one "
        "principle it is built to break"
    ),
    "tests/lineage/test_lineage_structural.py::test_structural_checkers_flag_broken_judges": hand(
        "the QBAF judges' principles as above; each broken one breaks one by construction"
    ),
    "tests/conformance/proof_vectors.py::_STATEMENTS": paper(
        "the numbered items each bounded obligation states (Lemma 2.1; Definition 2.3, "
        "Corollary 2.4)"
    ),
    "tests/conformance/fakes/paper_bugs.py::PAPER_BUGS": spec(
        "each fake breaks one paper clause of spec/gcv/spec/clauses.py, named by its id"
    ),
    "tests/conformance/fakes/paper_bugs.py::DEFINITIONS": paper(
        "Appendix A: Definition A.1's Convention and Definition A.2's conditions, quoted"
    ),
    "tests/conformance/fakes/paper_bugs.py::_RESOLVE_BEFORE_SUPPORT": inputs("a fake's turn"),
    "tests/conformance/fakes/paper_bugs.py::UNOBSERVABLE": hand(
        "why each clause never decides a turn (Lemma 2.2's argument, written beside it)"
    ),
    # -- worked by hand ------------------------------------------------------------------
    "tests/interpret/phase2.py::*": hand("the module docstring counts TP, FP, FN turn by turn"),
    "tests/test_draw.py::NOT_GROUNDED": hand("Lemma 2.1 by hand: h5 and h6 reach the abandoned h2"),
    "tests/test_session_show.py::GROUNDING": hand("Lemma 2.1 by hand: h1 rests on the revised o1"),
    "tests/test_closure.py::test_a_named_answer_is_the_dataclass_answer": hand(
        "the walk's numbers named back by hand"
    ),
    "tests/epistemic/test_formula.py::test_precedence_and_grouping": spec(
        "the grammar's precedence and associativity (spec/gcv/spec/protocol/formulas.md)"
    ),
    "tests/test_no_timing.py::test_the_check_finds_each_kind": hand(
        "each snippet's kind of timing, read off the snippet"
    ),
    "tests/test_progress.py::test_a_bar_is_drawn_only_on_a_terminal_and_not_quiet": spec(
        "README: progress on standard error when it is a terminal, nothing with --quiet"
    ),
    "tests/hostile/test_serve.py::test_the_id_is_echoed_as_the_response_schema_allows": spec(
        "spec/gcv/spec/protocol/protocol.md: the id echoed when the response schema allows it"
    ),
    # -- refusals, error codes and exit codes: the stated contract --------------------------
    "tests/test_operations.py::REJECTIONS": spec(
        "Table 3's preconditions as spec/gcv/spec/clauses.py completes them: code, field and record"
    ),
    "tests/test_operations.py::MALFORMED": spec(CODES + " (the operation's form rules)"),
    "tests/test_operations.py::test_malformed_operations_are_rejected_when_built": spec(CODES),
    "tests/epistemic/test_operations.py::BAD_TURNS": spec(CODES + " (the epistemic layer's)"),
    "tests/epistemic/test_operations.py::_SPEC_NAMES": inputs("the spec's names of the updates"),
    "tests/epistemic/test_operations.py::AG": inputs("agents"),
    "tests/epistemic/test_formula.py::p": inputs("an atom"),
    "tests/epistemic/test_formula.py::q": inputs("an atom"),
    "tests/epistemic/test_formula.py::r": inputs("an atom"),
    "tests/conformance/test_bundle_alone.py::GCV": inputs("a command"),
    "tests/conformance/test_fuzz_campaign.py::BUGGY": inputs("a fake's command"),
    "tests/conformance/test_fuzz_campaign.py::SHARDS": inputs("fuzzing options"),
    "tests/conformance/test_fuzz_campaign.py::"
    "test_a_run_stopped_after_a_shard_resumes_to_the_uninterrupted_report": inputs("workers"),
    "tests/conformance/test_fuzz_campaign.py::test_campaign_options_out_of_place_are_bad_input": (
        spec("gcv conform's campaign options, docs/conformance.md, 'Fuzzing as a campaign'")
    ),
    "tests/conformance/test_runner.py::QUERY_CASES": inputs("the suite's query cases"),
    "tests/test_transition.py::_BROKEN": inputs("planted bugs and the turns that show them"),
    "tests/epistemic/test_operations.py::_READINGS": inputs(
        "each operation read the default way and with its alternative's field"
    ),
    (
        "tests/epistemic/test_operations.py::"
        "test_an_operation_on_a_target_updates_with_the_targets_formula"
    ): (
        oracle(
            "the spec's update functions (gcv.spec.epistemic) in the table itself: Section 2's "
            "table of DEL realisations"
        )
    ),
    "tests/epistemic/test_formula.py::test_malformed_text_is_a_typed_error": spec(CODES),
    (
        "tests/epistemic/test_formula.py::"
        "test_a_very_deep_formula_is_a_typed_error_not_a_recursion_error"
    ): (spec(CODES + " (the formula bounds of spec/gcv/spec/protocol/formulas.md)")),
    "tests/epistemic/test_trace.py::test_a_defective_epistemic_part_is_a_malformed_trace": spec(
        "spec/gcv/spec/trace-format.md and its schema: the field named"
    ),
    "tests/conformance/test_vectors.py::CORE_PRECONDITION_CODES": spec(CODES),
    "tests/conformance/test_vectors.py::EPISTEMIC_CODES": spec(CODES),
    (
        "tests/conformance/test_protocol.py::"
        "test_requests_out_of_protocol_or_out_of_place_get_a_typed_error"
    ): (spec("spec/gcv/spec/protocol/protocol.md: the codes of a request out of protocol")),
    (
        "tests/conformance/test_epistemic.py::"
        "test_an_epistemic_query_off_the_schema_is_a_malformed_request"
    ): (spec("spec/gcv/spec/protocol/protocol.md and its schema")),
    "tests/conformance/test_realise.py::test_a_map_no_conversation_reaches_is_refused": hand(
        "why no conversation reaches each map (Lemma 2.2; a record cannot rest on itself)"
    ),
    (
        "tests/conformance/test_blame.py::"
        "test_a_case_is_a_choice_where_the_alternatives_explain_it_and_a_failure_else"
    ): (spec("docs/conformance.md: the paper profile's verdicts and exit codes")),
    "tests/conformance/test_signals.py::*": inputs("the runs signalled, and where"),
    (
        "tests/conformance/test_versions.py::"
        "test_an_answer_changed_under_a_released_version_is_refused"
    ): inputs("which profile's answer is changed"),
    "tests/conformance/test_runner.py::test_bad_input_is_exit_2": spec(EXITS),
    "tests/conformance/test_runner_faults.py::*": spec(EXITS + "; the runner's fault reports"),
    "tests/conformance/test_runner_robustness.py::*": spec(EXITS + "; the runner's reports"),
    "tests/conformance/test_bundle_alone.py::DECLARED": spec(
        "the example adapters' features, as docs/conformance.md lists them"
    ),
    "tests/interpret/test_validate.py::CASES": spec("docs/interpreter.md: a reply's refusals"),
    "tests/interpret/test_validate.py::ENGINE_CASES": spec(
        "Table 3's preconditions (spec/gcv/spec/clauses.py), applied to a reply on a copy"
    ),
    "tests/interpret/test_cli_interpret.py::test_bad_input_is_exit_2": spec(EXITS),
    (
        "tests/interpret/test_client.py::"
        "test_an_answer_that_is_not_a_chat_completion_is_an_endpoint_error"
    ): (spec("docs/interpreter.md: what the endpoint must answer")),
    "tests/interpret/test_client.py::test_a_malformed_setting_is_named": spec(
        "docs/interpreter.md: the settings and their checks"
    ),
    "tests/hostile/test_api.py::CASES": spec(CODES + " (the field each names)"),
    "tests/hostile/test_store_files.py::*": spec(STORE + "; " + EXITS),
    "tests/hostile/test_json_input.py::*": spec("spec/gcv/spec/trace-format.md; " + CODES),
    "tests/hostile/test_options.py::*": spec(EXITS),
    "tests/hostile/test_serve.py::test_a_hostile_line_is_refused_and_the_next_is_answered": spec(
        "spec/gcv/spec/protocol/protocol.md: a malformed request is refused and the next is "
        "answered"
    ),
    "tests/hostile/test_closed_pipe.py::*": spec(EXITS),
    "tests/hostile/test_bounds.py::*": spec(
        "the formula bounds of spec/gcv/spec/protocol/formulas.md"
    ),
    "tests/test_mcp.py::HOSTILE": spec(CODES + " (docs/agents.md: the tools' refusals)"),
    "tests/test_store.py::DAMAGE": spec(STORE),
    "tests/test_trace.py::*": spec("spec/gcv/spec/trace-format.md, its schema and replay's report"),
    "tests/test_cli.py::test_bad_trace_is_exit_2_with_the_error_code": spec(EXITS),
    "tests/test_cli_messages.py::test_an_unknown_record_is_bad_input_everywhere": spec(EXITS),
    "tests/test_draw.py::test_bad_highlight_is_exit_2": spec(EXITS),
    "tests/test_export.py::test_export_bad_input_is_exit_2": spec(EXITS),
    "tests/test_evidence.py::*": spec(CODES + " (docs: gcv evidence)"),
    "tests/test_experiments_qa.py::test_bad_qa_settings_are_exit_2": spec(EXITS),
    "tests/test_walk_kernel.py::test_a_corrupt_map_raises_a_typed_error": spec(
        "the compiled walk's documented errors (reference/gcv/reference/closure.py)"
    ),
    "tests/test_walk_kernel.py::test_a_record_outside_the_numbering_raises_index_error": spec(
        "the compiled walk's documented errors (reference/gcv/reference/closure.py)"
    ),
    "tests/lineage/test_lineage_dfquad.py::test_malformed_qbaf_raises_named_error": spec(
        "the lineage spec module's named errors"
    ),
    "tests/lineage/test_lineage_model.py::test_bad_occurrence_raises_named_error": spec(
        "the lineage spec module's named errors"
    ),
    "tests/test_refinement.py::test_a_planted_divergence_in_the_engine_is_caught": spec(
        "the refinement check's report for each planted bug (tests/broken_engines.py)"
    ),
    "tests/test_refinement.py::test_a_composition_bug_is_caught_only_by_two_operation_turns": spec(
        "the refinement check's report for each planted bug (tests/broken_engines.py)"
    ),
    "tests/test_refinement.py::test_a_planted_divergence_in_the_encoding_is_caught": spec(
        "the refinement check's report for each planted change of the encoding"
    ),
    "tests/test_docs.py::test_a_planted_stale_name_is_caught": spec(
        "the docs check's message for each planted stale name (tests/docs_check.py)"
    ),
    "tests/test_layout.py::test_without_a_layout_program_a_picture_says_what_to_install": spec(
        "the one-line message of a picture command without a layout program (README)"
    ),
    "tests/hostile/test_store_agreement.py::DAMAGE": inputs("edits and forgeries of a store"),
    "tests/hostile/test_store_agreement.py::EXPECTED": spec(
        "what each damaged store comes to (docs/sessions.md, 'What the store protects')"
    ),
    "tests/test_code_proofs.py::_SOURCE": inputs("the builtins the woven program renames"),
    "tests/test_code_proofs.py::test_every_twin_still_changes_the_source": inputs(
        "the planted twins of gcv prove --code"
    ),
    "tests/test_code_proofs.py::test_weaving_fails_when_the_source_leaves_the_proofs_shape": spec(
        "the weaver's refusal for each shape Nagini cannot read (docs/proofs.md)"
    ),
    "tests/test_proofs_abduction.py::PLANTED": inputs("planted changes of Definition A.2's check"),
    "tests/test_change_recipe.py::PRECONDITION": inputs(
        "the throwaway precondition's edits, as docs/layout.md's recipe names them"
    ),
    "tests/test_change_recipe.py::FIELD": inputs(
        "the throwaway field's edits, as docs/layout.md's recipe names them"
    ),
    "tests/test_change_recipe.py::COPIED": inputs("the folders copied for the throwaway change"),
    "tests/test_change_recipe.py::GENERATED": spec("the files docs/layout.md says are generated"),
    "tests/test_change_recipe.py::test_a_change_touches_only_the_files_the_recipe_names": spec(
        "docs/layout.md's recipe: the files each change may touch, at most three"
    ),
    "tests/test_schemas.py::test_the_committed_schemas_are_current": spec(
        "the committed schemas, regenerated by gcv schemas"
    ),
    "tests/conformance/test_protocol.py::"
    "test_a_field_of_the_other_evidence_operation_is_a_malformed_request": spec(
        "the request schema: Support has no downgrade, Undermine no specific"
    ),
    "tests/test_refinement.py::_NO_FRESH_IDENTIFIER": hand(
        "the pairs the pair pool cannot build, each with why beside it"
    ),
    # -- inputs only --------------------------------------------------------------------
    **{
        f"{path}::*": inputs(what)
        for path, what in (
            ("tests/broken_engines.py", "planted bugs"),
            ("tests/store_backends.py", "the store backends a test runs on"),
            ("tests/test_store_backends.py", "a session's header"),
            ("tests/test_store_kill.py", "how many kills"),
            ("tests/docs_check.py", "the folders and suffixes a name in the docs may start with"),
            ("tests/test_no_bare_asserts.py", "the folders scanned and planted sources"),
            ("tests/conformance/fakes/fake_impl.py", "the fake's sizes"),
            ("tests/conformance/helpers.py", "commands"),
            ("tests/conformance/test_builder.py", "a trace"),
            ("tests/conformance/test_bundle.py", "options"),
            ("tests/conformance/test_epistemic.py", "the suite's epistemic cases"),
            ("tests/conformance/test_fuzz.py", "a fuzzing mode"),
            ("tests/conformance/test_paper_clauses.py", "clauses run through the runner"),
            ("tests/conformance/test_profiles.py", "planted bugs"),
            ("tests/conformance/test_runner_sync.py", "commands and requests"),
            ("tests/conformance/test_smoke.py", "planted bugs"),
            ("tests/conftest.py", "the suite's settings"),
            ("tests/crosshair/run.py", "CrossHair's targets"),
            ("tests/crosshair/test_crosshair.py", "modules and budgets"),
            ("tests/epistemic/support.py", "agents and atoms"),
            ("tests/epistemic/test_agreement.py", "updates to run"),
            ("tests/epistemic/test_bits.py", "agents, atoms and checks"),
            ("tests/epistemic/test_muddy_children.py", "numbers of children"),
            ("tests/epistemic/test_phase2.py", "the engine's two readings, by their flag"),
            ("tests/epistemic/test_readings.py", "LaTeX commands and their words"),
            ("tests/epistemic/test_updates.py", "updates to run"),
            ("tests/gossip/test_audit.py", "options"),
            ("tests/gossip/test_formulas.py", "formula builders"),
            ("tests/gossip/test_guard_execution.py", "calls"),
            ("tests/gossip/test_lottery_lemmas.py", "calls"),
            ("tests/hostile/stores.py", "a store's header"),
            ("tests/hostile/test_fuzz.py", "the queries and their arities"),
            ("tests/hostile/test_store_fuzz.py", "rows to damage"),
            ("tests/interpret/test_client.py", "messages and statuses"),
            ("tests/interpret/test_evaluate.py", "scenarios"),
            ("tests/interpret/test_prompts.py", "prompt files"),
            ("tests/interpret/test_runs.py", "token counts a fake endpoint returns"),
            ("tests/interpret/test_validate.py", "fields and scenarios"),
            ("tests/lineage/lineage_strategies.py", "strength grids"),
            ("tests/lineage/test_lineage_game.py", "judges and costs"),
            ("tests/lineage/test_lineage_principles.py", "strengths"),
            ("tests/lineage/test_lineage_response.py", "a grid"),
            ("tests/machines.py", "agents and atoms"),
            ("tests/maps.py", "an opening conversation"),
            ("tests/mutation.py", "the mutation run's settings"),
            ("tests/mutation_rules.py", "tests to run"),
            ("tests/programs.py", "programs and their packages"),
            ("tests/refinement.py", "atoms, formulas and operation pairs"),
            ("tests/test_campaign.py", "worker counts"),
            ("tests/test_ci.py", "a script and traces"),
            ("tests/test_cli_reports.py", "a trace"),
            ("tests/test_closure.py", "chain lengths"),
            ("tests/test_depmap.py", "every change a map can make"),
            ("tests/test_depmap_views.py", "copy functions"),
            ("tests/test_docs_index.py", "file suffixes"),
            ("tests/test_dung.py", "framework sizes"),
            ("tests/test_explore.py", "rejected turns to replay"),
            ("tests/test_explore_steps.py", "scenarios"),
            ("tests/test_export.py", "commands"),
            ("tests/test_layers.py", "the layers and their allowed imports (DESIGN.md)"),
            ("tests/test_machine_dependency_map.py", "atoms and unknown ids"),
            ("tests/test_machine_epistemic.py", "malformed texts and formula heads"),
            ("tests/test_mcp.py", "queries and arguments"),
            ("tests/test_mutation_runner.py", "commands"),
            ("tests/test_no_timing.py", "clock and wait names"),
            ("tests/test_operations.py", "records"),
            ("tests/test_paper.py", "statuses and a test name"),
            ("tests/test_paper_items.py", "the papers' files"),
            ("tests/test_programs.py", "variables"),
            ("tests/test_progress.py", "a command"),
            ("tests/test_proofs_closure_loop.py", "planted changes"),
            ("tests/test_proofs_plausibility.py", "atoms, worlds and the engine's updates"),
            ("tests/test_proofs_walk_loop.py", "planted changes"),
            ("tests/test_proportion.py", "the package's source folders"),
            ("tests/test_refinement.py", "scopes"),
            ("tests/test_restrictions.py", "map sizes"),
            ("tests/test_session_cli.py", "a command and its environment"),
            ("tests/test_session_show.py", "turns"),
            ("tests/test_store.py", "a header and scenarios"),
            ("tests/test_walk_kernel.py", "map shapes"),
        )
    },
}
"""Each table (``path::name``, or ``path::*`` for a file's every table) and its source."""

SCENARIOS: dict[str, dict[str, Source]] = {
    "phase1-muddy-children": {
        "worlds": paper("B.1: |W_1| = 7, |W_2| = 4, W_3 = {MMC}"),
        "arguments": hand("B.1's seven operations register four records, one per Observe"),
        "commitments": spec("who an operation commits (spec/gcv/spec/clauses.py)"),
        "holds": paper("B.1's knowledge facts at each step"),
        "knows": paper("B.1's knowledge facts at each step"),
        "standing": spec("consensual Resolve (spec/gcv/spec/clauses.py)"),
    },
    "phase2-debugging": {
        "standing": paper("B.2's hypothesis lifecycles (T6, T7, T9, T13)"),
        "attackers": paper("B.2: Att_7 = {(o9, h2)}; T12 adds (h4, h2)"),
        "dependencies": paper("B.2 T13: h1 and h3 gain a dependency link to h4"),
        "affected_star": hand("Definition 2.3 over the trace's Dep links (its notes)"),
        "affected": hand("Definition 2.3 over the trace's Dep links (its notes)"),
        "affected_star_active": hand("Affected*(o8) intersected with S_t"),
        "verify": hand("Lemma 2.1 over the trace's Dep links and labels"),
        "commitments": spec("who an operation commits (spec/gcv/spec/clauses.py)"),
        "aware": paper("B.2: every agent aware of every monitored signal, mis_monitor from T4"),
    },
    "phase2-epistemic": {
        "standing": paper("B.2's hypothesis lifecycles (T6, T7, T9, T13)"),
        "attackers": paper("B.2: Att_7 = {(o9, h2)}; T12 adds (h4, h2)"),
        "dependencies": paper("B.2 T13: h1 and h3 gain a dependency link to h4"),
        "affected_star": hand("Definition 2.3 over the trace's Dep links"),
        "affected": hand("Definition 2.3 over the trace's Dep links"),
        "affected_star_active": hand("Affected*(o8) intersected with S_t"),
        "verify": hand("Lemma 2.1 over the trace's Dep links and labels"),
        "commitments": spec("who an operation commits (spec/gcv/spec/clauses.py)"),
        "aware": paper("B.2: mis_monitor outside every A_i until T4"),
        "holds": paper("B.2's 'Symbolic model M_t' paragraphs"),
        "knows": paper("B.2's 'Symbolic model M_t' paragraphs"),
        "believes": paper("B.2's 'Symbolic model M_t' paragraphs"),
        "ordered": paper("the orderings B.2 prints after T5, T6, T7, T9 and T12"),
        "worlds": hand("2 to the number of atoms left open, each step's 'why'"),
        "unexplained": oracle(
            "tests/epistemic/test_phase2.py::"
            "test_the_scenarios_unexplained_expectations_are_the_oracles"
        ),
    },
    "phase3-deliberation": {
        "arguments": paper("B.3 T1: Args_1 = {timeline}"),
        "aware": hand("the trace's Expand-Awareness and introduced atoms"),
        "standing": paper("B.3 and Section 3: the decisions and their grounds"),
        "attackers": hand("the trace's Undermine and Revise operations"),
        "dependencies": hand("the trace's Dep links (its notes)"),
        "affected_star": paper("Section 3: Affected*(a3) flags exactly the Yjs decision"),
        "affected": hand("Definition 2.3 over the trace's Dep links"),
        "affected_star_active": hand("Affected* intersected with S_t"),
        "verify": paper("Section 3 and Figure 2: the decision no longer grounded"),
        "commitments": paper("B.3 T1: Cm(a) = {timeline}, Cm(b) = Cm(c) = {}"),
        "dissenters": paper("B.3: Bob's dissent recorded"),
    },
}
"""Each scenario's expectations, by query, and their source."""


# -- finding the tables ----------------------------------------------------------------------

_CONSTRUCTORS = {"Fraction", "F", "frozenset", "set", "tuple", "float", "int", "Decimal"}


def _is_literal(node: ast.expr) -> bool:
    """Literal data: displays, comprehensions, constants and constructors of literals."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in _CONSTRUCTORS):
                return False
        elif isinstance(n, ast.Lambda | ast.Attribute | ast.Subscript):
            return False
    return not isinstance(node, ast.Constant | ast.Name | ast.JoinedStr)


def _displays(node: ast.expr) -> bool:
    return isinstance(
        node, ast.List | ast.Tuple | ast.Set | ast.Dict | ast.ListComp | ast.SetComp | ast.DictComp
    )


@cache
def found_tables() -> frozenset[str]:
    """Every table under tests/ (but the benchmarks), as ``path::name``."""
    found = set()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if "benchmarks" in path.parts or path == Path(__file__).resolve():
            continue
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            if _displays(value) or _is_literal(value):
                names = (n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
                found |= {f"{rel}::{name}" for name in names if name != "__all__"}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for d in node.decorator_list:
                    if (
                        isinstance(d, ast.Call)
                        and ast.unparse(d.func).endswith("parametrize")
                        and len(d.args) >= 2
                        and isinstance(d.args[1], ast.List | ast.Tuple)
                    ):
                        found.add(f"{rel}::{node.name}")
    return frozenset(found)


def _listed(table: str) -> Source | None:
    path = table.split("::")[0]
    return TABLES.get(table) or TABLES.get(f"{path}::*")


def test_every_table_is_listed_with_its_source() -> None:
    missing = sorted(t for t in found_tables() if _listed(t) is None)
    assert not missing, f"list these in TABLES with their source: {missing}"


def test_every_listed_table_exists() -> None:
    found = found_tables()
    files = {t.split("::")[0] for t in found}
    exact = {t for t in TABLES if not t.endswith("::*")}
    covering = {t.split("::")[0] for t in found - exact}
    gone = [
        t
        for t in TABLES
        if (t.endswith("::*") and t[: -len("::*")] not in covering)
        or (t in exact and t not in found)
    ]
    assert not gone, f"no longer a table, or a file wildcard covering none: {gone}"
    assert files


def test_no_source_is_the_engine() -> None:
    for table, source in TABLES.items():
        assert source.kind in KINDS and source.where, table
    for name, queries in SCENARIOS.items():
        assert all(s.kind in KINDS and s.where for s in queries.values()), name


def test_an_oracle_source_names_a_test_that_recomputes_it() -> None:
    named = [
        s.where
        for s in [*TABLES.values(), *(s for q in SCENARIOS.values() for s in q.values())]
        if s.kind == "oracle" and "::" in s.where
    ]
    assert named
    for where in named:
        path, _, test = where.partition("::")
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {re.escape(test)}\(", source, re.MULTILINE), where


def test_every_scenario_expectation_is_listed_by_query() -> None:
    folder = ROOT / "spec" / "gcv" / "spec" / "scenarios"
    for path in sorted(folder.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        expectations = [*document.get("expect", [])]
        expectations += [e for t in document["turns"] for e in t.get("expect", [])]
        queries = {e["query"] for e in expectations}
        listed = set(SCENARIOS.get(path.stem, {}))
        assert queries <= listed, (path.name, sorted(queries - listed))


def test_the_finder_sees_a_constant_a_parametrize_table_and_not_a_call() -> None:
    text = (
        "import pytest\nA = (1, 2)\nB = Fraction(6, 7)\nC = make()\nD = 'x'\n"
        "@pytest.mark.parametrize('n', [1, 2])\ndef test_t(n): pass\n"
    )
    tree = ast.parse(text)
    values = {n.targets[0].id: n.value for n in tree.body if isinstance(n, ast.Assign)}  # type: ignore[attr-defined]
    assert [k for k, v in values.items() if _displays(v) or _is_literal(v)] == ["A", "B"]
