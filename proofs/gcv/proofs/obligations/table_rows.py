"""Table 3 row by row, from what the paper says each operation does, unbounded.

``table-3`` proves the encoding built from the operation table equal to a second statement
of the same table (``proofs/gcv/proofs/table3.py``): a check of transcription.  The obligations here
state instead what the paper's text says of each row with a target (Support, Undermine,
Revise, Resolve), and of the rows that add no attack, as properties of the encoded
transition built from the engine's rows (:data:`gcv.reference.operations.ORDER`):

- ``table-3-rows``: the paper's words, most from the proof of Lemma 2.2 (the only place
  the text walks through Table 3's rows), the rest from Appendix B.2's narrated turns;
- ``table-3-choices``: the clauses ``spec/gcv/spec/transition.py`` marks *chosen* where the paper
  is silent (Support's target, the standing of cited grounds), each stated from its
  clause, not from the table.

Each statement is one of three shapes over a state ``s`` and parameters ``p``:
``only`` (the precondition implies a fact of ``s``), ``applies`` (in the situation the
text names, the precondition holds) and ``after`` (the precondition implies a fact of the
next state).  The states are those Lemma 2.2 and its proof leave reachable (well-formed,
conflict-free, every weakened record attacked), except where a precondition is quoted:
that holds of any well-formed state.

Each statement's twin checks it against the row with one field changed (or, for "adds no
attack", against Undermine); the counterexample is decoded and the operation replayed
through ``gcv.spec.transition.process_turn`` from the decoded state: the twin is confirmed
when the spec's own step keeps the statement (so the changed row, not the statement, is at
fault) or, for the Undermine twin, breaks it too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import z3

from gcv.proofs.decode import Decoded, decode_map, decode_members
from gcv.proofs.encode import (
    LABELS,
    REC,
    EncodedState,
    Params,
    Rules,
    Transition,
    conflict_free,
    good,
    rows,
    transition,
    weakened_attacked,
    well_formed,
)
from gcv.proofs.registry import Budget, Check, Obligation, Twin
from gcv.proofs.solver import prove
from gcv.reference.records import Standing
from gcv.spec import clauses, core
from gcv.spec import transition as spec

__all__ = ["CHOICES", "CHOICES_OBLIGATION", "ROWS", "ROWS_OBLIGATION", "STATEMENTS", "Statement"]

_x, _y = z3.Consts("x y", REC)

Hypotheses = Callable[[EncodedState, Params], list[z3.BoolRef]]
Fact = Callable[[EncodedState, Transition, Params], z3.BoolRef]


@dataclass(frozen=True)
class Step:
    """A counterexample's step as the spec takes it: the decoded state, the operation's
    records, and the spec's next map (``None``: the spec refuses the operation)."""

    before: core.DependencyMap
    target: str
    evidence: str
    attackers: frozenset[str]
    after: core.DependencyMap | None


@dataclass(frozen=True)
class Statement:
    """One statement about one row: its words, where they are from, and how it is checked.

    ``shape`` is ``only``, ``applies`` or ``after``; ``given`` the hypotheses besides the
    precondition (for ``applies``, instead of it); ``fact`` the conclusion (for
    ``applies``, the precondition itself); ``twin`` the row change the statement must
    reject, or ``None`` to check it against Undermine; ``kept`` the statement read on the
    spec's own step (for ``after``), for the twin's replay."""

    operation: str
    says: str
    source: str
    shape: str
    given: Hypotheses
    fact: Fact
    twin: dict[str, object] | None
    kept: Callable[[Step], bool] = lambda step: True


# -- hypotheses ------------------------------------------------------------------------------


def _reachable(s: EncodedState) -> list[z3.BoolRef]:
    """What Lemma 2.2 and its proof leave true of every reachable state."""
    return [well_formed(s), conflict_free(s), weakened_attacked(s)]


def _empty(members: z3.ArrayRef) -> z3.BoolRef:
    return z3.ForAll([_x], z3.Not(members[_x]))


def _plain(p: Params) -> list[z3.BoolRef]:
    """No cited records, attackers, subsumed records or premises: the bare operation."""
    return [_empty(p.cited), _empty(p.attackers), _empty(p.subsumes), _empty(p.premises)]


