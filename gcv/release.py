"""``python -m gcv.release``: the checks a release must pass, the same locally and in CI.

Run from a source checkout; each check prints one line, and the first that fails stops
the run (each needs the ones before it):

1. ``CHANGELOG.md`` has an entry for the version being released (``pyproject.toml``'s): a
   ``## [VERSION]`` heading with a line of text under it; with ``--tag``, the tag is
   ``vVERSION``;
2. the sdist and the wheel are built by ``build`` (the wheel from the sdist, so a file the
   sdist leaves out fails here), unless ``--no-build`` names a folder holding them;
3. ``twine check --strict`` passes on both, ``check-wheel-contents`` on the wheel;
4. the wheel is installed in a fresh virtual environment outside the checkout (or
   ``--env`` names one it is installed in), and the smoke commands run there from an
   empty folder: ``gcv`` imports from that environment, ``gcv --version`` names the
   version (and the walk answering), ``gcv replay`` holds, ``gcv conform`` passes the
   operations' vectors against ``gcv serve``, and ``gcv vectors --export`` writes the
   vectors bundle;
5. the bundle is archived as ``gcv-vectors-SUITE.tar.gz`` (the same bytes whenever the
   bundle is the same), and ``SHA256SUMS`` lists the SHA-256 of the sdist, the wheel and
   the archive.

Exit codes: 0 every check passed; 1 a check failed; 2 bad usage.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import venv
from collections.abc import Sequence
from pathlib import Path

from gcv.hints import DISTRIBUTION, source_checkout

__all__ = [
    "archive",
    "build",
    "changelog_problem",
    "distributions",
    "fresh_environment",
    "main",
    "outside_environment",
    "project_version",
    "sha256sums",
    "smoke",
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
TIMEOUT = 600.0
"""Seconds any one step may take (a fresh install fetches the dependencies)."""


class CheckFailed(Exception):
    """A release check did not pass; the message says which and why."""


def project_version(root: Path) -> str:
    """The version ``pyproject.toml`` declares: the one being released."""
    with (root / "pyproject.toml").open("rb") as file:
        version: str = tomllib.load(file)["project"]["version"]
    return version


def changelog_problem(text: str, version: str) -> str | None:
    """Why ``text`` (a Keep a Changelog file) has no entry for ``version``, or ``None``.

    An entry is a ``## [VERSION]`` heading (a date may follow) with at least one line
    of text before the next ``## `` heading.

    >>> changelog_problem("## [0.2.0] - 2026-12-01\\n\\n- Added a thing.\\n", "0.2.0") is None
    True
    >>> changelog_problem("## [Unreleased]\\n- Added a thing.\\n", "0.2.0")
    'CHANGELOG.md has no "## [0.2.0]" heading'
    >>> changelog_problem("## [0.2.0]\\n\\n## [0.1.0]\\n- The first.\\n", "0.2.0")
    'CHANGELOG.md has a "## [0.2.0]" heading with nothing under it'
    """
    heading = re.compile(rf"^## \[{re.escape(version)}\](?:\s.*)?$", re.MULTILINE)
    found = heading.search(text)
    if found is None:
        return f'CHANGELOG.md has no "## [{version}]" heading'
    body = re.split(r"^## ", text[found.end() :], maxsplit=1, flags=re.MULTILINE)[0]
    if not body.strip():
        return f'CHANGELOG.md has a "## [{version}]" heading with nothing under it'
    return None


def _run(
    command: Sequence[str | Path], cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    words = [str(word) for word in command]
    try:
        done = subprocess.run(
            words, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CheckFailed(f"{' '.join(words)}: {error}") from None
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip()[-3000:]
        raise CheckFailed(f"{' '.join(words)} exited {done.returncode}:\n{output}")
    return done


def _file_name(version: str) -> str:
    return f"{DISTRIBUTION.replace('-', '_')}-{version}"


def distributions(dist: Path, version: str) -> tuple[Path, Path]:
    """The sdist and the wheel of ``version`` in ``dist``: exactly one of each."""
    sdist = dist / f"{_file_name(version)}.tar.gz"
    wheels = sorted(dist.glob(f"{_file_name(version)}-*.whl"))
    if not sdist.is_file() or len(wheels) != 1:
        found = sorted(p.name for p in dist.iterdir()) if dist.is_dir() else []
        raise CheckFailed(f"{dist} should hold one sdist and one wheel of {version}: {found}")
    return sdist, wheels[0]


def build(root: Path, dist: Path, version: str, isolation: bool = True) -> tuple[Path, Path]:
    """Build the sdist, then the wheel from it, into ``dist``: (sdist, wheel).

    Without ``isolation`` the build uses this environment's setuptools (offline).
    """
    isolated = [] if isolation else ["--no-isolation"]
    _run([sys.executable, "-m", "build", *isolated, "--outdir", dist, root])
    return distributions(dist, version)


def fresh_environment(wheel: Path, env: Path, dependencies_from: Path | None = None) -> Path:
    """A new virtual environment at ``env`` with ``wheel`` installed; its bin folder.

    The dependencies come from the package index, or, given ``dependencies_from`` (a
    site-packages folder), from there by a path entry, without the network.
    """
    venv.create(env, with_pip=True)
    python, environment = env / "bin" / "python", outside_environment(env / "bin")
    options: list[str] = []
    if dependencies_from is not None:
        script = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        purelib = Path(_run([python, "-c", script], env=environment).stdout.strip())
        (purelib / "dependencies.pth").write_text(f"{dependencies_from}\n")
        options = ["--no-deps", "--no-index"]
    # Outside the checkout's PYTHONPATH, whose egg-info would pass for the installed wheel.
    _run([python, "-m", "pip", "install", "-q", *options, wheel], env=environment)
    return env / "bin"


def outside_environment(bin_folder: Path) -> dict[str, str]:
    """This process's environment with ``bin_folder`` first on PATH and nothing that
    points Python at the checkout or at another virtual environment."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environment["PATH"] = f"{bin_folder}{os.pathsep}{environment.get('PATH', '')}"
    return environment


