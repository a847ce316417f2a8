"""The reference's M_t against the brute-force semantics of ``gcv.spec.epistemic``.

Random small models (3-4 agents, 1-6 atoms, random cells, ranks and awareness) and random
formulas over every connective and modality: the truth sets agree before any update and
after every step of a random sequence of updates (public and group announcements,
lexicographic and conservative upgrades and downgrades, awareness expansions), and the
updated models themselves are equal.
"""

from __future__ import annotations

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from gcv.reference.epistemic import formula as rf
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import truth_set
from gcv.reference.epistemic.updates import (
    Downgrade,
    announce,
    conservative_upgrade,
    downgrade,
    expand,
    lexicographic_upgrade,
)
from gcv.reference.errors import NoSurvivingWorld
from gcv.spec import epistemic as se
from tests.epistemic.support import (
    formulas,
    models,
    reference_truth,
    to_spec_formula,
    to_spec_model,
)


def _agree(m: PlausibilityModel, f: rf.Formula) -> None:
    spec_model = to_spec_model(m)
    expected = se.compute_truth_set(spec_model, to_spec_formula(f))
    actual = reference_truth(m, f)
    assert actual == expected, (
        rf.show(f),
        sorted(map(sorted, actual)),
        sorted(map(sorted, expected)),
    )


@pytest.mark.slow
@given(st.data())
def test_random_models_are_plausibility_models(data: st.DataObject) -> None:
    m = data.draw(models())
    assert se.is_plausibility_model(to_spec_model(m)), m


@pytest.mark.slow
@given(st.data())
def test_truth_agrees_on_random_models_and_formulas(data: st.DataObject) -> None:
    m = data.draw(models())
    for _ in range(3):
        _agree(m, data.draw(formulas(m.atoms, m.agents)))


_UPDATES = (
    "announce",
    "announce-group",
    "lexicographic",
    "conservative",
    "downgrade-lexicographic",
    "downgrade-conservative",
    "expand",
)


def _step(
    data: st.DataObject, m: PlausibilityModel, spec_model: se.EpistemicModel
) -> tuple[PlausibilityModel, se.EpistemicModel]:
    kind = data.draw(st.sampled_from(_UPDATES), label="update")
    group = data.draw(
        st.none() | st.lists(st.sampled_from(m.agents), unique=True, min_size=1).map(tuple),
        label="group",
    )
    if kind == "expand":
        atom = data.draw(st.sampled_from([*m.atoms, "n0", "n1"]), label="atom")
        return expand(m, atom, group), se.process_awareness_expansion(spec_model, atom, group)
    f = data.draw(formulas(m.atoms, m.agents, max_leaves=4), label="formula")
    sf = to_spec_formula(f)
    match kind:
        case "announce" | "announce-group":
            chosen = None if kind == "announce" else (group or m.agents)
            if not se.compute_truth_set(spec_model, sf):
                # Outside the spec's definition; the reference must refuse it with its code.
                try:
                    announce(m, f, chosen)
                except NoSurvivingWorld:
                    return m, spec_model
                raise AssertionError(f"[!{rf.show(f)}] with no surviving world was accepted")
            return announce(m, f, chosen), se.process_announcement(spec_model, sf, chosen)
        case "lexicographic":
            return (
                lexicographic_upgrade(m, f, group),
                se.process_lexicographic_upgrade(spec_model, sf, group),
            )
        case "conservative":
            return (
                conservative_upgrade(m, f, group),
                se.process_conservative_upgrade(spec_model, sf, group),
            )
        case "downgrade-lexicographic":
            return (
                downgrade(m, f, Downgrade.LEXICOGRAPHIC, group),
                se.process_lexicographic_downgrade(spec_model, sf, group),
            )
    return (
        downgrade(m, f, Downgrade.CONSERVATIVE, group),
        se.process_conservative_downgrade(spec_model, sf, group),
    )


@pytest.mark.slow
@given(st.data())
def test_models_and_truth_agree_after_random_updates(data: st.DataObject) -> None:
    m = data.draw(models(max_worlds=8))
    spec_model = to_spec_model(m)
    for step in range(data.draw(st.integers(1, 4), label="steps")):
        m, spec_model = _step(data, m, spec_model)
        note(f"after step {step}: {m}")
        assert to_spec_model(m) == spec_model, f"the models differ after step {step}"
        assert se.is_plausibility_model(spec_model)
        _agree(m, data.draw(formulas(m.atoms, m.agents, max_leaves=6), label="probe"))


@pytest.mark.slow
@given(st.data())
def test_an_implicit_model_is_its_materialisation(data: st.DataObject) -> None:
    atoms = data.draw(st.lists(st.sampled_from("pqrs"), unique=True, min_size=1)).copy()
    implicit = PlausibilityModel.implicit(["a", "b", "c"], atoms)
    f = data.draw(formulas(atoms, ["a", "b", "c"], max_leaves=6))
    assert truth_set(implicit, f) == truth_set(implicit.explicit(), f)
    assert not implicit.is_explicit, "evaluating a formula does not change the value"
    cube = se.EpistemicModel(
        frozenset("abc"),
        frozenset(atoms),
        frozenset(to_spec_model(implicit.explicit()).worlds),
        {
            a: frozenset(
                (w, v)
                for w in to_spec_model(implicit.explicit()).worlds
                for v in to_spec_model(implicit.explicit()).worlds
            )
            for a in "abc"
        },
        {a: frozenset(atoms) for a in "abc"},
    )
    assert to_spec_model(implicit.explicit()) == cube, "every valuation, one cell, one rank"
