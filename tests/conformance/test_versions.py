"""A released suite version never changes: the vectors against the last release's hashes.

``spec/gcv/spec/vectors/releases.json`` keeps each released suite's case hashes (``gcv vectors
--release`` adds one); the suite as committed must be that release under its version, or
a version above it by the bump its changes need; the manifest records each case's version,
and CHANGELOG.md says what each suite version changed.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from importlib import resources
from pathlib import Path

import pytest

from gcv.conformance.vectors import SUITE_VERSION, Case, default_directory, load_suite
from gcv.conformance.versions import (
    RELEASES,
    case_versions,
    dump_releases,
    load_releases,
    recorded,
    schema_hash,
    version_problem,
)

ROOT = Path(__file__).parents[2]
SUITE = load_suite()
RELEASED = load_releases(default_directory().joinpath(RELEASES).read_text("utf-8"))


def _current(cases: list[Case] | None = None, suite: str = SUITE_VERSION) -> dict[str, object]:
    chosen = list(SUITE) if cases is None else cases
    return recorded(suite, chosen, schema_hash(resources.files("gcv.spec")))


def test_the_suite_is_its_release_or_the_bump_its_changes_need() -> None:
    assert RELEASED, f"{RELEASES} records no release"
    assert version_problem(RELEASED, _current()) is None, version_problem(RELEASED, _current())


def test_the_releases_file_is_canonical_and_each_release_a_bump_of_the_last() -> None:
    text = default_directory().joinpath(RELEASES).read_text("utf-8")
    assert dump_releases(RELEASED) == text
    for earlier, later in itertools.pairwise(RELEASED):
        assert version_problem([earlier], later) is None, later["suite"]


def _with_one_answer_changed(paper: bool) -> list[Case]:
    """The suite with one expected answer changed: of a paper-profile step, or of one an
    alternative answers otherwise."""
    cases = list(SUITE)
    for index, case in enumerate(cases):
        for k, step in enumerate(case.steps):
            if step.request.get("query") == "standing" and (step.profile == "paper") == paper:
                other = "weakened" if step.expect.get("result") != "weakened" else "active"
                steps = list(case.steps)
                steps[k] = dataclasses.replace(step, expect={"result": other})
                cases[index] = dataclasses.replace(case, steps=tuple(steps))
                return cases
    raise AssertionError("no standing step to change")


@pytest.mark.parametrize("paper", [True, False])
def test_an_answer_changed_under_a_released_version_is_refused(paper: bool) -> None:
    """The suite as it is, released; then one answer changed: refused under the same version,
    and under a bump smaller than the change needs (a paper-profile answer: major)."""
    released = [*RELEASED[:-1], _current()]
    changed = _with_one_answer_changed(paper)
    problem = version_problem(released, _current(changed))
    assert problem is not None and "is released, but its answers changed" in problem, problem
    major, minor, _ = (int(part) for part in SUITE_VERSION.split("."))
    smaller = f"{major}.{minor + 1}.0"
    bumped = version_problem(released, _current(changed, smaller))
    assert (bumped is not None) == paper, bumped
    assert version_problem(released, _current(changed, f"{major + 1}.0.0")) is None


def test_the_manifest_records_each_case_version() -> None:
    manifest = json.loads(default_directory().joinpath("manifest.json").read_text("utf-8"))
    assert manifest["versions"] == case_versions(RELEASED, _current())
    assert set(manifest["versions"].values()) <= {r["suite"] for r in RELEASED} | {SUITE_VERSION}


def test_the_changelog_says_what_each_suite_version_changed() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text("utf-8")
    for version in {SUITE_VERSION, *(r["suite"] for r in RELEASED[1:])}:
        assert f"Suite {version}" in changelog, version
