"""``gcv prove --code``: the walks proved on the source that runs, each with twins that fail.

For each proved function of ``reference/gcv/reference/closure.py``
(:data:`gcv.proofs.code.walks.WALKS`), the program is woven from the source file the engine
imports and Nagini must verify it.
Each twin plants one change in a copy of that source (in the function's body, its start
check, its exit, or a module-level binding) and must fail: Nagini refuses the woven
function, or, for the bindings, :func:`gcv.proofs.code.bindings.binding_problems` finds a
problem.  A twin whose text no longer occurs in the source fails the run too (the twin
would test nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import gcv.reference.closure
from gcv.proofs.code.bindings import binding_problems
from gcv.proofs.code.nagini import Verification, verify
from gcv.proofs.code.walks import PRELUDE, WALKS
from gcv.proofs.code.weave import WeavingError, weave

__all__ = ["BINDING_TWINS", "TWINS", "CodeReport", "Planted", "run"]


@dataclass(frozen=True)
class Planted:
    """A change planted in a copy of ``reference/gcv/reference/closure.py``: ``old`` becomes
    ``new``."""

    function: str
    what: str
    old: str
    new: str

    def applied(self, source: str) -> str | None:
        """The changed source, or ``None`` when ``old`` does not occur exactly once."""
        return source.replace(self.old, self.new) if source.count(self.old) == 1 else None


TWINS: tuple[Planted, ...] = (
    Planted(
        "dependency_walk",
        "the start check removed",
        "    if not good[start]:\n        return Walk(False, (), start, (start,))\n",
        "",
    ),
    Planted(
        "dependency_walk",
        "the exit drops the last record of the queue",
        "return Walk(True, tuple(queue), None, ())",
        "return Walk(True, tuple(queue[:-1]), None, ())",
    ),
    Planted(
        "dependency_walk",
        "the body appends a support outside S_t",
        "                marks[support] = record + 1\n                if not good[support]:\n",
        "                marks[support] = record + 1\n"
        "                if not good[support] and support == start:\n",
    ),
    Planted(
        "dependency_walk",
        "the flat phase starts from no marks",
        "        flat = _flat_marks(marks, len(supports))\n",
        "        flat = _flat_marks({}, len(supports))\n",
    ),
    Planted(
        "_path_to",
        "the path follows the mark, not the record it names",
        "        path.append(marks[path[len(path) - 1]] - 1)\n",
        "        path.append(marks[path[len(path) - 1]])\n",
    ),
    Planted(
        "_path_to",
        "the path returned from end to start",
        "    return tuple(reversed(path))\n",
        "    return tuple(path)\n",
    ),
    Planted(
        "reverse_closure",
        "the exit returns beta with the queue",
        "    return tuple(queue[1:])\n",
        "    return tuple(queue)\n",
    ),
    Planted(
        "reverse_closure",
        "the set phase ignores its marks",
        "            if dependent not in seen:\n",
        "            if dependent not in seen or True:\n",
    ),
    Planted(
        "reverse_closure",
        "the flat phase starts from no marks",
        "        flags = _flags(seen, len(dependents))\n",
        "        flags = _flags(set(), len(dependents))\n",
    ),
    Planted(
        "in_good_standing",
        "the S_t filter keeps every record",
        "        if good[record]:\n            active.append(record)",
        "        if True:\n            active.append(record)",
    ),
)
"""One or more planted changes per proved function; Nagini must refuse each."""

BINDING_TWINS: tuple[Planted, ...] = (
    Planted(
        "module",
        "_set_witness and _set_path swapped",
        "_set_candidate, _set_grounded, _set_closure, _set_witness, _set_path = (",
        "_set_candidate, _set_grounded, _set_closure, _set_path, _set_witness = (",
    ),
    Planted(
        "module",
        "PURE answers Affected* within S_t without the S_t filter",
        'PURE = Queries("pure Python", _grounding, _affected_star, _affected_star_active)',
        'PURE = Queries("pure Python", _grounding, _affected_star, _affected_star)',
    ),
    Planted(
        "module",
        "QUERIES is the kernel whenever it is built",
        "QUERIES = _ANSWERING.queries",
        "QUERIES = COMPILED or PURE",
    ),
    Planted(
        "module",
        "select_walk ignores the recorded build",
        "    if kernel.BUILD is None or checked_build != kernel.BUILD:",
        "    if kernel.BUILD is None:",
    ),
    Planted(
        "module",
        "Affected* within S_t named without the S_t filter",
        "return names_of(in_good_standing(reverse_closure(dependents, withdrawn), good), name)",
        "return names_of(reverse_closure(dependents, withdrawn), name)",
    ),
)
"""Changes to the bindings that decide which function answers; the check must find each."""


TWIN_TIMEOUT_S = 600
"""A twin's Nagini run is cut off after about this long: a planted bug may send Z3 searching
for a long while, and a run that does not verify, for whatever reason, refutes the twin."""


@dataclass(frozen=True)
class TwinResult:
    """A twin's outcome: ``refuted`` when the planted change was caught."""

    planted: Planted
    refuted: bool
    detail: str
    cpu_seconds: float = 0.0