def _target_is(s: EncodedState, p: Params, *labels: Standing) -> list[z3.BoolRef]:
    return [s.ex[p.target], z3.Or([s.st[p.target] == LABELS[label] for label in labels])]


def _fresh_evidence(s: EncodedState, p: Params) -> list[z3.BoolRef]:
    """Evidence carrying a claim: a new record."""
    return [p.registers_evidence, z3.Not(s.ex[p.evidence]), p.evidence != p.target]


def _attacked(s: EncodedState, t: z3.ExprRef) -> z3.BoolRef:
    return z3.Exists([_x], s.att[_x, t])


def _applies(*labels: Standing, evidence: bool = False) -> Hypotheses:
    """A reachable state whose target carries one of ``labels``; the bare operation (with
    new evidence when ``evidence``)."""

    def given(s: EncodedState, p: Params) -> list[z3.BoolRef]:
        extra = _fresh_evidence(s, p) if evidence else []
        return [*_reachable(s), *_target_is(s, p, *labels), *extra, *_plain(p)]

    return given


def _weakened(evidence: bool = False) -> Hypotheses:
    """A reachable state whose target is weakened, so attacked (proof of Lemma 2.2)."""
    base = _applies(Standing.WEAKENED, evidence=evidence)
    return lambda s, p: [*base(s, p), _attacked(s, p.target)]


def _precondition(s: EncodedState, t: Transition, p: Params) -> z3.BoolRef:
    return t.precondition


def _labelled(label: Standing) -> Fact:
    return lambda s, t, p: t.after.st[p.target] == LABELS[label]


def _no_new_attack(s: EncodedState, t: Transition, p: Params) -> z3.BoolRef:
    return z3.ForAll([_x, _y], t.after.att[_x, _y] == s.att[_x, _y])


def _reachable_only(s: EncodedState, p: Params) -> list[z3.BoolRef]:
    return _reachable(s)


def _any_state(s: EncodedState, p: Params) -> list[z3.BoolRef]:
    return [well_formed(s)]


def _standing_of(step: Step, record: str) -> str | None:
    return None if step.after is None else step.after.standing.get(record)


# -- the statements --------------------------------------------------------------------------

_LEMMA_2_2 = "proof of Lemma 2.2"
_NO_ATTACK = (
    f'{_LEMMA_2_2}: "Observe, Hypothesize, Support, Expand-Awareness and Question add no '
    'attack edge"; A.4: "The attack additions of Undermine and Revise"'
)

