"""The paper statements a conformance case can name, spelt once: the schema's enum
(``vectors.STATEMENTS``), the cases and the fuzzer's findings all read them from here, and
``spec/gcv/spec/vectors/COVERAGE.md`` groups the cases under exactly these names."""

from __future__ import annotations

__all__ = [
    "A1",
    "A2",
    "A3",
    "COMPOSITION",
    "COR24",
    "DEF21",
    "DEF23",
    "EXPAND",
    "HYPOTHESIZE",
    "LEMMA21",
    "LEMMA22",
    "OBSERVE",
    "ORDER",
    "PHASE1",
    "PHASE2",
    "PHASE3",
    "PROP23",
    "QUESTION",
    "RESOLVE",
    "REVISE",
    "SUBSUMPTION",
    "SUPPORT",
    "UNDERMINE",
    "UPDATES",
]

DEF21 = "Definition 2.1"
ORDER = "Section 2 (operation order)"
COMPOSITION = "Section 2 (per-turn composition)"
OBSERVE = "Table 3 (Observe)"
HYPOTHESIZE = "Table 3 (Hypothesize)"
SUPPORT = "Table 3 (Support)"
UNDERMINE = "Table 3 (Undermine)"
REVISE = "Table 3 (Revise)"
RESOLVE = "Table 3 (Resolve)"
EXPAND = "Table 3 (Expand-Awareness)"
QUESTION = "Table 3 (Question)"
LEMMA21 = "Lemma 2.1"
LEMMA22 = "Lemma 2.2"
PROP23 = "Proposition 2.3"
DEF23 = "Definition 2.3"
COR24 = "Corollary 2.4"
A1 = "Definition A.1"
UPDATES = "A.1 (updates)"
A2 = "Definition A.2"
A3 = "Definition A.3"
SUBSUMPTION = "A.3 (subsumption at Resolve)"
PHASE1 = "Phase 1 (B.1)"
PHASE2 = "Phase 2 (B.2)"
PHASE3 = "Phase 3 (B.3)"
