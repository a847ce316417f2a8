"""``gcv vectors --export DIR``: the bundle holds the shipped suite byte for byte, with its
schemas, the protocol and a manifest whose hashes are the files'; ``gcv conform`` runs it,
and ``--vectors-version`` refuses a suite of another version."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from gcv.conformance.bundle import SOURCE_NOTE
from gcv.conformance.generate import main as vectors_main
from gcv.conformance.runner import EXIT_BAD_INPUT, EXIT_OK
from tests.conformance.helpers import EXAMPLES, SERVE, conform

SPEC = Path(__file__).resolve().parents[2] / "spec" / "gcv" / "spec"
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
        "protocol/formulas.md",
        "protocol/profiles.md",
        "protocol/request.schema.json",
        "protocol/response.schema.json",
        "trace.schema.json",
        "trace-format.md",
        "normative.md",
    }
    examples = {"examples/adapter.py", "examples/adapter.js"}
    written = {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()}
    assert written == shipped | documents | examples | {"README.md", "manifest.json"}
    for path in shipped | documents - {"normative.md"}:
        assert (bundle / path).read_bytes() == (SPEC / path).read_bytes(), path
    # normative.md alone gains the note that the source paths it names are not shipped.
    title, rest = (SPEC / "normative.md").read_text("utf-8").split("\n", 1)
    assert (bundle / "normative.md").read_text("utf-8") == f"{title}\n\n{SOURCE_NOTE}\n{rest}"
    for path in examples:
        assert (bundle / path).read_bytes() == (EXAMPLES / Path(path).name).read_bytes(), path


_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]*)\)")


def links_leaving(bundle: Path) -> list[str]:
    """Every Markdown link of the bundle's documents that leads to no file of the bundle."""
    root = bundle.resolve()
    leaving = []
    for page in sorted(bundle.rglob("*.md")):
        for target in _LINK.findall(page.read_text("utf-8")):
            path = target.split("#", 1)[0]
            if not path:
                continue  # an anchor on the same page
            resolved = (page.parent / path).resolve()
            if "://" in path or not resolved.is_relative_to(root) or not resolved.is_file():
                leaving.append(f"{page.relative_to(bundle)}: {target}")
    return leaving


def test_no_link_in_the_bundle_leads_out_of_it(bundle: Path, tmp_path: Path) -> None:
    assert links_leaving(bundle) == []
    protocol = (bundle / "protocol" / "protocol.md").read_text("utf-8")
    for cited in ("formulas.md", "profiles.md", "../trace-format.md", "../normative.md"):
        assert f"]({cited})" in protocol, cited
    # The check finds what leads out: a link into the repository, a missing file, a URL.
    planted = shutil.copytree(bundle, tmp_path / "planted")
    page = planted / "protocol" / "protocol.md"
    extra = "[a](../../docs/epistemic.md) [b](nowhere.md#x) [c](https://example.org) [d](#ok)"
    page.write_text(page.read_text("utf-8") + extra)
    assert links_leaving(planted) == [
        "protocol/protocol.md: ../../docs/epistemic.md",
        "protocol/protocol.md: nowhere.md#x",
        "protocol/protocol.md: https://example.org",
    ]


# A file path (a case id such as ``proofs/lemma-2.1-...`` names no file: no extension).
_SOURCE_PATH = re.compile(r"\b(?:docs|tests|gcv|reference|proofs)/[\w./-]*\.(?:md|py|json|lean)\b")


def test_no_document_points_out_of_the_bundle_unsaid(bundle: Path) -> None:
    """A path to a file the bundle does not hold appears only in normative.md, whose note
    says those are the source repository's; the README says how to fuzz and with what."""
    outside = {
        page.relative_to(bundle).as_posix()
        for page in bundle.rglob("*.md")
        for path in _SOURCE_PATH.findall(page.read_text("utf-8"))
        if not (bundle / path).is_file()
    }
    assert outside <= {"normative.md"}, outside
    assert SOURCE_NOTE in (bundle / "normative.md").read_text("utf-8")
    readme = (bundle / "README.md").read_text("utf-8")
    assert "gcv conform --fuzz" in readme and "[conformance]" in readme


def test_the_suite_version_is_stated_only_where_it_is_generated(bundle: Path) -> None:
    # protocol.md once said suite 1.1.0 inside a 1.2.0 bundle: the hand-written documents
    # name no suite version, so the manifest's is the only one.
    cases = [
        c
        for f in SUITE["files"]
        for c in json.loads((SPEC / "vectors" / f["path"]).read_text())["cases"]
    ]
    versions = {SUITE["suite"]} | {c["added_in"] for c in cases}
    for path in (
        "protocol/protocol.md",
        "protocol/formulas.md",
        "protocol/profiles.md",
        "trace-format.md",
        "normative.md",
    ):
        text = (bundle / path).read_text("utf-8")
        assert not [v for v in versions if v in text], path
    assert f"suite {SUITE['suite']}" in (bundle / "README.md").read_text("utf-8")
    assert f"suite {SUITE['suite']}" in (bundle / "vectors" / "COVERAGE.md").read_text("utf-8")


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
