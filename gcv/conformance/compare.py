"""Expected outcomes and how a response is compared with them.

A step's expectation is ``{"accepted": true}`` or ``{"rejected": CODE}`` for a
turn, ``{"result": VALUE}`` or ``{"error": CODE}`` for a query.  Error codes
are normative and messages are not; sets compare without order; where the
answer is not unique (the Verify walk's witness) any valid one conforms
(spec/gcv/spec/normative.md, "Queries").  A mismatch carries what was expected and
what came back in readable form, and a diff.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import icontract

from gcv.conformance.protocol import SET_QUERIES
from gcv.reference.epistemic.formula import parse, show
from gcv.reference.errors import MalformedFormula

__all__ = [
    "Mismatch",
    "answer_leaves",
    "canonical_formula",
    "canonical_worlds",
    "check",
    "expectation",
    "expectation_as_response",
    "explanations",
    "normalize_state",
    "show_expected",
]


def is_one_outcome(expect: Mapping[str, Any]) -> bool:
    """Check that an expectation states exactly one outcome: accepted, rejected, result or error."""
    return len(expect) == 1 and set(expect) <= {"accepted", "rejected", "result", "error"}


def is_canonical_world_set_of(result: Sequence[list[str]], worlds: Collection[Any]) -> bool:
    """Check that ``result`` holds the worlds of ``worlds`` (as many times), each world's atoms
    sorted, the worlds sorted."""
    return (
        all(w == sorted(w) for w in result)
        and list(result) == sorted(result)
        and Counter(frozenset(w) for w in result) == Counter(frozenset(w) for w in worlds)
    )


def is_printed_form_of(result: str, text: str) -> bool:
    """Check that ``result`` parses to the formula ``text`` parses to, or, when ``text`` does not
    parse, is ``text`` itself."""
    try:
        return parse(result) == parse(text)
    except MalformedFormula:
        return result == text


_STATE_SETS = ("agents", "atoms")
_STATE_PAIRS = ("dep", "att")
_STATE_MAPS = ("awareness", "commitments", "dissent")
_RECORD_FIELDS = ("id", "claim", "speaker", "turn", "kind", "standing")


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Why a response does not conform: a one-line reason, both sides, and a diff."""

    reason: str
    expected: str
    got: str
    diff: str = ""


def _members(values: Collection[Any]) -> list[Any]:
    return sorted(set(values))


def _is_canonical_state(state: Mapping[str, Any], result: Mapping[str, Any]) -> bool:
    return normalize_state(result) == result


@icontract.ensure(
    lambda state, result: _is_canonical_state(state, result), "normalising is idempotent"
)
def normalize_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """The canonical form of a state dump: every set sorted, empty map entries dropped.

    Only the members the protocol defines are kept (protocol.md, "The state dump").

    >>> normalize_state({"turn": 0, "agents": ["b", "a"], "atoms": [], "records": [],
    ...                  "awareness": {"a": [], "b": ["p"]}, "dep": [], "att": [],
    ...                  "commitments": {}, "dissent": {"x": []}})["awareness"]
    {'b': ['p']}
    """
    out: dict[str, Any] = {"turn": state["turn"]}
    for name in _STATE_SETS:
        out[name] = _members(state[name])
    for name in _STATE_PAIRS:
        out[name] = [list(pair) for pair in sorted({tuple(pair) for pair in state[name]})]
    for name in _STATE_MAPS:
        out[name] = {k: _members(v) for k, v in sorted(state[name].items()) if v}
    records = [_record(r) for r in state["records"]]
    out["records"] = sorted(records, key=lambda r: json.dumps(r, sort_keys=True))
    return out


def _record(record: Mapping[str, Any]) -> dict[str, Any]:
    kept = {f: record[f] for f in _RECORD_FIELDS}
    if isinstance(record.get("formula"), str):
        kept["formula"] = canonical_formula(record["formula"])
    return kept


@icontract.ensure(
    lambda text, result: is_printed_form_of(result, text),
    "the same formula, by parsing",
)
def canonical_formula(text: str) -> str:
    """The printed form of the formula ``text`` parses to, so that formulas compare by
    parsing, not as text; text that does not parse is kept as it is (it equals no
    printed form).

    >>> canonical_formula("(p&q)  ->  r"), canonical_formula("p &")
    ('p & q -> r', 'p &')
    """
    try:
        return show(parse(text))
    except MalformedFormula:
        return text


