"""The context renderer (Section 3): short natural-language summaries of D_t.

After each turn the renderer summarises the changed parts of the map; when a
continuation is flagged it explains why, in the paper's words: "decision
alpha no longer grounded; affected by retraction of a3; depends on a1, a2".
For the state-augmented prompt condition of Table 2 it also writes the whole
of D_t (:func:`render_state`) and, at a checkpoint, what changed since the
last one (:func:`render_checkpoint`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import icontract

from gcv.reference.closure import Grounding
from gcv.reference.depmap import (
    AttackAdded,
    AwarenessGained,
    Committed,
    DependencyAdded,
    DependencyMap,
    DissentRecorded,
    ModelReplaced,
    RecordAdded,
    Retracted,
    StandingChanged,
)
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.identifiers import AgentId, RecordId
from gcv.reference.records import GOOD_STANDING, Kind, Standing
from gcv.reference.verifier import TurnReport

__all__ = ["render_checkpoint", "render_grounding", "render_state", "render_turn", "render_value"]

_REGISTERED = {
    Kind.OBSERVATION: "observation",
    Kind.PREMISE: "premise",
    Kind.HYPOTHESIS: "hypothesis",
    Kind.POSITION: "position",
    Kind.EVIDENCE: "evidence",
}

_LOSS = {Standing.ABANDONED: "retraction", Standing.WEAKENED: "weakening"}


def _noun(dmap: DependencyMap, record: RecordId) -> str:
    # Resolved records are the conversation's decisions (B.3: "resolved issues with provenance").
    if dmap.standing[record] is Standing.RESOLVED:
        return "decision"
    return _REGISTERED[dmap.records[record].kind]


def _names(agents: Mapping[AgentId, str], ids: list[AgentId]) -> str:
    return ", ".join(agents.get(a, a) for a in ids)


def render_turn(
    report: TurnReport, dmap: DependencyMap, agents: Mapping[AgentId, str] | None = None
) -> list[str]:
    """Summarise what ``report``'s turn changed, one line per kind of change.

    ``agents`` maps identifiers to display names (default: the identifiers).

    Examples
    --------
    >>> from gcv.reference.operations import Observe, Undermine
    >>> from gcv.reference.verifier import Turn, Verifier
    >>> v = Verifier(["a"])
    >>> _ = v.apply_turn(Turn("a", (Observe("o9", "401 not 503"),)))
    >>> from gcv.reference.operations import Hypothesize
    >>> _ = v.apply_turn(Turn("a", (Hypothesize("h2", "Redis -> auth"),)))
    >>> report = v.apply_turn(Turn("a", (Undermine("h2", "o9"),)))
    >>> render_turn(report, v.state)
    ['attacks: o9 -> h2', 'standing: h2 active -> weakened']
    """
    names = agents or {}
    added, rests, attacks, standing, dissent = [], [], [], [], []
    commits: dict[AgentId, list[RecordId]] = {}
    retracts: dict[AgentId, list[RecordId]] = {}
    aware: dict[str, list[AgentId]] = {}
    models = [c for c in report.changes if isinstance(c, ModelReplaced)]
    for change in report.changes:
        match change:
            case RecordAdded(record):
                added.append(f'{_REGISTERED[record.kind]} {record.id} "{record.claim}"')
            case DependencyAdded(record, support):
                rests.append(f"{record} -> {support}")
            case AttackAdded(attacker, target):
                attacks.append(f"{attacker} -> {target}")
            case StandingChanged(record, before, after):
                standing.append(f"{record} {before.value} -> {after.value}")
            case Committed(agent, record):
                commits.setdefault(agent, []).append(record)
            case Retracted(agent, record):
                retracts.setdefault(agent, []).append(record)
            case DissentRecorded(record, agent):
                dissent.append(f"{names.get(agent, agent)} from {record}")
            case AwarenessGained(agent, atom):
                aware.setdefault(atom, []).append(agent)
    lines = [f"new: {'; '.join(added)}"] if added else []
    for title, items in (("rests on", rests), ("attacks", attacks), ("standing", standing)):
        if items:
            lines.append(f"{title}: {', '.join(items)}")
    lines += [f"{names.get(a, a)} commits to {', '.join(rs)}" for a, rs in commits.items()]
    lines += [f"{names.get(a, a)} retracts {', '.join(rs)}" for a, rs in retracts.items()]
    if dissent:
        lines.append(f"dissent: {', '.join(dissent)}")
    lines += [f"aware of {atom}: {_names(names, ags)}" for atom, ags in aware.items()]
    if models:
        lines += _render_model(models[0].before, models[-1].after)
    return lines


def _render_model(before: EpistemicState, after: EpistemicState) -> list[str]:
    """M_t's change over a turn: its size, or a reordering, and the problems posed."""
    was, now = before.model.size, after.model.size
    lines = [
        f"M_t: |W| {was} -> {now}" if was != now else f"M_t: plausibility updated, |W| = {now}"
    ]
    posed = len(after.problems) - len(before.problems)
    if posed > 0:
        lines.append(f"abductive problems posed: {posed}")
    return lines


