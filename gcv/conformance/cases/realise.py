"""From a dependency map to a conversation that builds it: counterexamples as traces.

``proofs/`` decodes a counterexample into the spec's value, a
:class:`gcv.spec.core.DependencyMap` (Args, Att, st, Dep).  :func:`trace_from_map`
writes a ``gcv-trace/1`` conversation whose final map is exactly that one, when
some conversation can reach it; :func:`~gcv.conformance.cases.traces.case_from_trace`
(or ``gcv vectors --import-trace``) then makes it a vector, with the reference's
answers as the expectations.

The conversation, turn by turn:

1. Hypothesize every record (sorted), with no dependencies;
2. Support each Dep link (a, b) with b as existing evidence: every record is still
   active, so each is accepted;
3. Resolve every record labelled resolved (unattacked, in S_t);
4. for each attacked or withdrawn record, in an order where a record attacks before
   it leaves S_t: Undermine it by each attacker (weakened), or Revise it with all its
   attackers (abandoned).

A map no conversation reaches is refused with :class:`Unrealisable`, naming why:
a Dep self-loop (self-reference), an attacked record in S_t (Lemma 2.2), a weakened
record with no attacker, a self-attack, or attacks that would need a withdrawn
attacker.

With ``paper_only`` the conversation makes none of the reference's choices (every
step in the ``paper`` profile), one operation a turn: each record registered once its
dependencies are (Observe with none, else Hypothesize resting on them), then steps
3 and 4 with Revise only.  Support's existing evidence is a choice
(``T3.evidence.existing-in-good-standing``), so such a conversation reaches no Dep
cycle, and Undermine's registered evidence would be a new record, so no weakened
record either: those maps are refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import icontract

from gcv.replay import replay
from gcv.spec import core
from gcv.trace import load_trace
from gcv.translate import spec_map

__all__ = ["Unrealisable", "trace_from_map"]


def is_rebuilt_by(trace: Mapping[str, Any], d: core.DependencyMap) -> bool:
    """Check that replaying ``trace`` from D_0 ends in exactly the map ``d``."""
    result = replay(load_trace(json.dumps(trace)))
    if any(t.error is not None for t in result.turns):
        return False
    return spec_map(result.verifier.state) == d


class Unrealisable(ValueError):
    """No conversation from D_0 reaches the map."""


def _order(d: core.DependencyMap) -> list[str]:
    """The attacked or withdrawn records, each before every withdrawn record attacking it
    (its attackers must still be in S_t when it is attacked)."""
    pending = sorted(r for r in d.args if d.standing[r] in (core.WEAKENED, core.ABANDONED))
    order: list[str] = []
    while pending:
        # A record may go once no other pending record is attacked by it.
        ready = [r for r in pending if not any((r, t) in d.att for t in pending if t != r)]
        if not ready:
            raise Unrealisable(f"withdrawn records attack each other in a cycle: {pending}")
        order.append(ready[0])
        pending.remove(ready[0])
    return order


def _check(d: core.DependencyMap) -> None:
    for a, b in sorted(d.dep):
        if a == b:
            raise Unrealisable(f"{a} depends on itself (self-reference)")
    for a, t in sorted(d.att):
        if a == t:
            raise Unrealisable(f"{a} attacks itself (self-reference)")
        if d.standing[t] in core.GOOD_STANDING:
            raise Unrealisable(f"{a} attacks {t}, which is in S_t (Lemma 2.2)")
    for r in sorted(d.args):
        attacked = any(t == r for _, t in d.att)
        if d.standing[r] == core.WEAKENED and not attacked:
            raise Unrealisable(f"{r} is weakened but has no attacker (only Undermine weakens)")


def _registered_in_dependency_order(d: core.DependencyMap) -> list[dict[str, Any]]:
    """Each record registered once everything it depends on is: Observe, or Hypothesize
    resting on its Dep (Definition 2.1)."""
    deps = {r: sorted(b for a, b in d.dep if a == r) for r in d.args}
    done: set[str] = set()
    operations: list[dict[str, Any]] = []
    while len(done) < len(d.args):
        ready = sorted(r for r in d.args if r not in done and set(deps[r]) <= done)
        if not ready:
            raise Unrealisable(
                f"a Dep cycle among {sorted(set(d.args) - done)}: only "
                "Support's existing evidence closes one, a choice"
            )
        for r in ready:
            op = "hypothesize" if deps[r] else "observe"
            operations.append({"op": op, "id": r, "claim": f"claim of {r}"})
            operations[-1] |= {"depends_on": deps[r]} if deps[r] else {}
            done.add(r)
    return operations


@icontract.ensure(
    lambda d, result: is_rebuilt_by(result, d),
    "the conversation ends in exactly the map",
    enabled=icontract.SLOW,
)
def trace_from_map(
    d: core.DependencyMap,
    *,
    name: str = "",
    description: str = "",
    agents: Sequence[str] = ("a",),
    paper_only: bool = False,
) -> dict[str, Any]:
    """A ``gcv-trace/1`` document whose conversation ends in exactly the map ``d``
    (``paper_only``: by operations that make no choice of the reference).

    Raises
    ------
    Unrealisable
        When no conversation reaches ``d``, saying why.

    Examples
    --------
    >>> d = core.DependencyMap(frozenset({"r0", "r1"}), frozenset(),
    ...                        {"r0": "active", "r1": "abandoned"}, frozenset({("r0", "r1")}))
    >>> [[op["op"] for op in t["operations"]] for t in trace_from_map(d)["turns"]]
    [['hypothesize', 'hypothesize'], ['support'], ['revise']]
    """
    _check(d)
    speaker = agents[0]
    resolved = [
        {"op": "resolve", "target": r} for r in sorted(d.args) if d.standing[r] == core.RESOLVED
    ]
    turns: list[list[dict[str, Any]]]
    if paper_only:
        turns = [[op] for op in [*_registered_in_dependency_order(d), *resolved]]
    else:
        turns = [
            [{"op": "hypothesize", "id": r, "claim": f"claim of {r}"} for r in sorted(d.args)],
            [{"op": "support", "target": a, "evidence": b} for a, b in sorted(d.dep)],
            resolved,
        ]
    for record in _order(d):
        attackers = sorted(a for a, t in d.att if t == record)
        if d.standing[record] == core.WEAKENED and paper_only:
            raise Unrealisable(
                f"{record} is weakened: only Undermine by existing evidence, a choice"
            )
        if d.standing[record] == core.WEAKENED:
            turns.append([{"op": "undermine", "target": record, "evidence": a} for a in attackers])
        else:
            turns.append([{"op": "revise", "target": record, "attackers": attackers}])
    written = [ops for ops in turns if ops]
    return {
        "format": "gcv-trace/1",
        "name": name,
        "description": description,
        "agents": {agent: agent for agent in agents},
        "turns": [
            {"turn": number, "speaker": speaker, "operations": ops}
            for number, ops in enumerate(written, start=1)
        ],
    }
