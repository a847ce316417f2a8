"""``gcv audit gossip``: run the paper's examples and check the decision procedure.

Sections, in paper order: Example 4.2; the Section 2 guard example; Lemma 5.2
and Lemma 6.2 on seeded random admissible models and random L_K formulas, with
their zero-weight non-vacuity twins; Lemma 5.3 and the identification of
~AW_a with view equality on a bounded domain; Theorem 5.4's decision procedure
against brute force; Theorem 7.1's ranking bound, held and broken.  Exit code
0 iff every check comes out as the paper says.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from fractions import Fraction

from tqdm import tqdm

from gcv.spec.gossip.calls import AgentSet, compute_history
from gcv.spec.gossip.decide import compute_agreement, compute_bounded_histories
from gcv.spec.gossip.execution import compute_section_2_example
from gcv.spec.gossip.formulas import (
    Formula,
    Know,
    Not,
    Secret,
    Top,
    compute_expertise,
    compute_random_formula,
)
from gcv.spec.gossip.guard import compute_not_yet_known_precondition
from gcv.spec.gossip.lottery import (
    LotteryGossipModel,
    WeightedStructure,
    compute_model,
    compute_structure,
    is_lottery_transparent,
)
from gcv.spec.gossip.ranking import (
    compute_counter_process,
    compute_gossip_process,
    compute_ranking_estimate,
)
from gcv.spec.gossip.reweighting import (
    compute_scaled_structure,
    is_guard_invariant,
    is_reweighting_invariant,
)
from gcv.spec.gossip.source import (
    compute_length_decay_lotteries,
    is_source_corresponding,
    is_source_equivalent,
)
from gcv.spec.gossip.views import compute_call_subsequence, compute_example_4_2, is_view_equivalent

__all__ = ["compute_random_model", "main"]

DEFAULT_CONFIGS = ("3:5:7", "4:2:5")
FULL_CONFIGS = ("3:6:8", "4:3:6", "5:1:5")
NAMES = "abcdefgh"


def compute_random_model(
    agents: AgentSet, rng: random.Random, max_length: int
) -> LotteryGossipModel:
    """Draw an admissible model: a random nonempty H of short histories, positive weights."""
    pool = compute_bounded_histories(agents, max_length)
    histories = [c for c in pool if rng.random() < 0.5] or [pool[0]]
    lotteries = {
        agent: {c: Fraction(rng.randint(1, 9), rng.randint(1, 9)) for c in histories}
        for agent in agents.names
    }
    return compute_model(agents, histories, lotteries)


def _zero_weight_twin() -> tuple[WeightedStructure, Formula]:
    """A structure with one zero weight where Lemma 5.2's conclusion fails, and the formula."""
    agents = AgentSet(("a", "b", "c"))
    histories = [(), compute_history(agents, "bc")]
    weights = {agent: {histories[0]: 1, histories[1]: 1} for agent in agents.names}
    weights["a"][histories[1]] = 0
    return compute_structure(agents, histories, weights), Know("a", Not(Secret("b", "c")))


def _section(title: str) -> None:
    print(f"\n== {title}")


def _timed(label: str, action: Callable[[], bool]) -> bool:
    start = time.perf_counter()
    ok = action()
    print(f"   [{'ok' if ok else 'FAIL'}] {label} ({time.perf_counter() - start:.2f} s)")
    return ok


def _check_examples() -> bool:
    _section("Example 4.2 and the Section 2 guard example")
    agents = AgentSet(("a", "b", "c"))
    plain, informed = compute_example_4_2()
    ac, bc_ac = compute_history(agents, "ac"), compute_history(agents, "bc;ac")
    same_calls = compute_call_subsequence(agents, "a", ac) == compute_call_subsequence(
        agents, "a", bc_ac
    )
    print(f"   view_a(ac)    = {[(str(k), sorted(s)) for k, s in plain]}")
    print(f"   view_a(bc;ac) = {[(str(k), sorted(s)) for k, s in informed]}")
    ok_42 = same_calls and plain != informed and not is_view_equivalent(agents, "a", ac, bc_ac)
    print(f"   [{'ok' if ok_42 else 'FAIL'}] same a-calls, different views")
    first, second, history = compute_section_2_example()
    label = second.diagnostic.label if second.diagnostic else None
    print(
        f"   first ab: {first.verdict}; second ab: {second.verdict} ({label}: "
        f"{second.diagnostic.message if second.diagnostic else ''})"
    )
    ok_2 = (
        first.permitted
        and not second.permitted
        and label == "call-permission"
        and [str(k) for k in history] == ["ab"]
    )
    print(f"   [{'ok' if ok_2 else 'FAIL'}] permit, then deny with the failed-precondition label")
    return ok_42 and ok_2


