"""The ``gcv`` command line.

The command line is the composition root: with the other tools directly under
:mod:`gcv` (the conformance kit, the paper registry) it is where the layers
``gcv.reference``, ``gcv.spec`` and ``gcv.proofs`` meet.  Subcommands owned by a
spec module or by the proof suite are imported lazily, so ``gcv replay`` never
loads Z3 or the audits.

Exit codes: 0 success (every expectation holds; the record is grounded);
1 an expectation failed or the record is ungrounded; 2 bad input.  A reader that
closes standard output early (``gcv session append ... | head -1``) changes
neither: the command runs to its end, what it would have printed is discarded,
and the exit code is the command's own (:func:`_output_whose_reader_may_leave`).
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from gcv import __version__
from gcv.hints import extra_missing, install_hint
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

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["main"]

DEFAULT_SCENARIO = "phase2-debugging"

# Commands delegated to a module that parses its own arguments: name -> (module,
# help).  Each module exposes ``main(argv: list[str]) -> int`` and is imported only
# when its command runs.
_DELEGATED: dict[str, tuple[str, str]] = {
    "prove": ("gcv.proofs.runner", "run the Z3 proof obligations and their non-vacuity twins"),
    "paper": ("gcv.paper", "the papers' claims: where each is implemented and checked"),
    "normative": ("gcv.normative", "rewrite (or --check) spec/normative.md's clause entries"),
    "schemas": ("gcv.schemas", "rewrite (or --check) the schemas' operations, from the engine's"),
    "serve": ("gcv.conformance.server", "answer gcv-conform/1 requests on stdin/stdout"),
    "conform": ("gcv.conformance.runner", "check an implementation against the vectors"),
    "smoke": ("gcv.conformance.smoke", "check a handshake and one case per declared feature"),
    "vectors": ("gcv.conformance.generate", "regenerate (or --check) the vectors"),
    "interpret-eval": ("gcv.interpret.cli", "score an interpreter on a trace (Table 2)"),
    "export": ("gcv.export", "write the map as ICCMA, GraphML, node-link JSON or JSON"),
    "draw": ("gcv.draw", "draw the map (DOT, Mermaid, SVG, PNG), a query highlighted"),
    "explore": ("gcv.explore", "write an offline HTML page stepping through the turns"),
    "figures": ("gcv.figures", "redraw (or --check) the figures of docs/pictures.md"),
    "evidence": (
        "gcv.experiments.evidence_command",
        "the active records linked to the entities a question names",
    ),
    "experiments": ("gcv.experiments.report", "regenerate docs/experiments.md"),
    "session": ("gcv.session_cli", "a conversation kept in an SQLite store, turn by turn"),
    "mcp": ("gcv.agent.command", "serve a folder of sessions to an agent host (MCP)"),
}

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


def _delegate(module_name: str, argv: list[str], usage: str = "") -> int:
    """Run a command's module.  One that needs an extra not installed says which: on
    ``--help`` with its one-line help (exit 0), otherwise as bad input (exit 2)."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        extra = extra_missing(error)
        if extra is None:
            raise
        needs = f"this command needs {error.name}, from the {extra} extra: {install_hint(extra)}"
        if "-h" in argv or "--help" in argv:
            print(f"{usage}\n\n{needs}")
            return EXIT_OK
        print(f"gcv: {needs}", file=sys.stderr)
        return EXIT_BAD_INPUT
    code: int = module.main(argv)
    return code


def _audit(args: argparse.Namespace) -> int:
    module, help_text = _AUDITS[args.module]
    return _delegate(module, list(args.rest), f"gcv audit {args.module}: {help_text}")


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


def _build_parser() -> argparse.ArgumentParser:
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

    for name, (_, help_text) in _DELEGATED.items():  # listed in the help; main() delegates
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


class _PipeEnd(io.FileIO):
    """A file descriptor written to until its reader leaves, then a sink.

    The one place ``gcv`` meets EPIPE: a write to a pipe whose reader has closed it is
    counted as written and the rest is discarded, so that no command stops half way
    (a ``session append`` with its turns still unread, say) because nobody reads it.
    """

    closed_by_reader = False

    def write(self, data: ReadableBuffer) -> int:
        """Write ``data``, or discard it once the reader has left; its size either way."""
        if not self.closed_by_reader:
            try:
                return super().write(data)
            except BrokenPipeError:
                self.closed_by_reader = True
        return memoryview(data).nbytes


def _past_its_reader(stream: TextIO) -> TextIO:
    """``stream`` (a standard stream on a file descriptor) rebuilt on a :class:`_PipeEnd`."""
    if stream is not sys.__stdout__ and stream is not sys.__stderr__:
        return stream  # redirected in this process (a test's capture): no pipe to lose
    try:
        descriptor = stream.fileno()
        stream.flush()
    except (OSError, ValueError):  # closed already, or no descriptor
        return stream
    buffered = io.BufferedWriter(_PipeEnd(descriptor, "w", closefd=False))
    return io.TextIOWrapper(
        buffered,
        encoding=stream.encoding,
        errors="backslashreplace",
        line_buffering=stream.line_buffering,
    )


@contextmanager
def _output_whose_reader_may_leave() -> Iterator[None]:
    """Standard output and error on :class:`_PipeEnd`s for the command's run; restored after."""
    originals = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _past_its_reader(sys.stdout), _past_its_reader(sys.stderr)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = originals


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gcv`` with ``argv`` (default: ``sys.argv[1:]``) and return its exit code."""
    words = sys.argv[1:] if argv is None else list(argv)
    for stream in (sys.stdout, sys.stderr):
        # What the terminal cannot encode is printed escaped (\xe9), not raised mid-report.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    with _output_whose_reader_may_leave():
        try:
            if words and words[0] in _DELEGATED:  # the module parses its own options
                module, help_text = _DELEGATED[words[0]]
                return _delegate(module, words[1:], f"gcv {words[0]}: {help_text}")
            args = _build_parser().parse_args(words)
            code: int = args.run(args)
        except GcvError as error:
            print(f"gcv: {error}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return code


if __name__ == "__main__":
    raise SystemExit(main())
