"""``gcv vectors --export DIR``: the bundle holds the shipped suite byte for byte, with its
schemas, the protocol and a manifest whose hashes are the files'; ``gcv conform`` runs it,
and ``--vectors-version`` refuses a suite of another version."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from gcv.conformance.generate import main as vectors_main
from gcv.conformance.runner import EXIT_BAD_INPUT, EXIT_OK
from tests.conformance.helpers import SERVE, conform

SPEC = Path(__file__).resolve().parents[2] / "spec"
SUITE = json.loads((SPEC / "vectors" / "manifest.json").read_text())


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("bundle") / "gcv-vectors"
    assert vectors_main(["--export", str(directory)]) == EXIT_OK
    return directory


def test_the_bundle_is_the_shipped_suite_with_its_schemas_and_protocol(bundle: Path) -> None:
    shipped = {f"vectors/{f['path']}" for f in SUITE["files"]} | {
        "vectors/manifest.json",
        "vectors/COVERAGE.md",
        "vectors/vectors.schema.json",
    }
    documents = {
        "protocol/protocol.md",
        "protocol/request.schema.json",
        "protocol/response.schema.json",
        "trace.schema.json",
        "normative.md",
    }
    written = {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()}
    assert written == shipped | documents | {"README.md", "manifest.json"}
    for path in shipped | documents:
        assert (bundle / path).read_bytes() == (SPEC / path).read_bytes(), path


def test_the_manifest_lists_every_other_file_with_its_hash(bundle: Path) -> None:
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["format"] == "gcv-vectors-bundle/1"
    assert (manifest["suite"], manifest["protocol"]) == (SUITE["suite"], SUITE["protocol"])
    assert (manifest["cases"], manifest["steps"]) == (SUITE["cases"], SUITE["steps"])
    files = sorted(p for p in bundle.rglob("*") if p.is_file() and p != bundle / "manifest.json")
    assert {f["path"]: (f["bytes"], f["sha256"]) for f in manifest["files"]} == {
        p.relative_to(bundle).as_posix(): (
            p.stat().st_size,
            hashlib.sha256(p.read_bytes()).hexdigest(),
        )
        for p in files
    }
    readme = (bundle / "README.md").read_text()
    assert f"suite {SUITE['suite']}" in readme and f"{SUITE['cases']} cases" in readme
    assert f"--vectors-version {SUITE['suite']}" in readme


@pytest.mark.slow
def test_conform_runs_the_bundle_and_checks_its_version(bundle: Path, tmp_path: Path) -> None:
    vectors = ["--vectors", str(bundle / "vectors"), "-k", "core/queries/*"]
    code, report = conform(tmp_path, [*vectors, "--vectors-version", SUITE["suite"]], SERVE)
    assert code == EXIT_OK and report["counts"]["pass"] > 0 and report["counts"]["fail"] == 0
    assert report["suite"] == SUITE["suite"]
    (tmp_path / "other").mkdir()
    code, report = conform(tmp_path / "other", [*vectors, "--vectors-version", "0.0.1"], SERVE)
    assert code == EXIT_BAD_INPUT and report == {}


def test_conform_refuses_a_bundle_edited_by_hand(bundle: Path, tmp_path: Path) -> None:
    edited = shutil.copytree(bundle / "vectors", tmp_path / "vectors")
    queries = edited / "core" / "queries.json"
    text = queries.read_text()
    assert '"o1"' in text
    queries.write_text(text.replace('"o1"', '"o9"', 1))
    code, _ = conform(tmp_path, ["--vectors", str(edited), "-k", "core/queries/*"], SERVE)
    assert code == EXIT_BAD_INPUT


@pytest.mark.parametrize(
    "extra", [["--check"], ["--out", "somewhere"], ["--import-trace", "t.json"]]
)
def test_export_takes_no_other_mode_and_never_writes_into_a_full_folder(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert vectors_main(["--export", str(tmp_path / "new"), *extra]) == EXIT_BAD_INPUT
    assert "--export writes the shipped suite as it is" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("kept")
    assert vectors_main(["--export", str(tmp_path / "full")]) == EXIT_BAD_INPUT
    assert "exists and is not an empty folder" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["mine.txt"]