def render_value(value: object) -> str:
    """Write an answer for people: a set as ``{a, b}``, its members sorted, nested sets too.

    Every command prints sets this one way, whatever order a query found them in.

    Examples
    --------
    >>> render_value(frozenset({"h4", "h1", "h3"}))
    '{h1, h3, h4}'
    >>> render_value(frozenset({frozenset({"m_b"}), frozenset({"m_a", "m_b"})}))
    '{{m_a, m_b}, {m_b}}'
    >>> render_value("abandoned")
    'abandoned'
    """
    if isinstance(value, frozenset):
        return "{" + ", ".join(sorted(render_value(member) for member in value)) + "}"
    return str(value)


def render_grounding(grounding: Grounding, dmap: DependencyMap) -> str:
    """Explain a Verify answer in one sentence (Section 3's flag).

    Examples
    --------
    >>> from gcv.reference.operations import Observe, Hypothesize, Revise
    >>> from gcv.reference.verifier import Turn, Verifier
    >>> from gcv.reference.records import Kind
    >>> v = Verifier(["a"])
    >>> ops = (Observe("a1", "short docs", kind=Kind.PREMISE), Observe("e", "bounded metadata"),
    ...        Observe("a3", "no long docs", kind=Kind.PREMISE),
    ...        Hypothesize("d", "adopt Yjs", depends_on=("a1", "e", "a3")))
    >>> _ = v.apply_turn(Turn("a", ops))
    >>> _ = v.apply_turn(Turn("a", (Revise("a3"),)))
    >>> render_grounding(v.verify("d"), v.state)
    'hypothesis d no longer grounded; affected by retraction of a3; depends on a1'

    Notes
    -----
    The flag names, as Section 3 does, the retracted premise and then the premises the
    record still rests on: its own recorded dependencies of kind premise in good standing
    (the assumptions a_i a decision lists), not its evidence.
    """
    record = grounding.candidate
    if record is None or record not in dmap.records:
        return "ungrounded: no associated record"
    noun = _noun(dmap, record)
    if grounding.grounded:
        rests = [r for r in grounding.closure if r != record]
        support = f"rests on {', '.join(rests)}" if rests else "rests on no other record"
        return f"{noun} {record} is grounded; {support}, all in good standing"
    witness = grounding.witness
    assert witness is not None, "a rejected walk has a witness"
    if witness == record:
        return f"{noun} {record} is {dmap.standing[record].value}"
    standing = [
        d
        for d in dmap.dep.get(record, ())
        if dmap.records[d].kind is Kind.PREMISE and dmap.standing[d] in GOOD_STANDING
    ]
    via = f" (via {' -> '.join(grounding.path[1:-1])})" if len(grounding.path) > 2 else ""
    tail = f"; depends on {', '.join(standing)}" if standing else ""
    loss = _LOSS[dmap.standing[witness]]
    return f"{noun} {record} no longer grounded; affected by {loss} of {witness}{via}{tail}"


