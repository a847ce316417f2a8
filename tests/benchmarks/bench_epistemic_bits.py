"""CPU time of the bit-parallel oracle (``gcv.oracles.epistemic_bits``) on Phase 2's full model.

    .venv/bin/python -O -m tests.benchmarks.bench_epistemic_bits   # contracts off
    .venv/bin/python -m tests.benchmarks.bench_epistemic_bits      # contracts on

Phase 2 (B.2, ``spec/gcv/spec/scenarios/phase2-epistemic.json``) has 15 atoms by T12, so its full
model, every valuation of them, has 2^15 = 32,768 worlds.  Printed, CPU time beside wall time:

1. each of Phase 2's DEL steps on the full model (three agents, one cell each): T1's
   simultaneous announcement of o1-o4 with its surprise checks, the hypotheses' [up-up
   gamma], T6's [up gamma], T7's [up-up ~h2], T9's [!~h2], Definition A.2 for h1..h4 against
   the problems B.2 names, and the knowledge, belief and common-knowledge answers;
2. the whole trace replayed from the full model: every atom declared at T0 (so the
   introductions and T4's expansion change only awareness), each turn's argumentation by
   ``gcv.spec.transition`` and its M_t and queue by ``process_turn_model``; W shrinks as
   T1-T3 announce the monitored signals;
3. the trace as written (M_t grows to 256 worlds), the generator's path.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from gcv.conformance.cases.oracle import spec_formula
from gcv.oracles import epistemic_bits as bits
from gcv.reference.epistemic.formula import parse
from gcv.spec import epistemic as se
from gcv.spec import transition

TRACE = (
    Path(__file__).resolve().parents[2]
    / "spec"
    / "gcv"
    / "spec"
    / "scenarios"
    / "phase2-epistemic.json"
)
T = TypeVar("T")


def _timed(label: str, run: Callable[[], T]) -> T:
    cpu, wall = time.process_time(), time.perf_counter()
    result = run()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"  {label:<58} {cpu * 1000:9.1f} ms CPU {wall * 1000:9.1f} ms wall")
    return result


def _read(op: dict[str, Any]) -> dict[str, Any]:
    """An operation of the trace as the spec reads it (its formula a spec formula)."""
    read = dict(op)
    for key in ("why", "text"):
        read.pop(key, None)
    if "formula" in read:
        read["formula"] = spec_formula(parse(read["formula"]))
    return read


def _turns(trace: dict[str, Any], *, full: bool) -> list[transition.Turn]:
    turns = []
    for turn in trace["turns"]:
        ops = [_read(op) for op in turn["operations"]]
        if full:  # every atom is declared at T0: no introduction, T4's expansion stays
            for op in ops:
                op.pop("introduces", None)
        turns.append(transition.Turn(turn["speaker"], tuple(ops)))
    return turns


def _all_atoms(trace: dict[str, Any]) -> list[str]:
    atoms = list(trace["atoms"])
    for turn in trace["turns"]:
        for op in turn["operations"]:
            atoms += [op["atom"]] if op["op"] == "expand-awareness" else []
            atoms += op.get("introduces", [])
    return atoms


def _replay(
    agents: list[str], atoms: list[str], turns: list[transition.Turn], unaware: str | None
) -> tuple[bits.BitModel, tuple[bits.BitProblem, ...]]:
    state = transition.State.start(agents, atoms)
    if unaware is not None:  # B.2: mis_monitor is outside every A_i until T4
        for agent in agents:
            state.awareness[agent].discard(unaware)
    model = bits.compute_default_model(agents, atoms, state.awareness)
    problems: tuple[bits.BitProblem, ...] = ()
    for number, turn in enumerate(turns, start=1):
        after = transition.process_turn(state, turn, epistemic=False).state
        step = partial(bits.process_turn_model, state, after, turn, model, problems)
        model, problems = _timed(f"T{number} ({len(turn.operations)} operations)", step)
        still_open = sum(p.is_open(after.active_set()) for p in problems)
        print(f"{'':4}|W| = {model.worlds.bit_count():,}, open problems = {still_open}")
        state = after
    return model, problems


def main() -> None:
    trace = json.loads(TRACE.read_text())
    agents, atoms = sorted(trace["agents"]), _all_atoms(trace)
    f = {k: spec_formula(parse(text)) for k, text in _formulas().items()}
    print(f"Phase 2's full model: {len(atoms)} atoms, {1 << len(atoms):,} worlds, 3 agents")
    print("1. each DEL step on the full model")
    full = _timed(
        "the full model (every valuation)",
        lambda: bits.compute_default_model(agents, atoms, dict.fromkeys(agents, atoms)),
    )
    t1 = [f["o1"], f["o2"], f["o3"], f["o4"]]
    _timed(
        "T1: surprise checks, B_i psi_k in M announced with the others (12)",
        lambda: [
            bits.is_valid(
                bits.process_announcement(full, se.And(tuple(t1[:k] + t1[k + 1 :]))),
                se.Believes(i, t1[k]),
            )
            for k in range(4)
            for i in agents
        ],
    )
    _timed("T1: [!(o1 & o2 & o3 & o4)]", lambda: bits.process_announcement(full, se.And(tuple(t1))))
    upgraded = _timed(
        "T5: [up-up gamma_1]", lambda: bits.process_lexicographic_upgrade(full, f["h1"])
    )
    upgraded = _timed(
        "T6: [up-up gamma_2]", lambda: bits.process_lexicographic_upgrade(upgraded, f["h2"])
    )
    upgraded = _timed(
        "T6: [up gamma_1]", lambda: bits.process_conservative_upgrade(upgraded, f["h1"])
    )
    upgraded = _timed(
        "T7: [up-up ~gamma_2]",
        lambda: bits.process_lexicographic_upgrade(upgraded, se.Not(f["h2"])),
    )
    _timed("T9: [!~gamma_2]", lambda: bits.process_announcement(upgraded, se.Not(f["h2"])))
    for gamma, chi in (("h1", "o7"), ("h2", "o1"), ("h3", "o6"), ("h4", "o8")):
        _timed(
            f"Definition A.2: does {gamma} solve (B_a, {chi})?",
            lambda gamma=gamma, chi=chi: bits.is_abductive_solution(
                upgraded, full, "a", f[chi], f[gamma]
            ),
        )
    for name, query in (
        (
            "K_a K_b K_c (o1 & o2 & o3 & o4)",
            "K[a] K[b] K[c] (p_auth & p_pay & p_db & (p_auth | p_pay))",
        ),
        ("C_abc (o5 & o6)", "C[a,b,c] (p_tok & p_traffic)"),
        ("B_a ~h2, K_a ~h2", "B[a] ~h2 & ~K[a] ~h2"),
        ("B_b(h1 | p_redis)", "B[b given p_redis] h1"),
    ):
        _timed(
            f"[[{name}]]",
            lambda query=query: bits.compute_truth_set(upgraded, spec_formula(parse(query))),
        )
    print("2. the trace replayed from the full model (every atom declared at T0)")
    _timed(
        "whole replay (the spec's argumentation included)",
        lambda: _replay(agents, atoms, _turns(trace, full=True), "mis_monitor"),
    )
    print("3. the trace as written")
    _timed(
        "whole replay (the spec's argumentation included)",
        lambda: _replay(agents, trace["atoms"], _turns(trace, full=False), None),
    )


def _formulas() -> dict[str, str]:
    """Phase 2's formulas, as the trace states them."""
    trace = json.loads(TRACE.read_text())
    found = {}
    for turn in trace["turns"]:
        for op in turn["operations"]:
            if "formula" in op and "id" in op:
                found[op["id"]] = op["formula"]
    return found


if __name__ == "__main__":
    main()
