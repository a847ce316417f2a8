"""The public API refuses a mistyped argument with a typed error naming it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gcv import Observe, Turn, Verifier
from gcv.reference.epistemic.formula import Formula, Not
from gcv.reference.epistemic.model import build_model
from gcv.reference.errors import GcvError
from gcv.trace import load_trace


def _one_record() -> Verifier:
    v = Verifier(["a"], ["p"])
    v.apply_turn(Turn("a", (Observe("o1", "c"),)))
    return v


# Each raised TypeError, AttributeError or AssertionError from inside, or (Verifier("o1"),
# atoms="pq", at="p") silently read a string as a sequence of one-letter names.
CASES: dict[str, tuple[Callable[[], object], str]] = {
    "Observe(kind=[])": (lambda: Observe("o1", "c", kind=[]), "kind"),  # type: ignore[arg-type]
    "Turn('a', 1)": (lambda: Turn("a", 1), "operations"),  # type: ignore[arg-type]
    "Turn('a', (1,))": (lambda: Turn("a", (1,)), "operations[0]"),  # type: ignore[arg-type]
    "Turn(1, ())": (lambda: Turn(1, ()), "speaker"),  # type: ignore[arg-type]
    "Turn(text=1)": (lambda: Turn("a", (), 1), "text"),  # type: ignore[arg-type]
    "Verifier(1)": (lambda: Verifier(1), "agents"),  # type: ignore[arg-type]
    "Verifier('o1')": (lambda: Verifier("o1"), "agents"),
    "Verifier(atoms='pq')": (lambda: Verifier(["a"], "pq"), "atoms"),
    "Verifier(model=1)": (lambda: Verifier(["a"], model=1), "model"),  # type: ignore[arg-type]
    "Verifier([])": (lambda: Verifier([]), "agents"),
    "Verifier(model of other agents)": (
        lambda: Verifier(["a"], model=build_model(["b"], ["p"])),
        "model",
    ),
    "Verifier(model of other atoms)": (
        lambda: Verifier(["a"], ["q"], model=build_model(["a"], ["p"])),
        "model",
    ),
    "Not(Formula())": (lambda: Not(Formula()), "formula"),
    "verify([])": (lambda: _one_record().verify([]), "candidate"),  # type: ignore[arg-type]
    "affected({})": (lambda: _one_record().affected({}), "record"),  # type: ignore[arg-type]
    "affected_star([])": (lambda: _one_record().affected_star([]), "record"),  # type: ignore[arg-type]
    "standing([])": (lambda: _one_record().standing([]), "record"),  # type: ignore[arg-type]
    "dependencies({})": (lambda: _one_record().dependencies({}), "record"),  # type: ignore[arg-type]
    "attackers([])": (lambda: _one_record().attackers([]), "record"),  # type: ignore[arg-type]
    "holds(5)": (lambda: _one_record().holds(5), "formula"),  # type: ignore[arg-type]
    "holds(at=5)": (lambda: _one_record().holds("p", at=5), "at"),  # type: ignore[arg-type]
    "holds(at='p')": (lambda: _one_record().holds("p", at="p"), "at"),
    # Found by the fuzz harness's deep run: sorting the world's atoms raised TypeError.
    "is_aware('a', [])": (lambda: _one_record().is_aware("a", []), "atom"),  # type: ignore[arg-type]
    "holds(at=[None, False])": (lambda: _one_record().holds("p", at=[None, False]), "at"),  # type: ignore[list-item]
    "is_ordered(layers=5)": (lambda: _one_record().is_ordered("a", 5), "layers"),  # type: ignore[arg-type]
    "apply_turn(5)": (lambda: _one_record().apply_turn(5), "turn"),  # type: ignore[arg-type]
    "load_trace(1)": (lambda: load_trace(1), "text"),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_mistyped_argument_is_a_typed_error_naming_it(name: str) -> None:
    call, field = CASES[name]
    with pytest.raises(GcvError) as caught:
        call()
    assert caught.value.field == field, (name, caught.value)


def test_a_refused_call_leaves_the_map_as_it_was() -> None:
    v = _one_record()
    before = v.state.digest()
    refused: list[Callable[[], object]] = [
        lambda: v.verify([]),  # type: ignore[arg-type]
        lambda: v.affected_star({}),  # type: ignore[arg-type]
        lambda: v.holds("p", at="p"),
        lambda: v.apply_turn(5),  # type: ignore[arg-type]
        lambda: v.apply_turn(Turn("a", (Observe("o2", "c"), 7))),  # type: ignore[arg-type]
    ]
    for call in refused:
        with pytest.raises(GcvError):
            call()
    assert v.state.digest() == before
