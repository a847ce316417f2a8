"""The reference in other people's CI: the workflows and the action pass actionlint, the
action's script passes ``gcv serve`` and fails a broken implementation, and the pre-commit
hooks run on a scratch repository (``pre-commit try-repo``, and a configuration with
arguments).

actionlint checks workflows, and an action's metadata only through the inputs a workflow
passes it; so the action's steps are also checked as the one job of a reusable workflow
whose inputs are the action's, and a broken copy of the action must fail that check.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conformance.helpers import FAKE

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
SCRIPT = ROOT / ".github" / "action" / "conform.sh"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def _tools_environment(**extra: str) -> dict[str, str]:
    """The test environment's tools first on PATH (actionlint finds shellcheck there), and
    this checkout's gcv for every Python process started."""
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
        **extra,
    }


def _run(command: list[str | Path], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(word) for word in command],
        cwd=cwd,
        env=_tools_environment(**extra),
        capture_output=True,
        text=True,
    )


def _as_workflow(action: dict[str, Any]) -> dict[str, Any]:
    inputs = {
        name: {"type": "string", **{k: v for k, v in spec.items() if k != "deprecationMessage"}}
        for name, spec in action["inputs"].items()
    }
    outputs = {name: spec["value"] for name, spec in action["outputs"].items()}
    job = {"runs-on": "ubuntu-latest", "outputs": outputs, "steps": action["runs"]["steps"]}
    return {"name": action["name"], "on": {"workflow_call": {"inputs": inputs}}, "jobs": {"a": job}}


