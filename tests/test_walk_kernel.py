"""The compiled walk (reference/gcv/reference/_walk.c) against the pure one it twins, as CPython
tests ``_heapq`` against ``heapq.py``: the same answers, the same order, the same witness paths, on
generated maps of every shape, and no crash whatever the map went through.

The kernel must be built where these tests run (the test command installs with a C
compiler); ``GCV_PURE_WALK=1`` is the one way to run without it, and then only the
fallback's own tests run.  ``tests/sanitize_walk.sh`` runs this file against a build of
the kernel under AddressSanitizer and UndefinedBehaviorSanitizer (the slow test below).
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import os
import pickle
import subprocess
import sys
import sysconfig
from array import array
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from gcv.reference import closure
from gcv.reference.closure import (
    COMPILED,
    KERNEL_CHECKED,
    PURE,
    QUERIES,
    Grounding,
    Queries,
    select_walk,
)
from gcv.reference.errors import GcvError
from gcv.reference.operations import Hypothesize, Observe
from gcv.reference.records import GOOD_STANDING, Kind, Record, Standing
from gcv.reference.verifier import Turn, Verifier
from tests.strategies import turns_over

ROOT = Path(__file__).resolve().parents[1]
PURE_FORCED = os.environ.get("GCV_PURE_WALK", "") not in ("", "0")
needs_kernel = pytest.mark.skipif(PURE_FORCED, reason="GCV_PURE_WALK forces the pure walk")


SANITIZED = "GCV_SANITIZED_WALK" in os.environ  # tests/sanitize_walk.sh: a build of its own


def test_the_kernel_is_built_unless_the_pure_walk_is_forced() -> None:
    assert (COMPILED is None) == PURE_FORCED, (
        "the test command builds reference/gcv/reference/_walk.c"
    )
    # setup.py checked the build it installed; the sanitizer's own build is not checked.
    assert KERNEL_CHECKED is (not PURE_FORCED and not SANITIZED)
    assert QUERIES is (COMPILED if KERNEL_CHECKED else PURE)
    assert closure.WALK.startswith(QUERIES.walk)


def test_an_unchecked_build_does_not_answer() -> None:
    """The kernel answers only when setup.py recorded that this very build passed
    gcv.reference.walk_check: the build name it was compiled with must be the one recorded."""

    def kernel(build: str | None, forced: bool = False) -> SimpleNamespace:
        return SimpleNamespace(
            BUILD=build, PURE_FORCED=forced, walk=1, affected_star=2, affected_star_active=3
        )

    assert select_walk(None, "b1") == (None, PURE, "pure Python (the kernel is not built)")
    assert select_walk(kernel("b1", forced=True), "b1").compiled is None
    for build, recorded in (("b1", None), ("b1", "b2"), (None, None)):
        unchecked = select_walk(kernel(build), recorded)
        assert unchecked.compiled is not None and unchecked.queries is PURE, (build, recorded)
        assert unchecked.why == "pure Python (this build of the kernel is unchecked)"
    checked = select_walk(kernel("b1"), "b1")
    assert checked.queries is checked.compiled and checked.queries.grounding == 1
    assert checked.why == "compiled (C), checked against the pure walk"


# -- generated maps: the numbered arrays the map keeps, in every shape ----------------------


class Numbered:
    """Dep over records 0 .. n-1 as the map numbers it: links, reverse links, S_t, names."""

    def __init__(self, links: list[list[int]], good: list[bool], name: list[str]) -> None:
        self.supports = [array("i", targets) for targets in links]
        self.dependents = [array("i") for _ in links]
        for record, targets in enumerate(links):
            for target in targets:
                self.dependents[target].append(record)
        self.good = bytearray(good)
        self.name = name

    def answers(self, queries: Queries, record: int) -> tuple[object, ...]:
        return (
            queries.grounding(self.supports, self.good, self.name, record),
            queries.affected_star(self.dependents, self.name, record),
            queries.affected_star_active(self.dependents, self.good, self.name, record),
        )


def _chain(n: int) -> list[list[int]]:
    return [[i - 1] if i else [] for i in range(n)]


def _fan(n: int) -> list[list[int]]:
    return [[]] + [[0] for _ in range(1, n - 1)] + [list(range(1, n - 1))] * (n > 1)


def _cycle(n: int) -> list[list[int]]:
    return [[(i + 1) % n] for i in range(n)]


def _lattice(n: int) -> list[list[int]]:
    # r_i rests on r_(i-1) and r_(i-2): every record reached by two paths.
    return [[j for j in (i - 1, i - 2) if j >= 0] for i in range(n)]


SHAPES = {"chain": _chain, "fan": _fan, "cycle": _cycle, "lattice": _lattice}

# Names as the map could hold them and beyond: the kernel copies whatever the list holds.
NAMES = st.text(min_size=1, max_size=6)


@st.composite
def numbered_maps(draw: st.DrawFn) -> Numbered:
    """A shape of 1..40 records, or random links (self-loops and repeats included), with
    random S_t and non-ASCII names."""
    n = draw(st.integers(1, 40))
    shape = draw(st.sampled_from([*SHAPES, "random"]))
    if shape == "random":
        links = [draw(st.lists(st.integers(0, n - 1), max_size=4)) for _ in range(n)]
    else:
        links = SHAPES[shape](n)
    good = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    name = draw(st.lists(NAMES, min_size=n, max_size=n, unique=True))
    return Numbered(links, good, name)


@needs_kernel
@given(numbered_maps())
def test_compiled_and_pure_agree_on_every_record_of_a_generated_map(m: Numbered) -> None:
    assert COMPILED is not None
    for record in range(len(m.name)):
        compiled, pure = m.answers(COMPILED, record), m.answers(PURE, record)
        assert compiled == pure, (record, compiled, pure)


@needs_kernel
@pytest.mark.parametrize("shape", SHAPES)
def test_compiled_and_pure_agree_on_a_long_shape(shape: str) -> None:
    """300 records (past the kernel's first 64 slots, so its buffers grow), every seventh
    outside S_t and then all inside: long walks, long witness paths, the queue and the
    marks at full size."""
    assert COMPILED is not None
    n = 300
    links = SHAPES[shape](n)
    for good in ([i % 7 != 3 for i in range(n)], [True] * n):
        m = Numbered(links, good, [f"r{i}" for i in range(n)])
        for record in (0, 1, n // 2, n - 1):
            assert m.answers(COMPILED, record) == m.answers(PURE, record), (shape, record)


@needs_kernel
def test_the_answer_holds_the_maps_own_names() -> None:
    assert COMPILED is not None
    m = Numbered([[1], []], [True, True], ["ß", "π"])
    grounding = COMPILED.grounding(m.supports, m.good, m.name, 0)
    assert grounding == Grounding("ß", True, ("ß", "π"))
    assert grounding.closure[1] is m.name[1]
    with pytest.raises(AttributeError):
        grounding.grounded = False  # type: ignore[misc]


# -- every small map, and long ones (gcv.reference.walk_check) -----------------------------


def _installed_kernel() -> str:
    kernel = importlib.import_module("gcv.reference._walk").__file__
    assert kernel is not None
    return kernel


@needs_kernel
def test_compiled_and_pure_agree_on_every_map_of_up_to_three_records() -> None:
    """Every Dep relation over 1, 2 and 3 records, every S_t, every start record, and the
    long maps past the kernel's 64 slots (what setup.py checks): about 0.4 s of CPU in the
    fresh process."""
    assert _first_difference_in_a_fresh_process(_installed_kernel(), 3, every_start=True) == "None"


def _first_difference_in_a_fresh_process(kernel: str, records: int, every_start: bool) -> str:
    """Run the check with contracts off (``python -O``): the answers are the same, the pure
    walk five times faster.  ``kernel`` is the file of the build to check."""
    code = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('gcv.reference._walk', sys.argv[1])\n"
        "kernel = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(kernel)\n"
        "sys.modules['gcv.reference._walk'] = kernel\n"
        "from gcv.reference.closure import PURE, Queries\n"
        "from gcv.reference.walk_check import first_difference\n"
        "compiled = Queries('C', kernel.walk, kernel.affected_star, kernel.affected_star_active)\n"
        "print(first_difference(compiled, PURE, int(sys.argv[2]), every_start=sys.argv[3] == '1'))"
    )
    argv = [sys.executable, "-O", "-c", code, kernel, str(records), str(int(every_start))]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.slow
@needs_kernel
def test_compiled_and_pure_agree_on_every_map_of_four_records() -> None:
    """Every Dep relation over 4 records (65,536), every S_t (16), from record 0 (the other
    starts: ``python -m tests.walk_check --records 4``): about 12 s of CPU."""
    assert _first_difference_in_a_fresh_process(_installed_kernel(), 4, every_start=False) == "None"


PLANTED = {
    "the S_t filter keeps the last record": (
        "size += good == NULL || good[queue[i]];",
        "size += good == NULL || good[queue[i]] || i == to - 1;",
        "if (good == NULL || good[queue[i]]) {",
        "if (good == NULL || good[queue[i]] || i == to - 1) {",
    ),
    "witness paths longer than three lose the start": (
        "    PyObject *out = PyTuple_New(length);\n    if (out == NULL) {\n        return NULL;",
        "    length -= length > 3;\n"
        "    PyObject *out = PyTuple_New(length);\n    if (out == NULL) {\n        return NULL;",
    ),
    "Affected* holds beta past 64 records": (
        "PyObject *out = names_of(name, good, 1, tail);",
        "PyObject *out = names_of(name, good, n > 64 ? 0 : 1, tail);",
    ),
}
"""The kernel changes the check must catch, each as (old, new) pairs of _walk.c's text."""


def _planted_kernel(edits: tuple[str, ...], folder: Path) -> Path:
    source = (ROOT / "reference" / "gcv" / "reference" / "_walk.c").read_text()
    for old, new in zip(edits[::2], edits[1::2], strict=True):
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    (folder / "_walk.c").write_text(source)
    include = sysconfig.get_paths()["include"]
    built = folder / f"_walk{sysconfig.get_config_var('EXT_SUFFIX')}"
    compile_ = ["gcc", "-shared", "-fPIC", "-O1", f"-I{include}", folder / "_walk.c", "-o", built]
    subprocess.run(compile_, check=True, capture_output=True)
    return built


@pytest.mark.slow
@pytest.mark.needs_program("gcc")
@pytest.mark.parametrize("change", PLANTED)
def test_the_check_catches_a_planted_kernel_change(change: str, tmp_path: Path) -> None:
    built = _planted_kernel(PLANTED[change], tmp_path)
    difference = _first_difference_in_a_fresh_process(str(built), 4, every_start=False)
    assert difference != "None", change


# -- a map mutated through every public method between queries -----------------------------


def _record(identifier: str) -> Record:
    return Record(identifier, "claim", "a", 0, Kind.OBSERVATION)


class MutatedMap(RuleBasedStateMachine):
    """Turns accepted and refused, the map's primitives in committed and rolled-back
    transactions, copies and pickles; after each step every query of every record by the
    compiled walk equals the pure walk's (and the process is still alive)."""

    def __init__(self) -> None:
        super().__init__()
        self.verifier = Verifier(["a", "b", "c"])
        self.verifier.apply_turn(Turn("a", (Observe("o0", "seed"),)))

    def _records(self) -> tuple[str, ...]:
        return tuple(self.verifier.state.records)

    @rule(data=st.data())
    def apply_a_turn(self, data: st.DataObject) -> None:
        turn = data.draw(turns_over(self._records()))
        with contextlib.suppress(GcvError):  # refused: the map is exactly as before
            self.verifier.apply_turn(turn)

    @rule(data=st.data(), commit=st.booleans())
    def use_the_primitives(self, data: st.DataObject, commit: bool) -> None:
        state, records = self.verifier.state, self._records()
        fresh = f"p{len(records)}"
        record = data.draw(st.sampled_from(records))
        label = data.draw(st.sampled_from(list(Standing)))
        if label in GOOD_STANDING and state.ratt.get(record):
            label = Standing.WEAKENED  # keep Lemma 2.2, which the Verifier's invariant checks
        try:
            with state.transaction():
                state.add_record(_record(fresh))
                state.add_dependency(fresh, record)
                state.add_dependency(record, fresh)
                state.set_standing(record, label)
                state.set_standing(fresh, Standing.ABANDONED)
                state.add_attack(record, fresh)
                state.commit("a", record)
                state.retract("a", record)
                state.record_dissent(record, "b")
                if not commit:
                    raise KeyError("roll back")
        except KeyError:
            pass

    @rule(how=st.sampled_from(["deepcopy", "pickle"]))
    def replace_by_a_copy(self, how: str) -> None:
        if how == "deepcopy":
            self.verifier = copy.deepcopy(self.verifier)
        else:
            self.verifier = pickle.loads(pickle.dumps(self.verifier))

    @rule()
    def refuse_a_turn(self) -> None:
        known = self._records()[0]
        turn = Turn("a", (Hypothesize("h_new", "x", depends_on=(known,)), Observe(known, "again")))
        with pytest.raises(GcvError):  # o0 is registered already: the whole turn is refused
            self.verifier.apply_turn(turn)

    @invariant()
    def both_walks_agree(self) -> None:
        assert COMPILED is not None
        n = self.verifier.state.numbering
        # The walks read the map's own arrays, not copies.
        supports, dependents, good, name = n.supports, n.dependents, n.good, n.name
        for record in range(len(name)):
            for queries in (COMPILED, PURE):
                assert isinstance(queries.grounding(supports, good, name, record), Grounding)
            assert COMPILED.grounding(supports, good, name, record) == PURE.grounding(
                supports, good, name, record
            ), name[record]
            assert COMPILED.affected_star(dependents, name, record) == PURE.affected_star(
                dependents, name, record
            ), name[record]
            assert COMPILED.affected_star_active(
                dependents, good, name, record
            ) == PURE.affected_star_active(dependents, good, name, record), name[record]


TestMutatedMap = needs_kernel(MutatedMap.TestCase)
TestMutatedMap.settings = settings(max_examples=25, stateful_step_count=12, deadline=None)


# -- bad arrays: a typed error, never a crash -----------------------------------------------


@needs_kernel
@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (lambda m: m.supports[0].append(5), ValueError, "record 0 links to 5, outside"),
        (lambda m: m.supports[1].append(-1), ValueError, "record 1 links to -1, outside"),
        (lambda m: m.dependents[1].append(2), ValueError, "record 1 links to 2, outside"),
        (lambda m: m.supports.__setitem__(1, [0]), TypeError, "record 1's links are not"),
        (lambda m: m.supports.__setitem__(1, array("l", [0])), TypeError, "not an array"),
        (lambda m: m.name.pop(), ValueError, "the names and the links number different"),
        (lambda m: m.good.pop(), ValueError, "S_t's flags and the links number different"),
    ],
)
def test_a_corrupt_map_raises_a_typed_error(change: object, error: type, message: str) -> None:
    """Every link is bounds-checked before it is followed; the shapes are checked first."""
    assert COMPILED is not None
    m = Numbered([[1], [0]], [True, True], ["a", "b"])
    change(m)  # type: ignore[operator]
    with pytest.raises(error, match=message):
        for record in (0, 1):
            m.answers(COMPILED, record)


