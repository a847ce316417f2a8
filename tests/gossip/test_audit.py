"""``gcv audit gossip``: the examples run and the decision procedure's agreement is printed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gcv.audits.gossip import main

SMALL = ["--config", "3:3:5", "--formulas", "4", "--models", "4", "--runs", "120"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_audit_runs_and_reports_agreement(capsys):
    assert main(SMALL) == 0
    out = capsys.readouterr().out
    assert "[ok] same a-calls, different views" in out
    assert "permit, then deny with the failed-precondition label" in out
    line = next(line for line in out.splitlines() if line.strip().startswith("agents=3"))
    assert "n=5" in line and "formulas checked" in line and "agree" in line
    assert "DISAGREE" not in out and "FAIL" not in out
    assert "bound fails" in out  # the broken ranking variant
    assert out.rstrip().splitlines()[-1].startswith("all checks agree")


@pytest.mark.slow
def test_audit_reports_a_disagreement_with_a_too_small_bound(capsys):
    assert main(["--config", "3:3:3", "--formulas", "0", "--models", "2", "--runs", "40"]) == 1
    assert "DISAGREE" in capsys.readouterr().out


def test_audit_refuses_a_malformed_config():
    with pytest.raises(SystemExit):
        main(["--config", "3:x:5"])


@pytest.mark.slow
def test_audit_output_does_not_depend_on_the_hash_seed():
    outputs = []
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                f"import sys; from gcv.audits.gossip import main; sys.exit(main({SMALL!r}))",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        outputs.append(re.sub(r"\(\d+\.\d+ s\)", "", result.stdout))
    assert outputs[0] == outputs[1]


@pytest.mark.slow
def test_audit_json_gives_each_section_its_verdict(capsys):
    assert main([*SMALL, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    titles = [section["title"] for section in data["sections"]]
    assert titles[0] == "Example 4.2 and the Section 2 guard example"
    assert titles[-1].startswith("Theorem 7.1") and len(titles) == 5
    assert data["ok"] and all(section["ok"] for section in data["sections"])
    assert "[ok] same a-calls, different views" in data["sections"][0]["lines"]


@pytest.mark.slow
def test_audit_json_names_the_section_that_disagrees(capsys):
    small_bound = ["--config", "3:3:3", "--formulas", "0", "--models", "2", "--runs", "40"]
    assert main([*small_bound, "--json"]) == 1
    verdicts = {s["title"][:12]: s["ok"] for s in json.loads(capsys.readouterr().out)["sections"]}
    assert verdicts["Theorem 5.4:"] is False and verdicts["Example 4.2 "] is True


@pytest.mark.parametrize("runs", ["0", "1"])
def test_audit_refuses_fewer_than_two_runs(runs, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--runs", runs])
    assert stopped.value.code == 2
    assert f"argument --runs: '{runs}' is not an integer >= 2" in capsys.readouterr().err
