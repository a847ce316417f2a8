"""CrossHair finds planted bugs, stays silent on the engine's code, and what it found stays fixed.

``bugs_detected/`` holds copies of the closure queries with one planted bug each and,
beside each, the golden output: the ``file:line`` of every contract the planted bug
breaks.  CrossHair must report at least one of them and no other line, whatever its
budget buys on a busy machine; only the line numbers are compared (the
counterexample it prints may differ between runs).  On the engine's own
closure queries, which the planted bugs were copied from, CrossHair must print nothing
(``python -m tests.crosshair.run`` searches all of reference/ with a larger budget).
The last tests are regression tests for the counterexamples CrossHair found in
reference/ (docs/verification.md, "CrossHair").
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import icontract
import pytest

from gcv.reference.apply import find_violation
from gcv.reference.closure import (
    dependency_walk,
    is_least_closed_from,
    is_reached_exactly,
    reverse_closure,
)
from gcv.reference.depmap import StateView
from gcv.reference.epistemic.formula import Formula
from gcv.reference.errors import MalformedOperation
from gcv.reference.operations import ExpandAwareness, Observe
from gcv.reference.records import Standing
from tests.crosshair.run import command, environment

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUGS = sorted((HERE / "bugs_detected").glob("*.py"))
CORRECT = ["gcv.reference.closure"]
"""Checked by module name: a path under reference/ would name a module ``reference.…``."""

# CPU seconds per contract: on correct code CrossHair spends the whole budget on each
# contract and prints nothing.  The planted bugs were once found in under a second; in
# December 2026 neither was found at 3 s (with crosshair-tool 0.0.100 to 0.0.113 and
# z3-solver 4.15 to 5.4 alike, on the engine before and after the predicates moved) and
# both were at 6 s, so they get 8.
BUDGET = {"bugs_detected": 8.0, "reference": 1.5}


def _start(target: str, budget: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command(target, budget),
        cwd=ROOT,
        env=environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(scope="module")
def runs() -> Iterator[dict[str, tuple[int, str, str]]]:
    """Start every example's check at once (they are independent), then collect them."""
    started = {
        **{str(path): _start(str(path), BUDGET["bugs_detected"]) for path in BUGS},
        **{module: _start(module, BUDGET["reference"]) for module in CORRECT},
    }
    results = {}
    for path, process in started.items():
        stdout, stderr = process.communicate()
        results[path] = (process.returncode, stdout, stderr)
    yield results


def _line_numbers(output: str) -> list[int]:
    return [int(n) for n in re.findall(r"^[^:\n]*\.py:(\d+): error:", output, re.MULTILINE)]


@pytest.mark.slow
@pytest.mark.parametrize("path", BUGS, ids=[p.stem for p in BUGS])
def test_crosshair_finds_the_planted_bug(path: Path, runs: dict[str, tuple[int, str, str]]) -> None:
    # A budget is CPU time, and a loaded machine confirms fewer of the contracts one
    # counterexample breaks (reverse_closure_without_beta: line 39 only, not 32 and 39).
    # Every budget finds one of them and nothing else: that is what is asserted.
    returncode, stdout, stderr = runs[str(path)]
    golden = path.with_suffix(".out").read_text(encoding="utf-8")
    assert returncode == 1, (returncode, stdout, stderr)
    assert _reports_the_planted_bug(stdout, golden), (stdout, golden)


def _reports_the_planted_bug(stdout: str, golden: str) -> bool:
    found = _line_numbers(stdout)
    return bool(found) and set(found) <= set(_line_numbers(golden))


def test_a_smaller_budget_that_confirms_one_broken_contract_still_passes() -> None:
    """The output of an unmodified checkout on a loaded 2-core machine, which failed."""
    path = HERE / "bugs_detected" / "reverse_closure_without_beta.out"
    golden = path.read_text(encoding="utf-8")
    loaded = golden.splitlines()[-1] + "\n"  # line 39 only
    assert _reports_the_planted_bug(loaded, golden)
    assert not _reports_the_planted_bug("", golden)
    assert not _reports_the_planted_bug(loaded.replace(":39:", ":40:"), golden)


@pytest.mark.parametrize("module", CORRECT)
def test_crosshair_prints_nothing_on_correct_code(
    module: str, runs: dict[str, tuple[int, str, str]]
) -> None:
    assert runs[module] == (0, "", ""), runs[module]


# -- regression tests for what CrossHair found in reference/ ----------------------------------


def test_walk_refuses_a_dep_link_to_an_unregistered_record() -> None:
    """CrossHair: dependency_walk({'\\x00': ('',), '': ()}, {'\\x00': RESOLVED}, '\\x00') raised
    KeyError (the walk then took identifiers; over record numbers the same input is a link to
    a number past the last record). Dep must be a relation over Args_t (Definition 2.1); the
    precondition says so."""
    with pytest.raises(icontract.ViolationError, match="Dep_t maps Args_t to subsets of Args_t"):
        dependency_walk([[1]], [1], 0)


def test_the_naive_closure_checks_refuse_a_start_outside_the_numbering() -> None:
    """CrossHair: is_reached_exactly((), 0, ()) and is_least_closed_from(..., -3, (0,)) raised
    IndexError: the start (alpha or beta) was not a numbered record. Their preconditions say
    it must be, and that the links stay among the numbered records."""
    with pytest.raises(icontract.ViolationError, match="alpha is a numbered record"):
        is_reached_exactly((), 0, ())
    with pytest.raises(icontract.ViolationError, match="beta is a numbered record"):
        is_least_closed_from(((0,),), -3, (0,))
    with pytest.raises(icontract.ViolationError, match="links relate numbered records only"):
        is_least_closed_from(((), (-20,)), 0, ())


def test_precondition_check_refuses_a_view_without_an_agents_awareness() -> None:
    """CrossHair: find_violation(ExpandAwareness('0'), StateView(('',), {'': ACTIVE}, {},
    {'\\x01': ()}), '\\x00') raised KeyError: agent '' has no awareness set in the view."""
    view = StateView(("",), {"": Standing.ACTIVE}, {}, {"\x01": ()})
    with pytest.raises(icontract.ViolationError, match="every agent has A_i"):
        find_violation(ExpandAwareness("0"), view, "\x00")


def test_an_operation_refuses_the_bare_formula_base_class() -> None:
    """CrossHair: operation_to_json(Observe('a', '\\x01', formula=Formula())) raised
    AssertionError (unknown formula): the base class passed the formula check."""
    with pytest.raises(MalformedOperation) as caught:
        Observe("a", "\x01", formula=Formula())
    assert caught.value.field == "formula"


def test_the_recursion_crosshair_reported_on_reverse_closure_is_its_own() -> None:
    """CrossHair once reported a RecursionError in reverse_closure's postcondition on this
    input (a record resting on itself); concretely the walk and the naive check agree, and
    tests/crosshair/run.py gives the CrossHair processes a deeper stack."""
    links = ((0,), (4,), (4,), (), ())
    assert reverse_closure(links, 0) == (0,)
    assert is_least_closed_from(links, 0, (0,))
