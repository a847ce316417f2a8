"""The epistemic gossip guard (EPLA): views, lottery models, the Guard and its decision procedure.

Executable reading of Arvenaghi, Vaezi and Ardeshir-Larijani, "Epistemic-
Probabilistic Model for Guarded Multi-Agent LLM Coordination" (extended
abstract), Sections 2-7.  Modules, in paper order:

* :mod:`~gcv.spec.gossip.calls`: agents, calls, histories, push-pull (Section 3);
* :mod:`~gcv.spec.gossip.views`: views and R_a (Definition 3.1, Example 4.2);
* :mod:`~gcv.spec.gossip.formulas`: L_K, L_K,src, tau (Definitions 3.3, 3.5);
* :mod:`~gcv.spec.gossip.lottery`: admissible ELGMs, P_a, K_a, M_0 (Definition 3.2,
  Proposition 4.1, Lemma 5.2);
* :mod:`~gcv.spec.gossip.source`: the Apt-Wojtczak source instance (Definition 3.4,
  Lemma 5.3);
* :mod:`~gcv.spec.gossip.decide`: deciding K_a(theta) over H_src (Theorem 5.4);
* :mod:`~gcv.spec.gossip.guard`: the Guard and its diagnostics (Definition 5.1);
* :mod:`~gcv.spec.gossip.execution`: versioned commits and intent records (Section 2.1);
* :mod:`~gcv.spec.gossip.reweighting`: Definition 6.1 and Lemma 6.2;
* :mod:`~gcv.spec.gossip.ranking`: Theorem 7.1's simulation harness;
* ``gcv audit gossip`` (:mod:`gcv.audits.gossip`) runs the examples and checks them.

This package imports nothing from ``reference`` or ``proofs``.
"""

from gcv.spec.gossip.calls import (
    Agent,
    AgentSet,
    Call,
    GossipState,
    History,
    compute_all_calls,
    compute_call,
    compute_history,
    compute_push_pull,
    compute_root_state,
    compute_state,
    get_secrets,
    is_secret_known,
)
from gcv.spec.gossip.decide import (
    compute_agreement,
    compute_bounded_histories,
    compute_compatible_states,
    compute_counterexample,
    is_known_brute_force,
    is_known_in_source,
    is_satisfied_in_source,
)
from gcv.spec.gossip.errors import (
    AgentSetError,
    FormulaTooDeepError,
    FragmentError,
    GossipError,
    HistoryError,
    InadmissibleLotteryError,
    ReweightingError,
    SelfCallError,
    StaleVersionError,
    UnknownAgentError,
)
from gcv.spec.gossip.execution import (
    ElcStore,
    IntentJournal,
    Permit,
    Receipt,
    compute_permit,
    compute_section_2_example,
    compute_store,
    process_commit,
)
from gcv.spec.gossip.formulas import (
    MAX_FORMULA_DEPTH,
    And,
    Formula,
    Know,
    Not,
    ProbAtLeast,
    Secret,
    Top,
    compute_expertise,
    compute_translation,
    is_factual,
    is_in_knowledge_fragment,
    is_in_wn_language,
    is_source_compatible,
)
from gcv.spec.gossip.guard import (
    Diagnostic,
    GuardDecision,
    compute_available_calls,
    compute_guard,
    compute_not_yet_known_precondition,
    compute_source_guard,
)
from gcv.spec.gossip.lottery import (
    LotteryGossipModel,
    WeightedStructure,
    compute_model,
    compute_probability,
    compute_structure,
    get_class,
    is_admissible,
    is_lottery_transparent,
    is_s5_at,
    is_satisfied,
    is_satisfied_kripke,
)
from gcv.spec.gossip.ranking import (
    RankingEstimate,
    RankingProcess,
    compute_counter_process,
    compute_gossip_process,
    compute_ranking_estimate,
)
from gcv.spec.gossip.reweighting import (
    compute_reweighting,
    compute_scaled_structure,
    is_guard_invariant,
    is_reweighting_invariant,
)
from gcv.spec.gossip.source import (
    compute_length_decay_weight,
    is_satisfied_aw,
    is_source_corresponding,
    is_source_equivalent,
)
from gcv.spec.gossip.views import compute_example_4_2, compute_view, is_view_equivalent

__all__ = [
    "MAX_FORMULA_DEPTH",
    "Agent",
    "AgentSet",
    "AgentSetError",
    "And",
    "Call",
    "Diagnostic",
    "ElcStore",
    "Formula",
    "FormulaTooDeepError",
    "FragmentError",
    "GossipError",
    "GossipState",
    "GuardDecision",
    "History",
    "HistoryError",
    "InadmissibleLotteryError",
    "IntentJournal",
    "Know",
    "LotteryGossipModel",
    "Not",
    "Permit",
    "ProbAtLeast",
    "RankingEstimate",
    "RankingProcess",
    "Receipt",
    "ReweightingError",
    "Secret",
    "SelfCallError",
    "StaleVersionError",
    "Top",
    "UnknownAgentError",
    "WeightedStructure",
    "compute_agreement",
    "compute_all_calls",
    "compute_available_calls",
    "compute_bounded_histories",
    "compute_call",
    "compute_compatible_states",
    "compute_counter_process",
    "compute_counterexample",
    "compute_example_4_2",
    "compute_expertise",
    "compute_gossip_process",
    "compute_guard",
    "compute_history",
    "compute_length_decay_weight",
    "compute_model",
    "compute_not_yet_known_precondition",
    "compute_permit",
    "compute_probability",
    "compute_push_pull",
    "compute_ranking_estimate",
    "compute_reweighting",
    "compute_root_state",
    "compute_scaled_structure",
    "compute_section_2_example",
    "compute_source_guard",
    "compute_state",
    "compute_store",
    "compute_structure",
    "compute_translation",
    "compute_view",
    "get_class",
    "get_secrets",
    "is_admissible",
    "is_factual",
    "is_guard_invariant",
    "is_in_knowledge_fragment",
    "is_in_wn_language",
    "is_known_brute_force",
    "is_known_in_source",
    "is_lottery_transparent",
    "is_reweighting_invariant",
    "is_s5_at",
    "is_satisfied",
    "is_satisfied_aw",
    "is_satisfied_in_source",
    "is_satisfied_kripke",
    "is_secret_known",
    "is_source_compatible",
    "is_source_corresponding",
    "is_source_equivalent",
    "is_view_equivalent",
    "process_commit",
]
