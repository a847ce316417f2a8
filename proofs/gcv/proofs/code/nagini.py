"""Nagini, run from an environment of its own on a program woven from the engine's source.

Nagini 1.2.0 pins ``mypy==0.900``, ``z3-solver==4.8.7.0`` and ``pytest==7.0.0``, which the
project's own environment cannot hold beside ``mypy>=1.10``, ``z3-solver>=5.3`` and
``pytest>=8``; nor may the engine depend on a verifier.  So the verifier lives in a virtual
environment of its own (``.venv-proofs`` by default, ``GCV_PROOFS_ENV`` or ``--proofs-env``
elsewhere), made by ``gcv prove --code --setup`` from :data:`REQUIREMENTS` (the
``proofs`` dependency group of pyproject.toml), and runs as a separate process: the
engine never imports it.  Nagini runs Viper's Silicon on the JVM (Java 17) with the Z3
its wheel ships.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_ENV",
    "ENV_VARIABLE",
    "REQUIREMENTS",
    "Verification",
    "environment",
    "set_up",
    "verify",
]

REQUIREMENTS = ("nagini==1.2.0",)
"""What the proofs environment holds (pyproject.toml's ``proofs`` dependency group)."""

ENV_VARIABLE = "GCV_PROOFS_ENV"
DEFAULT_ENV = Path(".venv-proofs")


def environment(chosen: Path | None = None) -> Path:
    """The proofs environment: ``chosen``, else ``$GCV_PROOFS_ENV``, else ``.venv-proofs``."""
    return (chosen or Path(os.environ.get(ENV_VARIABLE) or DEFAULT_ENV)).absolute()


def set_up(env: Path) -> None:
    """Make ``env`` a virtual environment holding :data:`REQUIREMENTS` (about a minute)."""
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    pip = [str(env / "bin" / "python"), "-m", "pip", "install", "-q", *REQUIREMENTS]
    subprocess.run(pip, check=True)


@dataclass(frozen=True)
class Verification:
    """One run of Nagini on one function: verified or not, its CPU time (Nagini's process
    and its children: the JVM, Z3), and what Nagini printed."""

    function: str
    verified: bool
    cpu_seconds: float
    output: str

    @property
    def errors(self) -> str:
        """Nagini's report, less its timing line."""
        lines = [line for line in self.output.splitlines() if not line.startswith("Verification")]
        return "\n".join(lines).strip()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def verify(program: str, function: str, env: Path, *, timeout_s: int | None = None) -> Verification:
    """Run Nagini on ``program``, verifying ``function`` (and what it calls, by contract);
    with ``timeout_s``, Silicon gives up after about that many seconds (not verified)."""
    nagini = env / "bin" / "nagini"
    if not nagini.exists():
        raise FileNotFoundError(
            f"{nagini} is missing: make the proofs environment with gcv prove --code --setup"
        )
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "woven.py"
        file.write_text(program)
        before = _children_cpu()
        limit = [f"--viper-arg=--timeout,{timeout_s}"] if timeout_s else []
        done = subprocess.run(
            [str(nagini), *limit, "--select", function, str(file)],
            capture_output=True,
            text=True,
            cwd=folder,
            check=False,
        )
        cpu = _children_cpu() - before
    output = (done.stdout + done.stderr).strip()
    verified = done.returncode == 0 and "Verification successful" in done.stdout
    return Verification(function, verified, cpu, output)
