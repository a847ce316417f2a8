"""``gcv smoke -- IMPL``: the handshake and one case per declared feature, with readable
errors and the exit codes of its docstring, against a correct fake and broken ones."""

from __future__ import annotations

import pytest

from gcv.conformance.runner import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_OK,
    EXIT_UNUSABLE,
    runnable,
)
from gcv.conformance.smoke import main, smoke_cases
from gcv.conformance.vectors import load_suite
from tests.conformance.helpers import fake

SUITE = load_suite()


def test_one_case_per_declared_feature_the_smallest_the_implementation_can_run() -> None:
    declared = frozenset({"core", "query:verify", "query:knows", "no-such-feature"})
    checks = smoke_cases(SUITE, declared)
    # query:knows needs epistemic, which is not declared: no case can check it.
    assert [(c.feature, c.case is not None) for c in checks] == [
        ("core", True),
        ("query:knows", False),
        ("query:verify", True),
    ]
    for check in checks:
        if check.case is None:
            continue
        fitting = [
            c
            for c in SUITE
            if runnable(c, declared) and (check.feature == "core" or check.feature in c.features)
        ]
        assert check.case in fitting
        assert len(check.case.steps) == min(len(c.steps) for c in fitting)


def test_no_command_or_a_bad_option_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == EXIT_BAD_INPUT
    assert "command after --" in capsys.readouterr().err
    assert main(["--timeout", "0", "--", "true"]) == EXIT_BAD_INPUT
    assert main(["--no-such-option", "--", "true"]) == EXIT_BAD_INPUT


@pytest.mark.slow
def test_a_correct_implementation_passes_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--", *fake("correct")]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("  ok    handshake: fake-correct")
    lines = [line for line in out.splitlines() if line.startswith("  ok    ")]
    assert len(lines) == 1 + 19  # the handshake and each of the reference's 19 features
    assert "FAIL" not in out and "checks (the handshake and 19 of the features) passed" in out


# mode -> exit code, what the output must say
_BROKEN = {
    "crash": (EXIT_FAILED, ["FAIL  query:attackers", "stderr:", "request:  {"]),
    "garbage": (EXIT_FAILED, ["FAIL  query:standing", "garbage: not JSON", "expected: "]),
    # The failure names the step that differed and what it asks, not only the feature.
    "one-step": (
        EXIT_FAILED,
        ["FAIL  query:affected_star: step 4 (query affected_star record n0_0) of", "missing"],
    ),
    "dies": (EXIT_UNUSABLE, ["FAIL  handshake: crash", "could not be used"]),
    "refuses": (EXIT_UNUSABLE, ["FAIL  handshake: refused", "could not be used"]),
    "declares-nothing": (EXIT_INCOMPLETE, ["nothing but the handshake could be checked"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("mode", sorted(_BROKEN))
def test_a_broken_implementation_fails_with_a_readable_error(
    mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, said = _BROKEN[mode]
    assert main(["--timeout", "20", "--", *fake(mode)]) == code
    out = capsys.readouterr().out
    for text in said:
        assert text in out, (text, out)