ROWS: tuple[Statement, ...] = (
    *(
        Statement(
            kind,
            "adds no attack",
            _NO_ATTACK,
            "after",
            _reachable_only,
            _no_new_attack,
            None,
            lambda step: step.after is not None and step.after.att == step.before.att,
        )
        for kind in (
            "observe",
            "hypothesize",
            "support",
            "expand-awareness",
            "question",
            "resolve",
        )
    ),
    Statement(
        "support",
        "changes no label of a registered record",
        f"{_LEMMA_2_2}: only Undermine, Revise and Resolve set a label; Support labels only "
        '"any new argument active"',
        "after",
        _reachable_only,
        lambda s, t, p: z3.ForAll([_x], z3.Implies(s.ex[_x], t.after.st[_x] == s.st[_x])),
        {"target_becomes": Standing.ABANDONED},
        lambda step: (
            step.after is not None
            and all(step.after.standing[r] == step.before.standing[r] for r in step.before.args)
        ),
    ),
    Statement(
        "support",
        "applies to an active target",
        'B.2 T13: "Support h4, then Resolve h4", h4 active',
        "applies",
        _applies(Standing.ACTIVE, evidence=True),
        _precondition,
        {"target_standing": frozenset({Standing.WEAKENED, Standing.RESOLVED})},
    ),
    Statement(
        "undermine",
        "only an active or weakened target",
        f'{_LEMMA_2_2}: "Undermine, whose precondition requires an active or weakened target"',
        "only",
        _any_state,
        lambda s, t, p: z3.Or(
            s.st[p.target] == LABELS[Standing.ACTIVE], s.st[p.target] == LABELS[Standing.WEAKENED]
        ),
        {"target_standing": frozenset({Standing.ACTIVE, Standing.WEAKENED, Standing.ABANDONED})},
    ),
    Statement(
        "undermine",
        "applies to an active target",
        f'{_LEMMA_2_2}: "an active or weakened target"; B.2 T7 undermines the active h2',
        "applies",
        _applies(Standing.ACTIVE, evidence=True),
        _precondition,
        {"target_standing": frozenset({Standing.WEAKENED})},
    ),
    Statement(
        "undermine",
        "applies to a weakened target, attacked as every weakened record is",
        f'{_LEMMA_2_2}: "an active or weakened target"',
        "applies",
        _weakened(evidence=True),
        _precondition,
        {"target_unattacked": True},
    ),
    Statement(
        "undermine",
        "adds the attack (evidence, target)",
        f'{_LEMMA_2_2}: Undermine "adds (alpha_e, alpha_gamma)"',
        "after",
        _reachable_only,
        lambda s, t, p: t.after.att[p.evidence, p.target],
        {"attacks_target": False},
        lambda step: step.after is not None and (step.evidence, step.target) in step.after.att,
    ),
    Statement(
        "undermine",
        "leaves its target weakened",
        f'{_LEMMA_2_2}: Undermine "leaves st(alpha_gamma) = weakened"',
        "after",
        _reachable_only,
        _labelled(Standing.WEAKENED),
        {"target_becomes": None},
        lambda step: _standing_of(step, step.target) == core.WEAKENED,
    ),
    *(
        Statement(
            "revise",
            f"applies to a target {label.value}",
            f"{_LEMMA_2_2} names no target precondition for Revise (it does for Undermine and "
            'Resolve); B.2 T9 revises h2, undermined at T7; T12: "h2 stays abandoned"',
            "applies",
            _weakened() if label is Standing.WEAKENED else _applies(label),
            _precondition,
            {"target_unattacked": True}
            if label is Standing.WEAKENED
            else {"target_standing": frozenset(Standing) - {label}},
        )
        for label in Standing
    ),
    Statement(
        "revise",
        "attacks its target from each attacker",
        f'{_LEMMA_2_2}: "Revise adds attacks on alpha_gamma"',
        "after",
        _reachable_only,
        lambda s, t, p: z3.ForAll([_x], z3.Implies(p.attackers[_x], t.after.att[_x, p.target])),
        {"attacks_target": False},
        lambda step: (
            step.after is not None
            and all((a, step.target) in step.after.att for a in step.attackers)
        ),
    ),
    Statement(
        "revise",
        "leaves its target abandoned",
        f'{_LEMMA_2_2}: Revise "sets st(alpha_gamma) = abandoned"',
        "after",
        _reachable_only,
        _labelled(Standing.ABANDONED),
        {"target_becomes": Standing.WEAKENED},
        lambda step: _standing_of(step, step.target) == core.ABANDONED,
    ),
    Statement(
        "resolve",
        "only a target in S_t with no recorded attack",
        f'{_LEMMA_2_2}: "Resolve sets st = resolved only when alpha_gamma in S_t and no '
        'attack on it is recorded (Table 3)"',
        "only",
        _any_state,
        lambda s, t, p: z3.And(good(s.st[p.target]), z3.Not(_attacked(s, p.target))),
        {"target_unattacked": False},
    ),
    Statement(
        "resolve",
        "applies to every target in S_t with no recorded attack",
        f"{_LEMMA_2_2}: Table 3's precondition is alpha_gamma in S_t and no attack recorded",
        "applies",
        lambda s, p: [
            well_formed(s),
            *_target_is(s, p, Standing.ACTIVE, Standing.RESOLVED),
            z3.Not(_attacked(s, p.target)),
            *_plain(p),
        ],
        _precondition,
        {"target_standing": frozenset({Standing.ACTIVE})},
    ),
    Statement(
        "resolve",
        "leaves its target resolved",
        f'{_LEMMA_2_2}: "Resolve sets st(alpha_gamma) = resolved"',
        "after",
        _reachable_only,
        _labelled(Standing.RESOLVED),
        {"target_becomes": None},
        lambda step: _standing_of(step, step.target) == core.RESOLVED,
    ),
)
"""What the paper says of the rows."""


