"""Tables, plot and docs/performance.md from the figures the suite measured."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["render_markdown", "render_plot", "tables", "tidy_profile"]

PAPER_RATIOS = {13: 4.0, 2_000: 415.0}
"""Section 4.5: replay over reverse-index query, 4x at 13 turns and 415x at 2,000."""
PAPER_QUERY_US = (0.25, 0.46)
PEERS = ("networkx", "jtms", "veritas")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    line = "| " + " | ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)) + " |"
    rule = "|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|"
    body = [
        "| " + " | ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows
    ]
    return "\n".join([line, rule, *body])


def _n(value: float) -> str:
    return f"{value:,.0f}"


def _f(value: float, digits: int = 2) -> str:
    return f"{value:,.{digits}f}"


def _retraction(results: dict[str, Any]) -> str:
    on = {row["turns"]: row for row in results["on"].get("retraction", [])}
    rows = []
    for row in results["off"]["retraction"]:
        paper = PAPER_RATIOS.get(row["turns"])
        contracts = on.get(row["turns"])
        rows.append(
            [
                _n(row["turns"]),
                _n(row["records"]),
                _n(row["dep_links"]),
                str(row["affected"]),
                _f(row["query_us"]),
                _f(row["replay_us"], 1),
                _n(row["replay_ratio"]) + "x",
                f"{paper:.0f}x" if paper else "",
                _f(row["engine_replay_us"] / 1000, 1),
                _n(row["engine_replay_ratio"]) + "x",
                _f(contracts["query_us"]) if contracts else "",
            ]
        )
    first, last = results["off"]["retraction"][0], results["off"]["retraction"][-1]
    header = [
        "turns", "records", "Dep links", "|Affected*|", "query us", "replay us",
        "replay/query", "paper", "engine replay ms", "engine/query", "query us (contracts)",
    ]  # fmt: skip
    flat = last["query_us"] / first["query_us"]
    return (
        "Retraction query Affected*(o5) against history length (python -O; last column "
        "with contracts on)\n\n"
        + _table(header, rows)
        + f"\n\nquery at {last['turns']:,} turns / query at {first['turns']:,} turns: "
        f"{flat:.2f}; paper's query {PAPER_QUERY_US[0]}-{PAPER_QUERY_US[1]} us"
    )


def _worst(results: dict[str, Any]) -> str:
    on = {(r["shape"], r["records"]): r for r in results["on"].get("worst", [])}
    rows = []
    for row in results["off"]["worst"]:
        contracts = on.get((row["shape"], row["records"]))
        rows.append(
            [
                row["shape"],
                _n(row["records"]),
                _n(row["dep_links"]),
                _f(row["verify_s"] * 1000, 1),
                _f(row["verify_ns_per_record"], 0),
                _f(row["affected_star_s"] * 1000, 1),
                _f(row["affected_star_ns_per_record"], 0),
                _f(row["floor_ns_per_record"], 0),
                _f(row["verify_ns_per_record"] / row["floor_ns_per_record"], 1),
                _f(row["affected_star_ns_per_record"] / row["floor_ns_per_record"], 1),
                _f(contracts["verify_ns_per_record"], 0) if contracts else "",
                _f(contracts["affected_star_ns_per_record"], 0) if contracts else "",
            ]
        )
    header = [
        "shape", "records", "Dep links", "Verify ms", "ns/record", "Affected* ms", "ns/record",
        "floor ns/rec", "Verify/floor", "Affected*/floor",
        "Verify ns/rec (contracts)", "Affected* ns/rec (contracts)",
    ]  # fmt: skip
    return (
        "Worst case: one query visits every record (python -O; last two columns with "
        "contracts on)\n\n"
        + _table(header, rows)
        + "\n\nfloor: a loop that only reads each visited record's Dep links and label once, "
        "on the same map; its time per record grows with the map as the memory does, and "
        "a level ratio to it means a linear query"
    )


def _throughput(results: dict[str, Any]) -> str:
    rows = []
    for mode in ("off", "on"):
        part = results[mode]
        label = "python -O" if mode == "off" else "contracts on"
        if part.get("retraction"):
            last = part["retraction"][-1]
            rows.append(
                [
                    label,
                    f"conversation, {last['turns']:,} turns",
                    _n(last["operations"]),
                    _n(last["apply_ops_per_s"]),
                ]
            )
        for row in part.get("worst", []):
            if row["shape"] == "chain":
                name = f"chain, {row['records']:,} records"
                rows.append([label, name, _n(row["records"]), _n(row["build_ops_per_s"])])
    return "apply_turn throughput\n\n" + _table(
        ["contracts", "turns applied", "operations", "operations/s"], rows
    )


def _memory(results: dict[str, Any]) -> str:
    rows = [
        [
            row["map"],
            _n(row["records"]),
            _n(row["dep_links"]),
            _n(row["retained_bytes_per_record"]),
            _n(row["peak_bytes_per_record"]),
        ]
        for row in results["off"].get("memory", [])
    ]
    header = ["map", "records", "Dep links", "retained B/record", "peak B/record"]
    return "Memory (tracemalloc, python -O)\n\n" + _table(header, rows)


def _peer_cell(engine: float, peer: dict[str, Any], key: str) -> str:
    if "skipped" in peer or peer.get(key) is None:
        return "n/a"
    mark = "" if peer["faithful"] else " *"
    return f"{peer[key] / engine:,.1f}x{mark}"


def _peers(results: dict[str, Any]) -> str:
    rows = []
    for row in results["off"].get("peers", []):
        engine = row["engine"]
        rows.append(
            [
                row["graph"],
                _n(row["dep_links"]),
                str(row["affected"]),
                _f(engine["build_s"] * 1000, 1),
                *(_peer_cell(engine["build_s"], row[p], "build_s") for p in PEERS),
                _f(engine["retract_s"] * 1e6, 1),
                *(_peer_cell(engine["retract_s"], row[p], "retract_s") for p in PEERS),
            ]
        )
    header = [
        "graph", "Dep links", "|Affected*|", "engine build ms", "networkx", "jtms", "veritas",
        "engine retract us", "networkx", "jtms", "veritas",
    ]  # fmt: skip
    return (
        "Peers on the same graphs (python -O): each peer's time over the engine's "
        "(above 1x: the engine is faster); * = the peer's answer is not Affected* "
        "(see the notes)\n\n" + _table(header, rows)
    )


def _targets(results: dict[str, Any]) -> str:
    retraction = results["off"]["retraction"]
    by_turns = {row["turns"]: row for row in retraction}
    first, last = retraction[0], retraction[-1]
    lines = [f"- retraction query: {first['query_us']:.2f} us at {first['turns']:,} turns, "
             f"{last['query_us']:.2f} us at {last['turns']:,} (ratio "
             f"{last['query_us'] / first['query_us']:.2f}; target: near 1)"]  # fmt: skip
    if 2_000 in by_turns:
        lines.append(
            f"- replay over query at 2,000 turns: {by_turns[2_000]['replay_ratio']:,.0f}x "
            f"(paper: 415x), at {last['turns']:,}: {last['replay_ratio']:,.0f}x"
        )
    worst = results["off"]["worst"]
    largest = max(row["records"] for row in worst)
    top = [row for row in worst if row["records"] == largest]
    slowest_verify = max(row["verify_s"] for row in top)
    slowest_star = max(row["affected_star_s"] for row in top)
    lines.append(
        f"- worst case at {largest:,} records: Verify at most {slowest_verify:.2f} s, "
        f"Affected* at most {slowest_star:.2f} s (target: under 1 s each)"
    )
    return "Against the targets\n\n" + "\n".join(lines)


def tables(results: dict[str, Any]) -> str:
    """Every table, as text (GitHub-flavoured markdown)."""
    parts = [_targets(results), _retraction(results), _worst(results), _throughput(results)]
    if results["off"].get("memory"):
        parts.append(_memory(results))
    if results["off"].get("peers"):
        parts.append(_peers(results))
    return "\n\n".join(parts) + "\n"


def render_plot(results: dict[str, Any], path: Path) -> None:
    """Three panels: retraction vs replay, worst case per record, peers' retraction ratios."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, middle, right) = plt.subplots(1, 3, figsize=(16, 4.8))
    rows = results["off"]["retraction"]
    turns = [r["turns"] for r in rows]
    left.loglog(turns, [r["query_us"] for r in rows], "o-", label="Affected* (reverse index)")
    left.loglog(turns, [r["replay_us"] for r in rows], "s-", label="history replay (Dep only)")
    left.loglog(turns, [r["engine_replay_us"] for r in rows], "^-", label="replay through engine")
    left.set_xlabel("turns in the history")
    left.set_ylabel("microseconds per retraction query")
    left.set_title("Retraction latency (python -O)")
    left.legend()
    for shape in sorted({r["shape"] for r in results["off"]["worst"]}):
        worst = [r for r in results["off"]["worst"] if r["shape"] == shape]
        sizes = [r["records"] for r in worst]
        verify = [r["verify_ns_per_record"] for r in worst]
        star = [r["affected_star_ns_per_record"] for r in worst]
        middle.semilogx(sizes, verify, "o-", label=f"Verify, {shape}")
        middle.semilogx(sizes, star, "s--", label=f"Affected*, {shape}")
        if shape == "chain":
            floor = [r["floor_ns_per_record"] for r in worst]
            middle.semilogx(sizes, floor, "k:", label="floor (read links and label)")
    middle.set_ylim(bottom=0)
    middle.set_xlabel("records in the map (each visited)")
    middle.set_ylabel("nanoseconds per visited record")
    middle.set_title("Worst case: time per visited record (python -O)")
    middle.legend(fontsize=7)
    peers = [r for r in results["off"].get("peers", []) if r["networkx"].get("retract_s")]
    labels = [r["graph"] for r in peers]
    width = 0.27
    for offset, peer in enumerate(PEERS):
        ratios = [
            (r[peer]["retract_s"] / r["engine"]["retract_s"])
            if r[peer].get("retract_s") and r[peer]["faithful"]
            else 0.0
            for r in peers
        ]
        right.bar([i + (offset - 1) * width for i in range(len(peers))], ratios, width, label=peer)
    right.axhline(1.0, color="black", linewidth=0.8)
    right.set_yscale("log")
    right.set_xticks(range(len(peers)), labels, rotation=35, ha="right", fontsize=7)
    right.set_ylabel("peer retraction time / engine's")
    right.set_title("Peers (faithful answers only)")
    right.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


