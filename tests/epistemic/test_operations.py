"""Each operation's epistemic effect through the Verifier: the DEL table, atomic turns with
M_t, typed errors that leave D_t as it was, and the cost-free path for formula-less runs."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from gcv.reference.apply import apply_operations
from gcv.reference.depmap import (
    AtomAdded,
    AwarenessGained,
    DependencyMap,
    ModelReplaced,
    RecordAdded,
)
from gcv.reference.epistemic.formula import Atom, parse
from gcv.reference.epistemic.model import PlausibilityModel, build_model
from gcv.reference.errors import GcvError, MalformedOperation, NoSurvivingWorld
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
    realisation,
)
from gcv.reference.rules import Realisation, Update
from gcv.reference.verifier import Turn, Verifier
from gcv.spec import epistemic as se
from gcv.spec import transition
from gcv.trace import operation_from_json, operation_to_json
from gcv.translate import spec_operation
from tests.epistemic.support import formulas, scaled, to_spec_formula, to_spec_model
from tests.maps import four_active
from tests.strategies import turns_over

_SPEC_NAMES = {
    Update.HARD_ANNOUNCEMENT: "hard announcement",
    Update.LEXICOGRAPHIC_UPGRADE: "lexicographic upgrade",
    Update.CONSERVATIVE_UPGRADE: "conservative upgrade",
    None: None,
}

# Each operation whose home chooses a plausibility update: an operation read the default
# way, and one whose field selects the alternative (None: the row has none).  Expand-
# Awareness, Observe and Question update M_t otherwise; their effects are compared with
# the spec's below.
_READINGS: dict[str, tuple[Operation, Operation | None]] = {
    "hypothesize": (Hypothesize("h", "x"), None),
    "support": (Support("h", "e"), Support("h", "e", specific=True)),
    "undermine": (Undermine("h", "e"), Undermine("h", "e", downgrade="conservative")),
    "revise": (Revise("h"), Revise("h", ("a1",))),
    "resolve": (Resolve("h"), Resolve("h", authoritative=True)),
}


def _spec_name(reading: Realisation) -> tuple[str | None, bool]:
    return _SPEC_NAMES[reading.update], reading.negated


@pytest.mark.parametrize("kind", sorted(_READINGS))
def test_the_del_table_is_the_papers(kind: str) -> None:
    default, alternative = se.DEL_REALISATIONS[kind]
    plain, switched = _READINGS[kind]
    assert isinstance(plain, Hypothesize | Support | Undermine | Revise | Resolve)
    assert _spec_name(realisation(plain)) == default
    if alternative is None:
        assert switched is None
    else:
        assert isinstance(switched, Support | Undermine | Revise | Resolve)
        assert _spec_name(realisation(switched)) == alternative


def test_each_operation_reads_its_switch() -> None:
    lex, cons, hard = (
        Update.LEXICOGRAPHIC_UPGRADE,
        Update.CONSERVATIVE_UPGRADE,
        Update.HARD_ANNOUNCEMENT,
    )
    assert realisation(Support("h", "e")).update is cons
    assert realisation(Support("h", "e", specific=True)).update is lex
    assert realisation(Undermine("h", "e")).update is lex
    assert realisation(Undermine("h", "e", downgrade="conservative")).update is cons
    assert realisation(Revise("h")).update is hard, "no attackers: [!~gamma] (B.2 T9)"
    assert realisation(Revise("h", ("a1",))).update is None, "attackers: attacks only (T12)"
    assert realisation(Revise("h", ("a1",), announce=True)).update is hard
    assert realisation(Revise("h", announce=False)).update is None
    assert realisation(Resolve("h")).update is hard
    assert realisation(Resolve("h", authoritative=True)).update is None


# -- each operation's effect, against the spec's update ----------------------------------------

AG = ("a", "b", "c")


def _verifier() -> Verifier:
    v = Verifier(list(AG), ["p", "q"])
    ops = (
        Observe("o1", "p or q", formula=parse("p | q")),
        Hypothesize("h1", "p", formula=parse("p")),
        Hypothesize("h2", "q", formula=parse("q")),
    )
    v.apply_turn(Turn("a", ops))
    return v


@pytest.mark.parametrize(
    ("op", "update"),
    [
        (Support("h1", "o1"), lambda m, f: se.process_conservative_upgrade(m, f)),
        (Support("h1", "o1", specific=True), lambda m, f: se.process_lexicographic_upgrade(m, f)),
        (Undermine("h1", "o1"), lambda m, f: se.process_lexicographic_downgrade(m, f)),
        (
            Undermine("h1", "o1", downgrade="conservative"),
            lambda m, f: se.process_conservative_downgrade(m, f),
        ),
        (Revise("h1"), lambda m, f: se.process_announcement(m, se.Not(f))),
        (Revise("h1", ("o1",)), lambda m, f: m),
        (Resolve("h1"), lambda m, f: se.process_announcement(m, f)),
        (Resolve("h1", authoritative=True), lambda m, f: m),
    ],
    ids=lambda x: repr(x)[:40] if isinstance(x, Operation) else "",
)
def test_an_operation_on_a_target_updates_with_the_targets_formula(
    op: Operation, update: object
) -> None:
    v = _verifier()
    before = to_spec_model(v.model)
    v.apply_turn(Turn("b", (op,)))
    expected = update(before, se.Atom("p"))  # type: ignore[operator]
    assert to_spec_model(v.model) == expected


def test_an_explicit_formula_overrides_the_targets() -> None:
    v = _verifier()
    before = to_spec_model(v.model)
    v.apply_turn(Turn("b", (Support("h1", "o1", formula=parse("q & ~p"), specific=True),)))
    formula = to_spec_formula(parse("q & ~p"))
    assert to_spec_model(v.model) == se.process_lexicographic_upgrade(before, formula)


def test_expand_awareness_splits_w_and_question_queues_without_updating() -> None:
    v = _verifier()
    before = v.model
    v.apply_turn(Turn("c", (Question("q0", "why q?", formula=parse("q")),)))
    assert v.unexplained("c") == (), "everyone believes q: no problem"
    v.apply_turn(Turn("c", (Question("q1", "why not q?", formula=parse("~q")),)))
    assert v.model is before, "Question: no DEL update"
    assert [p.source for p in v.unexplained("c")] == ["q1"]
    v.apply_turn(Turn("c", (ExpandAwareness("r", ("a",)),)))
    assert to_spec_model(v.model) == se.process_awareness_expansion(
        to_spec_model(before), "r", ("a",)
    )
    assert v.is_aware("a", "r") and not v.is_aware("b", "r")


def test_one_turns_observations_are_announced_simultaneously() -> None:
    # "p, and Bob did not know p": both conjuncts are about the moment of speaking.
    v = Verifier(list(AG), ["p"])
    ops = (
        Observe("o1", "p", formula=parse("p")),
        Observe("o2", "Bob did not know p", formula=parse("~K[b] p")),
    )
    v.apply_turn(Turn("a", ops))
    assert v.knows("b", "p")
    # One after another, the second would be false everywhere.
    w = Verifier(list(AG), ["p"])
    w.apply_turn(Turn("a", ops[:1]))
    with pytest.raises(GcvError) as caught:
        w.apply_turn(Turn("a", (Observe("o2", "Bob did not know p", formula=parse("~K[b] p")),)))
    assert caught.value.code == "no-surviving-world"


# -- bad input: a typed error, and D_t (M_t included) exactly as before ---------------------

BAD_TURNS = [
    ("unknown-agent", Hypothesize("h9", "x", formula=parse("K[z] p"))),
    ("unknown-atom", Observe("o9", "x", formula=parse("p & zz"))),
    ("unknown-atom", Support("h1", "e9", evidence_claim="x", formula=parse("nope"))),
    ("no-surviving-world", Observe("o9", "x", formula=parse("~(p | q)"))),
    ("no-surviving-world", Resolve("h1", formula=parse("p & ~p"))),
    ("duplicate-atom", Hypothesize("h9", "x", formula=parse("p"), introduces=("p",))),
    ("unknown-atom", Question("q9", "x", formula=parse("B[a given r] p"))),
]


@pytest.mark.parametrize(("code", "bad"), BAD_TURNS, ids=[c for c, _ in BAD_TURNS])
def test_bad_epistemic_input_is_refused_and_leaves_d_t_unchanged(code: str, bad: Operation) -> None:
    v = _verifier()
    model, digest = v.model, v.state.digest()
    # Earlier operations of the turn change M_t; the rejection must undo them too.
    good = (
        ExpandAwareness("fresh"),
        Hypothesize("h8", "fresh", formula=parse("fresh"), introduces=("fresh2",)),
    )
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("a", (*good, bad)))
    assert caught.value.code == code, caught.value
    assert caught.value.operation_index == 2
    assert v.model is model and v.state.digest() == digest
    assert v.state.turn == 1


def test_a_malformed_or_too_deep_formula_is_refused_when_the_operation_is_built() -> None:
    with pytest.raises(MalformedOperation) as caught:
        operation_from_json({"op": "observe", "id": "o1", "claim": "x", "formula": "p &"})
    assert caught.value.field == "formula"
    with pytest.raises(MalformedOperation) as caught:
        operation_from_json(
            {"op": "observe", "id": "o1", "claim": "x", "formula": "~" * 99_999 + "p"}
        )
    assert caught.value.field == "formula"
    with pytest.raises(MalformedOperation):
        Observe("o1", "x", formula="p")  # type: ignore[arg-type]
    with pytest.raises(MalformedOperation):
        Undermine("h", "e", downgrade="radical")
    with pytest.raises(MalformedOperation):
        Resolve("h", authoritative=True, formula=parse("p"))
    with pytest.raises(MalformedOperation):
        Hypothesize("h", "x", introduces=("true",))


def test_queries_refuse_unknown_names_with_typed_errors() -> None:
    v = _verifier()
    for call, code in [
        (lambda: v.knows("z", "p"), "unknown-agent"),
        (lambda: v.knows("a", "zz"), "unknown-atom"),
        (lambda: v.holds("K[z] p"), "unknown-agent"),
        (lambda: v.holds("p", at=["zz"]), "unknown-atom"),
        (lambda: v.holds("p", at=[]), "unknown-world"),
        (lambda: v.believes("a", "p & "), "malformed-formula"),
        # every query names an unknown agent first, whatever else is wrong
        (lambda: v.knows("z", "p & "), "unknown-agent"),
        (lambda: v.believes("z", "p & "), "unknown-agent"),
        (lambda: v.is_ordered("z", ["p & ", "p"]), "unknown-agent"),
    ]:
        with pytest.raises(GcvError) as caught:
            call()
        assert caught.value.code == code


def test_the_model_reads_back_as_worlds_and_each_agents_cells_and_layers() -> None:
    # a observes p and b observes q: two cells each, ranked as in the epistemic/cells cases.
    model = build_model(
        ["a", "b"],
        ["p", "q"],
        observes={"a": ["p"], "b": ["q"]},
        ranks={
            "a": [(["q"], 0), (["p"], 1), (["p", "q"], 2), ([], 3)],
            "b": [(["p"], 0), (["q"], 1), ([], 2), (["p", "q"], 3)],
        },
    )
    v = Verifier(["a", "b"], model=model)
    none, p, q, pq = frozenset(), frozenset("p"), frozenset("q"), frozenset("pq")
    assert v.worlds() == (none, p, pq, q)  # by their sorted atoms: [] < [p] < [p, q] < [q]
    # Cells by their first layer's least world; layers from the most plausible down.
    assert v.plausibility("a") == (
        (frozenset({p}), frozenset({pq})),
        (frozenset({q}), frozenset({none})),
    )
    assert v.plausibility("b") == (
        (frozenset({p}), frozenset({none})),
        (frozenset({q}), frozenset({pq})),
    )
    assert v.is_ordered("a", ["p & ~q", "p & q"]) and v.is_ordered("a", ["q & ~p", "~p & ~q"])
    assert not v.is_ordered("a", ["p & q", "p & ~q"])
    for layers in (["p"], ["p", "p & "]):
        with pytest.raises(GcvError) as caught:
            v.is_ordered("a", layers)
        assert caught.value.field == "layers", layers


def test_an_observe_announced_alone_that_leaves_no_world_is_refused_naming_it() -> None:
    # A turn of one Observe: its rule's settle announces it alone, after its effect.
    dmap = DependencyMap(["a"], ["p"], PlausibilityModel.implicit(["a"], ["p"]))
    empty = Observe("o1", "x", formula=parse("p & ~p"))
    with pytest.raises(NoSurvivingWorld) as caught, dmap.transaction():
        apply_operations(dmap, (empty,), "a")
    assert (caught.value.record, caught.value.field) == ("o1", "formula")
    assert (caught.value.operation_index, caught.value.operation) == (0, "observe")
    assert not dmap.records, "the transaction left D_t as it was"


# -- JSON round trip of the new fields ----------------------------------------------------------

_f = formulas(("p", "q"), AG, max_leaves=4)
EPISTEMIC_OPS = st.one_of(
    st.builds(Observe, id=st.just("o1"), claim=st.just("x"), formula=_f),
    st.builds(
        Hypothesize,
        id=st.just("h1"),
        claim=st.just("x"),
        formula=st.none() | _f,
        introduces=st.lists(st.sampled_from(["r", "s"]), unique=True).map(tuple),
    ),
    st.builds(
        Support, target=st.just("h1"), evidence=st.just("e"), formula=_f, specific=st.booleans()
    ),
    st.builds(
        Undermine,
        target=st.just("h1"),
        evidence=st.just("e"),
        formula=st.none() | _f,
        downgrade=st.sampled_from(["lexicographic", "conservative"]),
    ),
    st.builds(Revise, target=st.just("h1"), formula=_f, announce=st.none() | st.booleans()),
    st.builds(Resolve, target=st.just("h1"), formula=_f),
    st.builds(Question, id=st.just("q1"), claim=st.just("x"), formula=_f),
)


@given(EPISTEMIC_OPS)
def test_operations_with_formulas_round_trip_through_json(op: Operation) -> None:
    encoded = operation_to_json(op)
    assert operation_from_json(json.loads(json.dumps(encoded))) == op


def test_an_operation_without_a_formula_encodes_and_prints_as_before() -> None:
    assert operation_to_json(Revise("h2", ("h4",))) == {
        "op": "revise",
        "target": "h2",
        "attackers": ["h4"],
    }
    assert repr(Revise("h2")) == "Revise(target='h2', attackers=())"


# -- no formula, no cost ------------------------------------------------------------------------


@scaled(0.4)
@given(st.data())
def test_a_conversation_without_formulas_never_builds_the_worlds(data: st.DataObject) -> None:
    atoms = [f"a{i}" for i in range(30)]
    v = Verifier(list(AG), atoms)
    for _ in range(data.draw(st.integers(1, 8))):
        turn = data.draw(turns_over(tuple(v.state.records)))
        with contextlib.suppress(GcvError):
            v.apply_turn(turn)
        assert not v.model.is_explicit, "2^30 worlds were built"
        assert v.state.epistemic.problems == ()


# -- random conversations with formulas, against the spec --------------------------------------


@st.composite
def _turn(draw: st.DrawFn, v: Verifier, fresh: int) -> Turn:
    atoms = v.model.atoms
    records = list(v.state.records)
    f = formulas(atoms, AG, max_leaves=3)
    maybe = st.none() | f
    ops: list[Operation] = []
    for k in range(draw(st.integers(1, 3))):
        new = f"n{fresh}_{k}"
        choices = ["observe", "hypothesize", "question", "expand"]
        if records:
            choices += ["support", "undermine", "revise", "resolve"]
        kind = draw(st.sampled_from(choices))
        target = draw(st.sampled_from(records)) if records else ""
        match kind:
            case "observe":
                ops.append(Observe(new, "x", formula=draw(f)))
            case "hypothesize":
                intro = () if len(atoms) >= 4 or draw(st.booleans()) else (f"x{fresh}",)
                g = formulas((*atoms, *intro), AG, max_leaves=3)
                ops.append(Hypothesize(new, "x", formula=draw(st.none() | g), introduces=intro))
            case "question":
                ops.append(Question(new, "x", formula=draw(maybe)))
            case "expand":
                atom = draw(st.sampled_from([*atoms, "r"])) if len(atoms) < 4 else atoms[0]
                ops.append(ExpandAwareness(atom, draw(st.sampled_from([(), ("a",), ("b", "c")]))))
            case "support":
                ops.append(
                    Support(target, new, "e", formula=draw(maybe), specific=draw(st.booleans()))
                )
            case "undermine":
                how = draw(st.sampled_from(["lexicographic", "conservative"]))
                ops.append(Undermine(target, new, "e", formula=draw(maybe), downgrade=how))
            case "revise":
                ops.append(
                    Revise(target, formula=draw(maybe), announce=draw(st.none() | st.booleans()))
                )
            case "resolve":
                if draw(st.booleans()):
                    ops.append(Resolve(target, authoritative=True))
                else:
                    ops.append(Resolve(target, formula=draw(maybe)))
    return Turn(draw(st.sampled_from(AG)), tuple(ops))


@pytest.mark.slow
@scaled(0.7)
@given(st.data())
def test_random_conversations_with_formulas_agree_with_the_spec(data: st.DataObject) -> None:
    """M_t after each turn is the spec transition's (spec/gcv/spec/transition.py, every DEL
    clause)."""
    v = Verifier(list(AG), ["p", "q"])
    state = transition.State.start(AG, ["p", "q"], to_spec_model(v.model.explicit()))
    for fresh in range(data.draw(st.integers(1, 5), label="turns")):
        turn = data.draw(_turn(v, fresh), label=f"turn {fresh}")
        spec_turn = transition.Turn(
            turn.speaker, tuple(spec_operation(op) for op in turn.operations)
        )
        before_model, before_digest = v.model, v.state.digest()
        try:
            v.apply_turn(turn)
        except GcvError as error:
            note(f"rejected: {error}")
            assert v.model is before_model and v.state.digest() == before_digest
            with pytest.raises(transition.Rejected) as refused:
                transition.process_turn(state, spec_turn)
            assert refused.value.code == error.code, (refused.value, error)
            continue
        state = transition.process_turn(state, spec_turn).state
        assert to_spec_model(v.model) == state.model, f"M_t differs after turn {fresh}"


# -- the epistemic layer inside the engine's journal and checks ----------------------------

ATOM_P = Atom("p")


def test_a_turn_reports_the_atoms_and_awareness_it_added() -> None:
    """Each ModelReplaced is followed by an AtomAdded for each atom it added and an
    AwarenessGained for each new (agent, atom) pair; undoing the turn restores M_t."""
    v = Verifier(["a", "b", "c"], ["p"])
    v.apply_turn(Turn("a", (ExpandAwareness("q", ("b",)),)))
    ops = (ExpandAwareness("q", ("a",)), Hypothesize("h1", "r", introduces=("r",)))
    before = v.state.epistemic
    report = v.apply_turn(Turn("a", ops))
    changes = [c for c in report.changes if not isinstance(c, RecordAdded)]
    assert isinstance(changes[0], ModelReplaced) and changes[0].before is before, changes
    assert [c for c in changes if not isinstance(c, ModelReplaced)] == [
        AwarenessGained("a", "q"),
        AtomAdded("r"),
        AwarenessGained("a", "r"),
        AwarenessGained("b", "r"),
        AwarenessGained("c", "r"),
    ]
    # one replacement per operation: the expansion's, then the hypothesis's
    replaced = [k for k, c in enumerate(changes) if isinstance(c, ModelReplaced)]
    assert len(replaced) == 2, changes
    last = replaced[-1]
    assert changes[last + 1] == AtomAdded("r"), changes
    assert changes[last].after is v.state.epistemic  # type: ignore[union-attr]
    # The same turn refused at its end leaves M_t as it was.
    w = Verifier(["a", "b", "c"], ["p"])
    w.apply_turn(Turn("a", (ExpandAwareness("q", ("b",)),)))
    kept = w.state.epistemic
    with pytest.raises(GcvError):
        w.apply_turn(Turn("a", (*ops, Question("q1", "why?", formula=Atom("nowhere")))))
    assert w.state.epistemic is kept


def test_an_operation_that_leaves_m_t_as_it_is_journals_nothing_epistemic() -> None:
    """A decision (authoritative Resolve) has no DEL update: M_t is not replaced."""
    v = Verifier(["a", "b", "c"], ["p"])
    v.apply_turn(Turn("a", (Hypothesize("h1", "p", formula=ATOM_P),)))
    before = v.state.epistemic
    report = v.apply_turn(Turn("b", (Resolve("h1", authoritative=True),)))
    assert not [c for c in report.changes if isinstance(c, ModelReplaced)], report.changes
    assert v.state.epistemic is before


def test_a_turn_without_formulas_journals_nothing_epistemic() -> None:
    """No formula, no epistemic step: every operation's report is the argumentation alone."""
    v = four_active()
    report = v.apply_turn(
        Turn(
            "b",
            (
                Hypothesize("h3", "pool exhausted"),
                Support("h1", "o2"),
                Undermine("h2", "e1", "counter"),
                Revise("o2", ("o1",)),
                Question("q1", "why?"),
            ),
        )
    )
    assert not [c for c in report.changes if isinstance(c, ModelReplaced)], report.changes
    assert not v.model.is_explicit


