"""What each choice's alternative answers: the data a runner blames a difference with.

A step's ``choices`` say which of the reference's choices its outcome could depend on; an
implementation that differs there may differ on any of them, or on none.  To name the
choices that explain a difference, every case is replayed once per choice its steps name,
by the reference making that choice's alternative alone (:mod:`gcv.conformance.alternatives`),
and each step it answers otherwise keeps that answer's expectation under the choice
(``Step.alternatives``).  The replay is also a check of the tags, within the cases that
name a choice: an alternative that changes a step not naming its choice means the tag missed
a cause, and stops the build.  Over the whole suite, the self-test runs every alternative at
once on every paper-profile step (``tests/conformance/test_profiles.py``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gcv.conformance.alternatives import ALTERNATIVES
from gcv.conformance.cases.builder import CaseError
from gcv.conformance.compare import check
from gcv.conformance.session import Session
from gcv.conformance.vectors import Case

__all__ = ["with_alternatives"]


def with_alternatives(case: Case) -> Case:
    """``case`` with each step's ``alternatives``: for every choice its steps name, the
    expectation the reference making that choice's alternative alone gives, at each step
    it answers otherwise.

    Raises
    ------
    CaseError
        An alternative changes a step that does not name its choice.
    """
    found: list[dict[str, Any]] = [{} for _ in case.steps]
    for choice in sorted({c for step in case.steps for c in step.choices}):
        with ALTERNATIVES[choice]():
            session = Session()
            if not session.handle({"id": 0, **case.start()})["ok"]:
                raise CaseError(f"{case.id}: the alternative to {choice} refuses the start")
            for k, step in enumerate(case.steps):
                response, expect = session.expect({"id": k + 1, **step.request})
                if check(step.request, step.expect, response) is None:
                    continue
                if choice not in step.choices:
                    raise CaseError(
                        f"{case.id}, step {k + 1}: the alternative to {choice} answers "
                        f"{response}, but the step does not name {choice}"
                    )
                found[k][choice] = expect
    steps = tuple(
        dataclasses.replace(step, alternatives=alternatives)
        for step, alternatives in zip(case.steps, found, strict=True)
    )
    return dataclasses.replace(case, steps=steps)
