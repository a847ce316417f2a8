"""The suite's versions: what a release pinned, and the version each change needs.

A released suite version never changes: ``spec/gcv/spec/vectors/releases.json`` keeps, for every
release of the suite, each case's two hashes (:func:`case_hashes`: its answers, and the
answers of its paper-profile steps) and the schemas' hash.  A suite whose answers differ
from the last release's under the same version is refused by the tests
(``tests/conformance/test_versions.py``, :func:`version_problem`), and a new version must
be as far above the last as its changes require (semantic versioning, from an
implementation's side):

- **major**: a paper-profile answer changed (or a step joined or left the paper profile),
  a case's start or steps changed, or a case was withdrawn: a conforming implementation may
  now fail;
- **minor**: another answer changed (a reference-profile expectation, an alternative's
  answer), a case was added, or a schema changed;
- **patch**: nothing an implementation is judged by changed (a description, a note).

Each case's version (``manifest.json``'s ``versions``) is the release since which its
answers are as they are, or the suite's version when they changed since the last release.
``gcv vectors --release`` records the current suite as released.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from importlib.resources.abc import Traversable
from typing import Any

import icontract

from gcv.conformance.vectors import Case
from gcv.errors import MalformedVectors

__all__ = [
    "RELEASES",
    "Bump",
    "case_hashes",
    "case_versions",
    "load_releases",
    "recorded",
    "required_bump",
    "schema_hash",
    "version_problem",
]

RELEASES = "releases.json"
"""The file, beside the manifest, that keeps every released suite's hashes."""

RELEASES_FORMAT = "gcv-vectors-releases/1"

SCHEMAS = (
    "vectors/vectors.schema.json",
    "protocol/request.schema.json",
    "protocol/response.schema.json",
    "trace.schema.json",
)
"""The schemas a suite is read and judged through (paths under ``gcv.spec``)."""

Bump = str
"""``major``, ``minor`` or ``patch``."""

_RANK = {"patch": 0, "minor": 1, "major": 2}


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def is_hex16(text: str) -> bool:
    """Check that ``text`` is 16 lowercase hexadecimal digits."""
    return len(text) == 16 and all(c in "0123456789abcdef" for c in text)


@icontract.ensure(lambda result: all(is_hex16(h) for h in result), "two 64-bit hashes")
def case_hashes(case: Case) -> tuple[str, str]:
    """A case's answers as two hashes: everything an implementation is judged by (its start,
    each step's request, expectation and alternatives), and that part of it the paper
    profile judges (the start, every request, and each paper-profile step's expectation)."""
    steps = [step.to_json() for step in case.steps]
    judged_keys = ("request", "expect", "alternatives")
    judged = {
        "start": case.start(),
        "steps": [{k: s[k] for k in judged_keys if k in s} for s in steps],
    }
    paper = {
        "start": case.start(),
        "steps": [
            {"request": s["request"], **({} if "alternatives" in s else {"expect": s["expect"]})}
            for s in steps
        ],
    }
    return _digest(judged), _digest(paper)


def schema_hash(spec: Traversable) -> str:
    """The hash of the schemas a suite is read and judged through."""
    texts = [spec.joinpath(*path.split("/")).read_text("utf-8") for path in SCHEMAS]
    return _digest(texts)


def recorded(suite: str, cases: Sequence[Case], schemas: str) -> dict[str, Any]:
    """The release entry of ``cases``: the suite version, the schemas' hash, each case's
    hashes."""
    return {
        "suite": suite,
        "schemas": schemas,
        "cases": {case.id: list(case_hashes(case)) for case in sorted(cases, key=lambda c: c.id)},
    }