def _grounds_good(members: Callable[[Params], z3.ArrayRef]) -> Fact:
    return lambda s, t, p: z3.ForAll([_x], z3.Implies(members(p)[_x], good(s.st[_x])))


def _reused_good(s: EncodedState, t: Transition, p: Params) -> z3.BoolRef:
    return z3.Implies(z3.Not(p.registers_evidence), good(s.st[p.evidence]))


CHOICES: tuple[Statement, ...] = (
    Statement(
        "support",
        "only a target not abandoned",
        clauses.SUPPORT_TARGET,
        "only",
        _any_state,
        lambda s, t, p: s.st[p.target] != LABELS[Standing.ABANDONED],
        {"target_standing": frozenset(Standing)},
    ),
    Statement(
        "support",
        "applies to a resolved target",
        clauses.SUPPORT_TARGET,
        "applies",
        _applies(Standing.RESOLVED, evidence=True),
        _precondition,
        {"target_standing": frozenset({Standing.ACTIVE, Standing.WEAKENED})},
    ),
    Statement(
        "support",
        "applies to a weakened target, attacked as every weakened record is",
        clauses.SUPPORT_TARGET,
        "applies",
        _weakened(evidence=True),
        _precondition,
        {"target_unattacked": True},
    ),
    *(
        Statement(
            kind,
            "only reused evidence in S_t",
            clauses.EVIDENCE_EXISTING,
            "only",
            _any_state,
            _reused_good,
            {"grounds_in_good_standing": False},
        )
        for kind in ("support", "undermine")
    ),
    Statement(
        "revise",
        "only attackers in S_t",
        clauses.REVISE_ATTACKERS,
        "only",
        _any_state,
        _grounds_good(lambda p: p.attackers),
        {"grounds_in_good_standing": False},
    ),
    Statement(
        "resolve",
        "only premises in S_t",
        clauses.PREMISES_GOOD,
        "only",
        _any_state,
        _grounds_good(lambda p: p.premises),
        {"grounds_in_good_standing": False},
    ),
)
"""What ``spec/gcv/spec/transition.py``'s chosen clauses say of the rows, where the paper is
silent."""

STATEMENTS = ROWS + CHOICES


def _query(
    statement: Statement, rules: Rules, kind: str, s: EncodedState, p: Params
) -> tuple[list[z3.BoolRef], z3.BoolRef]:
    """The statement's hypotheses and conclusion for the row of ``kind`` under ``rules``."""
    t = transition(kind, s, p, rules)
    given = statement.given(s, p)
    if statement.shape == "applies":
        return given, t.precondition
    return [*given, t.precondition], statement.fact(s, t, p)


def _checks(statements: tuple[Statement, ...], budget: Budget) -> list[Check]:
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    out = []
    for statement in statements:
        hypotheses, conclusion = _query(statement, rows(), statement.operation, s, p)
        result = prove(hypotheses, conclusion, timeout_ms=budget.timeout_ms)
        out.append(Check(f"{statement.operation}: {statement.says}", result))
    return out


def _spec_operation(kind: str, d: Decoded, p: Params) -> dict[str, object]:
    """The counterexample's operation (a row with a target) as the spec reads it."""
    op: dict[str, object] = {"op": kind, "target": d.name(p.target)}
    if kind in ("support", "undermine"):
        op["evidence"] = d.name(p.evidence)
        if d.holds(p.registers_evidence):
            op["evidence_claim"] = "c"
            op["evidence_depends_on"] = sorted(decode_members(d, p.cited))
    elif kind == "revise":
        op["attackers"] = sorted(decode_members(d, p.attackers))
    else:
        assert kind == "resolve", f"{kind} has no target"
        op["subsumes"] = sorted(decode_members(d, p.subsumes))
        if premises := sorted(decode_members(d, p.premises)):
            op |= {"authoritative": True, "premises": premises}
    return op


