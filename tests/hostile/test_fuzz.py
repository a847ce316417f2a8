"""The fuzz harness: every entry point, fed hostile input, answers with a typed error or a result.

One test per surface: traces through ``gcv replay``, request lines through ``gcv
serve``, an interpreter's replies, the formula parser, the Python API, the
command-line options and the vector files.  Each asserts no untyped exception,
no partial update (a refused turn or query leaves D_t's digest unchanged), and
every answer within its contract.  The test command runs a small seeded sample;
the deep profile runs 10,000 inputs per surface (``GCV_FUZZ_EXAMPLES=N`` sets
another count)::

    GCV_HYPOTHESIS_PROFILE=deep .venv/bin/python -m pytest tests/hostile/test_fuzz.py
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcv.cli import main
from gcv.conformance.protocol import schema_problem
from gcv.conformance.runner import _parser as conform_parser
from gcv.conformance.server import serve
from gcv.conformance.session import Session
from gcv.conformance.vectors import load_vector_file
from gcv.interpret.validate import read_reply
from gcv.reference.epistemic.formula import parse, show
from gcv.reference.errors import GcvError, MalformedFormula, MalformedVectors
from gcv.reference.verifier import Verifier
from tests.hostile.corpus import (
    JSON_VALUES,
    TRICKY_STRINGS,
    conversations,
    mutated,
    replies,
    traces,
    vector_file,
)

DEEP = os.environ.get("GCV_HYPOTHESIS_PROFILE") == "deep"
EXAMPLES = int(os.environ.get("GCV_FUZZ_EXAMPLES", 10_000 if DEEP else 30))
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=EXAMPLES <= 30,  # the test command's run is the same sample every time
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SCRATCH = Path(tempfile.mkdtemp(prefix="gcv-fuzz-"))


def _quietly(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:  # argparse's own refusal
            code = int(stop.code or 0)
    return code, out.getvalue() + err.getvalue()


@pytest.mark.slow
@FUZZ
@given(traces())
def test_replay_answers_any_trace(text: str) -> None:
    path = SCRATCH / "trace.json"
    path.write_text(text, encoding="utf-8")
    code, output = _quietly(["replay", str(path)])
    assert code in (0, 1, 2), (code, output)
    assert "Traceback" not in output, output
    output.encode("utf-8")  # everything printed can be printed


def _digest(session: Session) -> str | None:
    return None if session.verifier is None else session.verifier.state.digest()


@pytest.mark.slow
@FUZZ
@given(conversations(), st.lists(st.binary(max_size=40), max_size=2))
def test_serve_answers_every_line_and_a_refusal_changes_nothing(
    requests: Any, noise: list[bytes]
) -> None:
    lines = [json.dumps(r).encode() for r in (requests if isinstance(requests, list) else [])]
    session = Session()
    for line in [*noise, *lines]:
        verifier, before = session.verifier, _digest(session)
        out = io.StringIO()
        serve([line], out, session)
        if not line.strip():
            continue
        (answer_line,) = out.getvalue().splitlines()
        response = json.loads(answer_line)
        found = schema_problem("urn:gcv:conform:1:response", "", response)
        assert found is None, (line, response, found)
        if not response["ok"] and session.verifier is verifier:
            assert _digest(session) == before, (line, response)
        if session.closed:
            break


@pytest.mark.slow
@FUZZ
@given(replies() | st.text(max_size=60))
def test_a_reply_is_read_or_refused_with_typed_problems(text: str) -> None:
    read = read_reply(text)
    assert (read.operations is None) == bool(read.problems), read
    assert all(isinstance(problem, GcvError) for problem in read.problems), read


FORMULA_TEXT = st.lists(
    st.sampled_from(
        [
            "p",
            "q",
            "a",
            "~",
            "&",
            "|",
            "->",
            "<->",
            "(",
            ")",
            "K[a]",
            "B[a]",
            "B[a given",
            "]",
            "E[a,b]",
            "C[a]",
            "A[a]",
            "X[b]",
            "true",
            "false",
            " ",
            "_p",
            "K[",
            "[",
            "1",
        ]
    ),
    max_size=40,
).map("".join)


@FUZZ
@given(FORMULA_TEXT | st.text(max_size=30))
def test_the_parser_answers_a_formula_or_a_malformed_formula(text: str) -> None:
    try:
        formula = parse(text)
    except MalformedFormula:
        return
    assert parse(show(formula)) == formula, (text, show(formula))


# Each query and how many positional arguments it takes (a wrong count is Python's
# TypeError by design, not an input the API validates).
QUERIES = {
    "verify": (1, 1), "affected": (1, 1), "affected_star": (1, 1),
    "affected_star_active": (1, 1), "standing": (1, 1), "dependencies": (1, 1),
    "attackers": (1, 1), "dissenters": (1, 1), "commitments": (1, 1), "is_aware": (2, 2),
    "holds": (1, 2), "knows": (2, 3), "believes": (2, 4), "is_ordered": (2, 2),
    "unexplained": (0, 1), "plausibility": (1, 1),
}  # fmt: skip
ARGUMENT = JSON_VALUES | TRICKY_STRINGS | st.just(("p",)) | st.just(frozenset({"q"}))
CALLS = st.sampled_from(sorted(QUERIES)).flatmap(
    lambda name: st.tuples(
        st.just(name), st.lists(ARGUMENT, min_size=QUERIES[name][0], max_size=QUERIES[name][1])
    )
)


@pytest.mark.slow
@FUZZ
@given(st.lists(CALLS, max_size=6), st.one_of(st.just(["a", "b"]), ARGUMENT))
def test_the_api_answers_or_names_the_bad_argument(calls: Any, agents: Any) -> None:
    try:
        verifier = Verifier(agents, ["p", "q"])
    except GcvError:
        verifier = Verifier(["a", "b"], ["p", "q"])
    before = verifier.state.digest()
    for name, arguments in calls:
        with contextlib.suppress(GcvError):
            getattr(verifier, name)(*arguments)
    assert verifier.state.digest() == before, "a query changed D_t"


OPTION_WORDS = st.sampled_from(
    ["--timeout", "--start-timeout", "--fuzz", "--fuzz-turns", "--max-fail", "--json",
     "--junit", "--seed", "--save-vector", "--strict", "-v", "-k", "--feature", "-1", "0",
     "1", "2.5", "nan", "inf", "1e309", "-", "/no/such/dir/x", "/", "x", ""]
)  # fmt: skip


@FUZZ
@given(st.lists(OPTION_WORDS, max_size=6))
def test_conform_options_are_refused_by_the_parser_or_in_range(words: list[str]) -> None:
    parser = conform_parser()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            args = parser.parse_args(words)
        except SystemExit as stop:
            assert stop.code in (0, 2), stop.code
            return
    for name in ("timeout", "start_timeout"):
        value = getattr(args, name)
        assert math.isfinite(value) and value > 0, (words, name, value)
    for name in ("fuzz", "fuzz_turns", "max_fail"):
        value = getattr(args, name)
        assert value is None or value >= 1, (words, name, value)
    for name in ("json", "junit"):
        value = getattr(args, name)
        assert value in (None, "-") or Path(value).parent.is_dir(), (words, name, value)


@pytest.mark.slow
@FUZZ
@given(st.builds(lambda: vector_file()).flatmap(mutated).map(json.dumps))
def test_a_vector_file_is_loaded_or_refused(text: str) -> None:
    try:
        cases = load_vector_file(text, "fuzzed.json")
    except MalformedVectors:
        return
    assert all(case.id for case in cases)
