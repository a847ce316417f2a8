"""A replayed trace as data: ``gcv replay --json`` and ``gcv replay --junit FILE``.

Both list every expectation the trace states, turn by turn then at the end,
with what the verifier answered.  A turn's expected rejection is an
expectation too, and so is an unexpected one (which fails).  Several traces
replayed at once make one JUnit file, a testsuite each.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence

import icontract

from gcv.reference.render import render_turn
from gcv.replay import Check, Replay, TurnOutcome

__all__ = ["replay_json", "replay_junit", "replays_junit"]


def _plain(value: object) -> object:
    # Sets (of identifiers, or of worlds) are written sorted, nested sets as sorted lists.
    if isinstance(value, frozenset):
        return sorted((_plain(v) for v in value), key=str)
    return value


def _check(check: Check) -> dict[str, object]:
    e = check.expectation
    return {
        "query": e.describe(),
        "expected": _plain(e.expected),
        "actual": _plain(check.actual),
        "ok": check.ok,
        "why": e.why,
    }


def _rejection(outcome: TurnOutcome) -> dict[str, object] | None:
    if outcome.trace_turn.rejected is None and outcome.error is None:
        return None
    return {
        "expected": outcome.trace_turn.rejected,
        "actual": None if outcome.error is None else outcome.error.code,
        "ok": outcome.handled_as_expected,
        "message": None if outcome.error is None else str(outcome.error),
    }


def _turn(result: Replay, outcome: TurnOutcome) -> dict[str, object]:
    t = outcome.trace_turn
    report = outcome.report
    return {
        "turn": t.number,
        "speaker": t.turn.speaker,
        "operations": [op.name for op in t.turn.operations],
        "summary": [] if report is None else render_turn(report, result.verifier.state),
        "rejection": _rejection(outcome),
        "checks": [_check(c) for c in outcome.checks],
    }


def _listed_checks(data: dict[str, object]) -> int:
    turns = data["turns"]
    final = data["final"]
    assert isinstance(turns, list) and isinstance(final, list)
    return sum(len(t["checks"]) for t in turns) + len(final)


@icontract.ensure(
    lambda replayed, result: _listed_checks(result) == len(replayed.checks),
    "every expectation of the trace is listed once",
)
def replay_json(replayed: Replay) -> dict[str, object]:
    """The replay as JSON data: the verdict, then each turn and its checks, then the final ones."""
    return {
        "trace": replayed.trace.name,
        "description": replayed.trace.description,
        "ok": replayed.ok,
        "failures": replayed.failures,
        "expectations": len(replayed.checks),
        "turns": [_turn(replayed, outcome) for outcome in replayed.turns],
        "final": [_check(c) for c in replayed.final],
    }


def _case(suite: ET.Element, classname: str, name: str, failure: str | None) -> None:
    case = ET.SubElement(suite, "testcase", classname=classname, name=name)
    if failure is not None:
        ET.SubElement(case, "failure", message=failure, type="expectation")


def _check_failure(check: Check) -> str | None:
    if check.ok:
        return None
    e = check.expectation
    return f"expected {_plain(e.expected)}; got {_plain(check.actual)}"


def _rejection_failure(outcome: TurnOutcome) -> str | None:
    expected, error = outcome.trace_turn.rejected, outcome.error
    if outcome.handled_as_expected:
        return None
    if error is None:
        return f"expected rejection {expected}, but the turn was accepted"
    if expected is None:
        return f"rejected unexpectedly: {error}"
    return f"expected rejection {expected}; got {error}"


def _counted(suite: ET.Element) -> ET.Element:
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(case.find("failure") is not None for case in cases)))
    suite.set("errors", str(sum(case.find("error") is not None for case in cases)))
    return suite


def _suite(replayed: Replay) -> ET.Element:
    name = replayed.trace.name or "trace"  # the name is optional in gcv-trace/1
    suite = ET.Element("testsuite", name=name)
    for outcome in replayed.turns:
        classname = f"{name}.T{outcome.trace_turn.number}"
        if outcome.trace_turn.rejected is not None or outcome.error is not None:
            _case(suite, classname, "rejection", _rejection_failure(outcome))
        for check in outcome.checks:
            _case(suite, classname, check.expectation.describe(), _check_failure(check))
    for check in replayed.final:
        _case(suite, f"{name}.final", check.expectation.describe(), _check_failure(check))
    return _counted(suite)


def _xml(root: ET.Element) -> str:
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


@icontract.ensure(
    lambda replayed, result: ET.fromstring(result).get("failures") == str(replayed.failures),
    "a failed case per failed check and per turn not handled as the trace says",
)
def replay_junit(replayed: Replay) -> str:
    """The replay as JUnit XML: one testsuite, one testcase per expectation.

    A case's class is ``NAME.T<n>`` (after turn n) or ``NAME.final``, NAME the
    trace's name (``trace`` when it has none); its name
    is the query.  A turn the trace marks rejected, or that was rejected
    unexpectedly, is a case named ``rejection``.
    """
    return _xml(_suite(replayed))


@icontract.ensure(
    lambda replayed, unreadable, result: (
        len(ET.fromstring(result)) == len(replayed) + len(unreadable)
    ),
    "a testsuite per trace given",
)
def replays_junit(replayed: Sequence[Replay], unreadable: Mapping[str, str]) -> str:
    """Several replays as JUnit XML: a testsuite each (as :func:`replay_junit` writes it),
    and for each trace that could not be read (name -> why) a testsuite named for it whose
    one testcase, ``load``, is in error."""
    root = ET.Element("testsuites", name="gcv replay")
    root.extend(_suite(r) for r in replayed)
    for name, why in unreadable.items():
        suite = ET.SubElement(root, "testsuite", name=name)
        case = ET.SubElement(suite, "testcase", classname=name, name="load")
        ET.SubElement(case, "error", message=why, type="bad-input")
        _counted(suite)
    return _xml(root)
