"""Differential fuzzing: the reference and an implementation in lockstep.

Hypothesis generates conversations (turns of operations over the records the
reference holds so far, most of them valid, some breaking a precondition or
not well formed; with the ``epistemic`` feature, formulas on Observe,
Hypothesize and Question too, and questions about knowledge and belief).  Each
turn goes to both; after it, both are asked the state dump and Verify and
Affected* about every record, as far as the implementation's features allow.  The
strategies that draw the conversations are :mod:`gcv.conformance.fuzz_strategies`; this
module is the lockstep, the rounds and the shards.

The reference's side runs through the case builder, so every expectation is the
spec's too and carries the choices it depends on (:mod:`.cases.profile`): in the
``paper`` profile a step that depends on a choice is sent but not compared, so
only what the papers determine can be a finding.  A difference's *key* is the
clause and shape of what differed: for a turn, the clause of ``gcv.spec.transition``
that refused it (or the error the implementation gave) and the two outcomes; for
a query, the query and how the answers differ.  Fuzzing runs in rounds: each
round searches until it finds a difference of a key not yet found, which
Hypothesis shrinks; the next round ignores the keys found, so each distinct
finding is reported once, shrunk, and (``--save-vector``) saved as a case whose
requests are kept and whose expectations the generator recomputes.

Hypothesis is a test dependency; it is imported only when fuzzing is asked for.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import icontract
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from gcv.conformance.cases.blame import with_alternatives
from gcv.conformance.cases.builder import AS_REFERENCE, CaseBuilder, rederive
from gcv.conformance.compare import Mismatch, check
from gcv.conformance.fuzz_strategies import (
    AGENTS,
    ATOMS,
    EPISTEMIC_ATOMS,
    EPISTEMIC_PROBES,
    operations_over,
    turns_over,
    typed_operations_over,
)
from gcv.conformance.process import Fault, Implementation
from gcv.conformance.report import CaseResult, FuzzFinding, quoted
from gcv.conformance.statements import COR24, DEF21, DEF23, LEMMA21
from gcv.conformance.stopping import checkpoint, event
from gcv.conformance.vectors import (
    SUITE_VERSION,
    Case,
    Step,
    dump_vector_file,
    load_vector_file,
)
from gcv.spec.clauses import CHOSEN, CLAUSES, PAPER

__all__ = [
    "AGENTS",
    "ATOMS",
    "EPISTEMIC_ATOMS",
    "EPISTEMIC_PROBES",
    "MAX_ROUNDS",
    "FuzzShard",
    "ShardResult",
    "finding_key",
    "merge_finding",
    "operations_over",
    "run_shard",
    "save_finding",
    "save_findings",
    "turns_over",
    "typed_operations_over",
]

MAX_ROUNDS = 20
"""At most this many distinct findings are searched for (one round each)."""


class _Difference(Exception):
    """The implementation answered differently from the reference (or faulted) in a way
    whose key this round looks for."""


def _probes(
    builder: CaseBuilder, features: frozenset[str], epistemic: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The queries asked after each turn: the state dump, then Verify and Affected* (and
    standing, without the dump) about every record, as far as the implementation supports
    them, then the ``epistemic`` questions drawn for the turn."""
    assert builder.session.verifier is not None, "a conversation is open"
    probes: list[dict[str, Any]] = []
    if "query:state" in features:
        probes.append({"cmd": "query", "query": "state"})
    # Standing is in the state dump; asked on its own only when the dump is not declared.
    queries = ("verify", "affected_star") + (() if probes else ("standing",))
    for record in sorted(builder.session.verifier.state.records):
        for query in queries:
            if f"query:{query}" in features:
                probes.append({"cmd": "query", "query": query, "record": record})
    return probes + [q for q in epistemic if f"query:{q['query']}" in features]


def _expect(builder: CaseBuilder, request: Mapping[str, Any]) -> Step:
    """The reference's expectation for ``request``, checked against the spec, with the
    choices it depends on."""
    if request["cmd"] == "apply":
        builder.apply(request["speaker"], *request["operations"], rejected=AS_REFERENCE)
    else:
        arguments = {k: v for k, v in request.items() if k not in ("cmd", "query")}
        builder.query(request["query"], error=AS_REFERENCE, **arguments)
    return builder.steps[-1]


