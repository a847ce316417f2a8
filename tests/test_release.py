"""``python -m gcv.release``: the release checks pass on this checkout's distributions, the
CHANGELOG rule and the tag rule fail a release they do not allow, and the vectors archive
is reproducible and holds the shipped suite.

The distributions and the environment they are installed in are the session's (built once
in ``tests/conftest.py``, shared with ``tests/test_wheel.py``), so ``--no-build --env``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from gcv.conformance.versions import RELEASES
from gcv.release import EXIT_FAILED, EXIT_OK, archive, changelog_problem, project_version

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
VERSION = project_version(ROOT)
CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def _release(*options: str | Path) -> subprocess.CompletedProcess[str]:
    # This checkout's gcv.release, whichever checkout the test environment was installed from.
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "gcv.release", *map(str, options)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
    )


@pytest.mark.slow
def test_the_release_checks_pass_and_record_every_hash(
    tmp_path: Path, distributions: tuple[Path, Path], wheel_environment: Path
) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    for built in distributions:
        shutil.copy(built, dist)
    done = _release("--dist", dist, "--no-build", "--env", wheel_environment.parent)
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert done.stdout.count("ok   ") == 4 and "smoke:" in done.stdout
    suite = json.loads((ROOT / "spec" / "gcv" / "spec" / "vectors" / "manifest.json").read_text())[
        "suite"
    ]
    vectors = dist / f"gcv-vectors-{suite}.tar.gz"
    sums = (dist / "SHA256SUMS").read_text().splitlines()
    listed = {name: digest for digest, name in (line.split("  ") for line in sums)}
    assert listed == {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in [*(dist / d.name for d in distributions), vectors]
    }
    with tarfile.open(vectors) as tar:
        members = {m.name: tar.extractfile(m) for m in tar.getmembers() if m.isfile()}
        contents = {name: file.read() for name, file in members.items() if file is not None}
    top = f"gcv-vectors-{suite}/"
    assert all(name.startswith(top) for name in contents)
    shipped = ROOT / "spec" / "gcv" / "spec" / "vectors"
    for path in shipped.rglob("*.json"):
        if path.name == RELEASES:  # the project's record of released hashes, not the suite
            continue
        name = f"{top}vectors/{path.relative_to(shipped).as_posix()}"
        assert contents[name] == path.read_bytes(), name
    examples = ROOT / "gcv" / "conformance" / "examples"  # shipped in the wheel, and so here
    for name in ("adapter.py", "adapter.js"):
        assert contents[f"{top}examples/{name}"] == (examples / name).read_bytes(), name
    manifest = json.loads(contents[f"{top}manifest.json"])
    assert manifest["suite"] == suite and manifest["exported_by"] == f"gcv {VERSION}"
    assert {top + f["path"] for f in manifest["files"]} == set(contents) - {top + "manifest.json"}
    for entry in manifest["files"]:
        assert hashlib.sha256(contents[top + entry["path"]]).hexdigest() == entry["sha256"]


def test_the_changelog_must_have_an_entry_for_the_version() -> None:
    assert changelog_problem(CHANGELOG, VERSION) is None
    without = CHANGELOG.replace(f"## [{VERSION}]", "## [0.0.0]")
    assert changelog_problem(without, VERSION) == f'CHANGELOG.md has no "## [{VERSION}]" heading'
    assert changelog_problem(CHANGELOG, "9.9.9") is not None
    # Only the version's own section counts: the text under the next heading does not.
    empty = f"## [{VERSION}]\n\n## [0.0.1]\n- Something.\n"
    assert "nothing under it" in str(changelog_problem(empty, VERSION))


def test_a_tag_that_is_not_the_version_fails_before_anything_is_built(tmp_path: Path) -> None:
    done = _release("--tag", "v9.9.9", "--dist", tmp_path / "dist")
    assert done.returncode == EXIT_FAILED
    assert f"the tag v9.9.9 is not v{VERSION}" in done.stderr
    assert not (tmp_path / "dist").exists()


def test_the_archive_depends_on_the_bundle_alone(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    (bundle / "vectors").mkdir(parents=True)
    (bundle / "manifest.json").write_text("{}\n")
    (bundle / "vectors" / "a.json").write_text("[]\n")
    first = archive(bundle, tmp_path / "first.tar.gz", "top").read_bytes()
    os.utime(bundle / "vectors" / "a.json", (0, 1_000_000))
    (bundle / "manifest.json").chmod(0o600)
    assert archive(bundle, tmp_path / "second.tar.gz", "top").read_bytes() == first
    (bundle / "vectors" / "a.json").write_text("[1]\n")
    assert archive(bundle, tmp_path / "third.tar.gz", "top").read_bytes() != first
    with tarfile.open(tmp_path / "third.tar.gz") as tar:
        assert tar.getnames() == ["top", "top/manifest.json", "top/vectors", "top/vectors/a.json"]