@icontract.ensure(
    lambda worlds, result: is_canonical_world_set_of(result, worlds),
    "the same world set, in canonical order",
)
def canonical_worlds(worlds: Collection[Collection[str]]) -> list[list[str]]:
    """A world set in canonical form: each world's atoms sorted, the worlds sorted.

    >>> canonical_worlds([["q", "p"], []])
    [[], ['p', 'q']]
    """
    return sorted(sorted(world) for world in worlds)


@icontract.ensure(lambda result: is_one_outcome(result), "an expectation states one outcome")
def expectation(
    request: Mapping[str, Any], response: Mapping[str, Any], witnesses: Sequence[str] = ()
) -> dict[str, Any]:
    """The expectation a vector records for ``request`` from the reference's ``response``.

    ``witnesses`` is, for an ungrounded Verify, every member of Dep*(record)
    outside S_t (any of them is a valid witness).

    >>> expectation({"cmd": "query", "query": "affected_star", "record": "o1"},
    ...             {"id": 1, "ok": True, "result": ["h2", "h1"]})
    {'result': ['h1', 'h2']}
    >>> expectation({"cmd": "apply"}, {"id": 1, "ok": False, "error": {"code": "unknown-record"}})
    {'rejected': 'unknown-record'}
    """
    if request["cmd"] == "apply":
        return {"accepted": True} if response["ok"] else {"rejected": response["error"]["code"]}
    if not response["ok"]:
        return {"error": response["error"]["code"]}
    return {"result": _expected_result(request["query"], response["result"], witnesses)}


def _expected_result(query: str, result: Any, witnesses: Sequence[str]) -> Any:
    if query in SET_QUERIES:
        return _members(result)
    if query == "state":
        return normalize_state(result)
    if query == "verify":
        if result["grounded"]:
            return {"grounded": True, "closure": _members(result["closure"])}
        return {"grounded": False, "witnesses": _members(witnesses)}
    if query == "worlds":
        return canonical_worlds(result)
    return result


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _show_set(values: Collection[Any]) -> str:
    return "{" + ", ".join(str(v) for v in sorted(values)) + "}"


def show_expected(request: Mapping[str, Any], expect: Mapping[str, Any]) -> str:
    """The expectation in words.

    >>> show_expected({"cmd": "query", "query": "verify"},
    ...               {"result": {"grounded": False, "witnesses": ["o1"]}})
    'ungrounded, with a witness among {o1}'
    """
    if "accepted" in expect:
        return "accepted"
    if "rejected" in expect:
        return f"rejected with {expect['rejected']}"
    if "error" in expect:
        return f"error {expect['error']}"
    query, result = request["query"], expect["result"]
    if query in SET_QUERIES:
        return f"{_show_set(result)} (a set)"
    if query == "verify":
        if result["grounded"]:
            return f"grounded, closure {_show_set(result['closure'])}"
        if not result["witnesses"]:
            return "ungrounded, with no witness (no associated record)"
        return f"ungrounded, with a witness among {_show_set(result['witnesses'])}"
    if query == "state":
        return "the state dump below"
    if query == "worlds":
        return f"{_show_worlds(result)} (a set of worlds)"
    return _show(result)


def _show_world(world: Collection[str]) -> str:
    return "{" + ", ".join(sorted(world)) + "}"


def _show_worlds(worlds: Collection[Collection[str]]) -> str:
    return "{" + ", ".join(_show_world(w) for w in canonical_worlds(worlds)) + "}"


def _show_response(response: Mapping[str, Any]) -> str:
    if not response["ok"]:
        error = response["error"]
        message = f" ({error['message']})" if "message" in error else ""
        return f"error {error['code']}{message}"
    return _show(response.get("result"))


def _set_diff(
    expected: Collection[Any],
    got: Sequence[Any],
    show: Callable[[Collection[Any]], str] = _show_set,
) -> str:
    parts = []
    missing = set(expected) - set(got)
    unexpected = set(got) - set(expected)
    repeated = {v for v, times in Counter(got).items() if times > 1}  # linear in len(got)
    if missing:
        parts.append(f"missing {show(missing)}")
    if unexpected:
        parts.append(f"unexpected {show(unexpected)}")
    if repeated:
        parts.append(f"repeated {show(repeated)}")
    return "; ".join(parts)


def _state_lines(state: Mapping[str, Any]) -> list[str]:
    """One line per member of each part of a (normalised) state dump, so a diff reads as
    the records, links and commitments that differ."""
    lines = []
    for name in sorted(state):
        value = state[name]
        if isinstance(value, list):
            lines += [f"{name}: {_show(member)}" for member in value]
        elif isinstance(value, dict):
            lines += [f"{name}.{key}: {_show(members)}" for key, members in value.items()]
        else:
            lines.append(f"{name}: {_show(value)}")
    return lines