NOTES = """\
## How it is measured

- **The conversation.** `tests/benchmarks/conversation.py` opens with the paper's Phase 2
  (the 13 turns of B.2) and continues with seeded generated turns in the operation mix of
  Phases 2 and 3 (observations and premises, hypotheses and positions resting on 1-4 recent
  records, supports and undermines with new or existing evidence, revisions with attackers,
  resolutions that subsume earlier hypotheses, which makes Dep cycles, decisions with
  premises and dissent, questions, a few awareness expansions). The 13-turn row *is*
  Phase 2. Generated turns never cite, target or subsume o5, h1, h3 or h4, so the timed
  query, Affected*(o5) = {h1, h3, h4} (Section 4.4's three-hop query), has the same answer
  at every length, and the benchmark checks that it does.
- **The replay baseline** (`history_replay.py`) keeps only the turn log: it re-applies the
  Dep effect of every operation (no preconditions, no labels), inverts Dep in one scan and
  traverses from o5. It is the leanest replay we could write, so its ratio is a lower
  bound; "engine replay" re-applies every turn through `Verifier.apply_turn`.
- **Worst cases** (Proposition 2.5): `chain` (r_i rests on r_{i-1..i-4}), `fan` (every
  record rests on one premise and on up to three earlier records; a top record rests on all
  of them) and `cycles` (the chain, closed by a Resolve that subsumes every tenth record,
  so every record lies on a Dep cycle). Verify starts where it must visit every record and
  Affected* retracts the record every other one rests on; ns/record is the query's time over
  the records it visited (each with about four Dep links). The floor is a loop that only
  reads each visited record's Dep links and label once: on this machine its time per record
  grows several-fold from 10^4 to 10^6 records (the map outgrows the caches), so the
  queries' ratio to the floor, not their absolute time per record, is what shows them linear.
- **Why the queries stay fast at 10^6 records.** The map numbers each record when it is
  registered and keeps Dep, its reverse index and S_t over the numbers, each record's links
  a compact array (`DependencyMap.numbering`: the one representation of Dep; `dep` and
  `rdep` by identifier are views of it); the walks index lists instead of hashing
  identifiers. The compiled walk (`reference/gcv/reference/_walk.c`, built when the install has a C
  compiler) keeps its marks as epoch stamps in buffers that grow with the largest map
  queried, so a query allocates nothing but its answer; the pure walk
  (`reference/gcv/reference/closure.py`, the fallback and the definition the compiled one is tested
  against) keeps them in a dict. With identifiers and dicts the fan took 2.6 s (Verify) and
  3.2 s (Affected*) at 10^6 records. [Modified: the figures below "The walks" predate the
  compiled walk; the pure walk then switched to a flat mark array past 1/16 of the map.]
- **Timing.** Each figure is the median of 3-7 runs of a loop calibrated to at least 20 ms;
  the machine is shared, so read the ratios. Contracts on means `python` without `-O` and
  without `ICONTRACT_SLOW` (the costly postconditions stay off, as outside the tests).
- **Memory.** tracemalloc while the map is built from turns generated inside the traced
  region (the turns are dropped once applied): "retained" is what the map holds per
  record, identifier and claim strings included; "peak" includes the transient objects of
  applying the turns.

## What the peers can and cannot express

- **networkx** (`DiGraph`, `nx.ancestors`): faithful on every graph. `ancestors` never
  reports its source, so beta is added when it lies on a cycle (Corollary 2.4's letter).
- **ltms** (`ltms.jtms.JTMS`, Forbus and de Kleer's JTMS): one node per record, a record
  with no Dep an enabled assumption, any other the single justification Dep(alpha) =>
  alpha. On an acyclic graph, retracting beta labels OUT exactly Affected*(beta).
  It cannot hold a Dep cycle: support must be well founded, so every record on a cycle (and
  everything resting on one) is OUT from the start and no retraction reports it; in Phase 2
  itself the subsumption cycle h3 -> h4 -> h3 leaves Affected*(o5) unreported. It retracts
  only assumptions, so on `cycles` (where r0 rests on r_{n-1}) it cannot retract r0 at all.
  A Dep link added after its record (Support, subsumption) must be given up front as part
  of the final justification.
- **veritas-tms** (`BeliefStore`, Horn-clause justifications, `retract_belief`): a
  justification may cite only beliefs already asserted and active, so a Dep link that
  closes a cycle is pruned and the record is rejected as ungrounded (with everything
  resting on it); a dependency added after a record cannot be expressed either. Asserting
  a belief computes its entrenchment over its ancestors, so building a store is quadratic
  in the depth of Dep (about 12 s for a 1,000-record chain): it is run only on the smaller
  graphs. Retraction is destructive, so each timed retraction gets a freshly built store.
- Neither TMS has standing labels (weakened, abandoned) or attacks; both are given every
  record in, which is what reachability is about. The engine's build column is
  `Verifier.apply_turn` over the turns, preconditions, journal and epistemic update
  included; the peers are handed the final graph.
"""


