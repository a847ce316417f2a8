"""Write a case by running it: the builder drives the reference and records each step.

A case function calls :meth:`CaseBuilder.apply` and :meth:`CaseBuilder.query`;
the builder sends each request to an in-process
:class:`~gcv.conformance.session.Session` and records the outcome as the
step's expectation.  Three checks keep that honest:

- what the case *states* (``rejected=...``, ``equals=...``) must be what the
  reference answers, or building fails;
- every grounding and retraction answer is recomputed from the definitions in
  ``gcv.spec.core`` (Dep*, S_t, Affected, Affected*) and must agree, and Lemma 2.2
  must hold after every turn;
- every turn is recomputed by the spec transition (``gcv.spec.transition``): it
  must accept what the reference accepts, leaving the same D_t (M_t and its
  problem queue included), and refuse what the reference refuses, with the same
  code at the same operation; every epistemic answer is recomputed on the
  spec's model (:mod:`.oracle`; beyond the brute force's size bound by
  ``gcv.oracles.epistemic_bits``, and ``gcv vectors`` counts those).

So a vector records the reference's answer only where the reference and the
spec agree.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx

from gcv.conformance.cases.oracle import TALLY, SpecModel, is_epistemic_operation
from gcv.conformance.cases.profile import ChoiceHistory, labelled_by
from gcv.conformance.compare import canonical_worlds
from gcv.conformance.protocol import feature_of
from gcv.conformance.session import Session
from gcv.conformance.vectors import FIRST_SUITE_VERSION, Case, Step
from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic.formula import parse, show
from gcv.reference.errors import MalformedFormula
from gcv.reference.operations import Operation
from gcv.spec import core
from gcv.trace import EPISTEMIC_QUERIES, operation_to_json
from gcv.translate import declared_model, spec_map

__all__ = ["AS_REFERENCE", "HAND_WRITTEN", "SURVEY", "CaseBuilder", "CaseError", "rederive"]

SURVEY: tuple[str, ...] = ("standing", "verify", "affected_star")
"""What a survey asks about every record by default: st_t, the Verify walk and Affected*."""

HAND_WRITTEN: Mapping[str, Any] = {"kind": "hand-written"}

_UNSET: Any = object()

AS_REFERENCE: Any = object()
"""A stated outcome meaning "whatever the reference gives" (requests are the source)."""


class CaseError(AssertionError):
    """A case states an outcome the reference does not give, or reference and spec disagree."""


def _has_cycle(d: core.DependencyMap) -> bool:
    """Whether some argument has a non-empty Dep path to itself (Corollary 2.4's
    has_dependency_path(a, a)), found in linear time: the spec's naive closure, run for
    every argument after every turn, made the 40-layer lattice cost two minutes."""
    return not nx.is_directed_acyclic_graph(nx.DiGraph(list(d.dep)))


def _spec_result(d: core.DependencyMap, request: Mapping[str, Any]) -> Any:
    """The spec's answer to a grounding or retraction query, as an expectation's result."""
    query, record = request["query"], request.get("record")
    if query == "verify":
        if record is None or record not in d.args:
            return {"grounded": False, "witnesses": []}
        closure = core.compute_dependency_closure(d, record)
        if not core.is_grounded(d, record):
            return {"grounded": False, "witnesses": sorted(closure - core.get_active_set(d))}
        return {"grounded": True, "closure": sorted(closure)}
    assert isinstance(record, str), "the schema requires a record"
    if query == "affected":
        return sorted(core.compute_affected(d, record))
    star = core.compute_affected_star(d, record)
    if query == "affected_star_active":
        return sorted(star & core.get_active_set(d))
    return sorted(star)


_SPEC_QUERIES = frozenset({"verify", "affected", "affected_star", "affected_star_active"})


class CaseBuilder:
    """Build one case by running it against the reference.

    Parameters
    ----------
    case_id, description, statements:
        The case's permanent id, what it shows, and the paper statements it exercises.
    agents, atoms:
        Ags and Prop_0 of the conversation the case starts.
    tags, origin, added_in:
        Descriptive tags (``accept``, ``reject`` and ``cycle`` are added when they apply),
        where the case comes from, and the suite version that added it (default: the
        first suite; a case added later states its version).
    model:
        M_0 as ``start`` declares it (the trace format's ``model``), or ``None``.
    """

    def __init__(
        self,
        case_id: str,
        description: str,
        statements: Sequence[str],
        *,
        agents: Sequence[str] = ("a", "b", "c"),
        atoms: Sequence[str] = ("p",),
        tags: Sequence[str] = (),
        origin: Mapping[str, Any] = HAND_WRITTEN,
        added_in: str = FIRST_SUITE_VERSION,
        model: Mapping[str, Any] | None = None,
    ) -> None:
        self.id = case_id
        self.description = description
        self.statements = tuple(statements)
        self.agents = tuple(agents)
        self.atoms = tuple(atoms)
        self.tags = set(tags)
        self.origin = origin
        self.added_in = added_in
        self.model = None if model is None else dict(model)
        self.session = Session()
        self.steps: list[Step] = []
        self._requests = 0
        self._cycle = False
        # The spec transition's D_t, beside the reference's from the first turn on.
        declared = None if model is None else declared_model(agents, atoms, model)
        self.spec = SpecModel(agents, atoms, declared)
        self.choices = ChoiceHistory()
        self._epistemic = model is not None
        start: dict[str, Any] = {"id": 0, "cmd": "start", "agents": list(agents)}
        start["atoms"] = list(atoms)
        if model is not None:
            start["model"] = dict(model)
        started = self.session.handle(start)
        if not started["ok"]:
            raise self._fail(f"the conversation cannot start: {started}")

    def fork(self, case_id: str, description: str, statements: Sequence[str]) -> CaseBuilder:
        """A builder of another case of the same conversation, as far as it has gone: its
        turns (their steps, without the queries between them), the reference's state and the
        spec's, copied; so the turns are not run and recomputed twice."""
        other = copy.copy(self)
        other.id, other.description, other.statements = case_id, description, tuple(statements)
        other.tags = set(self.tags)
        other.session = copy.deepcopy(self.session)
        other.spec = copy.copy(self.spec)  # its models are values, shared
        other.spec.state = self.spec.state.copy()
        other.choices = copy.deepcopy(self.choices)
        other.steps = [step for step in self.steps if step.request["cmd"] == "apply"]
        other._epistemic = self.model is not None or any(
            is_epistemic_operation(op) for step in other.steps for op in step.request["operations"]
        )
        return other

    def _state(self) -> DependencyMap:
        assert self.session.verifier is not None, "a case always has a conversation"
        return self.session.verifier.state

    def _fail(self, detail: str) -> CaseError:
        return CaseError(f"{self.id}, step {len(self.steps) + 1}: {detail}")

    def _send(self, request: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        self._requests += 1
        return self.session.expect({"id": self._requests, **request})

    def _record(
        self,
        request: Mapping[str, Any],
        expect: Mapping[str, Any],
        note: str,
        choices: tuple[str, ...] = (),
    ) -> None:
        self.steps.append(Step(dict(request), dict(expect), note, choices))

    # -- steps -----------------------------------------------------------------

    def apply(
        self,
        speaker: str,
        *operations: Operation | Mapping[str, Any],
        rejected: str | None = None,
        field: str | None = None,
        note: str = "",
    ) -> None:
        """A turn; it must be accepted, or rejected with ``rejected`` (and at ``field``)."""
        encoded = [
            dict(op) if isinstance(op, Mapping) else operation_to_json(op) for op in operations
        ]
        request = {"cmd": "apply", "speaker": speaker, "operations": encoded}
        self._epistemic = self._epistemic or any(is_epistemic_operation(op) for op in encoded)
        response, expect = self._send(request)
        wanted = {"accepted": True} if rejected is None else {"rejected": rejected}
        if rejected is not AS_REFERENCE and expect != wanted:
            raise self._fail(f"the case states {wanted}, the reference gives {response}")
        if not response["ok"]:
            error = response["error"]
            if field is not None and error.get("field") != field:
                raise self._fail(f"rejected at field {error.get('field')!r}, not {field!r}")
            labels = {"operation_index": "operation", "field": "field", "record": "record"}
            where = [f"{label} {error[k]}" for k, label in labels.items() if k in error]
            note = note or "reference: " + ", ".join(where)
        d = spec_map(self._state())
        if not core.is_conflict_free_map(d):
            raise self._fail("Lemma 2.2 fails: an argument of S_t is attacked")
        self._cycle = self._cycle or _has_cycle(d)
        clauses = self._spec_turn(speaker, encoded, response)
        on_model = self._epistemic and (
            any(is_epistemic_operation(op) for op in encoded) or self._cites_a_formula(encoded)
        )
        choices = self.choices.turn(clauses, on_model=on_model, labelled=labelled_by(encoded))
        self._record(request, expect, note, choices)

    def _cites_a_formula(self, operations: list[dict[str, Any]]) -> bool:
        records = self.spec.state.records
        return any(
            op.get("target") in records and records[op["target"]].formula is not None
            for op in operations
        )

    def _spec_turn(
        self, speaker: str, operations: list[dict[str, Any]], response: Mapping[str, Any]
    ) -> frozenset[str]:
        """The spec transition's verdict on the turn; the clauses it exercised."""
        assert self.session.verifier is not None, "a case always has a conversation"
        try:
            if response["ok"]:
                return self.spec.accepted(speaker, operations, self.session.verifier.state)
            error = response["error"]
            if error["code"] == "malformed-request":
                return frozenset()
            return self.spec.rejected(
                speaker, operations, error["code"], error.get("operation_index")
            )
        except AssertionError as disagreement:
            raise self._fail(f"reference and spec.transition disagree: {disagreement}") from None

    def query(
        self,
        query: str,
        record: str | None = _UNSET,
        *,
        agent: str | None = None,
        atom: str | None = None,
        formula: str | None = None,
        given: str | None = None,
        at: Sequence[str] | None = None,
        layers: Sequence[str] | None = None,
        equals: Any = _UNSET,
        error: str | None = None,
        note: str = "",
    ) -> Any:
        """A query; what it ``equals`` (or the ``error`` it raises), when stated, must hold.

        ``equals`` is, by query: a set of identifiers (any iterable), a standing
        label, a bool (``aware``, ``holds``, ``knows``, ``believes``, ``ordered``;
        for ``verify``, whether grounded), the verify expectation itself, or for
        ``worlds`` a count or a set of worlds.  Formulas are sent in their printed
        form (text that does not parse is sent as it is).  Returns the
        expectation's result.
        """
        request: dict[str, Any] = {"cmd": "query", "query": query}
        if record is not _UNSET:
            request["record"] = record
        if agent is not None:
            request["agent"] = agent
        if atom is not None:
            request["atom"] = atom
        if formula is not None:
            request["formula"] = _printed(formula)
        if given is not None:
            request["given"] = _printed(given)
        if layers is not None:
            request["layers"] = [_printed(layer) for layer in layers]
        if at is not None:
            request["at"] = sorted(at)
        response, expect = self._send(request)
        if error is AS_REFERENCE:
            pass
        elif error is not None:
            if expect != {"error": error}:
                raise self._fail(f"the case states error {error}, the reference gives {response}")
        elif "error" in expect:
            raise self._fail(f"{query} failed: {response}")
        if "error" not in expect and query in _SPEC_QUERIES:
            found = _spec_result(spec_map(self._state()), request)
            if found != expect["result"]:
                raise self._fail(f"{query}: reference {expect['result']}, spec {found}")
        if query in EPISTEMIC_QUERIES:
            self._epistemic = True
            wanted = self.spec.answer(request)
            if wanted != expect:
                raise self._fail(f"{query}: reference {expect}, spec.epistemic {wanted}")
            TALLY["answers recomputed"] += 1
        if equals is not _UNSET:
            self._check_stated(query, equals, expect.get("result"))
        asked = request.get("record")
        registered = asked is None or asked in self._state().records
        choices = self.choices.query(query, asked, registered=registered)
        self._record(request, expect, note, choices)
        return expect.get("result")

    def _check_stated(self, query: str, stated: Any, result: Any) -> None:
        if query == "worlds":
            same = (
                len(result) == stated
                if isinstance(stated, int)
                else canonical_worlds(stated) == result
            )
        elif query == "verify" and isinstance(stated, bool):
            same = result["grounded"] is stated
        elif isinstance(stated, (str, bool, dict)):
            same = stated == result
        else:
            same = sorted(stated) == result
        if not same:
            raise self._fail(f"the case states {query} = {stated!r}, the reference gives {result}")

    def grounded(self, record: str, closure: Sequence[str] | None = None) -> None:
        """Verify(record) must be grounded (with exactly ``closure``, when given)."""
        stated: Any = True if closure is None else {"grounded": True, "closure": sorted(closure)}
        self.query("verify", record, equals=stated)

    def ungrounded(self, record: str | None, witnesses: Sequence[str] | None = None) -> None:
        """Verify(record) must be ungrounded (with exactly these admissible ``witnesses``)."""
        stated: Any = False
        if witnesses is not None:
            stated = {"grounded": False, "witnesses": sorted(witnesses)}
        self.query("verify", record, equals=stated)

    def state(self, note: str = "") -> None:
        """The canonical state dump."""
        self.query("state", note=note)

    def survey(self, *queries: str) -> None:
        """Ask ``queries`` (default: :data:`SURVEY`) about every record."""
        assert self.session.verifier is not None, "a case always has a conversation"
        for record in sorted(self.session.verifier.state.records):
            for query in queries or SURVEY:
                self.query(query, record)

    # -- the case ----------------------------------------------------------------

    def build(self) -> Case:
        """The finished case; its features are what its steps need (``epistemic``: a
        declared M_0, an epistemic field in a turn, or a query on M_t)."""
        if not self.steps:
            raise self._fail("a case has at least one step")
        features = {feature_of(step.request) for step in self.steps} | {"core"}
        features |= {"epistemic"} if self._epistemic else set()
        tags = set(self.tags)
        applied = [s.expect for s in self.steps if s.request["cmd"] == "apply"]
        tags |= {"accept"} if any("accepted" in e for e in applied) else set()
        tags |= {"reject"} if any("rejected" in e for e in applied) else set()
        tags |= {"cycle"} if self._cycle else set()
        return Case(
            id=self.id,
            description=self.description,
            statements=self.statements,
            features=tuple(sorted(features)),
            tags=tuple(sorted(tags)),
            added_in=self.added_in,
            origin=dict(self.origin),
            agents=self.agents,
            atoms=self.atoms,
            steps=tuple(self.steps),
            model=self.model,
        )


def _printed(text: str) -> str:
    """A formula's printed form (formulas travel printed), or the text when it does not parse."""
    try:
        return show(parse(text))
    except MalformedFormula:
        return text


_QUERY_ARGUMENTS = ("record", "agent", "atom", "formula", "given", "at", "layers")


def rederive(case: Case) -> Case:
    """Run a case's requests through the reference again and record fresh expectations.

    Used for cases whose requests are the source (fuzz findings, imported
    counterexamples): the requests stay, the expectations are recomputed and
    spec-checked.  Raises :class:`CaseError` if reference and spec disagree.
    """
    builder = CaseBuilder(
        case.id,
        case.description,
        case.statements,
        agents=case.agents,
        atoms=case.atoms,
        tags=[t for t in case.tags if t not in ("accept", "reject", "cycle")],
        origin=case.origin,
        added_in=case.added_in,
        model=case.model,
    )
    for step in case.steps:
        request = step.request
        if request["cmd"] == "apply":
            operations = request["operations"]
            builder.apply(request["speaker"], *operations, rejected=AS_REFERENCE, note=step.note)
        else:
            arguments = {k: v for k, v in request.items() if k in _QUERY_ARGUMENTS}
            builder.query(request["query"], error=AS_REFERENCE, note=step.note, **arguments)
    return builder.build()