@dataclass(frozen=True)
class CodeReport:
    """Every verification, every twin, and the bindings check."""

    source: str
    verifications: tuple[Verification, ...]
    bindings: tuple[str, ...]
    twins: tuple[TwinResult, ...]

    @property
    def ok(self) -> bool:
        """Every function verified, the bindings hold, every twin refuted."""
        return (
            all(v.verified for v in self.verifications)
            and not self.bindings
            and all(t.refuted for t in self.twins)
        )


def _woven(source: str) -> str:
    """The program: every proved function (each verified alone, ``--select``; what it calls
    is read by its contract)."""
    return weave(source, PRELUDE, WALKS)


def _nagini_twin(source: str, planted: Planted, env: Path) -> TwinResult:
    changed = planted.applied(source)
    if changed is None:
        return TwinResult(planted, False, f"{planted.old!r} no longer occurs once in the source")
    try:
        program = _woven(changed)
    except WeavingError as error:
        return TwinResult(planted, False, f"the change does not weave: {error}")
    result = verify(program, planted.function, env, timeout_s=TWIN_TIMEOUT_S)
    return TwinResult(planted, not result.verified, result.errors, result.cpu_seconds)


def _binding_twin(source: str, path: str, planted: Planted, records: int) -> TwinResult:
    changed = planted.applied(source)
    if changed is None:
        return TwinResult(planted, False, f"{planted.old!r} no longer occurs once in the source")
    problems = binding_problems(changed, path, records)
    return TwinResult(planted, bool(problems), "; ".join(problems[:2]))


def run(
    env: Path,
    *,
    functions: tuple[str, ...] | None = None,
    twins: bool = True,
    records: int = 3,
    progress: Callable[[str], None] = lambda _: None,
) -> CodeReport:
    """Prove the walks of the ``reference/gcv/reference/closure.py`` the engine imports, check its
    bindings, and run the twins (unless not ``twins``)."""
    path = gcv.reference.closure.__file__
    source = Path(path).read_text()
    chosen = [s.function for s in WALKS if functions is None or s.function in functions]
    verifications = []
    for function in chosen:
        progress(f"verifying {function}")
        verifications.append(verify(_woven(source), function, env))
    progress("checking the module-level bindings")
    bindings = tuple(binding_problems(source, path, records))
    results = []
    if twins:
        for planted in TWINS:
            if planted.function in chosen:
                progress(f"twin of {planted.function}: {planted.what}")
                results.append(_nagini_twin(source, planted, env))
        for planted in BINDING_TWINS:
            progress(f"twin of the bindings: {planted.what}")
            results.append(_binding_twin(source, path, planted, records))
    return CodeReport(path, tuple(verifications), bindings, tuple(results))
