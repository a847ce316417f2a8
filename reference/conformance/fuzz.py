"""Differential fuzzing: the reference and an implementation in lockstep.

Hypothesis generates conversations (turns of operations over the records the
reference holds so far, most of them valid, some breaking a precondition or
not well formed).  Each turn goes to both; after it, both are asked the state
dump and Verify and Affected* about every record, as far as the
implementation's features allow.  The first answer that differs from the
reference's (compared as the vectors compare) fails the example, Hypothesis
shrinks it to a minimal conversation, and the report prints it with the seed
that reproduces the run; ``--save-vector`` appends it to a vector file as a
case whose requests are kept and whose expectations the generator recomputes.

Hypothesis is a test dependency; it is imported only when fuzzing is asked for.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NoReturn

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from reference.conformance.cases.builder import rederive
from reference.conformance.compare import check
from reference.conformance.process import Fault, Implementation
from reference.conformance.report import CaseResult, FuzzFinding, RunReport
from reference.conformance.session import Session
from reference.conformance.statements import COR24, DEF21, DEF23, LEMMA21
from reference.conformance.vectors import (
    SUITE_VERSION,
    Case,
    Step,
    dump_vector_file,
    load_vector_file,
)
from reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
)
from reference.trace import operation_to_json

__all__ = [
    "AGENTS",
    "ATOMS",
    "fuzz_report",
    "operations_over",
    "save_finding",
    "turns_over",
    "typed_operations_over",
]

AGENTS = ("a", "b", "c")
ATOMS = ("p",)
_CLAIMS = st.sampled_from(["p", "q", "the token bug"])
_AGENT_LISTS = st.lists(st.sampled_from(AGENTS), max_size=2, unique=True).map(tuple)

# Schema-valid operations that are not well formed (malformed-operation), drawn rarely.
_ILL_FORMED = st.sampled_from(
    [
        {"op": "resolve", "target": "n0_0", "dissenters": ["b"]},
        {"op": "resolve", "target": "n0_0", "premises": ["n0_1"]},
        {"op": "support", "target": "n0_0", "evidence": "n0_1", "evidence_depends_on": ["n0_2"]},
        {"op": "observe", "id": "n9_9", "claim": " "},
    ]
)


@lru_cache(maxsize=512)
def typed_operations_over(existing: tuple[str, ...]) -> st.SearchStrategy[Operation]:
    """Well-formed operations that mostly cite ``existing`` records and mostly register fresh
    ones, so conversations grow real maps (cycles included) while still breaking
    preconditions."""
    fresh = st.sampled_from([f"n{len(existing)}_{k}" for k in range(4)])
    if not existing:
        return st.builds(Observe, id=fresh, claim=_CLAIMS)
    cited = st.sampled_from((*existing * 10, "ghost"))
    new = st.one_of(*[fresh] * 6, st.sampled_from(existing))
    cited_tuple = st.lists(cited, max_size=3, unique=True).map(tuple)
    evidence = [
        st.builds(
            cls, target=cited, evidence=new, evidence_claim=_CLAIMS, evidence_depends_on=cited_tuple
        )
        for cls in (Support, Undermine)
    ] + [st.builds(cls, target=cited, evidence=cited) for cls in (Support, Undermine)]
    # A hypothesis resting on one existing record is weighted up: chains of them are where
    # one-step and transitive answers part.
    chain = st.builds(Hypothesize, id=fresh, claim=_CLAIMS, depends_on=cited.map(lambda r: (r,)))
    return st.one_of(
        chain,
        chain,
        st.builds(Observe, id=new, claim=_CLAIMS, depends_on=cited_tuple),
        st.builds(Hypothesize, id=new, claim=_CLAIMS, depends_on=cited_tuple),
        *evidence,
        st.builds(Revise, target=cited, attackers=cited_tuple),
        st.builds(Resolve, target=cited, subsumes=cited_tuple),
        st.builds(
            Resolve,
            target=cited,
            subsumes=cited_tuple,
            authoritative=st.just(True),
            premises=cited_tuple,
            dissenters=_AGENT_LISTS,
        ),
        st.builds(ExpandAwareness, atom=st.sampled_from(["p", "q", "r"]), agents=_AGENT_LISTS),
        st.builds(Question, id=new, claim=_CLAIMS, depends_on=cited_tuple),
    )


@lru_cache(maxsize=512)
def operations_over(existing: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """The JSON form of :func:`typed_operations_over`, with a few schema-valid operations
    that are not well formed drawn rarely."""
    well_formed = typed_operations_over(existing).map(operation_to_json)
    if not existing:
        return well_formed
    return st.one_of(*[well_formed] * 30, _ILL_FORMED)


@lru_cache(maxsize=512)
def turns_over(existing: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``apply`` requests (without id) of one to three operations over ``existing`` records;
    now and then the speaker is not in Ags."""
    return st.fixed_dictionaries(
        {
            "cmd": st.just("apply"),
            "speaker": st.sampled_from((*AGENTS * 10, "zz")),
            "operations": st.lists(operations_over(existing), min_size=1, max_size=3),
        }
    )