def _check_lemmas(seed: int, models: int) -> bool:
    _section(f"Lemmas 5.2 and 6.2 on {models} random admissible models (seed {seed})")
    rng = random.Random(seed)
    agents = AgentSet(("a", "b", "c"))
    checks = 0

    def transparency_and_reweighting() -> bool:
        nonlocal checks
        for _ in range(models):
            model = compute_random_model(agents, rng, 2)
            formulas = [compute_random_formula(agents, rng, 4, modal=True) for _ in range(8)]
            factors = {c: Fraction(rng.randint(1, 9), rng.randint(1, 9)) for c in model.histories}
            after = compute_scaled_structure(model, rng.choice(agents.names), factors)
            checks += len(formulas) * len(model.histories)
            if not is_lottery_transparent(model, formulas):
                return False
            if not is_reweighting_invariant(model, after, formulas):
                return False
            if not is_guard_invariant(model, after, compute_not_yet_known_precondition):
                return False
        return True

    ok = _timed(
        "lottery transparency and positive-reweighting invariance", transparency_and_reweighting
    )
    print(f"   (formula, history) pairs checked: {checks}")
    structure, phi = _zero_weight_twin()
    ok_twin = not is_lottery_transparent(structure, [phi])
    print(
        f"   [{'ok' if ok_twin else 'FAIL'}] non-vacuity: a zero weight makes K_a(~S_bc) true "
        "under P_a = 1 but false in M_0"
    )
    return ok and ok_twin


def _check_source(bound: int) -> bool:
    _section(f"Definition 3.4 and Lemma 5.3 on H_<={bound} (3 agents)")
    agents = AgentSet(("a", "b", "c"))
    domain = compute_bounded_histories(agents, bound)

    def relations_coincide() -> bool:
        return all(
            is_source_equivalent(agents, agent, c, d) == is_view_equivalent(agents, agent, c, d)
            for agent in agents.names
            for c in domain
            for d in domain
        )

    ok_rel = _timed(
        f"~AW_a = view equality on {len(domain) ** 2 * 3} (agent, c, d) triples", relations_coincide
    )
    model = compute_model(agents, domain, compute_length_decay_lotteries(agents, domain))
    rng = random.Random(5)
    formulas = [compute_random_formula(agents, rng, 4, modal=True, nested=False) for _ in range(12)]
    formulas += [Know("a", Secret("c", "b")), Not(Know("b", Top()))]
    ok_tau = _timed(
        f"M^G |= phi iff M_AW |= tau(phi): {len(formulas)} formulas x {len(domain)} histories",
        lambda: is_source_corresponding(model, formulas),
    )
    return ok_rel and ok_tau


def _check_decision(configs: Sequence[str], random_formulas: int, seed: int) -> bool:
    _section("Theorem 5.4: deciding K_a(theta) over H_src against brute force over H_<=n")
    ok = True
    for config in configs:
        size, query_bound, history_bound = (int(part) for part in config.split(":"))
        agents = AgentSet(tuple(NAMES[:size]))
        rng = random.Random(seed)
        formulas: list[Formula] = [Top(), compute_expertise(agents)]
        formulas += [Secret(x, y) for x in agents.names for y in agents.names if x != y]
        formulas += [Not(Secret(x, y)) for x in agents.names for y in agents.names if x != y]
        formulas += [
            compute_random_formula(agents, rng, 4, modal=False) for _ in range(random_formulas)
        ]
        start = time.perf_counter()
        report = compute_agreement(agents, query_bound, history_bound, formulas)
        elapsed = time.perf_counter() - start
        verdict = "agree" if report.agrees else "DISAGREE"
        print(
            f"   agents={report.agents} queries: |c|<={report.query_bound} "
            f"({report.queries} (agent, c) pairs); brute force: n={report.history_bound} "
            f"({report.domain_size} histories); formulas checked: {report.formulas_checked} "
            f"({len(formulas)} theta, {report.known_true} known); state sets compared: "
            f"{report.state_sets_compared}; longest witness: {report.longest_witness}; "
            f"{verdict} ({elapsed:.2f} s)"
        )
        for line in report.disagreements[:5]:
            print(f"      {line}")
        ok = ok and report.agrees
    return ok