def _replayed(kind: str, d: Decoded, s: EncodedState, p: Params) -> Step:
    """The counterexample's step taken by ``gcv.spec.transition`` from the decoded state."""
    before = decode_map(d, s)
    state = spec.State.start(("a",), ("p",))
    state.records = {r: spec.Record("c", "a", 0, "hypothesis") for r in before.args}
    state.dmap = before
    turn = spec.Turn("a", (_spec_operation(kind, d, p),))
    after: core.DependencyMap | None
    try:
        after = spec.process_turn(state, turn, epistemic=False).state.to_core()
    except spec.Rejected:
        after = None
    attackers = decode_members(d, p.attackers)
    return Step(before, d.name(p.target), d.name(p.evidence), attackers, after)


def _twin(statement: Statement, budget: Budget) -> Twin:
    s, p = EncodedState.fresh("s"), Params.fresh("p")
    kind, rules = statement.operation, rows()
    if statement.twin is None:
        kind = "undermine"
        name = f"{statement.operation}: {statement.says}, read of Undermine"
    else:
        table = dict(rules)
        table[kind] = dataclasses.replace(rules[kind], **statement.twin)  # type: ignore[arg-type]
        rules = MappingProxyType(table)
        change = ", ".join(f"{k} = {_shown(v)}" for k, v in statement.twin.items())
        name = f"{kind}: {statement.says}, with {change}"
    hypotheses, conclusion = _query(statement, rules, kind, s, p)
    # The statements about next states are refuted on a bare operation but for Revise's
    # attackers (a twin refuted on a narrower input is refuted).
    pins = [_empty(p.cited), _empty(p.subsumes), _empty(p.premises)]
    pins = pins if statement.shape == "after" and kind == "revise" else []
    result = prove([*hypotheses, *pins], conclusion, timeout_ms=budget.timeout_ms)
    if result.model is None:
        return Twin(name, result)
    step = _replayed(kind, Decoded(result.model), s, p)
    if statement.shape == "applies":
        confirmed = step.after is not None  # the spec takes the step the row refuses
    elif statement.shape == "only":
        confirmed = step.after is None  # the spec refuses the step the row allows
    else:  # the spec's step keeps the statement, or (Undermine) breaks it too
        confirmed = step.after is not None and statement.kept(step) == (statement.twin is not None)
    verdict = "refuses" if step.after is None else "takes"
    label = step.before.standing.get(step.target, "unregistered")
    text = f"the spec {verdict} {kind} of a target {label}"
    if step.after is not None:
        text += f", leaving it {step.after.standing.get(step.target)}"
    return Twin(name, result, text, confirmed)


def _shown(value: object) -> str:
    """A row field's value as the table writes it."""
    if isinstance(value, frozenset):
        return "{" + ", ".join(sorted(label.value for label in value)) + "}"
    return str(value.value if isinstance(value, Standing) else value)


def _twins(statements: tuple[Statement, ...], budget: Budget) -> list[Twin]:
    """A twin for each statement with a row change, and one for the "adds no attack"
    statements (all alike, read of Undermine)."""
    changed = [_twin(statement, budget) for statement in statements if statement.twin]
    alike = [statement for statement in statements if statement.twin is None]
    return changed + [_twin(statement, budget) for statement in alike[:1]]


ROWS_OBLIGATION = Obligation(
    id="table-3-rows",
    statement="Lemma 2.2's proof and B.2, row by row: Undermine only on an active or weakened "
    "target, attacking it and leaving it weakened; Revise on any target, attacking it and "
    "leaving it abandoned; Resolve exactly on a target in S_t with no recorded attack, "
    "leaving it resolved; Support on an active target, changing no label; only Undermine "
    "and Revise add attacks",
    bound=lambda budget: "unbounded",
    checks=lambda budget: _checks(ROWS, budget),
    twins=lambda budget: _twins(ROWS, budget),
)

CHOICES_OBLIGATION = Obligation(
    id="table-3-choices",
    statement="Table 3 where the paper is silent, as spec/gcv/spec/transition.py chooses: "
    "Support's "
    "target active, weakened or resolved; reused evidence, Revise's attackers and Resolve's "
    "premises in S_t",
    bound=lambda budget: "unbounded",
    checks=lambda budget: _checks(CHOICES, budget),
    twins=lambda budget: _twins(CHOICES, budget),
)