class _Difference(Exception):
    """The implementation answered differently from the reference (or faulted)."""


def _probes(session: Session, features: frozenset[str]) -> list[dict[str, Any]]:
    """The queries asked after each turn: the state dump, then Verify and Affected* (and
    standing, without the dump) about every record, as far as the implementation supports
    them."""
    assert session.verifier is not None, "a conversation is open"
    probes: list[dict[str, Any]] = []
    if "query:state" in features:
        probes.append({"cmd": "query", "query": "state"})
    # Standing is in the state dump; asked on its own only when the dump is not declared.
    queries = ("verify", "affected_star") + (() if probes else ("standing",))
    for record in sorted(session.verifier.state.records):
        for query in queries:
            if f"query:{query}" in features:
                probes.append({"cmd": "query", "query": query, "record": record})
    return probes


class _Lockstep:
    """One fuzzing run: the example function Hypothesis calls, and what it found."""

    def __init__(self, impl: Implementation, max_turns: int) -> None:
        self.impl = impl
        self.max_turns = max_turns
        self.found: tuple[list[dict[str, Any]], CaseResult] | None = None
        self.requests = 0

    def _features(self) -> frozenset[str]:
        return self.impl.handshake.features if self.impl.handshake else frozenset()

    def _step(
        self, reference: Session, trace: list[dict[str, Any]], request: dict[str, Any]
    ) -> None:
        trace.append(request)
        _, expect = reference.expect({"id": 0, **request})
        try:
            if not self.impl.alive:
                self.impl.restart()
            self.requests += 1
            response = self.impl.request(request)
        except Fault as fault:
            self._differs(trace, request, None, f"{fault.kind}: {fault}", "", "")
        mismatch = check(request, expect, response)
        if mismatch is not None:
            m = mismatch
            self._differs(trace, request, response, m.reason, m.expected, m.diff, m.got)

    def _differs(
        self,
        trace: list[dict[str, Any]],
        request: Mapping[str, Any],
        response: Any,
        reason: str,
        expected: str,
        diff: str,
        got: str = "",
    ) -> NoReturn:
        stderr = self.impl.take_stderr(settle=0.05 if response is None else 0.0)
        result = CaseResult(
            id="fuzz",
            status="fail" if response is not None else "error",
            reason=reason,
            step=len(trace) - 1,
            steps=len(trace) - 1,
            steps_run=len(trace) - 1,
            request=dict(request),
            response=response,
            expected=expected,
            got=got,
            diff=diff,
            stderr=stderr,
        )
        self.found = (list(trace), result)
        raise _Difference(reason)

    def conversation(self, data: st.DataObject) -> None:
        """One example: a conversation of up to ``max_turns`` turns, in lockstep."""
        features = self._features()
        reference = Session()
        start = {"cmd": "start", "agents": list(AGENTS), "atoms": list(ATOMS)}
        trace: list[dict[str, Any]] = []
        reference.handle({"id": 0, **start})
        try:
            if not self.impl.alive:
                self.impl.restart()
            started = self.impl.request(start)
        except Fault as fault:
            self._differs([start], start, None, f"{fault.kind}: {fault}", "accepted", "")
        if not started["ok"]:
            self._differs([start], start, started, "start was refused", "accepted", "")
        assert reference.verifier is not None, "started"
        for _ in range(data.draw(st.integers(1, self.max_turns), label="turns")):
            existing = tuple(sorted(reference.verifier.state.records))
            self._step(reference, trace, data.draw(turns_over(existing), label="turn"))
            for probe in _probes(reference, features):
                self._step(reference, trace, probe)


