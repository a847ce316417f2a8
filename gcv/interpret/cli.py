"""``gcv interpret-eval``: score an interpreter on a trace's gold operations (Table 2).

    gcv interpret-eval --endpoint URL --model NAME --condition definitions TRACE
    gcv interpret-eval --native TRACE
    gcv interpret-eval --endpoint URL --model NAME --runs 5 phase3-deliberation   # Table 4

The endpoint, model and key may also come from a TOML file (``--config``,
keys as the long options, in an ``[interpreter]`` table) or from the
environment (``GCV_ENDPOINT``, ``GCV_MODEL``, ``GCV_API_KEY`` or
``OPENAI_API_KEY``); flags win over the file, the file over the environment.
Prints the per-turn labels and the table: F1 / exact match in percent, overall
and on the key shifts, for the labels as classified and as applied, and the
endpoint's token usage.  With ``--runs N`` the experiment runs N times (the
paper runs 5 per cell) and each cell is the mean and sample standard deviation
of the runs, after one line per run; progress goes to standard error.
Exit codes: 0 the evaluation ran; 2 bad input, or the endpoint failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from gcv.interpret.client import SETTINGS, ChatClient, ResponseFormat, config_from
from gcv.interpret.evaluate import ROWS, Evaluation, StateSource
from gcv.interpret.llm import LLMInterpreter
from gcv.interpret.metrics import Scores
from gcv.interpret.native import NativeInterpreter
from gcv.interpret.prompts import PROMPT_VERSION, load_prompts, prompt_versions
from gcv.interpret.protocol import Condition, Interpreter
from gcv.interpret.runs import PAPER_RUNS, Repeated, Spread, repeat
from gcv.jsoninput import read_file
from gcv.options import EXIT_BAD_INPUT, EXIT_OK, OptionParser, one_of
from gcv.reference.errors import GcvError, MalformedInput
from gcv.scenarios import read_trace
from gcv.trace import Trace

__all__ = ["format_spread_table", "format_table", "main"]

DEFAULT_TRACE = "phase2-debugging"
MAX_CONFIG_BYTES = 1 << 20

# The options that become client settings, under the same names: every setting but the
# key itself, which only the file or the environment gives (docs/interpreter.md).
_CLIENT_OPTIONS = tuple(name for name in SETTINGS if name != "api_key")


def _parser() -> argparse.ArgumentParser:
    p = OptionParser(
        prog="gcv interpret-eval",
        description="Score an interpreter's operation labels against a trace's gold "
        "operations: multi-label F1 and exact match, overall and on key shifts (Table 2).",
    )
    p.add_argument(
        "trace",
        nargs="?",
        default=DEFAULT_TRACE,
        help=f"trace file or built-in scenario name (default: {DEFAULT_TRACE})",
    )
    p.add_argument("--native", action="store_true", help="read the trace's own operations")
    p.add_argument(
        "--endpoint",
        help="base URL of an OpenAI-compatible API, e.g. "
        "http://127.0.0.1:8080/v1 (or GCV_ENDPOINT)",
    )
    p.add_argument("--model", help="model name (or GCV_MODEL)")
    p.add_argument(
        "--condition",
        choices=[c.value for c in Condition],
        default=Condition.DEFINITIONS.value,
        help="prompt condition of Table 2 (default: definitions)",
    )
    p.add_argument("--config", type=Path, help="TOML file with an [interpreter] table")
    p.add_argument("--api-key-env", help="environment variable holding the API key")
    p.add_argument("--timeout", type=float, help="seconds per request (default 120)")
    p.add_argument("--retries", type=int, help="repetitions of a failed request (default 2)")
    p.add_argument("--backoff", type=float, help="seconds before the first retry (default 1)")
    p.add_argument(
        "--response-format",
        choices=[f.value for f in ResponseFormat],
        help="structured output asked for (default json_schema, falling back to json_object)",
    )
    p.add_argument("--temperature", type=float, help="sampling temperature (default 0)")
    p.add_argument("--max-tokens", type=int, help="completion token limit (default 2048)")
    p.add_argument("--seed", type=int, help="sampling seed, for servers that honour it")
    p.add_argument(
        "--prompts",
        type=one_of(prompt_versions(), "prompt version"),
        default=PROMPT_VERSION,
        help=f"prompt version ({PROMPT_VERSION})",
    )
    p.add_argument(
        "--state",
        choices=[s.value for s in StateSource],
        default=StateSource.GOLD.value,
        help="whose operations build the state the interpreter reads (default: gold)",
    )
    p.add_argument(
        "--checkpoint-every",
        type=int,
        default=1,
        metavar="K",
        help="render the state for T1, T(1+K), ... (state-augmented; default 1)",
    )
    p.add_argument("--keep-going", action="store_true", help="score a failed request as empty")
    p.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help=f"run the experiment N times; cells are mean +- sd (the paper: {PAPER_RUNS})",
    )
    p.add_argument("--json", action="store_true", help="print the evaluation as JSON")
    p.add_argument(
        "-q", "--quiet", action="store_true", help="print only the table, and no progress"
    )
    return p


def _file_settings(path: Path | None) -> dict[str, object]:
    if path is None:
        return {}
    data = read_file(str(path), MAX_CONFIG_BYTES, MalformedInput, "a config")
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise MalformedInput(f"{path}: not UTF-8: byte {error.start}", field="config") from None
    except RecursionError:
        raise MalformedInput(f"{path}: nested too deeply", field="config") from None
    except tomllib.TOMLDecodeError as error:
        raise MalformedInput(f"{path}: not valid TOML: {error}", field="config") from None
    table = document.get("interpreter", document)
    if not isinstance(table, dict):
        raise MalformedInput(f"{path}: [interpreter] must be a table", field="config")
    return {str(k).replace("-", "_"): v for k, v in table.items()}


def _interpreter(
    args: argparse.Namespace, trace: Trace, environ: Mapping[str, str], run: int = 1
) -> Interpreter:
    if args.native:
        return NativeInterpreter(trace)
    settings = _file_settings(args.config)
    settings.update(
        {name: getattr(args, name) for name in _CLIENT_OPTIONS if getattr(args, name) is not None}
    )
    seed = settings.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool):
        # Run r samples with seed + r - 1: distinct runs, each reproducible.
        settings["seed"] = seed + run - 1
    client = ChatClient(config_from(settings, environ))
    return LLMInterpreter(client, Condition(args.condition), load_prompts(args.prompts))


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def _cell(s: Scores) -> str:
    return f"{_percent(s.f1)} / {_percent(s.exact_match)}"


def format_table(result: Evaluation) -> list[str]:
    """Table 2's cells for one interpreter: F1 / exact match in percent.

    One row per way of reading the reply (classified, applied); columns overall
    and key shifts.
    """
    shifts = ", ".join(f"T{n}" for n in result.key_shifts) or "none"
    lines = [f"{'F1 / EM (%)':<14}{'overall':<16}key shifts ({shifts})"]
    for row in ROWS:
        overall, shifted = result.scores(row), result.scores(row, key_shifts_only=True)
        lines.append(f"{row:<14}{_cell(overall):<16}{_cell(shifted)}")
    return lines


def _spread(s: Spread | None) -> str:
    return "n/a" if s is None else f"{100 * s.mean:.1f}+-{100 * s.sd:.1f}"


def format_spread_table(repeated: Repeated) -> list[str]:
    """The cells over the runs: mean +- sample standard deviation of F1 / exact match (%)."""
    lines = [f"{'F1 / EM (%)':<14}{'overall':<26}key shifts"]
    for row in ROWS:
        cells = [
            f"{_spread(repeated.cell(row, 'f1', key_shifts_only=k))} / "
            f"{_spread(repeated.cell(row, 'exact_match', key_shifts_only=k))}"
            for k in (False, True)
        ]
        lines.append(f"{row:<14}{cells[0]:<26}{cells[1]}")
    return lines


def _tokens(result: Evaluation) -> str:
    prompt, completion = result.tokens()
    if prompt is None and completion is None:
        return "tokens: not reported"
    return f"tokens: {prompt if prompt is not None else 'n/a'} prompt + " + (
        f"{completion if completion is not None else 'n/a'} completion"
    )


def _print_settings(result: Evaluation) -> None:
    info = dict(result.interpreter)
    kind = info.pop("interpreter", "?")
    print(f"{result.trace}: {len(result.turns)} turns, {len(result.key_shifts)} key shifts")
    print(f"interpreter: {kind}" + "".join(f"; {k} {v}" for k, v in info.items()))
    print(f"state: {result.state.value}; checkpoint every {result.checkpoint_every} turn(s)")


def _print_runs(repeated: Repeated) -> None:
    _print_settings(repeated.evaluations[0])
    print()
    for run, result in enumerate(repeated.evaluations, start=1):
        cells = "; ".join(
            f"{row} {_cell(result.scores(row))} (key shifts "
            f"{_cell(result.scores(row, key_shifts_only=True))})"
            for row in ROWS
        )
        accepted = sum(t.accepted for t in result.turns)
        print(f"run {run}: {cells}; accepted {accepted} of {len(result.turns)}; {_tokens(result)}")
    print(f"\nover {len(repeated.evaluations)} runs:")
    for line in format_spread_table(repeated):
        print(line)


def _labels(labels: frozenset[str]) -> str:
    return ", ".join(sorted(labels)) or "-"


def _print(result: Evaluation, trace: Trace, quiet: bool) -> None:
    _print_settings(result)
    if not quiet:
        print()
        for t in result.turns:
            name = trace.agents.get(t.speaker, t.speaker).split(" (")[0]
            mark = "*" if t.key_shift else " "
            verdict = "ok" if t.classified == t.gold else "MISS"
            line = f"T{t.number:<3}{mark}{name:<8} gold {_labels(t.gold)} | got "
            line += f"{_labels(t.classified)}  {verdict}"
            if t.problems:
                line += f"; refused: {t.problems[0]}"
                if len(t.problems) > 1:
                    line += f" (and {len(t.problems) - 1} more)"
            print(line)
        print("(* key shift)")
    print()
    for line in format_table(result):
        print(line)
    refused = Counter(t.problems[0].code for t in result.turns if t.problems)
    reasons = ", ".join(f"{code} {n}" for code, n in sorted(refused.items()))
    accepted = sum(t.accepted for t in result.turns)
    print(
        f"\naccepted replies: {accepted} of {len(result.turns)}"
        + (f"; refused: {reasons}" if reasons else "")
    )
    print(_tokens(result))


def main(argv: list[str]) -> int:
    """Run ``gcv interpret-eval`` with ``argv``; return the exit code."""
    args = _parser().parse_args(argv)
    try:
        if args.checkpoint_every < 1:
            raise MalformedInput("--checkpoint-every must be at least 1", field="checkpoint_every")
        if args.runs < 1:
            raise MalformedInput("--runs must be at least 1", field="runs")
        trace = read_trace(args.trace)
        interpreters = [
            _interpreter(args, trace, os.environ, run) for run in range(1, args.runs + 1)
        ]
        repeated = repeat(
            trace,
            lambda run: interpreters[run - 1],
            args.runs,
            state=StateSource(args.state),
            checkpoint_every=args.checkpoint_every,
            keep_going=args.keep_going,
            quiet=args.quiet,
        )
    except GcvError as error:
        print(f"gcv interpret-eval: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.runs > 1:
        if args.json:
            print(json.dumps(repeated.as_dict(), indent=2))
        else:
            _print_runs(repeated)
    elif args.json:
        print(json.dumps(repeated.evaluations[0].as_dict(), indent=2))
    else:
        _print(repeated.evaluations[0], trace, args.quiet)
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