def _state_diff(expected: Mapping[str, Any], got: Mapping[str, Any]) -> str:
    left, right = _state_lines(expected), _state_lines(normalize_state(got))
    lines = difflib.unified_diff(left, right, "expected", "response", lineterm="", n=1)
    return "\n".join(lines)


def _verify_mismatch(result: Mapping[str, Any], got: Mapping[str, Any]) -> str | None:
    if got["grounded"] != result["grounded"]:
        return f"grounded is {str(got['grounded']).lower()}"
    if result["grounded"]:
        return _set_diff(result["closure"], got["closure"]) or None
    witness = got.get("witness")
    if witness is not None and witness not in result["witnesses"]:
        return f"witness {witness} is not a member of Dep* outside S_t"
    return None


def _worlds_diff(expected: Sequence[Sequence[str]], got: Sequence[Sequence[str]]) -> str:
    """Missing, unexpected and repeated worlds, and worlds that repeat an atom."""
    parts = []
    repeated_atoms = [w for w in got if len(set(w)) != len(w)]
    if repeated_atoms:
        parts.append(f"a world repeats an atom: {_show_world(repeated_atoms[0])}")
    diff = _set_diff(
        [frozenset(w) for w in expected], [frozenset(w) for w in got], show=_show_worlds
    )
    return "; ".join(parts + ([diff] if diff else []))


def _result_mismatch(query: str, result: Any, got: Any) -> str | None:
    if query in SET_QUERIES:
        return _set_diff(result, got) or None
    if query == "worlds":
        return _worlds_diff(result, got) or None
    if query == "verify":
        return _verify_mismatch(result, got)
    if query == "state":
        return None if normalize_state(got) == result else "the state differs"
    return None if got == result else f"{_show(got)} differs"


def check(
    request: Mapping[str, Any], expect: Mapping[str, Any], response: Mapping[str, Any]
) -> Mismatch | None:
    """Compare a response (already valid for ``request``) with the expectation.

    Returns ``None`` when they agree.

    >>> request = {"cmd": "query", "query": "affected_star", "record": "o1"}
    >>> check(request, {"result": ["h1", "h2"]}, {"id": 4, "ok": True, "result": ["h2", "h1"]})
    >>> check(request, {"result": ["h1", "h2"]}, {"id": 4, "ok": True, "result": ["h1"]}).diff
    'missing {h2}'
    """
    expected = show_expected(request, expect)
    got = _show_response(response)
    if "accepted" in expect or "rejected" in expect:
        if response["ok"]:
            return (
                None if "accepted" in expect else Mismatch("the turn was accepted", expected, got)
            )
        code = response["error"]["code"]
        if expect.get("rejected") == code:
            return None
        return Mismatch(f"the turn was rejected with {code}", expected, got)
    if "error" in expect:
        if not response["ok"] and response["error"]["code"] == expect["error"]:
            return None
        return Mismatch(f"expected error {expect['error']}", expected, got)
    if not response["ok"]:
        return Mismatch(f"the query failed with {response['error']['code']}", expected, got)
    query, result, answer = request["query"], expect["result"], response["result"]
    found = _result_mismatch(query, result, answer)
    if found is None:
        return None
    if query == "state":
        return Mismatch(found, expected, "the state dump below", _state_diff(result, answer))
    diff = found if query in SET_QUERIES or query == "worlds" else ""
    return Mismatch(found if not diff else "the sets differ", expected, got, diff)


# -- explaining a difference by the alternatives' answers --------------------------------------

Leaf = tuple[Any, ...]


def answer_leaves(request: Mapping[str, Any], expect: Mapping[str, Any]) -> dict[Leaf, str]:
    """An expectation as the parts an alternative can change one by one: a set answer's
    members, a state dump's members (its sets' members, each record's fields, the turn), and
    otherwise the whole answer, each part with its value (a member's: present)."""
    if "result" not in expect:
        ((kind, value),) = expect.items()
        return {(kind,): json.dumps(value)}
    query, result = request["query"], expect["result"]
    if query in SET_QUERIES:
        return {("result", member): "in" for member in result}
    if query == "worlds":
        return {("result", tuple(world)): "in" for world in result}
    if query != "state":
        return {("result",): _show(result)}
    leaves: dict[Leaf, str] = {("turn",): _show(result["turn"])}
    for name in (*_STATE_SETS, *_STATE_PAIRS):
        leaves |= {(name, json.dumps(member)): "in" for member in result[name]}
    for name in _STATE_MAPS:
        for key, members in result[name].items():
            leaves |= {(name, key, member): "in" for member in members}
    for record in result["records"]:
        leaves |= {("records", record["id"], f): _show(v) for f, v in record.items() if f != "id"}
    return leaves