_json_string = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(claim, ensure_ascii=False)`` without making an encoder per record."""


def _record_line(dmap: DependencyMap, record: RecordId) -> str:
    r = dmap.records[record]
    # The claim is quoted as JSON so that a claim cannot break the one-line layout.
    line = f"{record} ({_noun(dmap, record)}, {dmap.standing[record].value}; "
    line += f"{r.speaker} at T{r.turn}): {_json_string(r.claim)}"
    rests = list(dmap.dep.get(record, ()))
    attackers = list(dmap.ratt.get(record, ()))
    dissent = dmap.dissenters(record)
    if rests:
        line += f"; rests on {', '.join(rests)}"
    if attackers:
        line += f"; attacked by {', '.join(attackers)}"
    if dissent:
        line += f"; dissent: {', '.join(dissent)}"
    return line


def _one_line_per_record(dmap: DependencyMap, lines: list[str]) -> bool:
    return sum(line.startswith("  ") for line in lines) == len(dmap.records)


@icontract.ensure(
    lambda dmap, result: _one_line_per_record(dmap, result),
    "every record of Args_t is listed, once",
)
def render_state(dmap: DependencyMap, agents: Mapping[AgentId, str] | None = None) -> list[str]:
    """Write the whole of D_t: every record with its standing, Dep, attackers and dissent.

    One indented line per record (registration order), then the commitments Cm
    and the awareness sets A_i.  ``agents`` maps identifiers to display names.

    Examples
    --------
    >>> from gcv.reference.operations import Observe, Hypothesize, Undermine
    >>> from gcv.reference.verifier import Turn, Verifier
    >>> v = Verifier(["a", "b"], ["p_tok"])
    >>> ops = (Observe("o9", "401 not 503"), Hypothesize("h2", "Redis -> auth"))
    >>> _ = v.apply_turn(Turn("a", ops))
    >>> _ = v.apply_turn(Turn("b", (Undermine("h2", "o9"),)))
    >>> print("\\n".join(render_state(v.state, {"a": "Alice"})))
    records:
      o9 (observation, active; a at T1): "401 not 503"
      h2 (hypothesis, weakened; a at T1): "Redis -> auth"; attacked by o9
    Alice commits to o9
    b commits to o9
    every agent is aware of p_tok
    """
    names = agents or {}
    lines = ["records:" if dmap.records else "records: none yet"]
    lines += [f"  {_record_line(dmap, record)}" for record in dmap.records]
    for agent in dmap.agents:
        committed = dmap.commitments(agent)
        if committed:
            lines.append(f"{names.get(agent, agent)} commits to {', '.join(committed)}")
    aware = {agent: sorted(dmap.awareness(agent)) for agent in dmap.agents}
    if len({tuple(atoms) for atoms in aware.values()}) == 1:
        atoms = next(iter(aware.values()))
        lines.append(f"every agent is aware of {', '.join(atoms) or 'no atom'}")
    else:
        lines += [
            f"{names.get(a, a)} is aware of {', '.join(atoms) or 'no atom'}"
            for a, atoms in aware.items()
        ]
    return lines


def render_checkpoint(
    reports: Sequence[TurnReport],
    dmap: DependencyMap,
    agents: Mapping[AgentId, str] | None = None,
) -> list[str]:
    """The renderer's summary at a checkpoint: the turns' changes, then the whole of D_t.

    ``reports`` are the turns committed since the previous checkpoint (oldest
    first); each contributes its :func:`render_turn` lines under its number.

    Examples
    --------
    >>> from gcv.reference.operations import Observe
    >>> from gcv.reference.verifier import Turn, Verifier
    >>> v = Verifier(["a"])
    >>> report = v.apply_turn(Turn("a", (Observe("o1", "401s"),)))
    >>> print("\\n".join(render_checkpoint([report], v.state)))
    changed since the last checkpoint:
      T1 by a: new: observation o1 "401s"; a commits to o1
    records:
      o1 (observation, active; a at T1): "401s"
    a commits to o1
    every agent is aware of no atom
    """
    names = agents or {}
    changed = [
        f"  T{r.turn} by {names.get(r.speaker, r.speaker)}: "
        + ("; ".join(render_turn(r, dmap, agents)) or "no change")
        for r in reports
    ]
    head = ["changed since the last checkpoint:", *changed] if changed else []
    return head + render_state(dmap, agents)