def _minimal_case(
    trace: Sequence[Mapping[str, Any]], seed: int, against: str, examples: int
) -> Case:
    """The shrunk trace as a case: its turns, then the query that differed."""
    kept = [r for r in trace[:-1] if r["cmd"] == "apply"] + [trace[-1]]
    last = trace[-1]
    statements = {
        "verify": [LEMMA21],
        "affected_star": [DEF23, COR24],
    }.get(str(last.get("query")), [DEF21])
    draft = Case(
        id=f"findings/fuzz/seed-{seed}",
        description=f"Differential fuzzing (seed {seed}) found {against} answering this "
        "conversation differently from the reference; shrunk by Hypothesis.",
        statements=tuple(statements),
        features=("core",),
        tags=("fuzz",),
        added_in=SUITE_VERSION,
        origin={"kind": "fuzz", "seed": seed, "examples": examples, "against": against},
        agents=AGENTS,
        atoms=ATOMS,
        steps=tuple(Step(r, {"accepted": True}) for r in kept),
    )
    return rederive(draft)


def save_finding(case: Case, path: Path) -> str:
    """Append ``case`` to the vector file at ``path`` (created if missing); return its id."""
    existing = list(load_vector_file(path.read_bytes(), str(path))) if path.is_file() else []
    taken = {c.id for c in existing}
    case_id, n = case.id, 1
    while case_id in taken:
        n += 1
        case_id = f"{case.id}-{n}"
    fields = {name: getattr(case, name) for name in Case.__slots__}
    saved = Case(**(fields | {"id": case_id}))
    description = "Shrunk mismatches found by differential fuzzing."
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_vector_file([*existing, saved], description), encoding="utf-8")
    return case_id


def fuzz_report(
    impl: Implementation,
    examples: int,
    seed: int | None,
    max_turns: int,
    save_to: str | None = None,
) -> RunReport:
    """Fuzz a started implementation against the reference; report the shrunk mismatch."""
    assert impl.handshake is not None, "start the implementation first"
    chosen = seed if seed is not None else random.SystemRandom().randrange(2**32)
    lockstep = _Lockstep(impl, max_turns)
    run = hypothesis_seed(chosen)(
        settings(
            max_examples=examples,
            database=None,
            deadline=None,
            derandomize=False,
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
            verbosity=Verbosity.quiet,
            phases=(Phase.generate, Phase.shrink),
        )(given(st.data())(lockstep.conversation))
    )
    report = RunReport(dict(impl.handshake.raw), SUITE_VERSION, 0, fuzz_examples=examples)
    started = time.perf_counter()
    try:
        run()
    except Exception:  # the difference itself, or Hypothesis's wrapping of a flaky one
        if lockstep.found is None:
            raise
    report.seconds = time.perf_counter() - started
    report.fuzz_requests = lockstep.requests
    finding = FuzzFinding(chosen, examples, None)
    if lockstep.found is not None:
        trace, result = lockstep.found
        against = f"{impl.handshake.name} {impl.handshake.version}"
        saved = ""
        if save_to:
            saved = save_finding(_minimal_case(trace, chosen, against, examples), Path(save_to))
            saved = f"{save_to} ({saved})"
        finding = FuzzFinding(chosen, examples, result, tuple(trace), saved)
    report.fuzz = finding
    return report