def _outcome(request: Mapping[str, Any], response: Mapping[str, Any]) -> str:
    """A turn's outcome, with the kind of the operation a refusal names."""
    if response.get("accepted") or response.get("ok") is True:
        return "accepted"
    error = response.get("error", {})
    code = error.get("code") if isinstance(error, Mapping) else response.get("rejected")
    index = error.get("operation_index") if isinstance(error, Mapping) else None
    operations = request.get("operations", [])
    kind = ""
    if isinstance(index, int) and 0 <= index < len(operations):
        kind = f" at {operations[index].get('op')}"
    return f"rejected {code or response.get('rejected')}{kind}"


def finding_key(
    request: Mapping[str, Any], step: Step, response: Any, mismatch: Mismatch, refused: str
) -> str:
    """What a difference is, for deduplication: its clause and its shape.

    A turn: the clause of ``gcv.spec.transition`` that refused it (``refused``, when the
    reference refused it) and both outcomes; a query: the query and the reason its answers
    differ; a fault: its kind.
    """
    if response is None:
        return f"fault: {mismatch.reason.split(':', 1)[0]}"
    if request["cmd"] == "apply":
        expected = (
            "accepted" if "accepted" in step.expect else f"rejected {step.expect['rejected']}"
        )
        clause = f" [{refused}]" if refused else ""
        return f"apply: expected {expected}{clause}, got {_outcome(request, response)}"
    return f"{request['query']}: {mismatch.reason}"


@dataclass(frozen=True, slots=True)
class _Found:
    key: str
    trace: tuple[dict[str, Any], ...]
    result: CaseResult
    response: Any = None
    """The implementation's response to the last request (None: a fault)."""


