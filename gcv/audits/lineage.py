"""``gcv audit lineage``: the lineage audits' figures against the paper's, and the report.

The audits themselves (the toy debate, the direct-star and DAG audits, the propagation
audit) and the paper's figures are definitions, in :mod:`gcv.spec.lineage.audit`; here
each figure is compared with its computed value and labelled with its claim's status in
the registry (:mod:`gcv.claims`), and the command line prints them.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from fractions import Fraction

from tqdm import tqdm

from gcv.claims import CLAIMS
from gcv.spec.lineage.audit import (
    DAG_FRESH_STRENGTH,
    DAG_GRID,
    LINEAGE,
    PAPER,
    REPLICA_COUNT,
    STAR_GRID,
    STAR_JUDGES,
    TOY_STRENGTH,
    AuditResult,
    PropagationResult,
    ToyDebate,
    compute_float_grid,
    compute_propagation_audit,
    compute_toy_debate,
    run_dag_audit,
    run_star_audit,
)
from gcv.spec.lineage.dfquad import Real
from gcv.spec.lineage.quotient import VERDICT_THRESHOLD, compute_verdict
from gcv.spec.lineage.response import compute_b5_figures, is_split_inflating

__all__ = ["CLAIM_STATUS", "Figure", "compute_figures", "main"]


# ---------------------------------------------------------------------------
# The figures, and the report
# ---------------------------------------------------------------------------

CLAIM_STATUS = {c.id: c.status.value for c in CLAIMS if c.paper == "lineage"}
"""Each lineage claim's registry status: the one meaning of the labels the report prints."""


@dataclass(frozen=True)
class Figure:
    """One paper figure: what the paper reports, what the module computes, and whether they agree.

    ``claim`` is the id of the registry entry (:data:`gcv.claims.CLAIMS`) the figure belongs
    to: the report labels an agreeing figure with that claim's status, so the audit and the
    registry say the same thing; a figure that disagrees makes ``gcv audit lineage`` fail.
    """

    label: str
    paper: str
    computed: str
    agrees: bool
    claim: str

    @property
    def status(self) -> str:
        """The label the report prints: the registry's status, or DIFFERS."""
        return CLAIM_STATUS[self.claim] if self.agrees else "DIFFERS"


def _fmt(value: Real, places: int = 4) -> str:
    if value == 0:
        return "0"
    if places >= 3 and 0 < value < Fraction(1, 10 ** (places - 1)):
        return f"{float(value):.2e}"
    text = f"{float(value):.{places}f}"
    return text[1:] if text.startswith("0.") else text


def _is_zero_target(row: dict[str, Real]) -> bool:
    return all(row[k] == 0 for k in ("CD", "RSS8", "RFR8", "FASR"))


