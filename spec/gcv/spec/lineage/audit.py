"""Section 7 and Appendix C.1: the toy debate and the structural audits.

Everything ``gcv audit lineage`` prints is computed here (the command, and the
comparison of each figure with its claim, are :mod:`gcv.audits.lineage`); the
paper's figures (from the summary) sit in :data:`PAPER` only to be compared against.
Where the summary does not fix a grid or a metric, the reading below is the one that
reproduces the reported numbers, and each choice is written beside its constant.

Metrics (Table 2), per judge, over the tests of an audit:

* CD, clean deviation: the largest ``|judge - DF-QuAD|`` over the clean
  profiles (no replicas), DF-QuAD on the per-occurrence graph being the
  semantics the lifting must match on singleton classes;
* RSS8, replica score shift: the largest ``|score change|`` when one report
  is replicated :data:`REPLICA_COUNT` (= 8) times, at every position;
* RFR8, replica flip rate: the share of those tests whose verdict at
  threshold 1/2 changes;
* FASR, fresh absorption rate: the share of eligible matched fresh-root
  tests whose signed gain is not positive (strict FLR fails);
* FLG, fresh lineage gain: the mean signed gain of those tests;
* MinG: their minimum signed gain.

Whole, at about 650 lines: it is Section 7 and Appendix C.1 in the paper's order, and every
audit reads the same constants (the paper's values and the readings chosen beside them) and
the same metrics; split per audit, each choice written beside its constant would be read
from another file.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import product

from gcv.spec.lineage.dfquad import (
    QBAF,
    Real,
    Sign,
    compute_dfquad_strengths,
    get_signed_targets,
)
from gcv.spec.lineage.model import (
    Occurrence,
    Profile,
    compute_extension,
    get_base,
    is_eligible,
    make_direct_profile,
    make_fresh,
    make_relay,
)
from gcv.spec.lineage.quotient import (
    VERDICT_THRESHOLD,
    Judge,
    QJudge,
    compute_verdict,
    judge_content_dfquad,
    judge_lineage_dfquad,
    judge_occurrence_dfquad,
    judge_occurrence_maxquad,
    judge_qbaf_content_dfquad,
    judge_qbaf_dfquad,
    judge_qbaf_lineage_dfquad,
    judge_qbaf_maxquad,
)
from gcv.spec.lineage.response import (
    compute_dfquad_modulus,
    compute_predicted_sign,
    compute_qbaf_modulus,
    is_interior,
    make_b4_example,
    make_fresh_leaf,
)

__all__ = [
    "DAG_FRESH_STRENGTH",
    "DAG_GRID",
    "PAPER",
    "REPLICA_COUNT",
    "STAR_GRID",
    "STAR_LEAVES",
    "TOY_STRENGTH",
    "AuditResult",
    "JudgeMetrics",
    "PropagationResult",
    "ToyDebate",
    "compute_float_grid",
    "compute_propagation_audit",
    "compute_toy_debate",
    "generate_dags",
    "generate_star_profiles",
    "make_toy_debate",
    "run_dag_audit",
    "run_star_audit",
]

# ---------------------------------------------------------------------------
# Constants: the paper's values and this module's readings
# ---------------------------------------------------------------------------

STAR_GRID = (Fraction(1, 5), Fraction(2, 5), Fraction(3, 5), Fraction(4, 5))
"""Direct-star audit strengths (topic base and every report).