@needs_kernel
@pytest.mark.parametrize("record", [-1, 2, 1 << 40])
def test_a_record_outside_the_numbering_raises_index_error(record: int) -> None:
    assert COMPILED is not None
    m = Numbered([[1], []], [True, True], ["a", "b"])
    with pytest.raises((IndexError, OverflowError)):
        COMPILED.grounding(m.supports, m.good, m.name, record)
    with pytest.raises((IndexError, OverflowError)):
        COMPILED.affected_star(m.dependents, m.name, record)


# -- the choice of walk ---------------------------------------------------------------------


def _walk_of(env: dict[str, str]) -> str:
    code = "from gcv.reference.closure import QUERIES; print(QUERIES.walk)"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.slow
@needs_kernel
def test_gcv_pure_walk_forces_the_pure_walk_and_version_names_it() -> None:
    base = {k: v for k, v in os.environ.items() if k != "GCV_PURE_WALK"}
    assert _walk_of(base) == "compiled (C)"
    assert _walk_of({**base, "GCV_PURE_WALK": "1"}) == "pure Python"
    assert _walk_of({**base, "GCV_PURE_WALK": "0"}) == "compiled (C)"
    gcv = Path(sys.executable).with_name("gcv")
    forced = subprocess.run(
        [gcv, "--version"], env={**base, "GCV_PURE_WALK": "1"}, capture_output=True, text=True
    )
    assert "walk: pure Python" in forced.stdout, forced
    plain = subprocess.run([gcv, "--version"], env=base, capture_output=True, text=True)
    assert "walk: compiled (C)" in plain.stdout, plain


@pytest.mark.slow
@pytest.mark.needs_program("gcc")
def test_the_kernel_passes_this_file_under_address_and_ub_sanitizers() -> None:
    """tests/sanitize_walk.sh builds _walk.c with -fsanitize=address,undefined and runs the
    fast tests of this file with that build; a planted overflow (the queue one slot short)
    must make the same run fail, so the run can fail."""
    script = ROOT / "tests" / "sanitize_walk.sh"
    clean = subprocess.run(["bash", script], capture_output=True, text=True, cwd=ROOT)
    assert clean.returncode == 0, clean.stdout[-3000:] + clean.stderr[-3000:]
    assert "passed" in clean.stdout, clean.stdout[-2000:]
    planted = subprocess.run(
        ["bash", script, "--plant-overflow"], capture_output=True, text=True, cwd=ROOT
    )
    assert planted.returncode != 0, planted.stdout[-2000:]
    assert "AddressSanitizer" in planted.stderr + planted.stdout, planted.stderr[-2000:]