def compute_figures(
    toy: ToyDebate, star: AuditResult | None, dag: AuditResult, propagation: PropagationResult
) -> list[Figure]:
    """Compare every reported figure with its computed value."""
    paper_toy = PAPER["toy"]
    assert isinstance(paper_toy, dict)
    half = paper_toy["clean"]
    figures = [
        Figure(
            "7.1 clean toy debate scores .5 under every judge",
            ".5",
            ", ".join(_fmt(v, 2) for v in toy.clean.values()),
            all(v == half for v in toy.clean.values()),
            claim="lineage.toy",
        ),
        Figure(
            "7.1 a replica moves Occ-DF-QuAD .5 -> .42",
            ".42",
            _fmt(toy.replica["Occ-DF-QuAD"], 2),
            toy.replica["Occ-DF-QuAD"] == paper_toy["replica"],
            claim="lineage.toy",
        ),
        Figure(
            "7.1 ... and reverses the verdict at 1/2",
            "reversed",
            "reversed"
            if compute_verdict(toy.clean["Occ-DF-QuAD"])
            != compute_verdict(toy.replica["Occ-DF-QuAD"])
            else "kept",
            compute_verdict(toy.clean["Occ-DF-QuAD"])
            != compute_verdict(toy.replica["Occ-DF-QuAD"]),
            claim="lineage.toy",
        ),
        Figure(
            "7.1 the lineage quotient stays at .5 under the replica",
            ".5",
            _fmt(toy.replica[LINEAGE], 2),
            toy.replica[LINEAGE] == half,
            claim="lineage.toy",
        ),
        Figure(
            "7.1 matched fresh attacker moves LQ to .42",
            ".42",
            _fmt(toy.fresh_attack[LINEAGE], 2),
            toy.fresh_attack[LINEAGE] == paper_toy["fresh_attack"],
            claim="lineage.toy",
        ),
        Figure(
            "7.1 matched fresh supporter moves LQ to .58",
            ".58",
            _fmt(toy.fresh_support[LINEAGE], 2),
            toy.fresh_support[LINEAGE] == paper_toy["fresh_support"],
            claim="lineage.toy",
        ),
        Figure(
            "7.1 both fresh changes equal the .08 response bound",
            ".08",
            f"{_fmt(toy.bound_attack, 2)}, {_fmt(toy.bound_support, 2)}",
            toy.bound_attack == toy.bound_support == paper_toy["bound"]
            and half - toy.fresh_attack[LINEAGE] == toy.bound_attack
            and toy.fresh_support[LINEAGE] - half == toy.bound_support,
            claim="lineage.toy",
        ),
        Figure(
            "7.1 Max-QuAD and the content quotient ignore both fresh reports",
            "unchanged",
            ", ".join(
                _fmt(s[n], 2)
                for n in ("Max-QuAD", "CQ-DF-QuAD")
                for s in (toy.fresh_attack, toy.fresh_support)
            ),
            all(
                s[n] == half
                for n in ("Max-QuAD", "CQ-DF-QuAD")
                for s in (toy.fresh_attack, toy.fresh_support)
            ),
            claim="lineage.toy",
        ),
    ]
    b5 = compute_b5_figures()
    paper_b5 = PAPER["b5"]
    assert isinstance(paper_b5, dict)
    for key in ("modulus", "t(1-v_s)", "min(v0,1-v0)"):
        figures.append(
            Figure(
                f"B.5 {key} at the B.5 configuration",
                str(float(paper_b5[key])),
                str(float(b5[key])),
                b5[key] == paper_b5[key],
                claim="lineage.b5",
            )
        )
    figures.append(
        Figure(
            "B.5 the bound is attained there (gain = modulus)",
            "tight",
            f"gain {float(b5['gain'])}",
            b5["gain"] == b5["modulus"],
            claim="lineage.b5",
        )
    )
    if star is not None:
        row = star.metrics[LINEAGE].table_row()
        paper_row = PAPER["table2_lq"]
        assert isinstance(paper_row, dict)
        figures.append(
            Figure(
                "7.2 direct-star profiles",
                f"{PAPER['star_profiles']:,}",
                f"{star.profiles:,}",
                star.profiles == PAPER["star_profiles"],
                claim="lineage.table-2",
            )
        )
        for key in ("CD", "RSS8", "RFR8", "FASR"):
            figures.append(
                Figure(
                    f"Table 2 LQ-DF-QuAD {key}",
                    "0",
                    _fmt(row[key]),
                    row[key] == 0,
                    claim="lineage.table-2",
                )
            )
        flg = f"{float(row['FLG']):.4f}"
        figures.append(
            Figure(
                "Table 2 LQ-DF-QuAD FLG",
                str(paper_row["FLG"]),
                flg,
                flg == paper_row["FLG"],
                claim="lineage.table-2",
            )
        )
        exact = star.exact_min_gain
        assert exact is not None
        figures.append(
            Figure(
                "Table 2 LQ-DF-QuAD MinG",
                str(paper_row["MinG"]),
                f"{float(exact):.4f} (exactly {exact})",
                f"{float(exact):.4f}" == paper_row["MinG"],
                claim="lineage.table-2",
            )
        )
        least = star.exact_min_modulus
        assert least is not None
        figures.append(
            Figure(
                "B.5 the minimum response modulus on the grid",
                "0.00128",
                str(float(least)),
                least == paper_b5["modulus"],
                claim="lineage.table-2",
            )
        )
        figures.append(
            Figure(
                "B.5 ... attained: MinG equals it",
                "0.00128",
                str(float(exact)),
                exact == least == paper_b5["modulus"],
                claim="lineage.table-2",
            )
        )
        others = [
            n for n, m in star.metrics.items() if n != LINEAGE and _is_zero_target(m.table_row())
        ]
        figures.append(
            Figure(
                "7.2 only the lineage quotient meets the joint target",
                "only LQ",
                ", ".join([LINEAGE, *others]),
                _is_zero_target(row) and not others,
                claim="lineage.table-2",
            )
        )
        figures.append(
            Figure(
                "6.1 modulus holds on every star test (violations)",
                "0",
                str(star.modulus_violations),
                star.modulus_violations == 0,
                claim="lineage.table-2",
            )
        )
    dag_row = dag.metrics[LINEAGE].table_row()
    figures += [
        Figure(
            "C.1 DAGs (chain, fork, diamond)",
            "2,052",
            f"{dag.profiles:,}",
            dag.profiles == PAPER["dags"],
            claim="lineage.c1.dag",
        ),
        Figure(
            "C.1 replica-position tests",
            "2,700",
            f"{dag.replica_tests:,}",
            dag.replica_tests == PAPER["dag_replica_tests"],
            claim="lineage.c1.dag",
        ),
        Figure(
            "C.1 fresh direct-root interventions",
            "4,104",
            f"{dag.fresh_tests:,}",
            dag.fresh_tests == PAPER["dag_fresh_tests"],
            claim="lineage.c1.dag",
        ),
        Figure(
            "7.2 DAG lineage lifting: max clean deviation",
            "0",
            _fmt(dag_row["CD"]),
            dag_row["CD"] == 0,
            claim="lineage.c1.dag",
        ),
        Figure(
            "7.2 DAG lineage lifting: max replication shift",
            "0",
            _fmt(dag_row["RSS8"]),
            dag_row["RSS8"] == 0,
            claim="lineage.c1.dag",
        ),
        Figure(
            "7.2 DAG lineage lifting: minimum signed fresh-root gain",
            "1.28e-4",
            f"{float(dag.exact_min_gain or 0):.3g} (exactly {dag.exact_min_gain})",
            dag.exact_min_gain == PAPER["dag_lq_min_gain"],
            claim="lineage.c1.dag-min-gain",
        ),
        Figure(
            "6.1 modulus holds on every DAG fresh test (violations)",
            "0",
            str(dag.modulus_violations),
            dag.modulus_violations == 0,
            claim="lineage.c1.dag",
        ),
        Figure(
            "Thm 6 consistent parity: strict move with the predicted sign",
            "all",
            f"{propagation.consistent_strict_with_sign}/{propagation.consistent}",
            propagation.consistent_strict_with_sign == propagation.consistent > 0,
            claim="lineage.thm-6",
        ),
        Figure(
            "B.4 opposite parities: intermediate scores rise, topic unchanged",
            "unchanged",
            f"a {_fmt(propagation.b4_before['a'], 2)}->{_fmt(propagation.b4_after['a'], 2)}, "
            f"b {_fmt(propagation.b4_before['b'], 2)}->{_fmt(propagation.b4_after['b'], 2)}, "
            f"t {_fmt(propagation.b4_before['t'], 2)}->{_fmt(propagation.b4_after['t'], 2)}",
            propagation.b4_after["a"] > propagation.b4_before["a"]
            and propagation.b4_after["b"] > propagation.b4_before["b"]
            and propagation.b4_after["t"] == propagation.b4_before["t"],
            claim="lineage.thm-6",
        ),
        Figure(
            "B.6 1 - (1 - t)^m > t for t in the grids, m = 2..8",
            "holds",
            "holds" if _b6_holds() else "fails",
            _b6_holds(),
            claim="lineage.b6",
        ),
    ]
    return figures


