"""Section 6: the principle checkers on random QBAFs, for every QBAF judge and broken ones."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given

from gcv.spec.lineage.dfquad import QBAF, Real, Sign, get_signed_sources
from gcv.spec.lineage.errors import IneligibleExtensionError
from gcv.spec.lineage.principles import (
    find_qbaf_violations,
    is_structural_flr_respected,
    is_structural_rri_respected,
    make_qbaf_replica,
)
from gcv.spec.lineage.quotient import (
    judge_qbaf_content_dfquad,
    judge_qbaf_dfquad,
    judge_qbaf_lineage_dfquad,
    judge_qbaf_lineage_maxquad,
    judge_qbaf_maxquad,
)
from gcv.spec.lineage.response import compute_qbaf_modulus
from tests.lineage.lineage_strategies import dags

F = Fraction


def violated(judge, qbaf: QBAF) -> set[str]:  # type: ignore[no-untyped-def]
    return {v.principle for v in find_qbaf_violations(judge, qbaf, modulus=compute_qbaf_modulus)}


@pytest.mark.slow
@given(dags(max_nodes=6, interior_base=True))
def test_lineage_lifting_passes_every_structural_check(qbaf: QBAF) -> None:
    assert violated(judge_qbaf_lineage_dfquad, qbaf) == set()
    assert violated(judge_qbaf_content_dfquad, qbaf) == set()  # all contents distinct here


@pytest.mark.slow
@given(dags(max_nodes=6, interior_base=True))
def test_per_occurrence_judges_fail_where_expected(qbaf: QBAF) -> None:
    dfquad = violated(judge_qbaf_dfquad, qbaf)
    assert dfquad <= {"RRI"}
    # a replica of a direct child of the topic always moves per-occurrence DF-QuAD
    if get_signed_sources(qbaf, qbaf.topic):
        assert dfquad == {"RRI"}
    assert violated(judge_qbaf_maxquad, qbaf) <= {"FLR", "qFLR"}
    assert violated(judge_qbaf_lineage_maxquad, qbaf) <= {"FLR", "qFLR"}


def broken_counts_nodes(qbaf: QBAF) -> Real:
    """Lineage lifting, then shrunk by the number of raw nodes: replicas move it (RRI)."""
    return judge_qbaf_lineage_dfquad(qbaf) * (1 - F(1, 10 + len(qbaf.base)))


def broken_first_label(qbaf: QBAF) -> Real:
    """Lineage lifting without the node whose root label sorts first (LNI)."""
    if not qbaf.roots:
        return judge_qbaf_lineage_dfquad(qbaf)
    first = min(qbaf.roots, key=lambda n: (qbaf.roots[n], n))
    kept = {n: v for n, v in qbaf.base.items() if n != first}
    return judge_qbaf_lineage_dfquad(
        QBAF(
            qbaf.topic,
            kept,
            frozenset(e for e in qbaf.supports if first not in e),
            frozenset(e for e in qbaf.attacks if first not in e),
            {n: r for n, r in qbaf.roots.items() if n != first},
            {n: c for n, c in qbaf.contents.items() if n != first},
        )
    )


def broken_damped(qbaf: QBAF) -> Real:
    """Lineage lifting with every move from the base halved: strict but below the modulus."""
    base = qbaf.base[qbaf.topic]
    return base + (judge_qbaf_lineage_dfquad(qbaf) - base) / 2


EXAMPLE = QBAF(
    "t",
    {"t": F(4, 5), "a": F(4, 5), "b": F(1, 2), "c": F(1, 5)},
    supports=frozenset({("a", "t"), ("c", "a")}),
    attacks=frozenset({("b", "t")}),
    roots={"a": "root-a", "b": "root-b", "c": "root-c"},
    contents={"a": "content-a", "b": "content-b", "c": "content-c"},
)


@pytest.mark.parametrize(
    ("judge", "must_flag", "must_pass"),
    [
        (judge_qbaf_lineage_dfquad, set(), {"RRI", "LNI", "FLR", "qFLR"}),
        (judge_qbaf_dfquad, {"RRI"}, {"LNI", "FLR", "qFLR"}),
        (judge_qbaf_maxquad, {"FLR"}, {"RRI", "LNI"}),
        (broken_counts_nodes, {"RRI"}, {"LNI"}),
        (broken_first_label, {"LNI"}, set()),
        (broken_damped, {"qFLR"}, {"RRI", "LNI", "FLR"}),
    ],
)
def test_structural_checkers_flag_broken_judges(judge, must_flag, must_pass):  # type: ignore[no-untyped-def]
    found = violated(judge, EXAMPLE)
    assert must_flag <= found, (judge.__name__, found)
    assert not must_pass & found, (judge.__name__, found)


def test_structural_checkers_refuse_cases_outside_their_principle() -> None:
    with pytest.raises(IneligibleExtensionError, match="renders no root"):
        make_qbaf_replica(EXAMPLE, "t", "copy")
    with pytest.raises(IneligibleExtensionError, match="stronger"):
        is_structural_rri_respected(judge_qbaf_lineage_dfquad, EXAMPLE, "c", F(1, 2))
    with pytest.raises(IneligibleExtensionError, match="not eligible"):
        is_structural_flr_respected(judge_qbaf_lineage_dfquad, EXAMPLE, Sign.SUPPORT, F(0))
