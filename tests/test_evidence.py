"""Evidence for a question (Sections 1 and 4.5): the API and ``gcv evidence``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcv.cli import main
from gcv.errors import UnknownEntity
from gcv.evidence import Fact, FactMemory
from gcv.experiments.evidence_command import load_facts
from gcv.options import EXIT_BAD_INPUT, EXIT_OK
from gcv.reference.errors import DuplicateRecord, MalformedInput
from gcv.reference.records import Standing

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "facts-example.tsv"


def _memory() -> FactMemory:
    memory = FactMemory()
    memory.observe("1", Fact("Arden", "mentor", "Brisk"))
    memory.observe("2", Fact("Brisk", "employer", "Calder"))
    memory.observe("3", Fact("Dunmore", "employer", "Galloway"))
    memory.observe("4", Fact("Arden", "mentor", "Dunmore"))
    return memory


def test_a_replacement_abandons_the_fact_it_supersedes_and_leaves_the_others() -> None:
    memory = _memory()
    standing = memory.verifier.state.standing
    assert standing["1"] is Standing.ABANDONED
    assert [standing[r] for r in ("2", "3", "4")] == [Standing.ACTIVE] * 3
    assert memory.verifier.attackers("1") == ("4",)


def test_evidence_follows_subject_object_links_through_current_facts_only() -> None:
    memory = _memory()
    assert memory.evidence(["Arden"], hops=1) == ("4",)
    # Brisk's employer is linked only through the superseded mentor fact: not reached.
    assert memory.evidence(["Arden"], hops=2) == ("4", "3")
    assert memory.render(("4", "3")) == (
        "4. The mentor of Arden is Dunmore.\n3. The employer of Dunmore is Galloway."
    )


def test_evidence_from_several_entities_takes_each_record_once() -> None:
    memory = _memory()
    assert memory.evidence(["Arden", "Dunmore", "Arden"], hops=2) == ("4", "3")


@pytest.mark.parametrize(
    ("entities", "hops", "error", "field"),
    [
        ([], 1, MalformedInput, "entities"),
        (["Arden"], 0, MalformedInput, "hops"),
        (["Nobody"], 1, UnknownEntity, "entities"),
    ],
)
def test_bad_questions_are_typed_errors(
    entities: list[str], hops: int, error: type[Exception], field: str
) -> None:
    with pytest.raises(error) as raised:
        _memory().evidence(entities, hops)
    assert getattr(raised.value, "field", None) == field


def test_a_rejected_fact_leaves_the_map_and_the_indexes_as_they_were() -> None:
    memory = _memory()
    before = (dict(memory.facts), memory.evidence(["Arden"], hops=2), memory.verifier.state.turn)
    with pytest.raises(DuplicateRecord):
        memory.observe("2", Fact("Arden", "mentor", "Elmswick"))
    after = (dict(memory.facts), memory.evidence(["Arden"], hops=2), memory.verifier.state.turn)
    assert before == after
    assert memory.verifier.standing("4") is Standing.ACTIVE


@pytest.mark.parametrize("value", ["", " Arden", "Arden "])
def test_a_fact_needs_every_field(value: str) -> None:
    with pytest.raises(MalformedInput):
        Fact(value, "mentor", "Brisk")


def test_the_example_stream_reads_as_documented(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evidence", str(EXAMPLE), "Arden", "--hops", "2"]) == EXIT_OK
    assert capsys.readouterr().out.splitlines() == [
        "3. The rival of Arden is Elmswick.",
        "5. The mentor of Arden is Dunmore.",
        "6. The employer of Dunmore is Galloway.",
    ]
    assert main(["evidence", str(EXAMPLE), "Brisk", "--json"]) == EXIT_OK
    listed = json.loads(capsys.readouterr().out)["evidence"]
    assert listed == [{"record": "7", "claim": "The employer of Brisk is Harrow."}]


def test_a_malformed_line_is_exit_2_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "facts.tsv"
    path.write_text("# facts\nArden\tmentor\tBrisk\nArden mentor Dunmore\n")
    assert main(["evidence", str(path), "Arden"]) == EXIT_BAD_INPUT
    assert "[malformed-input] field 'line 3'" in capsys.readouterr().err


def test_an_unknown_entity_or_a_missing_file_is_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["evidence", str(EXAMPLE), "Nobody"]) == EXIT_BAD_INPUT
    assert "[unknown-entity]" in capsys.readouterr().err
    assert main(["evidence", "no-such-file.tsv", "Arden"]) == EXIT_BAD_INPUT


def test_loading_skips_comments_and_blank_lines() -> None:
    memory = load_facts(["# c", "", "A\tr\tB", "A\tr\tC"])
    assert list(memory.facts) == ["1", "2"]
    assert memory.evidence(["A"], hops=1) == ("2",)