def test_a_registered_record_keeps_its_formula() -> None:
    """Observe and Hypothesize register their formulas; a Question registers no record."""
    v = Verifier(["a", "b", "c"], ["p", "q"])
    ops = (
        Observe("o1", "p or q", formula=parse("p | q")),
        Hypothesize("h1", "p", formula=ATOM_P),
        Question("q1", "q?", formula=parse("q")),
    )
    v.apply_turn(Turn("a", ops))
    assert [v.state.records[r].formula for r in ("o1", "h1")] == [parse("p | q"), ATOM_P]
    assert "q1" not in v.state.records


def test_an_argumentation_violation_is_reported_before_the_formula_is_read() -> None:
    """Table 3's precondition comes first, and a valid formula does not clear it."""
    v = four_active()
    v.apply_turn(Turn("b", (Revise("h2"),)))
    cases: list[tuple[Operation, str]] = [
        (Observe("o1", "again", formula=ATOM_P), "duplicate-record"),
        (Support("h2", "e1", "more", formula=ATOM_P), "wrong-standing"),
        (Hypothesize("h3", "x", depends_on=("zz",), introduces=("r",)), "unknown-record"),
        # A Question has no precondition of Table 3 (T3.question.issue-ids-apart): only its
        # formula can refuse it.
        (Question("h2", "why?", formula=Atom("nowhere")), "unknown-atom"),
    ]
    for op, code in cases:
        before = v.state.digest()
        with pytest.raises(GcvError) as caught:
            v.apply_turn(Turn("a", (op,)))
        assert caught.value.code == code, (op, str(caught.value))
        assert v.state.digest() == before


