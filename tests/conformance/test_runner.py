"""``gcv conform``: the reference passes every vector; filters, --max-fail, known failures and
strict mode, the three reports, and the fixed exit codes."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gcv.conformance.runner import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    KnownFailures,
    main,
    select,
)
from gcv.conformance.vectors import default_directory, load_suite
from tests.conformance.helpers import ADAPTER, SERVE, conform, fake, statuses

SUITE = load_suite()
QUERY_CASES = [c.id for c in SUITE if c.id.startswith("core/queries/")]


@pytest.mark.slow
def test_the_reference_passes_every_vector_through_the_protocol(tmp_path: Path) -> None:
    code, report = conform(tmp_path, [], SERVE)
    assert code == EXIT_OK
    manifest = json.loads(default_directory().joinpath("manifest.json").read_text())
    assert report["counts"]["pass"] == manifest["cases"] == len(SUITE)
    assert report["steps"] == manifest["steps"] and report["steps_skipped"] == 0


@pytest.mark.slow
def test_the_example_adapter_passes_or_skips_every_case(tmp_path: Path) -> None:
    code, report = conform(tmp_path, [], [sys.executable, str(ADAPTER)])
    assert code == EXIT_OK
    counts = report["counts"]
    assert counts["fail"] == counts["error"] == 0
    assert counts["pass"] > 0 and counts["skip"] > 0 and report["steps_skipped"] > 0
    assert report["implementation"]["name"] == "example-adapter"


def test_filters_select_by_id_glob_and_by_feature_or_tag() -> None:
    chosen = select(SUITE, ["core/queries/*"], ["cycle"])
    assert {c.id for c in chosen} == {
        c.id for c in SUITE if c.id.startswith("core/queries/") and "cycle" in c.tags
    }
    assert chosen, "the suite has cycles among its query cases"
    by_feature = select(SUITE, [], ["query:dissenters"])
    assert by_feature and all("query:dissenters" in c.features for c in by_feature)
    assert select(SUITE, ["no/such/*"], []) == []


@pytest.mark.slow
def test_max_fail_stops_the_run(tmp_path: Path) -> None:
    code, report = conform(
        tmp_path,
        ["-k", "core/preconditions/*", "--max-fail", "2", "--profile", "reference"],
        fake("wrong-code"),
    )
    assert code == EXIT_FAILED
    assert report["counts"]["fail"] == 2
    assert report["stopped"].startswith("--max-fail 2 reached")


@pytest.mark.slow
def test_known_failures_do_not_count_and_strict_mode_flags_one_that_passes(
    tmp_path: Path,
) -> None:
    failing = "core/queries/affected-is-one-step"
    passing = "core/queries/verify-grounded-returns-dep-star"
    known = tmp_path / "known.txt"
    known.write_text(f"# one-step Affected* for now\n{failing}\n{passing}  # fixed?\n")
    options = ["-k", failing, "-k", passing, "--known-failures", str(known)]
    code, report = conform(tmp_path, options, fake("one-step"))
    assert code == EXIT_OK
    assert statuses(report) == {failing: "xfail", passing: "xpass"}
    code, report = conform(tmp_path, [*options, "--strict"], fake("one-step"))
    assert code == EXIT_FAILED
    code, report = conform(tmp_path, ["-k", failing, "-k", passing], fake("one-step"))
    assert code == EXIT_FAILED and statuses(report)[failing] == "fail"


def test_known_failures_file_format() -> None:
    known = KnownFailures.parse("a/b/*\n  # comment\n\nc/d/e # why\n")
    assert known.patterns == ("a/b/*", "c/d/e")
    assert "a/b/x" in known and "c/d/e" in known and "c/d/f" not in known
    assert known.unused(["a/b/x"]) == ["c/d/e"]


@pytest.mark.slow
def test_junit_and_json_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junit = tmp_path / "report.xml"
    options = ["-k", "core/queries/affected-*", "--junit", str(junit)]
    code = main([*options, "--json", "-", "--", *fake("one-step")])
    assert code == EXIT_FAILED
    report = json.loads(capsys.readouterr().out)  # --json - writes only JSON to stdout
    counts = report["counts"]
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites" and root.get("tests") == str(len(report["results"]))
    assert root.get("failures") == str(counts["fail"]) and counts["fail"] >= 1
    failures = root.findall(".//testcase/failure")
    assert len(failures) == counts["fail"]
    assert all(f.get("message") and "expected:" in (f.text or "") for f in failures)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["core/queries"]


@pytest.mark.slow
def test_the_human_summary_names_the_case_step_request_response_and_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["-k", "core/queries/affected-is-one-step", "--", *fake("one-step")])
    out = capsys.readouterr().out
    assert "FAIL  core/queries/affected-is-one-step  [Definition 2.3]" in out
    for line in ("step:     7 of 11", '"query": "affected_star"', "expected: {h1, h2, h3}"):
        assert line in out
    assert "missing {h2, h3}" in out
    assert "1 cases: 0 passed, 1 failed" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["-k", "no/such/case", "--", *SERVE],  # the filters select nothing
        ["--vectors", "/no/such/dir", "--", *SERVE],
        ["--no-such-option", "--", *SERVE],
        ["-k", "core/*"],  # no command
        ["--known-failures", "/no/such/file", "--", *SERVE],
    ],
)
def test_bad_input_is_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == EXIT_BAD_INPUT
    assert capsys.readouterr().err


def test_a_broken_vector_file_is_exit_2_naming_the_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "bad.json").write_text(
        '{"format": "gcv-vectors/1", "suite": "1.0.0", "protocol": "gcv-conform/1", '
        '"cases": [{"id": "x"}]}'
    )
    assert main(["--vectors", str(tmp_path), "--", *SERVE]) == EXIT_BAD_INPUT
    assert "mine/bad.json: cases[0]" in capsys.readouterr().err


def test_fuzzing_without_hypothesis_is_exit_2_saying_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gcv.conformance import runner

    monkeypatch.setattr(runner.importlib.util, "find_spec", lambda name: None)
    assert main(["--fuzz", "3", "--", *SERVE]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    # From this checkout the hint reinstalls it with the extra (reference.hints).
    assert "--fuzz needs Hypothesis: pip install -e '" in err and "[conformance]'" in err
