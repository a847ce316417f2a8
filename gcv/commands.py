"""The ``gcv`` command's own subcommands (replay, verify, affected, scenarios, audit) and
its argument parser; :mod:`gcv.cli` imports this module only when one of them runs, so a
delegated command (``gcv conform``, ``gcv serve``, ...) starts without the engine."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gcv import __version__
from gcv.delegated import DELEGATED, delegate
from gcv.options import DB_VARIABLE, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, default_db
from gcv.reference.closure import WALK
from gcv.reference.errors import GcvError
from gcv.reference.render import render_grounding, render_turn, render_value
from gcv.reference.verifier import Verifier
from gcv.replay import Check, Replay, replay
from gcv.replay_report import replay_json, replay_junit, replays_junit
from gcv.scenarios import builtin_scenarios, read_trace
from gcv.session_cli import turn_number
from gcv.store import open_session
from gcv.trace import EPISTEMIC_QUERIES

__all__ = ["DEFAULT_SCENARIO", "build_parser"]

DEFAULT_SCENARIO = "phase2-debugging"

# ``gcv audit MODULE``: the papers' audits (gcv/audits/), delegated the same way.
_AUDITS = {
    "lineage": (
        "gcv.audits.lineage",
        "the lineage-quotient audits (Replication or Corroboration?)",
    ),
    "gossip": ("gcv.audits.gossip", "the epistemic gossip guard checks (EPLA)"),
    "readings": (
        "gcv.audits.readings",
        "B.2's statements about what is explained, under a family of readings (core paper)",
    ),
}


def _show_check(check: Check) -> str:
    e = check.expectation
    mark = "ok  " if check.ok else "FAIL"
    subject = e.subject if e.atom is None else f"{e.subject}, {e.atom}"
    label = e.describe() if e.query in EPISTEMIC_QUERIES else f"{e.query}({subject})"
    expected, actual = render_value(e.expected), render_value(check.actual)
    line = f"    [{mark}] {label} = {expected}"
    if not check.ok:
        line += f"; got {actual}"
    return line + (f"   # {e.why}" if e.why and check.ok else "")


def _print_replay(result: Replay, quiet: bool) -> None:
    trace = result.trace
    print(f"{trace.name}: {trace.description}")
    for outcome in result.turns:
        t = outcome.trace_turn
        speaker = trace.agents.get(t.turn.speaker, t.turn.speaker)
        if not quiet:
            text = t.turn.text if len(t.turn.text) <= 100 else t.turn.text[:97] + "..."
            print(f"\nT{t.number} {speaker}: {text}")
            applied = outcome.report.applied if outcome.report else t.turn.operations
            ops = ", ".join(op.name for op in applied)
            print(f"  operations: {ops or '(none)'}")
            if outcome.report is not None:
                for line in render_turn(outcome.report, result.verifier.state, trace.agents):
                    print(f"  {line}")
        if outcome.error is not None:
            expected = t.rejected
            mark = "ok  " if expected == outcome.error.code else "FAIL"
            print(f"    [{mark}] rejected: {outcome.error}")
        elif t.rejected is not None:
            print(f"    [FAIL] expected rejection {t.rejected}, but the turn was accepted")
        for check in outcome.checks:
            if not quiet or not check.ok:
                print(_show_check(check))
    shown = [c for c in result.final if not quiet or not c.ok]
    if shown:
        print("\nfinal state:")
        for check in shown:
            print(_show_check(check))
    verdict = "all hold" if result.ok else f"{result.failures} FAILED"
    if not result.checks:
        verdict = "nothing checked: the trace states no expectation (--strict fails it)"
    print(f"\n{len(result.turns)} turns, {len(result.checks)} expectations: {verdict}")


def _code(result: Replay, strict: bool) -> int:
    """A replay's exit code: 1 for a failed expectation, or under ``--strict`` for none."""
    return EXIT_OK if result.ok and (result.checks or not strict) else EXIT_FAILED


def _replay(args: argparse.Namespace) -> int:
    if len(args.traces) == 1:
        result = replay(read_trace(args.traces[0]))  # unreadable: main reports it
        if args.junit:
            Path(args.junit).write_text(replay_junit(result), encoding="utf-8")
        if args.json:
            print(json.dumps(replay_json(result), indent=2, ensure_ascii=False))
        else:
            _print_replay(result, args.quiet)
        return _code(result, args.strict)
    return _replay_several(args)


def _replay_several(args: argparse.Namespace) -> int:
    """Each trace in turn (a pre-commit hook passes every changed one): a trace that cannot
    be read is reported and the others still run; the exit code is the worst."""
    results: list[Replay] = []
    unreadable: dict[str, str] = {}
    for name in args.traces:
        try:
            results.append(replay(read_trace(name)))
        except GcvError as error:
            print(f"gcv: {name}: {error}", file=sys.stderr)
            unreadable[name] = str(error)
    held = sum(_code(r, args.strict) == EXIT_OK for r in results)
    if args.junit:
        Path(args.junit).write_text(replays_junit(results, unreadable), encoding="utf-8")
    if args.json:
        data = [replay_json(r) for r in results]
        data += [{"trace": name, "ok": False, "error": why} for name, why in unreadable.items()]
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        for result in results:
            _print_replay(result, args.quiet)
            print()
        print(
            f"{len(args.traces)} traces: {held} hold, {len(results) - held} FAILED, "
            f"{len(unreadable)} unreadable"
        )
    if unreadable:
        return EXIT_BAD_INPUT
    return EXIT_OK if held == len(results) else EXIT_FAILED