def load_releases(text: str | None) -> list[dict[str, Any]]:
    """The releases ``releases.json`` lists, oldest first (none without the file).

    Raises
    ------
    MalformedVectors
        The file is not a releases file.
    """
    if text is None:
        return []
    try:
        data = json.loads(text)
        if data["format"] != RELEASES_FORMAT:
            raise ValueError(f"format {data['format']!r}")
        releases: list[dict[str, Any]] = data["releases"]
        for release in releases:
            if not isinstance(release["suite"], str) or not isinstance(release["cases"], dict):
                raise TypeError("a release without its suite version or cases")
    except (ValueError, KeyError, TypeError):
        raise MalformedVectors(f"{RELEASES}: not a {RELEASES_FORMAT} file") from None
    return releases


def dump_releases(releases: Iterable[Mapping[str, Any]]) -> str:
    """The canonical text of ``releases.json``: one case a line."""
    blocks = []
    for release in releases:
        cases = ",\n".join(
            f"        {json.dumps(case)}: {json.dumps(hashes)}"
            for case, hashes in sorted(release["cases"].items())
        )
        blocks.append(
            "    {\n"
            f'      "suite": {json.dumps(release["suite"])},\n'
            f'      "schemas": {json.dumps(release["schemas"])},\n'
            '      "cases": {\n' + cases + "\n      }\n    }"
        )
    return (
        "{\n"
        f'  "format": "{RELEASES_FORMAT}",\n'
        '  "releases": [\n' + ",\n".join(blocks) + "\n  ]\n}\n"
    )


def _version(text: str) -> tuple[int, int, int]:
    major, minor, patch = (int(part) for part in text.split("."))
    return major, minor, patch


def required_bump(last: Mapping[str, Any], current: Mapping[str, Any]) -> Bump | None:
    """The least bump from the release ``last`` to the entry ``current`` (None: nothing an
    implementation is judged by changed)."""
    before, now = last["cases"], current["cases"]
    if set(before) - set(now):
        return "major"
    if any(before[c][1] != now[c][1] for c in before):
        return "major"
    if set(now) - set(before) or last["schemas"] != current["schemas"]:
        return "minor"
    if any(before[c][0] != now[c][0] for c in before):
        return "minor"
    return None


def _bump_of(last: str, current: str) -> Bump | None:
    """The bump from version ``last`` to ``current`` (None: not above it)."""
    old, new = _version(last), _version(current)
    if new <= old:
        return None
    if new[0] > old[0]:
        return "major" if new[1:] == (0, 0) else None
    if new[1] > old[1]:
        return "minor" if new[2] == 0 else None
    return "patch"


def version_problem(
    releases: Sequence[Mapping[str, Any]], current: Mapping[str, Any]
) -> str | None:
    """Why the entry ``current`` (:func:`recorded` of the suite as it is) cannot carry its
    version after ``releases``, or None."""
    if not releases:
        return None
    last = releases[-1]
    needed = required_bump(last, current)
    suite, released = current["suite"], last["suite"]
    if suite == released:
        if needed is None:
            return None
        changed = sorted(
            c for c in current["cases"] if last["cases"].get(c) != current["cases"][c]
        ) + sorted(set(last["cases"]) - set(current["cases"]))
        return (
            f"suite {suite} is released, but its answers changed ({needed}: "
            f"{', '.join(changed[:5]) or 'the schemas'}{' ...' if len(changed) > 5 else ''}): "
            "raise SUITE_VERSION, say what changed in CHANGELOG.md, run `gcv vectors` and "
            "`gcv vectors --release`"
        )
    made = _bump_of(released, suite)
    if made is None:
        return f"suite {suite} does not follow the last release, {released}, by one bump"
    if needed is not None and _RANK[made] < _RANK[needed]:
        return f"suite {suite} is a {made} bump of {released}, but its changes need {needed}"
    return None


def case_versions(
    releases: Sequence[Mapping[str, Any]], current: Mapping[str, Any]
) -> dict[str, str]:
    """Each case's version: the earliest release from which its hashes have stayed as they
    are now, else (changed since the last release, or new) the suite's version."""
    found = {}
    for case, hashes in current["cases"].items():
        version = current["suite"]
        for release in reversed(releases):
            if release["cases"].get(case) != hashes:
                break
            version = release["suite"]
        found[case] = version
    return found