def _changes(before: Mapping[Leaf, str], after: Mapping[Leaf, str]) -> dict[Leaf, str | None]:
    """The parts that differ, with their value in ``after`` (None: absent there)."""
    return {
        leaf: after.get(leaf)
        for leaf in before.keys() | after.keys()
        if before.get(leaf) != after.get(leaf)
    }


def expectation_as_response(
    request: Mapping[str, Any], expect: Mapping[str, Any]
) -> dict[str, Any]:
    """A response that meets ``expect`` exactly (for an ungrounded Verify, with its first
    admissible witness): what an implementation answering as the expectation says sends."""
    if "accepted" in expect:
        return {"ok": True, "result": {"turn": 0}}
    code = expect.get("rejected", expect.get("error"))
    if code is not None:
        return {"ok": False, "error": {"code": code}}
    result = expect["result"]
    if request["query"] == "verify" and not result["grounded"]:
        witnesses = result["witnesses"]
        result = {"grounded": False, "witness": witnesses[0] if witnesses else None, "path": []}
    return {"ok": True, "result": result}


def explanations(
    request: Mapping[str, Any],
    expect: Mapping[str, Any],
    alternatives: Mapping[str, Mapping[str, Any]],
    response: Mapping[str, Any],
    combined: Callable[[str], Collection[str]] = lambda key: key.split("+"),
) -> list[tuple[str, ...]]:
    """The smallest sets of readings (by count) whose answers explain ``response``.

    ``alternatives`` maps each combination of readings (``combined(key)`` names them) to
    the expectation it gives where it differs from ``expect``.  One combination explains a
    response its expectation accepts.  Several explain a response that is ``expect`` with
    each one's changes made (:func:`answer_leaves`: the parts each changes, each changed as
    in the response, and no part the response changes left unexplained): readings that
    decide different parts of an answer compose.  Empty when none does.
    """
    found: set[frozenset[str]] = {
        frozenset(combined(key))
        for key, alternative in alternatives.items()
        if check(request, alternative, response) is None
    }
    composed = _composed(request, expect, alternatives, response, combined)
    found |= composed
    if not found:
        return []
    smallest = min(len(readings) for readings in found)
    return sorted(tuple(sorted(r)) for r in found if len(r) == smallest)


def _composed(
    request: Mapping[str, Any],
    expect: Mapping[str, Any],
    alternatives: Mapping[str, Mapping[str, Any]],
    response: Mapping[str, Any],
    combined: Callable[[str], Collection[str]],
) -> set[frozenset[str]]:
    """The sets of readings whose combinations, their changes made together, give
    ``response`` (each minimal in count among those found)."""
    if request["cmd"] == "query" and request["query"] == "verify":
        return set()  # a walk's answer is one part: its witness is any of a set
    try:
        answered = expectation(request, response)
    except (KeyError, TypeError):
        return set()
    if check(request, answered, response) is not None:
        return set()  # repeated members, say: no expectation accepts it
    base = answer_leaves(request, expect)
    wanted = _changes(base, answer_leaves(request, answered))
    if not wanted:
        return set()
    usable = []
    for key, alternative in alternatives.items():
        changes = _changes(base, answer_leaves(request, alternative))
        if changes and all(wanted.get(leaf, _ABSENT) == value for leaf, value in changes.items()):
            usable.append((frozenset(combined(key)), frozenset(changes)))
    best: list[frozenset[str]] = []
    fewest: dict[frozenset[Leaf], int] = {}

    def cover(left: frozenset[Leaf], chosen: frozenset[str]) -> None:
        if best and len(chosen) > len(best[0]):
            return
        if not left:
            if best and len(chosen) < len(best[0]):
                best.clear()
            best.append(chosen)
            return
        if fewest.get(left, len(chosen)) < len(chosen):
            return  # this much was left over with fewer readings already
        fewest[left] = len(chosen)
        leaf = min(left, key=repr)  # every cover holds a combination changing this part
        for readings, parts in usable:
            if leaf in parts:
                cover(left - parts, chosen | readings)

    cover(frozenset(wanted), frozenset())
    return set(best)


_ABSENT = object()
