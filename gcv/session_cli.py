"""``gcv session``: a conversation kept in a store, fed turn by turn from the command line.

    gcv session new --db DB (--agents a,b,c | --trace T) [--snapshot-every K]
    gcv session append --db DB [TURNS] [--json] [--keep-going] [--wait SECONDS]
    gcv session show --db DB [--at N] [--json]
    gcv session export --db DB [--output OUT]
    gcv session import TRACE --db DB [--snapshot-every K]

DB is a store file, or ``postgresql://...#NAME`` (session NAME of a PostgreSQL
database); an export of one imported into the other moves a session between them.
``append`` reads one ``gcv-trace/1`` turn object per line (``turn`` optional:
when given it must be the session's next number; a line is at most as long as a
trace may be) from TURNS or standard input and prints the renderer's summary of
each turn.  Exit codes as for every ``gcv`` command: 0 success, 2 bad input (a
malformed line, a rejected turn, a store that cannot be opened), with the
error's code on standard error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import IO, Any

from gcv.draw import status_line
from gcv.errors import MalformedTrace, OutOfSequence, StoreError, UnreadableFile
from gcv.history import parse_turn_line
from gcv.jsoninput import open_input, parse_json, read_lines
from gcv.mapview import groundings
from gcv.options import DB_VARIABLE, EXIT_BAD_INPUT, EXIT_OK, OptionParser, default_db, seconds
from gcv.reference.errors import GcvError, MalformedInput
from gcv.reference.render import render_state, render_turn
from gcv.reference.verifier import Verifier
from gcv.scenarios import trace_text
from gcv.store import (
    DEFAULT_SNAPSHOT_EVERY,
    DEFAULT_WAIT_SECONDS,
    StoredSession,
    create_session,
    import_trace,
    is_database_url,
    open_session,
)
from gcv.store.snapshot import collector_paused
from gcv.trace import MAX_TRACE_BYTES, Trace, load_trace

__all__ = ["main", "parse_agents", "show_state", "state_json", "turn_number"]


def parse_agents(text: str) -> dict[str, str]:
    """Ags from ``a,b,c`` or ``a=Alice,b=Bob``: identifier -> display name.

    >>> parse_agents("a=Alice (backend),b")
    {'a': 'Alice (backend)', 'b': 'b'}
    """
    agents: dict[str, str] = {}
    for item in text.split(","):
        name, _, display = item.partition("=")
        agents[name.strip()] = display.strip() or name.strip()
    return agents


def show_state(verifier: Verifier, agents: Mapping[str, str]) -> list[str]:
    """D_t as the renderer writes it, each record's grounding, then the open abductive
    problems."""
    lines = render_state(verifier.state, agents)
    lines.append("grounding (whether Verify accepts each record now, Lemma 2.1):")
    known = groundings(verifier.state)
    lines += [f"  {r}: {status_line(verifier.state, r, g)}" for r, g in known.items()]
    problems = verifier.unexplained()
    lines.append("open problems:" if problems else "open problems: none")
    lines += [f"  {agents.get(p.agent, p.agent)}: {p.formula} (from {p.source})" for p in problems]
    return lines


def state_json(verifier: Verifier) -> dict[str, Any]:
    """D_t as JSON (the map's snapshot) with the open abductive problems."""
    problems = [
        {"agent": p.agent, "formula": str(p.formula), "source": p.source}
        for p in verifier.unexplained()
    ]
    dmap = verifier.state
    # One object or more per record, all kept: the cyclic collector's passes find nothing.
    with collector_paused():
        return {**dmap.snapshot(), "grounding": groundings(dmap), "open_problems": problems}


def _trace_and_document(name: str) -> tuple[Trace, dict[str, Any]]:
    """The trace ``name`` (a file or a built-in scenario), validated, and its JSON document."""
    text = trace_text(name)
    trace = load_trace(text)  # the trace must be valid, not only its header
    document = parse_json(text, MAX_TRACE_BYTES, MalformedTrace, "a trace")
    assert isinstance(document, dict), "load_trace accepted it, so it is an object"
    return trace, document


def _new(args: argparse.Namespace) -> int:
    if args.trace is not None:
        _, header = _trace_and_document(args.trace)
    else:
        # Named for its file (or its session), so that an export says which it is.
        name = args.db.rsplit("#", 1)[1] if is_database_url(args.db) else Path(args.db).stem
        header = {"name": name, "agents": parse_agents(args.agents)}
    with create_session(args.db, header, snapshot_every=args.snapshot_every) as session:
        print(f"{args.db}: new session, agents {', '.join(session.verifier.state.agents)}")
    return EXIT_OK


def _lines(source: str) -> Iterator[tuple[int, bytes]]:
    """The numbered lines of ``source`` (a file, or ``-`` for standard input).

    Read as bytes, a line at a time, each bounded as a trace is: a longer line
    (``/dev/zero`` has no end) is refused once the bound is passed, never held whole.
    """
    name = "standard input" if source == "-" else source
    with nullcontext(sys.stdin.buffer) if source == "-" else open_input(source) as stream:
        lines = enumerate(read_lines(stream, MAX_TRACE_BYTES, skip_long=False), start=1)
        while True:
            try:
                number, line = next(lines, (0, b""))
            except OSError as failure:  # a read that fails after the file opened
                raise UnreadableFile(f"{name}: cannot be read: {failure.strerror}") from None
            if line is None:
                raise MalformedInput(f"line {number}: longer than {MAX_TRACE_BYTES} bytes")
            if not number:
                return
            yield number, line


def _append_one(
    session: StoredSession, line: bytes, out: IO[str], as_json: bool, where: str = ""
) -> bool:
    """Append one line's turn and print its summary; return whether it was accepted.

    A rejected turn takes no number (the next turn repeats it: spec/gcv/spec/trace-format.md), so
    it is named by ``where`` too (its line), as several in a row would read alike.
    """
    agents = session.header["agents"]
    turn, number = parse_turn_line(line, agents)
    try:
        report = session.append(turn, number)
    except (StoreError, OutOfSequence):
        raise  # the store or the line is at fault, not the turn: nothing was logged
    except GcvError as error:
        if as_json:
            rejected = {"turn": session.turn + 1, "accepted": False, "error": error.as_dict()}
            print(json.dumps(rejected | ({"line": where} if where else {})), file=out)
        else:
            print(f"T{session.turn + 1} rejected ({where or 'not numbered'}): {error}", file=out)
        return False
    summary = render_turn(report, session.verifier.state, agents)
    if as_json:
        record = {"turn": report.turn, "speaker": report.speaker, "accepted": True}
        print(json.dumps({**record, "summary": summary}), file=out)
    else:
        print(f"T{report.turn} {agents.get(report.speaker, report.speaker)}:", file=out)
        for text in summary or ["no change"]:
            print(f"  {text}", file=out)
    out.flush()
    return True


def _append(args: argparse.Namespace) -> int:
    rejected: list[int] = []
    offered = 0
    with open_session(args.db, wait=args.wait) as session:
        for index, line in _lines(args.turns):
            if not line.strip():
                continue
            offered += 1
            try:
                accepted = _append_one(session, line, sys.stdout, args.json, f"line {index}")
            except MalformedInput as error:
                error.detail = f"line {index}: {error.detail}"
                raise
            if not accepted:
                rejected.append(index)
                if not args.keep_going:
                    print(f"gcv: stopped at the rejected turn on line {index}", file=sys.stderr)
                    return EXIT_BAD_INPUT
    if rejected:
        shown = ", ".join(map(str, rejected[:10])) + (", ..." if len(rejected) > 10 else "")
        print(
            f"gcv: {len(rejected)} of {offered} turns rejected (lines {shown})",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    with open_session(args.db) as session:
        last = session.last_turn()
        at = last if args.at is None else args.at
        # The live map is D_last: a map of its own is made only for an earlier turn.
        verifier = session.verifier if at == last else session.state_at(at)
        if args.json:
            state = state_json(verifier)
            with collector_paused():  # the text's pieces, all kept until it is written
                print(json.dumps(state, ensure_ascii=False))
            return EXIT_OK
        rejected = sum(entry.rejected is not None for entry in session.log())
        print(f"{args.db}: {last} turns accepted, {rejected} rejected; as of turn {at}")
        for line in show_state(verifier, session.header["agents"]):
            print(line)
    return EXIT_OK


def _export(args: argparse.Namespace) -> int:
    with open_session(args.db) as session:
        text = json.dumps(session.export(), indent=1, ensure_ascii=False) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as file:
            file.write(text)
    return EXIT_OK


def _import(args: argparse.Namespace) -> int:
    trace, document = _trace_and_document(args.trace)
    with import_trace(args.db, trace, document, snapshot_every=args.snapshot_every) as s:
        print(f"{args.db}: imported {s.turn} turns from {args.trace}")
    return EXIT_OK


def turn_number(text: str) -> int:
    """The argument type of ``--at`` and ``--snapshot-every``: a whole number, 0 or more."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (0 or more)")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    parser = OptionParser(
        prog="gcv session",
        description="A conversation kept in a store (SQLite or PostgreSQL), turn by turn.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    db_help = f"the session's store: a file, or postgresql://...#NAME (default: ${DB_VARIABLE})"
    db: dict[str, Any] = {"default": default_db(), "required": default_db() is None}
    snapshot_help = (
        f"accepted turns between snapshots, 0 for none (default {DEFAULT_SNAPSHOT_EVERY})"
    )

    p = commands.add_parser("new", help="create a session store")
    p.add_argument("--db", **db, help=db_help)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--agents", help="Ags: a,b,c or a=Alice,b=Bob")
    source.add_argument("--trace", help="take the agents, atoms and M_0 of this trace")
    p.add_argument(
        "--snapshot-every", type=turn_number, default=DEFAULT_SNAPSHOT_EVERY, help=snapshot_help
    )
    p.set_defaults(run=_new)

    p = commands.add_parser("append", help="apply turns (JSON lines), each atomically")
    p.add_argument("turns", nargs="?", default="-", help="a file of JSON lines, or - (stdin)")
    p.add_argument("--db", **db, help=db_help)
    p.add_argument("--json", action="store_true", help="one JSON object per turn")
    p.add_argument("--keep-going", action="store_true", help="go on after a rejected turn")
    p.add_argument(
        "--wait",
        type=seconds,
        default=DEFAULT_WAIT_SECONDS,
        help="seconds to wait for another writer's lock (default %(default)s)",
    )
    p.set_defaults(run=_append)

    p = commands.add_parser("show", help="print D_t: records, Dep, attacks, Cm, awareness")
    p.add_argument("--db", **db, help=db_help)
    p.add_argument("--at", type=turn_number, help="as of turn N (default: the last)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_show)

    p = commands.add_parser("export", help="write the session as a gcv-trace/1 trace")
    p.add_argument("--db", **db, help=db_help)
    p.add_argument("--output", "-o", help="write to this file instead of standard output")
    p.set_defaults(run=_export)

    p = commands.add_parser("import", help="create a session store from a trace")
    p.add_argument("trace", help="a trace file or built-in scenario name")
    p.add_argument("--db", **db, help=db_help)
    p.add_argument(
        "--snapshot-every", type=turn_number, default=DEFAULT_SNAPSHOT_EVERY, help=snapshot_help
    )
    p.set_defaults(run=_import)
    return parser


def main(argv: list[str]) -> int:
    """Run ``gcv session`` with ``argv`` and return its exit code.

    Errors propagate to ``gcv``'s entry point (:func:`gcv.cli.main`), which
    prints them and exits 2.
    """
    args = _parser().parse_args(argv)
    code: int = args.run(args)
    return code