def smoke(bin_folder: Path, work: Path, version: str) -> Path:
    """Run the smoke commands with the environment ``bin_folder`` in the empty folder
    ``work``; the vectors bundle they export (``work/vectors-bundle``)."""
    environment = outside_environment(bin_folder)

    def run(*command: str | Path) -> str:
        return _run(command, cwd=work, env=environment).stdout

    where = run("python", "-c", "import gcv; print(gcv.__file__)").strip()
    if not Path(where).resolve().is_relative_to(bin_folder.parent.resolve()):
        raise CheckFailed(f"gcv imports from {where}, not from the installed wheel")
    said = run("gcv", "--version").strip()
    # The version, then the walk answering the queries (compiled when the build had a C
    # compiler, pure otherwise): either is a working wheel.
    if said.split(" (walk: ")[0] != f"gcv {version}":
        raise CheckFailed(f"gcv --version says {said!r}, not 'gcv {version} (walk: ...)'")
    run("gcv", "replay", "--quiet")
    run("gcv", "conform", "--quiet", "-k", "core/operations/*", "--", "gcv", "serve")
    bundle = work / "vectors-bundle"
    run("gcv", "vectors", "--export", bundle)
    return bundle


def _tar_info(name: str, size: int, directory: bool = False) -> tarfile.TarInfo:
    # Fixed owner, mode and time: the archive's bytes depend on the bundle alone.
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.uid, info.gid, info.uname, info.gname = size, 0, 0, 0, "", ""
    info.type, info.mode = (tarfile.DIRTYPE, 0o755) if directory else (tarfile.REGTYPE, 0o644)
    return info


