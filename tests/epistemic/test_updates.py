"""Updates of M_t on worked examples and by their defining properties; their typed errors."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcv.reference.epistemic import updates
from gcv.reference.epistemic.formula import parse
from gcv.reference.epistemic.model import PlausibilityModel, build_model
from gcv.reference.epistemic.semantics import members, truth_set
from gcv.reference.epistemic.updates import (
    announce,
    conservative_upgrade,
    expand,
    lexicographic_upgrade,
    restrict,
)
from gcv.reference.errors import ModelTooLarge, NoSurvivingWorld, UnknownAgent
from gcv.spec import epistemic as se
from tests.epistemic.support import formulas, models, to_spec_formula, to_spec_model


def _names(m: PlausibilityModel) -> list[list[str]]:
    return sorted(sorted(v) for v in m.valuations())


def _rank_of(m: PlausibilityModel, agent: str) -> dict[frozenset[str], int]:
    return dict(zip(m.valuations(), m.ranks(agent), strict=True))


def test_public_announcement_eliminates_the_worlds_where_psi_fails() -> None:
    m = PlausibilityModel.implicit(["a", "b"], ["p", "q"])
    after = announce(m, parse("p | q"))
    assert _names(after) == [["p"], ["p", "q"], ["q"]]
    assert _names(announce(after, parse("~q"))) == [["p"]]


def test_an_announcement_true_nowhere_is_refused_publicly_and_to_a_group() -> None:
    m = announce(PlausibilityModel.implicit(["a", "b"], ["p"]), parse("p"))
    for group in (None, ("a",)):
        with pytest.raises(NoSurvivingWorld) as caught:
            announce(m, parse("~p"), group)
        assert caught.value.code == "no-surviving-world"


@pytest.mark.parametrize(
    "update",
    [
        lambda m, group: announce(m, parse("p"), group),
        lambda m, group: lexicographic_upgrade(m, parse("p"), group),
        lambda m, group: conservative_upgrade(m, parse("p"), group),
        lambda m, group: updates.downgrade(m, parse("p"), agents=group),
        lambda m, group: expand(m, "q", group),
    ],
    ids=["announce", "lexicographic", "conservative", "downgrade", "expand"],
)
def test_every_group_update_names_an_agent_outside_ags(update: Callable[..., object]) -> None:
    m = PlausibilityModel.implicit(["a", "b"], ["p"])
    with pytest.raises(UnknownAgent) as caught:
        update(m, ("a", "z"))
    assert caught.value.code == "unknown-agent" and "'z'" in caught.value.detail


def test_a_group_announcement_splits_only_the_groups_cells() -> None:
    m = PlausibilityModel.implicit(["a", "b"], ["p"])
    after = announce(m, parse("p"), ("a",))
    assert after.size == 2, "no world is eliminated"
    assert truth_set(after, parse("K[a] p | K[a] ~p")) == 0b11, "a learnt whether p"
    assert truth_set(after, parse("K[b] p | K[b] ~p")) == 0, "b did not"
    assert truth_set(after, parse("K[b] (K[a] p | K[a] ~p)")) == 0b11, "b knows a learnt it"


@pytest.mark.slow
@given(st.data())
def test_lexicographic_upgrade_puts_psi_first_and_keeps_each_side_in_order(
    data: st.DataObject,
) -> None:
    m = data.draw(models())
    f = data.draw(formulas(m.atoms, m.agents, max_leaves=4))
    agent = data.draw(st.sampled_from(m.agents))
    after = lexicographic_upgrade(m, f, [agent])
    inside = members(truth_set(m, f), m.size)
    cells, old, new = m.cells(agent), m.ranks(agent), after.ranks(agent)
    for w in range(m.size):
        for v in range(m.size):
            if cells[w] != cells[v]:
                continue
            if inside[w] == "1" and inside[v] == "0":
                assert new[w] < new[v], "every psi-world strictly before every ~psi-world"
            elif inside[w] == inside[v]:
                assert (old[w] <= old[v]) == (new[w] <= new[v]), "the order within a side"
    others = [a for a in m.agents if a != agent]
    assert all(after.ranks(a) == m.ranks(a) for a in others), "only the group's order changes"


def test_conservative_upgrade_moves_only_the_best_psi_worlds() -> None:
    m = build_model(
        ["a"],
        ["p", "q"],
        ranks={"a": [([], 0), (["q"], 1), (["p"], 2), (["p", "q"], 3)]},
    )
    after = conservative_upgrade(m, parse("p"))
    ranks = _rank_of(after, "a")
    best = ranks[frozenset({"p"})]
    assert all(best < r for w, r in ranks.items() if w != {"p"}), "best p-world first"
    assert ranks[frozenset()] < ranks[frozenset({"q"})] < ranks[frozenset({"p", "q"})]
    # The lexicographic upgrade would also put [p, q] before [] and [q].
    lex = _rank_of(lexicographic_upgrade(m, parse("p")), "a")
    assert lex[frozenset({"p", "q"})] < lex[frozenset()]


def test_b2_t6_conservative_upgrade_of_the_believed_hypothesis_changes_nothing() -> None:
    # B.2, T6: "[up h1] leaves this order unchanged, since the most plausible h1-world
    # w_{h1 & h2} is already minimal."
    m = PlausibilityModel.implicit(["a", "b", "c"], ["h1", "h2"])
    m = lexicographic_upgrade(lexicographic_upgrade(m, parse("h1")), parse("h2"))
    layers = ["h1 & h2", "~h1 & h2", "h1 & ~h2", "~h1 & ~h2"]
    after = conservative_upgrade(m, parse("h1"))
    for agent in "abc":
        assert after.ranks(agent) == m.ranks(agent)
        order = _rank_of(after, agent)
        ranked = [order[next(iter(_worlds(after, layer)))] for layer in layers]
        assert ranked == sorted(ranked) and len(set(ranked)) == 4, ranked


def _worlds(m: PlausibilityModel, text: str) -> set[frozenset[str]]:
    flags = members(truth_set(m, parse(text)), m.size)
    return {v for v, f in zip(m.valuations(), flags, strict=True) if f == "1"}


def test_expansion_splits_every_world_and_keeps_cells_and_ranks() -> None:
    m = build_model(["a", "b"], ["p"], observes={"a": ["p"]}, ranks={"b": [(["p"], 1)]})
    after = expand(m, "q", ("a",))
    assert after.size == 2 * m.size
    assert sorted(after.awareness["a"]) == ["p", "q"] and sorted(after.awareness["b"]) == ["p"]
    ranks = _rank_of(after, "b")
    assert ranks[frozenset({"p"})] == ranks[frozenset({"p", "q"})] == 1
    assert truth_set(after, parse("K[a] q | K[a] ~q")) == 0, "aware of q, not informed"
    assert expand(after, "q", ("b",)).size == after.size, "a known atom: awareness only"


def test_an_implicit_model_stays_implicit_under_expansion() -> None:
    m = PlausibilityModel.implicit(["a"], [f"p{i}" for i in range(40)])
    grown = expand(m, "q")
    assert not grown.is_explicit and grown.size == 1 << 41, "2^41 worlds, none built"
    with pytest.raises(ModelTooLarge):
        grown.explicit()


def test_expansion_beyond_the_bound_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(updates, "MAX_WORLDS", 4)
    m = PlausibilityModel.implicit(["a"], ["p", "q"]).explicit()
    with pytest.raises(ModelTooLarge) as caught:
        expand(m, "r")
    assert caught.value.code == "model-too-large"


def test_restrict_keeps_the_chosen_worlds_in_order() -> None:
    m = PlausibilityModel.implicit(["a"], ["p", "q"]).explicit()
    assert restrict(m, 0b1010).worlds == (1, 3)


def _unstable_upgrade(m: PlausibilityModel, f: object) -> PlausibilityModel:
    # A planted bug: psi-worlds first, but each side's order forgotten.
    flags = members(truth_set(m, f), m.size)  # type: ignore[arg-type]
    ranks = {a: tuple(0 if c == "1" else 1 for c in flags) for a in m.agents}
    return m.with_parts(ranks=ranks)


def test_the_agreement_check_catches_an_upgrade_that_forgets_the_order() -> None:
    m = build_model(["a", "b", "c"], ["p", "q"], ranks={"a": [(["q"], 1)]})
    f = parse("p")
    expected = se.process_lexicographic_upgrade(to_spec_model(m), to_spec_formula(f))
    assert to_spec_model(lexicographic_upgrade(m, f)) == expected
    assert to_spec_model(_unstable_upgrade(m, f)) != expected