class _Lockstep:
    """One fuzzing run: the example function Hypothesis calls, and what it found.

    ``known`` are the keys found in earlier rounds: a difference of one of them is not
    raised (a query's difference lets the conversation go on; a turn's ends it, the two
    states having parted).  The first new key a round meets is its ``target``: only that
    key fails an example, so Hypothesis shrinks towards that finding and no other.
    """

    def __init__(
        self, impl: Implementation, max_turns: int, profile: str, ignore: frozenset[str]
    ) -> None:
        self.impl = impl
        self.max_turns = max_turns
        self.profile = profile
        self.ignore = ignore
        self.known: set[str] = set()
        self.target: str | None = None
        self.found: _Found | None = None
        self.requests = 0
        self.uncompared = 0
        self.not_generated = 0
        self.repeats = 0
        self.met: Counter[str] = Counter()
        """How many times each key found was met again."""
        self.last_trace: list[dict[str, Any]] = []  # the conversation under way, or the last

    def _features(self) -> frozenset[str]:
        return self.impl.handshake.features if self.impl.handshake else frozenset()

    def _compared(self, step: Step) -> bool:
        """Whether the step's answer is judged: in the paper profile only steps that depend
        on no choice; never a step that depends on an ignored clause."""
        if self.ignore & set(step.choices):
            return False
        return self.profile == "reference" or not step.choices

    def _generated(self, builder: CaseBuilder, turn: dict[str, Any]) -> dict[str, Any] | None:
        """The turn to send for the drawn ``turn``: in the paper profile, not one that
        exercises a choice whose alternative could change the outcome (every later step
        would depend on it): then its first operation alone, if that makes no such choice,
        else none."""
        if self.profile == "reference":
            return turn
        for candidate in (turn, {**turn, "operations": turn["operations"][:1]}):
            _, clauses = builder.spec.dry_run(candidate)
            if not any(
                CLAUSES[c].source == CHOSEN and CLAUSES[c].affects == "outcome"
                for c in clauses - self.ignore
            ):
                return candidate
        return None

    def _step(
        self, builder: CaseBuilder, trace: list[dict[str, Any]], request: dict[str, Any]
    ) -> bool:
        """Send ``request`` to both; whether the conversation can go on."""
        event("fuzz step")
        refused = builder.spec.dry_run(request)[0] if request["cmd"] == "apply" else ""
        trace.append(request)
        step = _expect(builder, request)
        try:
            if not self.impl.alive:
                self.impl.restart()
            self.requests += 1
            response = self.impl.request(request)
        except Fault as fault:
            reason = f"{fault.kind}: {fault}"
            self._differs(trace, step, None, Mismatch(reason, "a response", ""), "")
            return False
        if not self._compared(step):
            self.uncompared += 1
            return True
        mismatch = check(request, step.expect, response)
        if mismatch is None:
            return True
        self._differs(trace, step, response, mismatch, refused)
        return bool(request["cmd"] != "apply")

    def _differs(
        self,
        trace: list[dict[str, Any]],
        step: Step,
        response: Any,
        mismatch: Mismatch,
        refused: str,
    ) -> None:
        """Raise :class:`_Difference` if the difference is this round's finding."""
        request = trace[-1]
        key = finding_key(request, step, response, mismatch, refused)
        if refused in self.ignore:
            return
        if key in self.known:
            self.repeats += 1
            self.met[key] += 1
            return
        if self.target is None:
            self.target = key
        if key != self.target:
            return
        stderr = self.impl.take_stderr(settle=0.05 if response is None else 0.0)
        result = CaseResult(
            id="fuzz",
            status="fail" if response is not None else "error",
            reason=mismatch.reason,
            step=len(trace),
            steps=len(trace),
            steps_run=len(trace),
            request=dict(request),
            response=quoted(response),
            expected=mismatch.expected,
            got=mismatch.got if response is None else "",
            diff=mismatch.diff,
            stderr=stderr,
            failed_steps=(len(trace),),
            # The fuzzer compares by the steps' tags (a generated step has no alternatives).
            paper_failed_steps=() if step.choices else (len(trace),),
        )
        self.found = _Found(key, tuple(trace), result, response)
        raise _Difference(key)

    def conversation(self, data: st.DataObject) -> None:
        """One example: a conversation of up to ``max_turns`` turns, in lockstep."""
        event("fuzz shrinking" if self.target is not None else "fuzz example")
        features = self._features()
        epistemic = "epistemic" in features
        atoms = EPISTEMIC_ATOMS if epistemic else ATOMS
        builder = CaseBuilder("fuzz", "fuzz", [DEF21], agents=AGENTS, atoms=atoms)
        start = {"cmd": "start", "agents": list(AGENTS), "atoms": list(atoms)}
        try:
            if not self.impl.alive:
                self.impl.restart()
            started = self.impl.request(start)
        except Fault as fault:
            raise _Unusable(f"start: {fault.kind}: {fault}") from None
        if not started["ok"]:
            raise _Unusable(f"start was refused: {started['error']}")
        assert builder.session.verifier is not None, "started"
        trace: list[dict[str, Any]] = []
        self.last_trace = trace
        for _ in range(data.draw(st.integers(1, self.max_turns), label="turns")):
            existing = tuple(sorted(builder.session.verifier.state.records))
            turn = data.draw(turns_over(existing, epistemic), label="turn")
            asked = data.draw(st.lists(EPISTEMIC_PROBES, max_size=2) if epistemic else st.just([]))
            sent = self._generated(builder, turn)
            self.not_generated += sent is not turn
            if sent is None:
                continue
            if not self._step(builder, trace, sent):
                return
            for probe in _probes(builder, features, asked):
                if not self._step(builder, trace, probe):
                    return


def _kind(found: _Found) -> str:
    """The kind of a difference: a turn's two outcomes, an answer, a fault."""
    if found.key.startswith("apply: "):
        return re.sub(r" \[[^\]]*\]", "", found.key)  # the clause that refused it aside
    if found.key.startswith(("fault: ", "hypothesis: ")):
        return found.key
    return "an answer differs"