def archive(bundle: Path, target: Path, top: str) -> Path:
    """``bundle`` as a gzipped tar at ``target``, every path under ``top/``, reproducibly."""
    with (
        target.open("wb") as raw,
        gzip.GzipFile("", "wb", fileobj=raw, mtime=0) as packed,
        tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path in [bundle, *sorted(bundle.rglob("*"))]:
            name = "/".join([top, *path.relative_to(bundle).parts])
            if path.is_dir():
                tar.addfile(_tar_info(name, 0, directory=True))
            else:
                data = path.read_bytes()
                tar.addfile(_tar_info(name, len(data)), io.BytesIO(data))
    return target


def sha256sums(paths: Sequence[Path], target: Path) -> Path:
    """``target`` in ``sha256sum`` format (``sha256sum --check`` reads it) for ``paths``."""
    named = sorted(paths, key=lambda p: p.name)
    target.write_text(
        "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n" for p in named)
    )
    return target


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m gcv.release",
        description="Build the distributions and run every check a release must pass.",
        epilog="Exit codes: 0 every check passed; 1 a check failed; 2 bad usage.",
    )
    parser.add_argument("--tag", help="the tag being released: it must be vVERSION")
    parser.add_argument(
        "--dist", type=Path, help="where the distributions go (default: dist/ of the checkout)"
    )
    parser.add_argument(
        "--no-build", action="store_true", help="check the sdist and the wheel already in --dist"
    )
    parser.add_argument(
        "--no-isolation",
        action="store_true",
        help="build with this environment's setuptools instead of an isolated one",
    )
    parser.add_argument(
        "--env",
        type=Path,
        help="a virtual environment the wheel is installed in, instead of a fresh one",
    )
    return parser


def _release(args: argparse.Namespace, root: Path, dist: Path) -> None:
    version = project_version(root)
    problem = changelog_problem((root / "CHANGELOG.md").read_text(encoding="utf-8"), version)
    if problem is None and args.tag is not None and args.tag != f"v{version}":
        problem = f"the tag {args.tag} is not v{version}, the version pyproject.toml declares"
    if problem is not None:
        raise CheckFailed(problem)
    print(f"ok   CHANGELOG.md has an entry for {version}")
    if args.no_build:
        sdist, wheel = distributions(dist, version)
    else:
        sdist, wheel = build(root, dist, version, isolation=not args.no_isolation)
        print(f"ok   built {sdist.name} and {wheel.name}")
    _run([sys.executable, "-m", "twine", "check", "--strict", sdist, wheel])
    # W002 (duplicate files): each prompt version is a frozen whole copy, so a later one
    # repeats the files it did not change (gcv/interpret/prompts/v1 and v2).
    _run([sys.executable, "-m", "check_wheel_contents", "--ignore", "W002", wheel])
    print("ok   twine check --strict, check-wheel-contents")
    with tempfile.TemporaryDirectory(prefix="gcv-release-") as scratch:
        if args.env is None:
            bin_folder = fresh_environment(wheel, Path(scratch, "env"))
            print(f"ok   installed {wheel.name} in a fresh environment")
        else:
            bin_folder = args.env.resolve() / "bin"
        work = Path(scratch, "work")
        work.mkdir()
        bundle = smoke(bin_folder, work, version)
        print("ok   smoke: import, --version, replay, conform against serve, vectors --export")
        suite = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))["suite"]
        vectors = archive(bundle, dist / f"gcv-vectors-{suite}.tar.gz", f"gcv-vectors-{suite}")
    sums = sha256sums([sdist, wheel, vectors], dist / "SHA256SUMS")
    print(f"ok   {vectors.name} and {sums.name} written to {dist}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the release checks; the exit code."""
    args = _parser().parse_args(argv)
    root = source_checkout()
    if root is None:
        print("python -m gcv.release: run it from a source checkout", file=sys.stderr)
        return EXIT_USAGE
    dist = (args.dist or root / "dist").resolve()
    if not args.no_build and dist.is_dir() and any(dist.iterdir()):
        print(f"python -m gcv.release: {dist} is not empty (or give --no-build)", file=sys.stderr)
        return EXIT_USAGE
    try:
        _release(args, root, dist)
    except CheckFailed as failed:
        print(f"FAIL {failed}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