def _final_state(args: argparse.Namespace) -> Verifier:
    """D_t after turn ``--at`` (default: the last) of the store ``--db`` or of the trace."""
    if args.trace is None and args.db is not None:  # --trace named wins over $GCV_DB
        with open_session(args.db) as session:
            return session.verifier if args.at is None else session.state_at(args.at)
    from gcv.mapview import map_at

    # An empty --trace is a trace name, refused as gcv replay '' is, not "not given".
    trace = DEFAULT_SCENARIO if args.trace is None else args.trace
    return map_at(read_trace(trace), args.at).verifier


def _verify(args: argparse.Namespace) -> int:
    verifier = _final_state(args)
    # A record named on the command line must exist: unknown is bad input (2), not ungrounded.
    verifier.standing(args.record)
    grounding = verifier.verify(args.record)
    if args.json:
        print(
            json.dumps(
                {
                    "record": args.record,
                    "grounded": grounding.grounded,
                    "closure": sorted(grounding.closure),
                    "witness": grounding.witness,
                    "path": list(grounding.path),
                }
            )
        )
    else:
        print(render_grounding(grounding, verifier.state))
    return EXIT_OK if grounding.grounded else EXIT_FAILED


def _affected(args: argparse.Namespace) -> int:
    verifier = _final_state(args)
    found = verifier.affected(args.record) if args.one_step else verifier.affected_star(args.record)
    active = frozenset(found) & verifier.state.active_set()
    if args.json:
        print(
            json.dumps(
                {
                    "record": args.record,
                    "one_step": args.one_step,
                    "affected": sorted(found),
                    "active": sorted(active),
                }
            )
        )
    else:
        name = "Affected" if args.one_step else "Affected*"
        print(f"{name}({args.record}) = {render_value(frozenset(found))}")
        print(f"  in good standing: {render_value(active)}")
    return EXIT_OK


def _audit(args: argparse.Namespace) -> int:
    module, help_text = _AUDITS[args.module]
    return delegate(module, list(args.rest), f"gcv audit {args.module}: {help_text}")


def _scenarios(args: argparse.Namespace) -> int:
    described = {name: read_trace(name).description for name in builtin_scenarios()}
    if args.json:
        listed = [{"name": n, "description": d} for n, d in described.items()]
        print(json.dumps(listed, indent=2, ensure_ascii=False))
        return EXIT_OK
    width = max(map(len, described), default=0)
    for name, description in described.items():
        print(f"{name:<{width}}  {description}")
    return EXIT_OK


def _state_options(p: argparse.ArgumentParser, trace_help: str) -> None:
    """Where the queried state comes from: a trace or a session store, as of turn N."""
    source = p.add_mutually_exclusive_group()
    source.add_argument("--trace", help=trace_help)
    source.add_argument(
        "--db",
        default=default_db(),
        help=f"a session store (gcv session) instead of a trace (default: ${DB_VARIABLE})",
    )
    p.add_argument("--at", type=turn_number, help="as of turn N (default: the last)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gcv", description="Grounded Continuation reference verifier."
    )
    # The walk answering Verify and Affected*: compiled when the install had a C compiler and
    # the build passed its check against the pure walk, pure when it had none, the check did
    # not pass or GCV_PURE_WALK is set (gcv.reference.closure.QUERIES and WALK).
    parser.add_argument("--version", action="version", version=f"gcv {__version__} (walk: {WALK})")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    trace_help = f"a trace file or built-in scenario name (default: {DEFAULT_SCENARIO})"

    p = commands.add_parser("replay", help="replay traces and check their expectations")
    p.add_argument(
        "traces",
        metavar="TRACE",
        nargs="*",
        default=[DEFAULT_SCENARIO],
        help=f"{trace_help}; several are replayed one after another, the exit code the worst",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures and the verdict")
    p.add_argument(
        "--strict", action="store_true", help="fail (exit 1) a trace that states no expectation"
    )
    p.add_argument("--json", action="store_true", help="print every turn and expectation as JSON")
    p.add_argument(
        "--junit", metavar="FILE", help="write a JUnit XML report (a case per expectation)"
    )
    p.set_defaults(run=_replay)

    p = commands.add_parser("verify", help="Verify walk (Lemma 2.1) on a trace or store")
    p.add_argument("record", metavar="RECORD", help="the candidate's associated record")
    _state_options(p, trace_help)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_verify)

    p = commands.add_parser("affected", help="Affected* (Definition 2.3) on a trace or store")
    p.add_argument("record", metavar="RECORD", help="the withdrawn premise record beta")
    _state_options(p, trace_help)
    p.add_argument("--one-step", action="store_true", help="the one-step Affected(beta) instead")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_affected)

    p = commands.add_parser("scenarios", help="list the built-in scenario traces")
    p.add_argument("--json", action="store_true", help="print each name and description as JSON")
    p.set_defaults(run=_scenarios)

    for name, (_, help_text) in DELEGATED.items():  # listed in the help; main() delegates
        commands.add_parser(name, help=help_text, add_help=False)

    p = commands.add_parser("audit", help="run a spec module's audits")
    p.add_argument(
        "module",
        metavar="MODULE",
        choices=sorted(_AUDITS),
        help="which audit: gossip, lineage or readings",
    )
    p.add_argument("rest", metavar="ARGS", nargs=argparse.REMAINDER, help="the audit's options")
    p.set_defaults(run=_audit)
    return parser