def _cause(found: _Found, atoms: Sequence[str], profile: str) -> str:
    """A finding's cause, for deduplication: its kind, and the readings of the reference's
    choices that explain it (in the reference profile) or else the paper clauses its
    shrunk conversation's turns exercise."""
    kind = _kind(found)
    if found.key.startswith("hypothesis: "):
        return kind
    builder = CaseBuilder("fuzz", "fuzz", [DEF21], agents=AGENTS, atoms=atoms)
    clauses: set[str] = set()
    for request in found.trace:
        if request["cmd"] == "apply":
            clauses |= builder.spec.dry_run(request)[1]
        _expect(builder, request)
    if profile == "reference" and found.response is not None:
        explained = with_alternatives(builder.build()).steps[-1].explained_by(found.response)
        if explained:
            return f"{kind} [choices: {', '.join(explained[0])}]"
    paper = sorted(c for c in clauses if CLAUSES[c].source == PAPER)
    return f"{kind} [{', '.join(paper)}]"


class _Unusable(Exception):
    """The implementation cannot start a conversation: fuzzing cannot go on."""


def _minimal_case(finding: FuzzFinding, seed: int, against: str, atoms: Sequence[str]) -> Case:
    """The shrunk trace as a case: its turns, then the request that differed."""
    trace = finding.trace
    kept = [r for r in trace[:-1] if r["cmd"] == "apply"] + [trace[-1]]
    last = trace[-1]
    statements = {
        "verify": [LEMMA21],
        "affected_star": [DEF23, COR24],
    }.get(str(last.get("query")), [DEF21])
    draft = Case(
        id=f"findings/fuzz/seed-{seed}",
        description=f"Differential fuzzing (seed {seed}) found {against} answering this "
        f"conversation differently from the reference ({finding.keys[0]}); shrunk by Hypothesis.",
        statements=tuple(statements),
        features=("core",),
        tags=("fuzz",),
        added_in=SUITE_VERSION,
        origin={"kind": "fuzz", "seed": seed, "examples": finding.examples, "against": against},
        agents=AGENTS,
        atoms=tuple(atoms),
        steps=tuple(Step(dict(r), {"accepted": True}) for r in kept),
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


def _round(lockstep: _Lockstep, examples: int, seed: int) -> None:
    """One round: search ``examples`` conversations for a new finding, and shrink it."""
    lockstep.target = lockstep.found = None
    run = hypothesis_seed(seed)(
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
    try:
        run()
    except _Unusable:
        raise
    except Exception as error:  # the difference itself, or Hypothesis's wrapping of a flaky one
        if lockstep.found is None:
            # A state of Hypothesis's own (Flaky*: the implementation answered a replayed
            # conversation otherwise) is a finding about the run, never a traceback.
            lockstep.found = _hypothesis_state(error, lockstep.last_trace)


def _hypothesis_state(error: Exception, trace: Sequence[dict[str, Any]]) -> _Found:
    """A finding for a round that ended in Hypothesis's own error, keyed by its type."""
    name = type(error).__name__
    message = " ".join(str(error).split())[:300]
    result = CaseResult(
        f"fuzz/{name}", "fail", reason=f"Hypothesis: {name}: {message}", steps_run=len(trace)
    )
    return _Found(f"hypothesis: {name}", tuple(trace), result)


@dataclass(frozen=True, slots=True)
class FuzzShard:
    """One shard of a fuzzing run: everything a task needs to run it on any machine.

    Its rounds use the seeds ``seed``, ``seed + 1``, ... (at most :data:`MAX_ROUNDS`), so
    the seed depends on the run's seed and the shard's index alone
    (:func:`gcv.conformance.fuzz_campaign.shards_of`), never on where or when it runs.
    """

    index: int
    examples: int
    seed: int
    command: tuple[str, ...]
    max_turns: int
    profile: str = "paper"
    ignore: tuple[str, ...] = ()
    timeout: float = 10.0
    start_timeout: float = 30.0
    deadline: float | None = None
    """The run's deadline as a ``time.time()`` value (clocks of one cluster agree on it)."""


@dataclass(frozen=True, slots=True)
class ShardResult:
    """What a shard found: each distinct cause once (its shortest example, how many times
    it was met), in the order found, and the shard's totals."""

    index: int
    findings: tuple[FuzzFinding, ...] = ()
    rounds: int = 0
    requests: int = 0
    uncompared: int = 0
    not_generated: int = 0
    repeats: int = 0
    unusable: str = ""
    """Why the implementation could not be used in this shard (its findings stop there)."""


@icontract.ensure(
    lambda findings: len({f.key for f in findings}) == len(findings), "each cause once"
)
def merge_finding(findings: list[FuzzFinding], finding: FuzzFinding) -> None:
    """Add ``finding`` to ``findings``, once per cause (its ``key``): a cause met again
    gains the keys it was met as and its count, and the shortest example stands for it
    (the earlier one on a tie)."""
    same = next((f for f in findings if f.key == finding.key), None)
    if same is None:
        findings.append(finding)
        return
    keys = (*same.keys, *(k for k in finding.keys if k not in same.keys))
    merged = dataclasses.replace(same, keys=keys, count=same.count + finding.count)
    if len(finding.trace) < len(same.trace):
        merged = dataclasses.replace(merged, mismatch=finding.mismatch, trace=finding.trace)
    findings[findings.index(same)] = merged


@icontract.ensure(
    lambda result: len({f.key for f in result.findings}) == len(result.findings),
    "each cause once",
)
def run_shard(shard: FuzzShard) -> ShardResult:
    """Start a copy of the implementation, fuzz it for ``shard``'s rounds, and end it.

    Rounds of ``shard.examples`` conversations each run until one finds no new key (or
    :data:`MAX_ROUNDS` findings); in the ``paper`` profile only steps that depend on no
    choice are compared; steps that depend on a clause in ``ignore``, and turns refused by
    one, never are.  A signal (:class:`~gcv.conformance.stopping.Interrupted`) ends the
    implementation and goes on up.
    """
    impl = Implementation(shard.command, timeout=shard.timeout, start_timeout=shard.start_timeout)
    if shard.deadline is not None:
        impl.deadline = time.monotonic() + (shard.deadline - time.time())
    try:
        try:
            impl.start()
        except Fault as fault:
            return ShardResult(shard.index, unusable=f"{fault.kind}: {fault}")
        return _fuzz(impl, shard)
    except BaseException:
        impl.kill()  # at once: a shutdown request could wait behind a hung one
        raise
    finally:
        impl.close()


def _fuzz(impl: Implementation, shard: FuzzShard) -> ShardResult:
    """The rounds of ``shard`` against the started ``impl``."""
    assert impl.handshake is not None, "started"
    lockstep = _Lockstep(impl, shard.max_turns, shard.profile, frozenset(shard.ignore))
    atoms = EPISTEMIC_ATOMS if "epistemic" in impl.handshake.features else ATOMS
    findings: list[FuzzFinding] = []
    unusable = ""
    rounds = 0
    for number in range(MAX_ROUNDS):
        event(f"fuzz round {shard.index}.{number + 1}")
        try:
            _round(lockstep, shard.examples, shard.seed + number)
        except _Unusable as error:
            unusable = str(error)
            break
        checkpoint()  # a signal Hypothesis caught during the round stops the shard here
        rounds = number + 1
        found = lockstep.found
        if found is None:
            break
        lockstep.known.add(found.key)
        cause = _cause(found, atoms, shard.profile)
        seed = shard.seed + number
        finding = FuzzFinding(
            seed, shard.examples, found.result, found.trace, "", cause, (found.key,)
        )
        merge_finding(findings, finding)
    counted = tuple(
        dataclasses.replace(f, count=sum(1 + lockstep.met[k] for k in f.keys)) for f in findings
    )
    return ShardResult(
        shard.index,
        counted,
        rounds,
        lockstep.requests,
        lockstep.uncompared,
        lockstep.not_generated,
        lockstep.repeats,
        unusable,
    )


def save_findings(
    findings: Sequence[FuzzFinding], path: Path, seed: int, against: str, features: Collection[str]
) -> list[FuzzFinding]:
    """Append each finding's shortest example to the vector file at ``path`` as a case
    (:func:`save_finding`); the findings, each naming where it was saved."""
    atoms = EPISTEMIC_ATOMS if "epistemic" in features else ATOMS
    saved = []
    for finding in findings:
        if finding.key.startswith("hypothesis: "):  # a state of the run, not a conversation
            saved.append(finding)
            continue
        case = _minimal_case(finding, seed, against, atoms)
        where = f"{path} ({save_finding(case, path)})"
        saved.append(dataclasses.replace(finding, saved_as=where))
    return saved
