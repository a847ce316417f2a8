"""One convention for bad input across commands: exit 2 and a message that names the problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcv.cli import main
from gcv.hints import install_hint
from gcv.options import EXIT_BAD_INPUT

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "words",
    [
        ["verify", "nope"],
        ["affected", "nope"],
        ["draw", "phase2-debugging", "--highlight", "verify:nope", "--format", "dot"],
        ["draw", "phase2-debugging", "--highlight", "affected:nope", "--format", "dot"],
    ],
)
def test_an_unknown_record_is_bad_input_everywhere(
    words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(words) == EXIT_BAD_INPUT
    assert "[unknown-record] record 'nope' is not registered" in capsys.readouterr().err


def test_a_directory_given_as_a_trace_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for words in (
        ["replay", str(tmp_path)],
        ["draw", str(tmp_path), "--format", "dot"],
        ["interpret-eval", "--native", str(tmp_path)],
    ):
        assert main(words) == EXIT_BAD_INPUT
        assert f"{tmp_path}: is a directory, not a file" in capsys.readouterr().err


def test_usage_errors_name_the_arguments_as_the_usage_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["audit"])
    assert stopped.value.code == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "required: MODULE" in err and "module" not in err.replace("MODULE", "")
    with pytest.raises(SystemExit):
        main(["export", "--format", "json"])
    assert "one of the arguments TRACE --db is required" in capsys.readouterr().err


def test_the_install_hint_fits_the_installation(tmp_path: Path) -> None:
    # This checkout has pyproject.toml: the hint reinstalls it with the extra.
    assert install_hint("conformance") == f"pip install -e '{ROOT}[conformance]'"
    assert (
        install_hint("conformance", tmp_path) == "pip install 'grounded-continuation[conformance]'"
    )


def test_sets_print_in_one_order_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    # Affected*(o5) is found in the order h3, h4, h1 (the walk's); it prints sorted.
    assert main(["affected", "o5"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Affected*(o5) = {h1, h3, h4}"
    assert main(["affected", "o5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["affected"] == ["h1", "h3", "h4"]
    assert main(["replay"]) == 0
    assert "affected_star(o5) = {h1, h3, h4}" in capsys.readouterr().out
    assert main(["draw", "phase2-debugging", "--highlight", "affected:o5", "--format", "dot"]) == 0
    assert "Affected*(o5) = {h1, h3, h4}" in capsys.readouterr().out