def _actionlint(tmp_path: Path, action: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    as_workflow = tmp_path / "action-as-workflow.yml"
    as_workflow.write_text(yaml.safe_dump(_as_workflow(action), sort_keys=False))
    return _run([BIN / "actionlint", "-oneline", *WORKFLOWS, as_workflow], ROOT)


def test_actionlint_passes_on_every_workflow_and_the_action(tmp_path: Path) -> None:
    assert {w.name for w in WORKFLOWS} == {"ci.yml", "release.yml"}
    linted = _actionlint(tmp_path, ACTION)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert ACTION["runs"]["using"] == "composite"
    # A composite action's run steps must name their shell; actionlint does not check it.
    assert all("shell" in step for step in ACTION["runs"]["steps"] if "run" in step)
    assert os.access(SCRIPT, os.X_OK)
    linted = _run([BIN / "shellcheck", SCRIPT, ROOT / ".ci" / "run"], ROOT)
    assert linted.returncode == 0, linted.stdout


def test_actionlint_fails_a_broken_copy_of_the_action(tmp_path: Path) -> None:
    broken = json.loads(json.dumps(ACTION))
    conform, upload = broken["runs"]["steps"][1:]
    conform["env"]["INPUT_FEATURES"] = "${{ inputs.feature }}"
    upload["with"]["paths"] = upload["with"].pop("path")
    linted = _actionlint(tmp_path, broken)
    assert linted.returncode == 1
    assert 'property "feature" is not defined' in linted.stdout
    assert 'input "paths" is not defined in action "actions/upload-artifact' in linted.stdout


def _readme_block(first_line: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return first_line + "\n" + readme.split(f"```yaml\n{first_line}\n", 1)[1].split("```")[0]


def test_the_readmes_workflow_passes_actionlint_with_this_action(tmp_path: Path) -> None:
    workflow = _readme_block("# .github/workflows/conformance.yml")
    assert workflow.count("uses: ./.gcv-action") == 1 and "OWNER" not in workflow
    # A project holding this action in the repository's place: actionlint reads a local
    # action's inputs only inside a git repository.
    project = tmp_path / "project"
    linted_file = project / ".github" / "workflows" / "conformance.yml"
    linted_file.parent.mkdir(parents=True)
    shutil.copy(ROOT / "action.yml", project)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    linted_file.write_text(workflow.replace("uses: ./.gcv-action", "uses: ./"))
    linted = _run([BIN / "actionlint", "-oneline", linted_file], project)
    assert linted.returncode == 0, linted.stdout
    linted_file.write_text(linted_file.read_text().replace("vectors-version:", "vector-version:"))
    linted = _run([BIN / "actionlint", "-oneline", linted_file], project)
    assert 'input "vector-version" is not defined' in linted.stdout


def test_the_readmes_pre_commit_configuration_names_the_hooks() -> None:
    configuration = yaml.safe_load(_readme_block("# .pre-commit-config.yaml"))
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    named = [h for repo in configuration["repos"] for h in repo["hooks"]]
    assert (
        [h["id"] for h in named] == [h["id"] for h in hooks] == ["gcv-replay", "gcv-vectors-check"]
    )
    for local, shipped in zip(named, hooks, strict=True):  # the same hooks, declared locally
        kept = {k: v for k, v in shipped.items() if k not in ("description", "args")}
        assert {k: local[k] for k in kept} == kept, local["id"]


def _action_script(
    tmp_path: Path, command: str, **inputs: str
) -> tuple[int, dict[str, str], dict[str, Any], ET.Element | None]:
    """Run the action's script as the action does; its exit code, the outputs it wrote, and
    the JSON and JUnit reports (empty, None when it wrote none)."""
    reports, outputs = tmp_path / "reports", tmp_path / "github-output"
    environment = {f"INPUT_{name.upper()}": value for name, value in inputs.items()}
    done = _run(
        ["bash", SCRIPT],
        tmp_path,
        GCV_BIN=str(BIN),
        INPUT_COMMAND=command,
        REPORT_DIR=str(reports),
        GITHUB_OUTPUT=str(outputs),
        GITHUB_STEP_SUMMARY=str(tmp_path / "step-summary.md"),
        **environment,
    )
    written = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert written["exit-code"] == str(done.returncode), done.stderr
    report = reports / "conformance.json"
    junit = reports / "conformance.xml"
    return (
        done.returncode,
        written,
        json.loads(report.read_text()) if report.is_file() else {},
        ET.parse(junit).getroot() if junit.is_file() else None,
    )


@pytest.mark.slow
def test_the_action_script_passes_gcv_serve(tmp_path: Path) -> None:
    code, written, report, junit = _action_script(
        tmp_path, "gcv serve", features="fuzz,\natomicity", profile="reference"
    )
    assert code == 0 and written["report-dir"] == str(tmp_path / "reports")
    assert report["counts"]["pass"] == 4 and report["counts"]["fail"] == 0
    assert junit is not None
    assert sum(int(suite.get("tests", 0)) for suite in junit) == 4
    assert junit.find(".//failure") is None
    summary = (tmp_path / "step-summary.md").read_text()
    assert summary.startswith("### gcv conform: exit 0\n")
    assert "4 cases: 4 passed, 0 failed" in summary


@pytest.mark.slow
def test_the_action_script_fails_an_implementation_that_does_not_conform(tmp_path: Path) -> None:
    one_step = shlex.join([sys.executable, str(FAKE), "one-step"])
    code, _, report, junit = _action_script(tmp_path, one_step, features="fuzz")
    assert code == 1
    failed = [r["id"] for r in report["results"] if r["status"] == "fail"]
    assert failed == ["findings/fuzz/seed-1"], report["results"]  # the one-step Affected*
    assert junit is not None and junit.find(".//failure") is not None


@pytest.mark.slow
def test_the_action_script_refuses_another_vectors_version(tmp_path: Path) -> None:
    code, _, report, junit = _action_script(tmp_path, "gcv serve", vectors_version="0.0.1")
    assert code == 2 and report == {} and junit is None


GOOD_TRACE = {
    "format": "gcv-trace/1",
    "name": "good",
    "agents": {"a": "Alice", "b": "Bob"},
    "turns": [
        {
            "turn": 1,
            "speaker": "a",
            "operations": [
                {"op": "observe", "id": "o1", "claim": "401 errors"},
                {"op": "hypothesize", "id": "h1", "claim": "token bug", "depends_on": ["o1"]},
            ],
        },
        {"turn": 2, "speaker": "b", "operations": [{"op": "revise", "target": "o1"}]},
    ],
    "expect": [{"query": "affected_star", "record": "o1", "equals": ["h1"]}],
}
BAD_TRACE = {
    **GOOD_TRACE,
    "name": "bad",
    "expect": [{"query": "standing", "record": "o1", "equals": "active"}],
}


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A git repository with two traces staged, one whose expectations hold, one that fails."""
    repo = tmp_path / "scratch"
    (repo / "traces").mkdir(parents=True)
    (repo / "traces" / "good.json").write_text(json.dumps(GOOD_TRACE))
    (repo / "traces" / "bad.json").write_text(json.dumps(BAD_TRACE))
    for command in (["init", "-q"], ["add", "."]):
        subprocess.run(["git", *command], cwd=repo, check=True)
    return repo


def _pre_commit(repo: Path, *words: str | Path) -> subprocess.CompletedProcess[str]:
    home = repo.parent / "pre-commit-home"
    return _run([sys.executable, "-m", "pre_commit", *words], repo, PRE_COMMIT_HOME=str(home))


@pytest.mark.slow
def test_pre_commit_try_repo_replays_the_changed_traces(scratch: Path) -> None:
    good = _pre_commit(scratch, "try-repo", ROOT, "gcv-replay", "--files", "traces/good.json")
    assert good.returncode == 0 and "gcv replay" in good.stdout and "Passed" in good.stdout
    both = _pre_commit(scratch, "try-repo", ROOT, "gcv-replay", "--all-files")
    assert both.returncode == 1, both.stdout
    assert "[FAIL] standing(o1) = active; got abandoned" in both.stdout
    assert "2 traces: 1 hold, 1 FAILED, 0 unreadable" in both.stdout


@pytest.fixture
def hooks(tmp_path: Path) -> tuple[Path, str]:
    """A repository holding only this project's .pre-commit-hooks.yaml, and its commit."""
    repo = tmp_path / "hooks"
    repo.mkdir()
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", repo)
    commit = ["-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "hooks"]
    for command in (["init", "-q"], ["add", "."], commit):
        subprocess.run(["git", *command], cwd=repo, check=True)
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    return repo, rev


@pytest.mark.slow
def test_pre_commit_hooks_with_arguments_junit_and_kept_vectors(
    scratch: Path, hooks: tuple[Path, str]
) -> None:
    hooks_repo, rev = hooks
    kept = scratch / "kept" / "vectors"
    shutil.copytree(ROOT / "spec" / "gcv" / "spec" / "vectors", kept)
    (kept / "findings" / "fuzz.json").write_text("{")  # damaged: found before any rebuild
    configuration = {
        "repos": [
            {
                "repo": str(hooks_repo),
                "rev": rev,
                "hooks": [
                    {"id": "gcv-replay", "args": ["--quiet", "--junit", "replay.xml"]},
                    {"id": "gcv-vectors-check", "args": ["--quiet", "--out", "kept/vectors"]},
                ],
            }
        ]
    }
    (scratch / ".pre-commit-config.yaml").write_text(yaml.safe_dump(configuration))
    subprocess.run(["git", "add", "."], cwd=scratch, check=True)
    ran = _pre_commit(scratch, "run", "--all-files")
    assert ran.returncode == 1
    suites = ET.parse(scratch / "replay.xml").getroot()
    assert [(s.get("name"), s.get("failures")) for s in suites] == [("bad", "1"), ("good", "0")]
    assert "gcv vectors: [malformed-vectors] findings/fuzz.json is not valid JSON" in ran.stdout
    assert ran.stdout.count("Failed") == 2


@pytest.mark.slow
def test_the_vectors_hook_passes_a_current_copy_and_fails_a_stale_one(
    scratch: Path, hooks: tuple[Path, str]
) -> None:
    hooks_repo, rev = hooks
    kept = scratch / "kept" / "vectors"
    shutil.copytree(ROOT / "spec" / "gcv" / "spec" / "vectors", kept)
    hook = {"id": "gcv-vectors-check", "args": ["--quiet", "--out", "kept/vectors"]}
    configuration = {"repos": [{"repo": str(hooks_repo), "rev": rev, "hooks": [hook]}]}
    (scratch / ".pre-commit-config.yaml").write_text(yaml.safe_dump(configuration))
    subprocess.run(["git", "add", "."], cwd=scratch, check=True)
    current = _pre_commit(scratch, "run", "--all-files")
    assert current.returncode == 0 and "Passed" in current.stdout, current.stdout
    case = next(kept.glob("core/*.json"))
    case.write_text(case.read_text().replace('"active"', '"weakened"', 1))
    stale = _pre_commit(scratch, "run", "--all-files")
    assert stale.returncode == 1 and "Failed" in stale.stdout, stale.stdout