The summary gives the count (28,224 profiles) and the minimum .00128 but not
the grid.  Four values {.2, .4, .6, .8} with 1-3 supporters and 1-3 attackers
as ordered report sequences give 4 x 84 x 84 = 28,224 profiles; the matched
fresh-root tests then have mean gain 17/570 = .0298 and minimum 4/3125 =
.00128 (B.5's configuration lies on this grid), as Table 2 reports.
"""

STAR_LEAVES = 3
"""At most this many supporters and attackers in a direct-star profile (at least one each)."""

DAG_GRID = (Fraction(1, 5), Fraction(1, 2), Fraction(4, 5))
"""Section 7.2: the multi-layer DAGs' strengths {0.2, 0.5, 0.8}."""

DAG_FRESH_STRENGTH = Fraction(2, 5)
"""The strength of the fresh direct roots in the DAG audit (the summary does not say).

Two per DAG (a supporter and an attacker) give the 4,104 interventions.  The
smallest lineage gain is linear in this strength (it is attained where the
modulus is tight): .2 gives 6.4e-5, .5 gives 1.6e-4, .8 gives 2.56e-4, and .4
gives the reported 1.28e-4, so .4 is the reading taken here.
"""

REPLICA_COUNT = 8
"""How many replicas a replica-position test adds ("8" in RSS8 and RFR8, read as eight copies)."""

TOY_STRENGTH = Fraction(1, 5)
"""Section 7.1: the strength of each toy report.

The summary omits it; .2 and .8 both give .5 -> .42 for one relay of the
attacker and a response bound t(1 - v_s)min{v0, 1 - v0} = .08.
"""

PAPER: dict[str, object] = {
    "toy": {
        "clean": Fraction(1, 2),
        "replica": Fraction(42, 100),
        "fresh_attack": Fraction(42, 100),
        "fresh_support": Fraction(58, 100),
        "bound": Fraction(8, 100),
    },
    "b5": {
        "modulus": Fraction(128, 100_000),
        "t(1-v_s)": Fraction(64, 10_000),
        "min(v0,1-v0)": Fraction(2, 10),
    },
    "star_profiles": 28_224,
    "dags": 2_052,
    "dag_replica_tests": 2_700,
    "dag_fresh_tests": 4_104,
    "table2_lq": {"CD": 0, "RSS8": 0, "RFR8": 0, "FASR": 0, "FLG": "0.0298", "MinG": "0.0013"},
    "dag_lq_min_gain": Fraction(128, 1_000_000),
}
"""The figures the summary reports (Sections 7.1, 7.2, B.5, C.1), for :func:`compute_figures`."""

STAR_JUDGES: tuple[tuple[str, Judge], ...] = (
    ("Occ-DF-QuAD", judge_occurrence_dfquad),
    ("Max-QuAD", judge_occurrence_maxquad),
    ("CQ-DF-QuAD", judge_content_dfquad),
    ("LQ-DF-QuAD", judge_lineage_dfquad),
)
"""The judges of Table 2: per-occurrence DF-QuAD, Max-QuAD, content and lineage quotients."""

DAG_JUDGES: tuple[tuple[str, QJudge], ...] = (
    ("Occ-DF-QuAD", judge_qbaf_dfquad),
    ("Max-QuAD", judge_qbaf_maxquad),
    ("CQ-DF-QuAD", judge_qbaf_content_dfquad),
    ("LQ-DF-QuAD", judge_qbaf_lineage_dfquad),
)
"""The same judges over QBAFs (the content and lineage ones through the generic lifting)."""

LINEAGE = "LQ-DF-QuAD"


# ---------------------------------------------------------------------------
# Section 7.1: the toy debate
# ---------------------------------------------------------------------------


def make_toy_debate(
    strength: Real = TOY_STRENGTH,
) -> tuple[Profile, Occurrence, Occurrence, Occurrence]:
    """Section 7.1 (Figure 2). The balanced debate, a relay, and two matched fresh reports.

    Topic base .5; Alice supports and Bob attacks, each with their own root
    and strength ``strength``.  Carol relays Bob's report (a root replica);
    Dave's report matches that relay with a fresh root; Erin's matches a relay
    of Alice's with a fresh root.  Returns (profile, replica, fresh attacker,
    fresh supporter).
    """
    alice = Occurrence(
        "alice",
        "The trial found an effect.",
        "trial-effect",
        "root-trial",
        "topic",
        Sign.SUPPORT,
        strength,
    )
    bob = Occurrence(
        "bob",
        "The trial was underpowered.",
        "trial-underpowered",
        "root-power",
        "topic",
        Sign.ATTACK,
        strength,
    )
    profile = make_direct_profile(Fraction(1, 2), [alice, bob])
    replica = make_relay(bob, "carol")
    fresh_attack = make_fresh(make_relay(bob, "dave"), "root-second-power-analysis")
    fresh_support = make_fresh(make_relay(alice, "erin"), "root-second-trial")
    return profile, replica, fresh_attack, fresh_support


@dataclass(frozen=True)
class ToyDebate:
    """Section 7.1. Each judge's score on the toy debate and its three extensions."""

    clean: dict[str, Real]
    replica: dict[str, Real]
    fresh_attack: dict[str, Real]
    fresh_support: dict[str, Real]
    bound_attack: Real
    bound_support: Real


def compute_toy_debate(strength: Real = TOY_STRENGTH) -> ToyDebate:
    """Section 7.1. Score the toy debate with every judge, and the two response bounds."""
    profile, replica, fresh_attack, fresh_support = make_toy_debate(strength)
    extended = {
        "clean": profile,
        "replica": compute_extension(profile, replica),
        "fresh_attack": compute_extension(profile, fresh_attack),
        "fresh_support": compute_extension(profile, fresh_support),
    }
    scores = {case: {name: judge(p) for name, judge in STAR_JUDGES} for case, p in extended.items()}
    return ToyDebate(
        clean=scores["clean"],
        replica=scores["replica"],
        fresh_attack=scores["fresh_attack"],
        fresh_support=scores["fresh_support"],
        bound_attack=compute_dfquad_modulus(profile, fresh_attack),
        bound_support=compute_dfquad_modulus(profile, fresh_support),
    )


# ---------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------


@dataclass
class JudgeMetrics:
    """Table 2. One judge's running metrics over an audit's tests."""

    name: str
    threshold: Real = VERDICT_THRESHOLD
    clean_deviation: Real = 0
    replica_shift: Real = 0
    replica_flips: int = 0
    replica_tests: int = 0
    fresh_absorbed: int = 0
    fresh_tests: int = 0
    fresh_gain_total: Real = 0
    fresh_gain_min: Real | None = None
    min_witness: object = None

    def add_clean(self, score: Real, reference: Real) -> None:
        """Record one clean profile's score against the reference semantics."""
        self.clean_deviation = max(self.clean_deviation, _magnitude(score - reference))

    def add_replica(self, before: Real, after: Real) -> None:
        """Record one replica-position test."""
        self.replica_tests += 1
        self.replica_shift = max(self.replica_shift, _magnitude(after - before))
        if compute_verdict(before, self.threshold) != compute_verdict(after, self.threshold):
            self.replica_flips += 1

    def add_fresh(self, gain: Real, witness: object) -> None:
        """Record one matched fresh-root test's signed gain."""
        self.fresh_tests += 1
        self.fresh_gain_total += gain
        if gain <= _slack(gain):
            self.fresh_absorbed += 1
        if self.fresh_gain_min is None or gain < self.fresh_gain_min:
            self.fresh_gain_min = gain
            self.min_witness = witness

    def table_row(self) -> dict[str, Real]:
        """The six Table 2 figures."""
        return {
            "CD": self.clean_deviation,
            "RSS8": self.replica_shift,
            "RFR8": Fraction(self.replica_flips, max(1, self.replica_tests)),
            "FASR": Fraction(self.fresh_absorbed, max(1, self.fresh_tests)),
            "FLG": self.fresh_gain_total / max(1, self.fresh_tests),
            "MinG": self.fresh_gain_min if self.fresh_gain_min is not None else 0,
        }


@dataclass
class AuditResult:
    """An audit's counts, per-judge metrics, response-modulus check and wall time."""

    name: str
    profiles: int = 0
    replica_tests: int = 0
    fresh_tests: int = 0
    metrics: dict[str, JudgeMetrics] = field(default_factory=dict)
    ineligible: int = 0
    modulus_violations: int = 0
    modulus_tight: int = 0
    exact_min_gain: Real | None = None
    exact_min_modulus: Real | None = None
    seconds: float = 0.0


# ---------------------------------------------------------------------------
# Section 7.2: the direct-star audit (28,224 profiles)
# ---------------------------------------------------------------------------


def _sequences(grid: Sequence[Real], most: int) -> Iterator[tuple[Real, ...]]:
    for length in range(1, most + 1):
        yield from product(grid, repeat=length)


def _star_occurrence(sign: Sign, index: int, strength: Real) -> Occurrence:
    side = "s" if sign is Sign.SUPPORT else "a"
    return Occurrence(
        f"agent-{side}{index}",
        f"report {side}{index}",
        f"content-{side}{index}",
        f"root-{side}{index}",
        "topic",
        sign,
        strength,
    )


def generate_star_profiles(
    grid: Sequence[Real] = STAR_GRID, leaves: int = STAR_LEAVES
) -> Iterator[Profile]:
    """Section 7.2. Direct stars: a topic base, 1..``leaves`` supporters and attackers, in order.

    Report ``i`` on each side has its own displayed identity, content and
    root; the reports are ordered sequences (each position is one test).
    """
    table = {
        (sign, i, v): _star_occurrence(sign, i, v)
        for sign in Sign
        for i in range(leaves)
        for v in grid
    }
    for base in grid:
        for supports in _sequences(grid, leaves):
            for attacks in _sequences(grid, leaves):
                yield make_direct_profile(
                    base,
                    [
                        *(table[(Sign.SUPPORT, i, v)] for i, v in enumerate(supports)),
                        *(table[(Sign.ATTACK, i, v)] for i, v in enumerate(attacks)),
                    ],
                )


def run_star_audit(
    grid: Sequence[Real] = STAR_GRID,
    leaves: int = STAR_LEAVES,
    replicas: int = REPLICA_COUNT,
    judges: Sequence[tuple[str, Judge]] = STAR_JUDGES,
) -> AuditResult:
    """Section 7.2 (Table 2). The direct-star audit with replica and matched fresh tests.

    For every profile and every report position: a replica test (the report
    relayed ``replicas`` times) and a matched fresh test (one relay of it
    under a new root).  The lineage judge's gains are also checked against
    the response modulus (Section 6.1).
    """
    started = time.perf_counter()
    threshold: Real = VERDICT_THRESHOLD if isinstance(grid[0], Fraction) else 0.5
    result = AuditResult(
        "direct-star", metrics={name: JudgeMetrics(name, threshold) for name, _ in judges}
    )
    relays: dict[Occurrence, tuple[Occurrence, ...]] = {}
    fresh_twins: dict[Occurrence, Occurrence] = {}
    min_modulus: tuple[Real, Profile, Occurrence] | None = None
    for profile in generate_star_profiles(grid, leaves):
        result.profiles += 1
        before = {name: judge(profile) for name, judge in judges}
        reference = judge_occurrence_dfquad(profile)
        for name, _ in judges:
            result.metrics[name].add_clean(before[name], reference)
        for occurrence in profile.occurrences:
            if occurrence not in relays:
                relays[occurrence] = tuple(
                    make_relay(occurrence, f"relay-{k}") for k in range(1, replicas + 1)
                )
                fresh_twins[occurrence] = make_fresh(
                    relays[occurrence][0], f"fresh-{occurrence.root}"
                )
            replicated = compute_extension(profile, *relays[occurrence])
            result.replica_tests += 1
            for name, judge in judges:
                result.metrics[name].add_replica(before[name], judge(replicated))
            fresh = fresh_twins[occurrence]
            if not is_eligible(profile, fresh):
                result.ineligible += 1
                continue
            extended = compute_extension(profile, fresh)
            result.fresh_tests += 1
            for name, judge in judges:
                metrics = result.metrics[name]
                gain = int(fresh.sign) * (judge(extended) - before[name])
                metrics.add_fresh(gain, (profile, fresh))
                if name == LINEAGE:
                    modulus = compute_dfquad_modulus(profile, fresh)
                    if min_modulus is None or modulus < min_modulus[0]:
                        min_modulus = (modulus, profile, fresh)
                    if gain < modulus - _slack(gain):
                        result.modulus_violations += 1
                    if _magnitude(gain - modulus) <= _slack(gain):
                        result.modulus_tight += 1
    if LINEAGE in result.metrics:
        witness = result.metrics[LINEAGE].min_witness
        assert isinstance(witness, tuple)
        profile, fresh = witness
        result.exact_min_gain = _exact_star_gain(profile, fresh)
    if min_modulus is not None:
        _, profile, fresh = min_modulus
        exact = _exact_star_profile(profile)
        result.exact_min_modulus = compute_dfquad_modulus(
            exact, replace(fresh, strength=_exact(fresh.strength))
        )
    result.seconds = time.perf_counter() - started
    return result


def _magnitude(value: Real) -> Real:
    return value if value >= 0 else -value


def compute_float_grid(grid: Sequence[Real]) -> tuple[Real, ...]:
    """The grid in floating point, for the fast runs."""
    return tuple(float(v) for v in grid)


def _slack(value: Real) -> Real:
    """Rounding allowance when an audit runs in floats; none in exact arithmetic."""
    return 0 if isinstance(value, Fraction) else 1e-12


def _exact(value: Real) -> Fraction:
    return value if isinstance(value, Fraction) else Fraction(str(value))


def _exact_star_profile(profile: Profile) -> Profile:
    """The same profile with its base score and strengths as exact rationals."""
    return make_direct_profile(
        _exact(get_base(profile)),
        [replace(o, strength=_exact(o.strength)) for o in profile.occurrences],
    )


def _exact_star_gain(profile: Profile, fresh: Occurrence) -> Real:
    """Recompute a direct-star test's lineage gain in exact arithmetic."""
    exact = _exact_star_profile(profile)
    twin = replace(fresh, strength=_exact(fresh.strength))
    return int(twin.sign) * (
        judge_lineage_dfquad(compute_extension(exact, twin)) - judge_lineage_dfquad(exact)
    )


# ---------------------------------------------------------------------------
# Section 7.2 and Appendix C.1: the multi-layer DAG audit (2,052 DAGs)
# ---------------------------------------------------------------------------

DAG_SHAPES: dict[str, tuple[tuple[str, str], ...]] = {
    "chain": (("b", "a"), ("a", "t")),
    "fork": (("b", "a"), ("c", "a"), ("a", "t")),
    "diamond": (("c", "a"), ("c", "b"), ("a", "t"), ("b", "t")),
}
"""Appendix C.1's families: chain t <- a <- b, fork t <- a <- {b, c}, diamond t <- {a, b} <- c.

With the topic and every node strength in {.2, .5, .8} and every edge
either sign, they give 108 + 648 + 1,296 = 2,052 DAGs, their leaves 108 +
1,296 + 1,296 = 2,700 replica positions, and a fresh direct supporter and
attacker per DAG 4,104 interventions: the counts C.1 reports.
"""


def generate_dags(grid: Sequence[Real] = DAG_GRID) -> Iterator[tuple[str, QBAF, tuple[str, ...]]]:
    """Appendix C.1. Every chain, fork and diamond DAG over ``grid``, with its leaves.

    Every non-topic node is a report with its own root and content label.
    """
    for family, edges in DAG_SHAPES.items():
        nodes = sorted({n for edge in edges for n in edge} - {"t"})
        leaves = tuple(n for n in nodes if all(target != n for _, target in edges))
        for base in product(grid, repeat=len(nodes) + 1):
            for signs in product((Sign.SUPPORT, Sign.ATTACK), repeat=len(edges)):
                yield (
                    family,
                    QBAF(
                        topic="t",
                        base={"t": base[0], **dict(zip(nodes, base[1:], strict=True))},
                        supports=frozenset(
                            e for e, s in zip(edges, signs, strict=True) if s is Sign.SUPPORT
                        ),
                        attacks=frozenset(
                            e for e, s in zip(edges, signs, strict=True) if s is Sign.ATTACK
                        ),
                        roots={n: f"root-{n}" for n in nodes},
                        contents={n: f"content-{n}" for n in nodes},
                    ),
                    leaves,
                )


def _replicate_leaf(qbaf: QBAF, leaf: str, count: int) -> QBAF:
    """Add ``count`` replicas of ``leaf``: same base, targets, root and content."""
    copies = [f"{leaf}~relay-{k}" for k in range(1, count + 1)]
    targets = get_signed_targets(qbaf, leaf)
    return QBAF(
        topic=qbaf.topic,
        base={**qbaf.base, **{copy: qbaf.base[leaf] for copy in copies}},
        supports=qbaf.supports | {(c, t) for c in copies for s, t in targets if s is Sign.SUPPORT},
        attacks=qbaf.attacks | {(c, t) for c in copies for s, t in targets if s is Sign.ATTACK},
        roots={**qbaf.roots, **{copy: qbaf.roots[leaf] for copy in copies}},
        contents={**qbaf.contents, **{copy: qbaf.contents[leaf] for copy in copies}},
    )


def run_dag_audit(
    grid: Sequence[Real] = DAG_GRID,
    fresh_strength: Real = DAG_FRESH_STRENGTH,
    replicas: int = REPLICA_COUNT,
    judges: Sequence[tuple[str, QJudge]] = DAG_JUDGES,
) -> AuditResult:
    """Section 7.2 and C.1. Replica tests at every leaf, fresh direct roots of both signs.

    Intermediate-node fresh roots are excluded, as in C.1 (see
    :func:`compute_propagation_audit` for Theorem 6 instead).
    """
    started = time.perf_counter()
    threshold: Real = VERDICT_THRESHOLD if isinstance(grid[0], Fraction) else 0.5
    result = AuditResult(
        "multi-layer DAG", metrics={name: JudgeMetrics(name, threshold) for name, _ in judges}
    )
    for _, qbaf, leaves in generate_dags(grid):
        result.profiles += 1
        before = {name: judge(qbaf) for name, judge in judges}
        reference = judge_qbaf_dfquad(qbaf)
        for name, _ in judges:
            result.metrics[name].add_clean(before[name], reference)
        for leaf in leaves:
            replicated = _replicate_leaf(qbaf, leaf, replicas)
            result.replica_tests += 1
            for name, judge in judges:
                result.metrics[name].add_replica(before[name], judge(replicated))
        for sign in (Sign.SUPPORT, Sign.ATTACK):
            fresh = make_fresh_leaf(qbaf, "t", sign, fresh_strength)
            result.fresh_tests += 1
            for name, judge in judges:
                gain = int(sign) * (judge(fresh) - before[name])
                result.metrics[name].add_fresh(gain, (qbaf, sign))
                if name == LINEAGE:
                    modulus = compute_qbaf_modulus(qbaf, sign, fresh_strength)
                    if gain < modulus - _slack(gain):
                        result.modulus_violations += 1
                    if _magnitude(gain - modulus) <= _slack(gain):
                        result.modulus_tight += 1
    if LINEAGE in result.metrics:
        witness = result.metrics[LINEAGE].min_witness
        assert isinstance(witness, tuple)
        qbaf, sign = witness
        result.exact_min_gain = _exact_dag_gain(qbaf, sign, fresh_strength)
    result.seconds = time.perf_counter() - started
    return result


def _exact_dag_gain(qbaf: QBAF, sign: Sign, strength: Real) -> Real:
    """Recompute a DAG test's lineage gain in exact arithmetic."""
    exact = QBAF(
        qbaf.topic,
        {n: _exact(v) for n, v in qbaf.base.items()},
        qbaf.supports,
        qbaf.attacks,
        qbaf.roots,
        qbaf.contents,
    )
    fresh = make_fresh_leaf(exact, exact.topic, sign, _exact(strength))
    return int(sign) * (judge_qbaf_lineage_dfquad(fresh) - judge_qbaf_lineage_dfquad(exact))


# ---------------------------------------------------------------------------
# Theorem 6 and B.4 on the DAG grid
# ---------------------------------------------------------------------------


@dataclass
class PropagationResult:
    """Theorem 6 (B.3) checked on every DAG node, and B.4's cancellation."""

    consistent: int = 0
    consistent_strict_with_sign: int = 0
    mixed: int = 0
    mixed_cancelled: int = 0
    b4_before: dict[str, Real] = field(default_factory=dict)
    b4_after: dict[str, Real] = field(default_factory=dict)
    seconds: float = 0.0


def compute_propagation_audit(
    grid: Sequence[Real] = DAG_GRID, strength: Real = DAG_FRESH_STRENGTH
) -> PropagationResult:
    """Theorem 6 (B.3-B.4). A fresh supporter at every non-topic node of every DAG.

    Where all paths to the topic share attack parity the topic must move
    strictly with the predicted sign; where parities differ, count the
    cases that cancel exactly.  Then B.4's example.
    """
    started = time.perf_counter()
    result = PropagationResult()
    for _, qbaf, _ in generate_dags(grid):
        # Verify that the grid's strengths lie strictly inside (0, 1)
        assert is_interior(qbaf), "grid strengths lie strictly inside (0, 1)"
        before = compute_dfquad_strengths(qbaf)["t"]
        for node in sorted(set(qbaf.base) - {"t"}):
            change = (
                compute_dfquad_strengths(make_fresh_leaf(qbaf, node, Sign.SUPPORT, strength))["t"]
                - before
            )
            predicted = compute_predicted_sign(qbaf, node, Sign.SUPPORT)
            if predicted is None:
                result.mixed += 1
                result.mixed_cancelled += change == 0
            else:
                result.consistent += 1
                result.consistent_strict_with_sign += predicted * change > 0
    qbaf, node = make_b4_example()
    result.b4_before = compute_dfquad_strengths(qbaf)
    after = compute_dfquad_strengths(make_fresh_leaf(qbaf, node, Sign.SUPPORT, strength))
    result.b4_after = {n: after[n] for n in result.b4_before}
    result.seconds = time.perf_counter() - started
    return result