def _check_ranking(runs: int, seed: int) -> bool:
    _section(f"Theorem 7.1: ranking termination (seed {seed})")
    start = time.perf_counter()
    agents = AgentSet(("a", "b", "c"))
    estimates = [
        (
            compute_ranking_estimate(compute_gossip_process(agents, Fraction(1, 4)), runs, seed),
            True,
        ),
        (compute_ranking_estimate(compute_counter_process(6, Fraction(1, 4)), runs, seed), True),
        (
            compute_ranking_estimate(
                compute_gossip_process(agents, Fraction(1, 4), Fraction(3, 4)),
                max(2, runs // 4),
                seed,
            ),
            False,
        ),
    ]
    ok = True
    for estimate, expected in estimates:
        held = estimate.is_within_bound and estimate.hypotheses_held
        good = held == expected and (expected or not estimate.is_within_bound)
        print(
            f"   [{'ok' if good else 'FAIL'}] {estimate.name} ({estimate.runs} runs): "
            f"E[T] ~ {float(estimate.mean):.2f} +- {estimate.standard_error:.2f} "
            f"vs rho(x0)/eps = {estimate.rank_bound} (B/eps = {estimate.uniform_bound}); "
            f"rank increases {estimate.rank_increases}; "
            f"bound {'holds' if estimate.is_within_bound else 'fails'}"
        )
        ok = ok and good
    print(f"   ({time.perf_counter() - start:.2f} s)")
    return ok


def _captured(check: Callable[[], bool]) -> dict[str, object]:
    """A section's verdict, with its title and the lines it prints (for ``--json``)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        ok = check()
    lines = [line.strip() for line in printed.getvalue().splitlines() if line.strip()]
    return {"title": lines[0].removeprefix("== "), "ok": ok, "lines": lines[1:]}


def _count(low: int) -> Callable[[str], int]:
    """The option type of an integer of at least ``low`` (the parser refuses any other)."""

    def parse(text: str) -> int:
        if not text.lstrip("-").isdigit() or int(text) < low:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer >= {low}")
        return int(text)

    return parse


def main(argv: list[str]) -> int:
    """Run the gossip audits; return 0 iff every check agrees with the paper."""
    parser = argparse.ArgumentParser(prog="gcv audit gossip", description=__doc__)
    parser.add_argument(
        "--config",
        action="append",
        metavar="AGENTS:QUERY:BOUND",
        help="agents, longest query history |c|, brute-force bound n "
        f"(repeatable; default {' '.join(DEFAULT_CONFIGS)})",
    )
    parser.add_argument(
        "--full", action="store_true", help=f"larger sizes: {' '.join(FULL_CONFIGS)}"
    )
    parser.add_argument(
        "--formulas", type=_count(0), default=20, help="random factual theta per config"
    )
    parser.add_argument(
        "--models", type=_count(0), default=30, help="random models for Lemmas 5.2/6.2"
    )
    # A standard error needs two runs at least.
    parser.add_argument("--runs", type=_count(2), default=2000, help="runs per ranking estimate")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", action="store_true", help="print each section's verdict as JSON")
    parser.add_argument(
        "--quiet", action="store_true", help="no progress on stderr with --json (terminal only)"
    )
    args = parser.parse_args(argv)
    configs = args.config or (FULL_CONFIGS if args.full else DEFAULT_CONFIGS)
    for config in configs:
        parts = config.split(":")
        if (
            len(parts) != 3
            or not all(part.isdigit() for part in parts)
            or not 3 <= int(parts[0]) <= 8
        ):
            parser.error(f"--config wants AGENTS:QUERY:BOUND with 3 <= AGENTS <= 8, got {config!r}")
    start = time.perf_counter()
    checks: list[Callable[[], bool]] = [
        _check_examples,
        lambda: _check_lemmas(args.seed, args.models),
        lambda: _check_source(3),
        lambda: _check_decision(configs, args.formulas, args.seed),
        lambda: _check_ranking(args.runs, args.seed),
    ]
    if args.json:
        # The text report streams section by section; JSON comes at the end, so a bar on
        # stderr (only on a terminal: tqdm's disable=None) shows the sections as they run.
        quiet = True if args.quiet else None
        sections = [
            _captured(check)
            for check in tqdm(checks, "gossip audit", file=sys.stderr, disable=quiet, leave=False)
        ]
        ok = all(section["ok"] for section in sections)
        seconds = round(time.perf_counter() - start, 2)
        print(json.dumps({"ok": ok, "seconds": seconds, "sections": sections}, indent=2))
        return 0 if ok else 1
    results = [check() for check in checks]
    ok = all(results)
    print(
        f"\n{'all checks agree' if ok else 'SOME CHECKS FAILED'} "
        f"({time.perf_counter() - start:.2f} s)"
    )
    return 0 if ok else 1
