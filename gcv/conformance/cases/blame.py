"""What the alternatives answer, alone and together: a step's profile and its blame data.

A step's ``choices`` say which of the reference's choices its own turn and the turns
before it exercised on the reference's path: information.  What decides its profile is
its answer.  Every case is replayed under the readings of :mod:`gcv.conformance.alternatives`,
alone and combined, and each step keeps, under ``alternatives``, the answers they give
where they differ from the reference's, keyed by the combination
(``"T3.hypothesize.no-commitment+turn.numbering"``).  A step none answers otherwise is in
the paper profile.  A differing answer is explained by the fewest readings whose recorded
answers give it, one alone or several whose changes, made together, give it
(:func:`gcv.conformance.compare.explanations`: readings that change different parts of an
answer compose); an answer none explains is a failure, whatever the step's tags.

Which combinations are replayed: each is replayed with its readings made and every other
reading probed, which says where and how each other reading would decide otherwise on
that path (:func:`gcv.conformance.alternatives.tracking`).  A reading that decides nothing
otherwise on a path changes no answer on it, so a combination is only ever extended by a
reading that would decide otherwise on its path; and it is extended only where that
reading decides otherwise *differently* from how it does on the reference's own path (it
interacts with the combination: a turn the combination refused that the reading numbers,
a record the combination never registered that the reading answers for), or where the
combination changed the outcome of a turn the reading decides otherwise at (both act on
one turn: an empty announcement ignored, then the observations announced one by one).  A
reading that decides as it does on the reference's path, at a turn whose outcome the
combination leaves as it was, changes what it changes there, which composes with the
combination's own changes.  At most :data:`MAX_COMBINED` readings combine, and two
readings of one clause never do.  Each combination is replayed from the last turn before
its newest reading first decides otherwise, on a copy of its parent's session there.

Every case is also replayed with every first reading made at once (the implementation
``all_alternatives`` makes): each answer it gives otherwise must be explained by the
recorded answers, or the build stops; so interactions of more than two readings the
extension rule misses are found, at least those that show there.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gcv.conformance.alternatives import (
    ALTERNATIVES,
    READINGS,
    clause_of,
    readings,
    remembering,
    tracking,
)
from gcv.conformance.cases.builder import CaseError
from gcv.conformance.compare import expectation_as_response, explanations
from gcv.conformance.session import Session
from gcv.conformance.vectors import Case, combination_key

__all__ = [
    "MAX_COMBINED",
    "Exploration",
    "explore",
    "profile_counts",
    "with_alternatives",
    "with_alternatives_all",
]

MAX_COMBINED = 4
"""The most readings one recorded combination holds (docs/conformance.md gives how many
the suite needs; the build says when the bound leaves one out)."""

Decisions = dict[str, list[tuple[int, str]]]

_ANSWERS: dict[tuple[object, str, frozenset[str]], tuple[dict[str, Any], list[tuple[str, str]]]]
_ANSWERS = {}
"""Each query's expectation and the decisions taken answering it, by the state it was asked
in, while one case's alternatives are worked out: many readings leave D_t as another's."""

_QUERY_READINGS = frozenset({"query.record-registered"})
"""The readings that patch how a query is answered (the others, how turns apply)."""


@dataclass(slots=True)
class _Run:
    """One replay of a case: each step's expectation, what each reading decided otherwise
    and where, and copies of the session before some steps."""

    expects: list[dict[str, Any]]
    decisions: Decisions
    states: dict[int, tuple[str, frozenset[str]]]
    """The state before each turn (:func:`_state`), by step."""
    sessions: dict[int, Session] = field(default_factory=dict)

    def first(self, name: str) -> int:
        """The step ``name`` first decided otherwise at (it did)."""
        return self.decisions[name][0][0]


@dataclass(slots=True)
class Exploration:
    """The combinations a case was replayed under, with their runs."""

    runs: dict[frozenset[str], _Run]
    replays: int = 0
    """Replays made, the reference's own and every reading's at once included."""
    bounded: list[frozenset[str]] = field(default_factory=list)
    """Combinations left out for :data:`MAX_COMBINED`."""


def _state(session: Session) -> tuple[str, frozenset[str]]:
    """The conversation's state, as a value: D_t's digest (M_t and the queue included) and
    the issue ids a reading keeps beside it."""
    dmap = session.verifier.state if session.verifier is not None else None
    if dmap is None:
        return "", frozenset()
    return dmap.digest(), frozenset(getattr(dmap, "_opened_issues", ()))


def _replay(
    case: Case,
    made: frozenset[str],
    parent: _Run | None = None,
    resume: int = 0,
    keep: Iterable[int] = (),
    joined: str | None = None,
) -> _Run:
    """Run ``case`` with ``made`` made and every other reading probed (but those of a clause
    ``made`` reads already), from step ``resume`` on a copy of ``parent``'s session there;
    copy the session before each step of ``keep``.

    ``joined`` is the reading ``made`` adds to ``parent``'s: once it can decide nothing
    otherwise any more (past its last decision on the parent's path) and the state before
    a turn is the parent's, the rest is the parent's run, and is copied."""
    clauses = {clause_of(name) for name in made}
    probed = [n for n in READINGS if n not in made and clause_of(n) not in clauses]
    kept = set(keep)
    expects: list[dict[str, Any]] = []
    states: dict[int, tuple[str, frozenset[str]]] = {}
    if parent is None or resume == 0:
        session = Session()
        if not session.handle({"id": 0, **case.start()})["ok"]:
            raise CaseError(f"{case.id}: the readings {sorted(made)} refuse the start")
    else:
        session = copy.deepcopy(parent.sessions[resume])
        expects = list(parent.expects[:resume])
        states = {k: v for k, v in parent.states.items() if k < resume}
    last = -1
    if parent is not None and joined is not None:
        last = max((k for k, _ in parent.decisions.get(joined, ())), default=-1)
    sessions: dict[int, Session] = {}
    with readings(made=sorted(made), probed=probed), tracking() as tracker:
        if parent is not None:
            for name, found in parent.decisions.items():
                earlier = [d for d in found if d[0] < resume]
                if earlier and (name in made or name in probed):
                    tracker.decisions[name] = earlier
        now: tuple[str, frozenset[str]] | None = None  # the state, once asked for
        for k in range(len(expects), len(case.steps)):
            request = case.steps[k].request
            if request["cmd"] == "apply":
                now = states[k] = _state(session)
                if parent is not None and k > last and states[k] == parent.states.get(k):
                    return _converged(parent, k, expects, tracker.decisions, states, made, probed)
            if k in kept:
                sessions[k] = copy.deepcopy(session)
            tracker.step = k
            if request["cmd"] == "query":
                # A query's answer is the state's, but where a reading patches queries: the
                # same question in the same state has the same answer and decisions.
                now = now or _state(session)
                key = (now, repr(sorted(request.items())), made & _QUERY_READINGS)
                if key not in _ANSWERS:
                    before = {n: len(d) for n, d in tracker.decisions.items()}
                    _, expect = session.expect({"id": k + 1, **request}, valid=True)
                    noted = [
                        (n, detail)
                        for n, found in tracker.decisions.items()
                        for _, detail in found[before.get(n, 0) :]
                    ]
                    _ANSWERS[key] = (expect, noted)
                expect, noted = _ANSWERS[key]
                for name, detail in noted:
                    if name in made or name in probed:
                        tracker.note(name, detail)
                expects.append(expect)
                continue
            _, expect = session.expect({"id": k + 1, **request}, valid=True)
            expects.append(expect)
            if request["cmd"] == "apply":
                now = None
    decisions = {n: list(d) for n, d in tracker.decisions.items()}
    return _Run(expects, decisions, states, sessions)


def _converged(
    parent: _Run,
    step: int,
    expects: list[dict[str, Any]],
    decisions: Decisions,
    states: dict[int, tuple[str, frozenset[str]]],
    made: frozenset[str],
    probed: Sequence[str],
) -> _Run:
    """A run whose state before ``step`` is ``parent``'s, with nothing left to decide
    otherwise that the parent does not: from ``step`` on, the parent's run."""
    joined = {n: list(d) for n, d in decisions.items()}
    for name, found in parent.decisions.items():
        later = [d for d in found if d[0] >= step]
        if later and (name in made or name in probed):
            joined.setdefault(name, []).extend(later)
    tail = {k: v for k, v in parent.states.items() if k >= step}
    return _Run(expects + parent.expects[step:], joined, states | tail)


def _turn_before(case: Case, step: int) -> int:
    """The step a replay resuming for ``step`` starts at: the last turn at or before it
    (queries change nothing, so the state before that turn is the state before ``step``)."""
    while step > 0 and case.steps[step].request["cmd"] != "apply":
        step -= 1
    return step


def _joining(run: _Run, made: frozenset[str], parent: _Run, reference: _Run) -> dict[str, int]:
    """The readings that would join ``made``: those deciding otherwise on its path, and
    differently from how they do on its parent's path (the combination it extends), or at
    a step whose outcome ``made`` changed (a turn it accepts that the reference refuses:
    what the reading changes there need not compose with it); each with the step it first
    decides otherwise at."""
    clauses = {clause_of(n) for n in made}
    return {
        name: run.first(name)
        for name, found in run.decisions.items()
        if name not in made
        and clause_of(name) not in clauses
        and (
            found != parent.decisions.get(name)
            or any(run.expects[k] != reference.expects[k] for k, _ in found)
        )
    }


def explore(case: Case) -> Exploration:
    """Replay ``case`` under every reading that decides otherwise on it, and every
    combination that interacts (see the module's docstring).

    Raises
    ------
    CaseError
        Probing the readings changed an answer of the reference's.
    """
    reference = _replay(case, frozenset())
    for k, (step, expect) in enumerate(zip(case.steps, reference.expects, strict=True)):
        if expect != dict(step.expect):
            raise CaseError(f"{case.id}, step {k + 1}: probing the readings changed {expect}")
    exploration = Exploration({frozenset(): reference}, 1)
    runs = exploration.runs
    # The reference's path: every reading that decides otherwise on it joins.
    frontier: list[tuple[frozenset[str], dict[str, int]]] = [
        (frozenset(), {name: reference.first(name) for name in reference.decisions})
    ]
    seen: set[frozenset[str]] = {frozenset()}
    while frontier:
        made, joining = frontier.pop(0)
        joining = {n: k for n, k in joining.items() if made | {n} not in seen}
        if not joining:
            continue
        if len(made) >= MAX_COMBINED:
            exploration.bounded += [made | {n} for n in joining]
            continue
        parent = runs[made]
        resumes = {name: _turn_before(case, k) for name, k in joining.items()}
        if any(resumes.values()) and not parent.sessions:
            # Replay the parent keeping its session where its children resume, when that
            # saves more steps than it costs.
            if sum(resumes.values()) > len(case.steps):
                parent = _replay(case, made, keep={k for k in resumes.values() if k})
                exploration.replays += 1
            else:
                resumes = dict.fromkeys(resumes, 0)
        for name in sorted(joining):
            combined = made | {name}
            seen.add(combined)
            run = _replay(case, combined, parent, resumes[name], joined=name)
            exploration.replays += 1
            # A reading that decided nothing otherwise leaves the answers of the rest.
            if all(member in run.decisions for member in combined):
                runs[combined] = run
                frontier.append((combined, _joining(run, combined, parent, reference)))
        parent.sessions.clear()
    return exploration


def _recorded(case: Case, exploration: Exploration) -> list[dict[str, dict[str, Any]]]:
    """Each step's alternatives: the answers the combinations give otherwise, smallest
    combinations first, leaving out an answer the recorded ones already explain with part of
    the combination."""
    found: list[dict[str, dict[str, Any]]] = [{} for _ in case.steps]
    order = sorted(exploration.runs, key=lambda made: (len(made), sorted(made)))
    for made in order:
        if not made:
            continue
        run = exploration.runs[made]
        for k, step in enumerate(case.steps):
            answer = run.expects[k]
            if answer == dict(step.expect):
                continue
            response = expectation_as_response(step.request, answer)
            explained = explanations(step.request, step.expect, found[k], response)
            if not any(set(readings) <= made for readings in explained):
                found[k][combination_key(made)] = answer
    return found


def _every_reading_at_once(
    case: Case, exploration: Exploration, found: list[dict[str, dict[str, Any]]]
) -> None:
    """Check that every answer the reference making every first reading gives otherwise is
    explained by the recorded ones; where it is not, find the combination that gives it
    (the readings that decided otherwise, each left out in turn while the answer stays)
    and record it."""
    everything = frozenset(ALTERNATIVES)
    run = _replay(case, everything)
    exploration.replays += 1
    for k, step in enumerate(case.steps):
        answer = run.expects[k]
        if answer == dict(step.expect):
            continue
        response = expectation_as_response(step.request, answer)
        if explanations(step.request, step.expect, found[k], response):
            continue
        made = frozenset(n for n, d in run.decisions.items() if n in everything and d[0][0] <= k)
        for name in sorted(made):
            smaller = made - {name}
            exploration.replays += 1
            if _replay(case, smaller).expects[k] == answer:
                made = smaller
        if len(made) > MAX_COMBINED:
            exploration.bounded.append(made)
            raise CaseError(
                f"{case.id}, step {k + 1}: every reading at once answers {answer}, which "
                f"needs {sorted(made)} together, more than {MAX_COMBINED}"
            )
        found[k][combination_key(made)] = answer


def with_alternatives(case: Case) -> Case:
    """``case`` with each step's ``alternatives`` (see the module's docstring).

    Raises
    ------
    CaseError
        Probing changed an answer, or every reading at once gives an answer no combination
        of at most :data:`MAX_COMBINED` readings explains.
    """
    return with_alternatives_all([case])[0]


def _turns(case: Case) -> tuple[str, ...]:
    return tuple(repr(step.request) for step in case.steps if step.request["cmd"] == "apply")


def _after_its_turns(case: Case) -> bool:
    """Whether every query of ``case`` comes after its last turn."""
    kinds = [step.request["cmd"] == "apply" for step in case.steps]
    return kinds == sorted(kinds, reverse=True)


def with_alternatives_all(cases: Sequence[Case]) -> list[Case]:
    """:func:`with_alternatives` of each of ``cases``.  Cases with the same start and turns,
    one of which asks its queries after its last turn only (a scenario's final state and
    its replay), are replayed as one: that one's queries join the other's end, and each
    answer goes back to its case."""
    done: dict[str, Case] = {}
    groups: dict[tuple[str, tuple[str, ...]], list[Case]] = {}
    for case in cases:
        groups.setdefault((repr(case.start()), _turns(case)), []).append(case)
    for group in groups.values():
        carrier = max(group, key=lambda c: (not _after_its_turns(c), len(c.steps)))
        riders = [c for c in group if c is not carrier and _after_its_turns(c)]
        for alone in (c for c in group if c is not carrier and c not in riders):
            done[alone.id] = _with_alternatives(alone)
        joined = dataclasses.replace(
            carrier,
            steps=carrier.steps
            + tuple(s for c in riders for s in c.steps if s.request["cmd"] != "apply"),
        )
        found = _with_alternatives(joined)
        done[carrier.id] = dataclasses.replace(carrier, steps=found.steps[: len(carrier.steps)])
        turns = [s for s in found.steps if s.request["cmd"] == "apply"]
        at = len(carrier.steps)
        for rider in riders:
            asked = len(rider.steps) - len(turns)
            answered = found.steps[at : at + asked]
            at += asked
            mine = [
                dataclasses.replace(step, alternatives=source.alternatives)
                for step, source in zip(rider.steps, [*turns, *answered], strict=True)
            ]
            done[rider.id] = dataclasses.replace(rider, steps=tuple(mine))
    return [done[case.id] for case in cases]


def _with_alternatives(case: Case) -> Case:
    try:
        with remembering():
            exploration = explore(case)
            found = _recorded(case, exploration)
            _every_reading_at_once(case, exploration, found)
    finally:
        _ANSWERS.clear()
    steps = tuple(
        dataclasses.replace(step, alternatives=dict(sorted(alternatives.items())))
        for step, alternatives in zip(case.steps, found, strict=True)
    )
    return dataclasses.replace(case, steps=steps)


def profile_counts(cases: Iterable[Case]) -> Mapping[str, int]:
    """Steps in each profile (a step no combination answers otherwise is the paper's)."""
    steps = [step for case in cases for step in case.steps]
    paper = sum(not step.alternatives for step in steps)
    return {"paper": paper, "reference": len(steps) - paper}
