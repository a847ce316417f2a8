"""The reference behind the protocol: one request in, one response out, no I/O.

A :class:`Session` holds at most one conversation (a
:class:`~gcv.reference.verifier.Verifier`) and answers ``gcv-conform/1`` requests
with it.  ``gcv serve`` wraps it in a JSON-lines loop; the vector generator and
the fuzzer call it in-process, so the answers written into the vectors are the
answers ``gcv serve`` gives.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from importlib import metadata
from typing import Any

import icontract

from gcv.conformance.compare import expectation
from gcv.conformance.protocol import (
    FEATURES,
    PROTOCOL,
    request_problem,
    response_problem,
)
from gcv.errors import MalformedRequest, Unsupported
from gcv.reference.epistemic.model import PlausibilityModel, build_model
from gcv.reference.errors import GcvError, UnknownAgent
from gcv.reference.identifiers import RecordId
from gcv.reference.operations import Operation
from gcv.reference.records import GOOD_STANDING, Standing
from gcv.reference.render import render_state, render_turn
from gcv.reference.verifier import Turn, TurnReport, Verifier
from gcv.trace import EPISTEMIC_QUERIES, operation_from_json

__all__ = [
    "IMPLEMENTATION",
    "Session",
    "answer",
    "error_response",
    "model_from_json",
    "outside_good_standing",
]


def is_outside_good_standing(
    members: Collection[RecordId], standing: Mapping[RecordId, Standing]
) -> bool:
    """Check that no member lies in S_t."""
    return all(standing[m] not in GOOD_STANDING for m in members)


def is_model_over(
    model: PlausibilityModel, agents: Collection[str], atoms: Collection[str]
) -> bool:
    """Check that M_0 is over Ags and Prop_0."""
    return set(model.agents) == set(agents) and set(model.atoms) == set(atoms)


IMPLEMENTATION = "gcv-reference"


def _version() -> str:
    try:
        return metadata.version("grounded-continuation")
    except metadata.PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


@icontract.ensure(
    lambda error, result: result["ok"] is False and result["error"]["code"] == error.code,
    "the response carries the error's code",
)
def error_response(request_id: int | None, error: GcvError) -> dict[str, Any]:
    """The ``ok: false`` response carrying ``error`` (its code is normative, its text is not).

    >>> error_response(3, MalformedRequest("not JSON"))["error"]["code"]
    'malformed-request'
    """
    details = {k: v for k, v in error.as_dict().items() if v is not None}
    return {
        "id": request_id,
        "ok": False,
        "error": details,
    }


def _echoed_id(request: object) -> int | None:
    """The id a response carries: the request's, when it is a request-id, else null.

    A request-id is a JSON integer >= 0 (request.schema.json), so ``2.0`` is the
    id 2 and ``true`` is no id (spec/gcv/spec/normative.md, "Conformance").
    """
    value = request.get("id") if isinstance(request, Mapping) else None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _is_protocol_response(request: object, response: Mapping[str, Any]) -> bool:
    if isinstance(request, Mapping) and request_problem(request) is None:
        return response_problem(request, response) is None
    return response["ok"] is False and response["error"]["code"] == MalformedRequest.code


class Session:
    """The reference verifier speaking ``gcv-conform/1``.

    Examples
    --------
    >>> s = Session()
    >>> s.handle({"id": 0, "cmd": "handshake", "protocol": "gcv-conform/1"})["result"]["name"]
    'gcv-reference'
    >>> s.handle({"id": 1, "cmd": "start", "agents": ["a"]})
    {'id': 1, 'ok': True, 'result': {}}
    >>> op = {"op": "observe", "id": "o1", "claim": "401 errors"}
    >>> s.handle({"id": 2, "cmd": "apply", "speaker": "a", "operations": [op]})
    {'id': 2, 'ok': True, 'result': {'turn': 1}}
    >>> s.handle({"id": 3, "cmd": "query", "query": "standing", "record": "o1"})
    {'id': 3, 'ok': True, 'result': 'active'}
    >>> s.handle({"id": 4, "cmd": "query", "query": "standing", "record": "o2"})["error"]["code"]
    'unknown-record'
    """

    def __init__(self) -> None:
        self.verifier: Verifier | None = None
        self.last_turn: TurnReport | None = None
        """The last accepted turn's report, for ``render`` (``what: turn``)."""
        self.closed = False

    @icontract.ensure(
        lambda request, result: _is_protocol_response(request, result),
        "every answer is a gcv-conform/1 response to the request (response.schema.json)",
        enabled=icontract.SLOW,
    )
    def handle(self, request: object, *, valid: bool = False) -> dict[str, Any]:
        """Answer one request (already parsed from JSON).

        A request that is not a ``gcv-conform/1`` message gets ``malformed-request``
        (unless the caller knows it ``valid``: a vector's, checked when it was loaded);
        a rejected turn or a query about an unknown record gets the verifier's
        error, and the conversation is left exactly as it was.
        """
        request_id = _echoed_id(request)
        found = None if valid else request_problem(request)
        if found is not None:
            return error_response(request_id, MalformedRequest(found))
        assert isinstance(request, Mapping), "the schema requires an object"
        try:
            result = self._dispatch(request)
        except GcvError as error:
            return error_response(request_id, error)
        return {"id": request_id, "ok": True, "result": result}

    def _dispatch(self, request: Mapping[str, Any]) -> Any:
        match request["cmd"]:
            case "handshake":
                if request["protocol"] != PROTOCOL:
                    raise Unsupported(f"this implementation speaks {PROTOCOL} only")
                return {
                    "protocol": PROTOCOL,
                    "name": IMPLEMENTATION,
                    "version": _version(),
                    "features": sorted(FEATURES),
                    "language": "python",
                }
            case "start":
                agents, atoms = request["agents"], request.get("atoms", [])
                declared = request.get("model")
                model = None if declared is None else model_from_json(agents, atoms, declared)
                self.verifier = Verifier(agents, atoms, model)
                self.last_turn = None
                return {}
            case "shutdown":
                self.closed = True
                return {}
        verifier = self.verifier
        if verifier is None:
            raise MalformedRequest(f"{request['cmd']} before start: no conversation is open")
        if request["cmd"] == "apply":
            turn = Turn(request["speaker"], _operations(request["operations"], verifier))
            self.last_turn = self._commit(verifier, turn)
            return {"turn": self.last_turn.turn}
        if request["cmd"] == "render":
            if request.get("what", "state") == "state":
                return {"lines": render_state(verifier.state)}
            last = self.last_turn
            return {"lines": [] if last is None else render_turn(last, verifier.state)}
        return answer(verifier, request)

    def _commit(self, verifier: Verifier, turn: Turn) -> TurnReport:
        """Apply an ``apply`` request's turn (a stored session also logs it)."""
        return verifier.apply_turn(turn)

    def expect(
        self, request: Mapping[str, Any], *, valid: bool = False
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Answer ``request`` (a step's request, with an id; ``valid``: see :meth:`handle`)
        and give the expectation it fixes.

        For an ungrounded Verify the expectation lists every member of
        Dep*(record) outside S_t, since any of them is a valid witness.
        """
        response = self.handle(request, valid=valid)
        witnesses: tuple[str, ...] = ()
        is_verify = request["cmd"] == "query" and request["query"] == "verify"
        if is_verify and response["ok"] and not response["result"]["grounded"]:
            assert self.verifier is not None, "a verify query answered, so a conversation is open"
            witnesses = outside_good_standing(self.verifier, request["record"])
        return response, expectation(request, response, witnesses)


@icontract.ensure(
    lambda verifier, result: is_outside_good_standing(result, verifier.state.standing),
    "every admissible witness of an ungrounded Verify lies outside S_t (Lemma 2.1)",
)
def outside_good_standing(verifier: Verifier, candidate: RecordId | None) -> tuple[RecordId, ...]:
    """The members of Dep*(candidate) outside S_t, sorted (none for an unknown candidate)."""
    state = verifier.state
    if candidate is None or candidate not in state.records:
        return ()
    reached, frontier = {candidate}, [candidate]
    while frontier:
        for support in state.dep.get(frontier.pop(), ()):
            if support not in reached:
                reached.add(support)
                frontier.append(support)
    return tuple(sorted(r for r in reached if state.standing[r] not in GOOD_STANDING))


def _operations(data: list[Mapping[str, Any]], verifier: Verifier) -> tuple[Operation, ...]:
    operations = []
    for index, op in enumerate(data):
        try:
            operations.append(operation_from_json(op))
        except GcvError as error:
            raise error.locate(
                turn=verifier.state.turn + 1, operation_index=index, operation=op["op"]
            ) from None
    return tuple(operations)


def answer(verifier: Verifier, request: Mapping[str, Any]) -> Any:
    """The result of a query request (already valid) on ``verifier``'s current map."""
    query = request["query"]
    match query:
        case "verify":
            grounding = verifier.verify(request["record"])
            return {
                "grounded": grounding.grounded,
                "closure": list(grounding.closure),
                "witness": grounding.witness,
                "path": list(grounding.path),
            }
        case "affected":
            return list(verifier.affected(request["record"]))
        case "affected_star":
            return list(verifier.affected_star(request["record"]))
        case "affected_star_active":
            return list(verifier.affected_star_active(request["record"]))
        case "standing":
            return verifier.standing(request["record"]).value
        case "dependencies":
            return list(verifier.dependencies(request["record"]))
        case "attackers":
            return list(verifier.attackers(request["record"]))
        case "dissenters":
            return list(verifier.dissenters(request["record"]))
        case "commitments":
            return list(verifier.commitments(request["agent"]))
        case "aware":
            return verifier.is_aware(request["agent"], request["atom"])
        case "state":
            return verifier.state.snapshot()
    if query in EPISTEMIC_QUERIES:
        return _epistemic_answer(verifier, request)
    raise AssertionError(f"query {query!r} is in the schema but not answered")


def _epistemic_answer(verifier: Verifier, request: Mapping[str, Any]) -> Any:
    """The answer to a query on M_t.  The agent is checked first, then the formulas (as
    written: formula, given, layers), then the world ``at`` (protocol.md, "Epistemic queries")."""
    agent: str = request.get("agent", "")
    if "agent" in request and agent not in verifier.state.agents:
        raise UnknownAgent(f"agent {agent!r} is not in Ags", field="agent")
    at = request.get("at")
    match request["query"]:
        case "holds":
            return verifier.holds(request["formula"], at=at)
        case "knows":
            return verifier.knows(agent, request["formula"], at=at)
        case "believes":
            return verifier.believes(agent, request["formula"], request.get("given"), at=at)
        case "worlds":
            return [sorted(world) for world in verifier.worlds()]
        case "ordered":
            return verifier.is_ordered(agent, request["layers"])
    return sorted({problem.source for problem in verifier.unexplained(agent or None)})


@icontract.ensure(
    lambda agents, atoms, result: is_model_over(result, agents, atoms),
    "M_0 is over Ags and Prop_0",
)
def model_from_json(
    agents: Sequence[str], atoms: Sequence[str], declared: Mapping[str, Any]
) -> PlausibilityModel:
    """M_0 from its JSON declaration (the trace format's ``model``, reused by ``start``).

    >>> model_from_json(["a"], ["p"], {"worlds": [["p"]]}).size
    1
    """
    ranks = {
        agent: [(entry["world"], entry["rank"]) for entry in entries]
        for agent, entries in declared.get("ranks", {}).items()
    }
    return build_model(
        agents,
        atoms,
        worlds=declared.get("worlds"),
        observes=declared.get("observes"),
        ranks=ranks or None,
        awareness=declared.get("awareness"),
    )