def test_announcement_errors_name_the_observation() -> None:
    """The simultaneous announcement names the observation at which no world was left, and an
    implicit model too large to build is blamed on the first observation with a formula."""
    v = Verifier(["a", "b", "c"], ["p", "q"])
    ops = (
        Observe("o0", "no formula"),
        Observe("o1", "p", formula=ATOM_P),
        Observe("o2", "q", formula=parse("q")),
        Observe("o3", "not p", formula=parse("~p")),
    )
    with pytest.raises(GcvError) as caught:
        v.apply_turn(Turn("a", ops))
    error = caught.value
    assert (error.code, error.field, error.record, error.operation_index) == (
        "no-surviving-world",
        "formula",
        "o3",
        3,
    )
    assert "announcing ~p with the turn's earlier observations no world of W_t is left" in str(
        error
    )
    big = Verifier(["a"], [f"p{i}" for i in range(19)])
    ops = (
        Observe("o0", "no formula"),
        *(Observe(f"o{k}", "x", formula=Atom("p0")) for k in (1, 2)),
    )
    with pytest.raises(GcvError) as caught:
        big.apply_turn(Turn("a", ops))
    assert (caught.value.code, caught.value.record, caught.value.operation_index) == (
        "model-too-large",
        "o1",
        1,
    )