def _b6_holds() -> bool:
    return all(is_split_inflating(t, m) for t in (*STAR_GRID, *DAG_GRID) for m in range(2, 9))


def _format_table(result: AuditResult) -> list[str]:
    keys = ("CD", "RSS8", "RFR8", "FASR", "FLG", "MinG")
    lines = ["  " + "judge".ljust(13) + "".join(k.rjust(9) for k in keys)]
    for name, metrics in result.metrics.items():
        row = metrics.table_row()
        lines.append("  " + name.ljust(13) + "".join(_fmt(row[k]).rjust(9) for k in keys))
    return lines


def _format_report(
    toy: ToyDebate,
    star: AuditResult | None,
    dag: AuditResult,
    propagation: PropagationResult,
    figures: list[Figure],
    exact: bool,
) -> str:
    lines = ["Replication or Corroboration? -- lineage-quotient audits (Sections 6-7, B, C.1)", ""]
    lines.append(
        f"Section 7.1  toy debate: topic base .5, one supporter and one attacker of "
        f"strength {_fmt(TOY_STRENGTH, 1)}"
    )
    lines.append(
        "  "
        + "judge".ljust(13)
        + "clean".rjust(8)
        + "+replica".rjust(10)
        + "+fresh att.".rjust(13)
        + "+fresh sup.".rjust(13)
    )
    for name, _ in STAR_JUDGES:
        lines.append(
            "  "
            + name.ljust(13)
            + _fmt(toy.clean[name], 2).rjust(8)
            + _fmt(toy.replica[name], 2).rjust(10)
            + _fmt(toy.fresh_attack[name], 2).rjust(13)
            + _fmt(toy.fresh_support[name], 2).rjust(13)
        )
    lines.append(
        f"  response bound t(1 - v_same)min{{v0, 1 - v0}}: attacker "
        f"{_fmt(toy.bound_attack, 2)}, supporter {_fmt(toy.bound_support, 2)}; "
        f"verdict threshold {_fmt(VERDICT_THRESHOLD, 1)} (accept when score >= it)"
    )
    lines.append("")
    if star is not None:
        lines.append(
            f"Table 2  direct-star audit ({'exact' if exact else 'float'} arithmetic): "
            f"{star.profiles:,} profiles, {star.replica_tests:,} replica-position tests "
            f"(x{REPLICA_COUNT}), {star.fresh_tests:,} matched fresh-root tests"
        )
        lines += _format_table(star)
        lines.append(
            f"  LQ exact MinG {star.exact_min_gain}; modulus violations "
            f"{star.modulus_violations}, tests at the bound {star.modulus_tight}; "
            f"{star.seconds:.1f} s"
        )
        lines.append("")
    lines.append(
        f"Multi-layer DAG audit (C.1): {dag.profiles:,} DAGs, {dag.replica_tests:,} "
        f"replica-position tests (x{REPLICA_COUNT}), {dag.fresh_tests:,} fresh direct "
        f"roots of strength {_fmt(DAG_FRESH_STRENGTH, 1)}"
    )
    lines += _format_table(dag)
    lines.append(
        f"  LQ MinG exactly {dag.exact_min_gain}; modulus violations "
        f"{dag.modulus_violations}, tests at the bound {dag.modulus_tight}; "
        f"{dag.seconds:.1f} s"
    )
    lines.append("")
    lines.append(
        f"Theorem 6 on the DAGs: {propagation.consistent} consistent-parity fresh roots, "
        f"{propagation.consistent_strict_with_sign} strict with the predicted sign; "
        f"{propagation.mixed} mixed-parity, {propagation.mixed_cancelled} cancel exactly; "
        f"{propagation.seconds:.1f} s"
    )
    lines.append("")
    lines.append("Figures (paper -> computed):")
    for figure in figures:
        lines.append(f"  [{figure.status}] {figure.label}: {figure.paper} -> {figure.computed}")
    lines.append("")
    lines.append(
        "Section 7.3 (AVeriTeC, 277 profiles) is not run: it needs the AVeriTeC dataset, "
        "which this project does not ship."
    )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """``gcv audit lineage``: print the toy debate and the audit tables; 1 if a figure differs."""
    parser = argparse.ArgumentParser(
        prog="gcv audit lineage", description="The lineage-quotient audits (Section 7, C.1)."
    )
    parser.add_argument(
        "--exact", action="store_true", help="run the audits in exact rational arithmetic (slower)"
    )
    parser.add_argument(
        "--skip-star", action="store_true", help="leave out the 28,224-profile direct-star audit"
    )
    parser.add_argument("--json", action="store_true", help="print the figures and audits as JSON")
    parser.add_argument(
        "--quiet", action="store_true", help="no progress on stderr (shown only on a terminal)"
    )
    args = parser.parse_args(argv)
    # A bar over the four audits on stderr, only on a terminal (tqdm's disable=None).
    with tqdm(total=4, file=sys.stderr, disable=True if args.quiet else None, leave=False) as bar:
        bar.set_description("toy debate")
        toy = compute_toy_debate()
        bar.update()
        star = None
        if not args.skip_star:
            bar.set_description("direct-star audit")
            star = run_star_audit(STAR_GRID if args.exact else compute_float_grid(STAR_GRID))
        bar.update()
        bar.set_description("DAG audit")
        if args.exact:
            dag = run_dag_audit()
        else:
            dag = run_dag_audit(compute_float_grid(DAG_GRID), float(DAG_FRESH_STRENGTH))
        bar.update()
        bar.set_description("propagation audit")
        propagation = compute_propagation_audit()
        bar.update()
    figures = compute_figures(toy, star, dag, propagation)
    ok = all(f.agrees for f in figures)
    if args.json:
        report = {
            "ok": ok,
            "arithmetic": "exact" if args.exact else "float",
            "figures": [asdict(f) | {"status": f.status} for f in figures],
            "toy": asdict(toy),
            "star": None if star is None else asdict(star),
            "dag": asdict(dag),
            "propagation": asdict(propagation),
        }
        # Exact rationals are written as "p/q" strings, floats as numbers.
        print(json.dumps(report, indent=2, default=str))
    else:
        print(_format_report(toy, star, dag, propagation, figures, args.exact))
    return 0 if ok else 1
