"""The built wheel, installed in a fresh environment outside the checkout, works as shipped.

The wheel is built from this checkout (the session's ``distributions``, as a release builds
it) and installed without its dependencies into a new virtual environment whose only other
packages are the test environment's (``wheel_environment``: a path entry, so this
checkout's editable install does not come along).  Every command runs in an
empty folder holding a user's own ``spec/`` and ``reference/`` packages, which must not
shadow the installed ones.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from gcv.release import fresh_environment, outside_environment

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

USER_SCRIPT = """\
from gcv import Hypothesize, Observe, Turn, Verifier, __version__

verifier = Verifier(["a", "b"])
verifier.apply_turn(Turn("a", (Observe("o1", "401 errors"),)))
verifier.apply_turn(Turn("b", (Hypothesize("h1", "token expired", depends_on=("o1",)),)))
grounded: bool = verifier.verify("h1").grounded
affected: tuple[str, ...] = verifier.affected_star("o1")
print(__version__, grounded, affected == ("h1",))
"""


@pytest.fixture(scope="module")
def installed(
    tmp_path_factory: pytest.TempPathFactory, wheel_environment: Path
) -> tuple[Path, Path]:
    """(the fresh environment's bin folder, an empty working folder with a user's packages)."""
    work = tmp_path_factory.mktemp("user")
    for own in ("spec", "reference", "proofs"):
        (work / own).mkdir()
        (work / own / "__init__.py").write_text(f"raise ImportError('the user\\'s own {own}')\n")
    (work / "app.py").write_text(USER_SCRIPT)
    return wheel_environment, work


def _run(installed: tuple[Path, Path], *command: str | Path) -> subprocess.CompletedProcess[str]:
    bin_folder, work = installed
    environment = outside_environment(bin_folder)
    # The dependencies are the test environment's, and so are their commands (last on PATH):
    # graphviz-pure's lays out gcv figures where Graphviz's dot is missing.
    environment["PATH"] += os.pathsep + sysconfig.get_path("scripts")
    return subprocess.run(
        [str(c) for c in command],
        cwd=work,
        env=environment,
        capture_output=True,
        text=True,
    )


@pytest.mark.slow
def test_the_package_is_the_installed_one(installed: tuple[Path, Path]) -> None:
    found = _run(installed, "python", "-c", "import gcv.spec.core as m; print(m.__file__)")
    assert found.returncode == 0, found.stderr
    assert "site-packages" in found.stdout and str(ROOT) not in found.stdout
    assert (Path(found.stdout.strip()).parents[1] / "py.typed").is_file()


@pytest.mark.slow
def test_version_replay_and_a_user_script(installed: tuple[Path, Path]) -> None:
    version = _run(installed, "gcv", "--version")
    assert version.returncode == 0 and version.stdout.startswith("gcv 0."), version
    checked = "(walk: compiled (C), checked against the pure walk)"
    assert checked in version.stdout, "the wheel carries the compiled walk"
    replay = _run(installed, "gcv", "replay")
    assert replay.returncode == 0 and "all hold" in replay.stdout, replay.stderr
    script = _run(installed, "python", "app.py")
    assert script.returncode == 0 and script.stdout.split()[1:] == ["True", "True"], script.stderr


@pytest.mark.slow
def test_prove_and_conform_against_serve(installed: tuple[Path, Path]) -> None:
    proved = _run(installed, "gcv", "prove", "--only", "lemma-2.2", "--json", "--quiet")
    assert proved.returncode == 0, proved.stdout + proved.stderr
    conform = _run(installed, "gcv", "conform", "-k", "core/operations*", "--", "gcv", "serve")
    assert conform.returncode == 0, conform.stdout + conform.stderr


@pytest.mark.slow
def test_paper_says_what_it_cannot_check_and_nothing_writes_into_the_package(
    installed: tuple[Path, Path],
) -> None:
    package = Path(
        _run(installed, "python", "-c", "import gcv; print(gcv.__file__)").stdout.strip()
    ).parent
    before = sorted(p.relative_to(package) for p in package.rglob("*"))
    paper = _run(installed, "gcv", "paper")
    assert paper.returncode == 0, paper.stdout[-2000:]
    assert "not checked: the tests and benchmarks" in paper.stdout
    assert _run(installed, "gcv", "paper", "--markdown").returncode == 2
    assert _run(installed, "gcv", "vectors").returncode == 2
    assert _run(installed, "gcv", "figures").returncode == 2, "no docs/figures to write into"
    _, work = installed
    figures = _run(installed, "gcv", "figures", "--out", "figures")
    assert figures.returncode == 0, figures.stderr
    assert len(list((work / "figures").glob("*.svg"))) == 6
    checked = _run(installed, "gcv", "figures", "--out", "figures", "--check")
    assert checked.returncode == 0, checked.stdout
    after = sorted(
        p.relative_to(package) for p in package.rglob("*") if "__pycache__" not in p.parts
    )
    assert after == [p for p in before if "__pycache__" not in p.parts]


@pytest.mark.slow
def test_mypy_accepts_a_typed_user_script(installed: tuple[Path, Path]) -> None:
    bin_folder, _ = installed
    checked = _run(
        installed,
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--no-incremental",
        "--python-executable",
        bin_folder / "python",
        "app.py",
    )
    assert checked.returncode == 0, checked.stdout


def _works_or_names_the_extra(done: subprocess.CompletedProcess[str], extra: str) -> None:
    """Exit 0, or exit 2 with the pip command that installs the extra."""
    if done.returncode == 2:
        assert f"grounded-continuation[{extra}]" in done.stderr, done.stderr
    else:
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr


def test_experiments_and_evidence_outside_the_checkout(installed: tuple[Path, Path]) -> None:
    _works_or_names_the_extra(_run(installed, "gcv", "experiments", "--help"), "experiments")
    _, work = installed
    (work / "facts.tsv").write_text((ROOT / "docs" / "facts-example.tsv").read_text("utf-8"))
    evidence = _run(installed, "gcv", "evidence", "facts.tsv", "Arden", "--hops", "2")
    _works_or_names_the_extra(evidence, "experiments")
    missing = _run(installed, "gcv", "evidence", "docs/facts-example.tsv", "Arden")
    assert missing.returncode == 2 and "source repository" in missing.stderr, missing.stderr
    assert "Errno" not in missing.stderr


@pytest.mark.slow
def test_an_sdist_built_where_no_compiler_runs_installs_the_pure_walk(
    tmp_path: Path, distributions: tuple[Path, Path]
) -> None:
    """setup.py marks the compiled walk optional: with a C compiler that always fails
    (CC=false), the wheel built from the sdist has no kernel, installs, and answers with
    the pure walk."""
    sdist, _ = distributions
    environment = {**os.environ, "CC": "false"}
    command = [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", tmp_path]
    built = subprocess.run(
        [*map(str, command), str(sdist)], env=environment, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    assert 'building extension "gcv.reference._walk" failed' in built.stdout + built.stderr
    (wheel,) = tmp_path.glob("*.whl")
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".so")]
    purelib = Path(sysconfig.get_paths()["purelib"])
    bin_folder = fresh_environment(wheel, tmp_path / "env", purelib)
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text(USER_SCRIPT)
    installed = (bin_folder, work)
    version = _run(installed, "gcv", "--version")
    pure = "(walk: pure Python (the kernel is not built))"
    assert version.returncode == 0 and pure in version.stdout, version
    script = _run(installed, "python", "app.py")
    assert script.returncode == 0 and script.stdout.split()[1:] == ["True", "True"], script.stderr
