"""The mutation runner's own commands: the uniform sample and the per-module score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.mutation import Score, report, sample, score

NAMES = [f"gcv.proofs.encode.x_f__mutmut_{i}" for i in range(1, 41)] + [
    f"gcv.reference.closure.x_g__mutmut_{i}" for i in range(1, 11)
]


def test_a_sample_is_drawn_from_the_matching_names_only_and_repeats_with_its_seed() -> None:
    drawn = sample(NAMES, "gcv.proofs.encode.*", 10, seed=3)
    assert len(drawn) == len(set(drawn)) == 10
    assert all(name.startswith("gcv.proofs.encode.") for name in drawn)
    assert drawn == sample(list(reversed(NAMES)), "gcv.proofs.encode.*", 10, seed=3)
    assert drawn != sample(NAMES, "gcv.proofs.encode.*", 10, seed=4)


def test_a_sample_larger_than_the_module_is_the_whole_module() -> None:
    assert sample(NAMES, "gcv.reference.closure.*", 99, seed=0) == sorted(NAMES[40:])


def test_every_name_is_as_likely_to_be_drawn() -> None:
    # 2,000 draws of 10 from 40: each name is expected 500 times; a sampler that favoured
    # the first names (a slice, say) would put them near 2,000 and the rest near 0.
    counts = dict.fromkeys(NAMES[:40], 0)
    for seed in range(2_000):
        for name in sample(NAMES, "gcv.proofs.encode.*", 10, seed):
            counts[name] += 1
    assert min(counts.values()) > 400 and max(counts.values()) < 600, counts


def test_the_score_tallies_mutmuts_exit_codes() -> None:
    codes: dict[str, int | None] = {"a": 1, "b": 3, "c": 0, "d": 33, "e": 5, "f": 36, "g": None}
    assert score(codes) == Score(mutants=7, killed=2, timeout=1, survived=1, no_tests=2, other=0)
    assert score({"a": -11}).other == 1
    # A sample's tally leaves out the mutants run outside it, and counts against them all.
    assert score(codes, only=frozenset({"a", "c", "g"})) == Score(7, 1, 0, 1, 0, 0)


def test_a_full_run_scores_a_point_and_a_sample_an_interval_around_it() -> None:
    full = Score(mutants=10, killed=8, timeout=0, survived=2, no_tests=0, other=0)
    assert full.interval() == (0.8, 0.8)
    # Wilson's 95% interval for 8 of 10, worked by hand: centre 0.717, half-width 0.227.
    sampled = Score(mutants=500, killed=8, timeout=0, survived=2, no_tests=0, other=0)
    low, high = sampled.interval()
    assert (round(low, 3), round(high, 3)) == (0.490, 0.943)


def test_the_report_names_each_module_that_was_run(tmp_path: Path) -> None:
    meta = tmp_path / "gcv" / "proofs" / "encode.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {"a": 1, "b": 0, "c": None, "d": None}}))
    untouched = tmp_path / "gcv" / "reference" / "closure.py.meta"
    untouched.parent.mkdir(parents=True)
    untouched.write_text(json.dumps({"exit_code_by_key": {"a": None}}))
    lines = report(tmp_path).splitlines()
    assert len(lines) == 2 and "closure" not in lines[1]
    assert lines[1].split()[:7] == ["gcv/proofs/encode.py", "4", "2", "1", "0", "1", "0"]
    assert lines[1].endswith("%")


def test_a_package_of_several_modules_gets_a_row_of_its_own(tmp_path: Path) -> None:
    for module, codes in {"model": {"a": 1, "b": None}, "formula": {"c": 0, "d": 1}}.items():
        meta = tmp_path / "gcv" / "epistemic" / f"{module}.py.meta"
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps({"exit_code_by_key": codes}))
    rows = {line.split("  ")[0].strip(): line.split() for line in report(tmp_path).splitlines()}
    assert rows["gcv/epistemic/ (all)"][2:8] == ["4", "3", "2", "0", "1", "0"]
    # A package of which one module was run gets no row: it would repeat that module's.
    sampled = report(tmp_path, only=frozenset({"a"})).splitlines()
    assert [line.split()[0] for line in sampled[1:]] == ["gcv/epistemic/model.py"]


@pytest.mark.parametrize("argv", [["score"], ["sample", "*", "1"]])
def test_the_commands_need_a_first_run(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.mutation import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2


def test_the_layers_are_laid_out_as_installed_replacing_an_earlier_copy(tmp_path: Path) -> None:
    from tests.mutation import installed_path, lay_out_as_installed

    for layer in ("spec", "reference", "proofs"):
        (tmp_path / layer / "gcv" / layer).mkdir(parents=True)
        (tmp_path / layer / "gcv" / layer / "__init__.py").write_text(f"# {layer}\n")
    stale = tmp_path / "gcv" / "reference" / "removed.py"
    stale.parent.mkdir(parents=True)
    stale.write_text("# a file since removed from reference/\n")
    lay_out_as_installed(tmp_path)
    assert (tmp_path / "gcv" / "proofs" / "__init__.py").read_text() == "# proofs\n"
    assert not stale.exists()
    assert installed_path("reference/gcv/reference/verifier.py") == "gcv/reference/verifier.py"
    assert installed_path("tests/test_closure.py") == "tests/test_closure.py"