def tidy_profile(text: str) -> str:
    """The profile with paths relative to the repository and the standard library."""
    root = str(Path(__file__).resolve().parents[2]) + "/"
    return re.sub(r"\S*/lib/python3\.\d+/", "", text.replace(root, ""))


def render_markdown(results: dict[str, Any], text: str) -> str:
    """docs/performance.md: the command, the tables, how they were measured, the profile."""
    return (
        "# Performance: measured\n\n"
        "Section 4.5 and Proposition 2.5 of the core paper, measured on the reference engine.\n"
        "Produced by\n\n"
        "```sh\n.venv/bin/pip install -e '.[bench]'\n"
        f"{results['command']}\n```\n\n"
        f"(Python {results['python']}, 2 shared cores, {results['seconds'] / 60:.0f} minutes; "
        "figures in [performance.json](performance.json), plot "
        "[performance.png](performance.png)).\n\n"
        "![retraction, worst case, peers](performance.png)\n\n"
        + _headed(text)
        + "\n"
        + NOTES
        + (
            "\n## Profile (python -O), top entries by own time\n\n```\n"
            + tidy_profile(results["profile"]).strip()
            + "\n```\n"
            if results.get("profile")
            else ""
        )
    )


def _headed(text: str) -> str:
    # Each table's caption becomes a heading; the tables and notes stay as they are.
    blocks = text.strip().split("\n\n")
    plain = ("|", "query at", "floor:", "- ")
    return "\n\n".join(b if b.startswith(plain) else f"## {b}" for b in blocks)
