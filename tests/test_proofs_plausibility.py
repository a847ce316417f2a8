"""The ``definition-a.1-updates`` obligation proves what runs: its definitions of the updates,
evaluated on Python truth values, give the same W and the same <=_i as
``gcv.reference.epistemic.updates`` on every model of one to three worlds (valuations of p
and q), for two agents with every pair of A.1 relations, and every truth set of psi; and a
broken definition is caught."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import combinations, product
from typing import Any

import pytest

from gcv.proofs.obligations import plausibility as enc
from gcv.reference.epistemic import updates
from gcv.reference.epistemic.formula import Formula, parse
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.epistemic.semantics import members, truth_set
from gcv.reference.errors import NoSurvivingWorld

ATOMS = ("p", "q")
VALUATIONS = ("~p & ~q", "p & ~q", "~p & q")
"""The worlds of the models, by their valuation bits 0, 1, 2: a formula true at exactly one."""

Pairs = frozenset[tuple[object, object]]
Reference = Callable[[PlausibilityModel, Any], PlausibilityModel]

REFERENCE: dict[str, Reference] = {
    "[!psi] public": lambda m, f: updates.announce(m, f),
    "[!psi] to {a}": lambda m, f: updates.announce(m, f, ["a"]),
    "[up-up psi] public": lambda m, f: updates.lexicographic_upgrade(m, f),
    "[up-up psi] to {a}": lambda m, f: updates.lexicographic_upgrade(m, f, ["a"]),
    "[up psi] public": lambda m, f: updates.conservative_upgrade(m, f),
    "[up psi] to {a}": lambda m, f: updates.conservative_upgrade(m, f, ["a"]),
    "[up-up ~gamma] public": lambda m, f: updates.downgrade(m, f),
    "[up ~gamma] public": lambda m, f: updates.downgrade(m, f, updates.Downgrade.CONSERVATIVE),
    "expansion by a new atom": lambda m, f: updates.expand(m, "r"),
}


def truth_sets(n: int) -> dict[str, Formula]:
    """For each set S of the first n worlds, a formula true exactly at S."""
    out = {}
    for size in range(n + 1):
        for chosen in combinations(range(n), size):
            text = " | ".join(f"({VALUATIONS[w]})" for w in chosen) or "p & ~p"
            out[text] = parse(text)
    return out


def _relations(n: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """One (cells, ranks) for each distinct A.1 relation on n worlds."""
    found: dict[frozenset[tuple[int, int]], tuple[tuple[int, ...], tuple[int, ...]]] = {}
    for cells in product(range(n), repeat=n):
        for ranks in product(range(n), repeat=n):
            pairs = frozenset(
                (w, v)
                for w in range(n)
                for v in range(n)
                if cells[w] == cells[v] and ranks[w] <= ranks[v]
            )
            found.setdefault(pairs, (cells, ranks))
    return list(found.values())


def small_models() -> Iterator[PlausibilityModel]:
    """Every model on the first one, two or three valuations, agents a and b (which valuations
    the worlds are matters only through psi, and psi ranges over every truth set)."""
    everyone = {"a": frozenset(ATOMS), "b": frozenset(ATOMS)}
    for n in (1, 2, 3):
        for (cells_a, ranks_a), (cells_b, ranks_b) in product(_relations(n), repeat=2):
            yield PlausibilityModel(
                ("a", "b"),
                ATOMS,
                everyone,
                tuple(range(n)),
                {"a": cells_a, "b": cells_b},
                {"a": ranks_a, "b": ranks_b},
            )


def _frame(m: PlausibilityModel) -> enc.Frame[int, bool]:
    def relation(agent: str) -> Callable[[int, int], bool]:
        cells, ranks = m.cells(agent), m.ranks(agent)
        return lambda w, v: cells[w] == cells[v] and ranks[w] <= ranks[v]

    return enc.Frame(
        enc.python_logic(range(m.size)), lambda w: True, {i: relation(i) for i in m.agents}
    )


def _encoded(after: enc.Frame[Any, bool], names: Sequence[object]) -> tuple[object, ...]:
    """W and each <=_i of an encoded model, over the worlds ``names`` can name."""
    kept = [w for w in names if after.inside(w)]
    relations = tuple(
        frozenset((w, v) for w in kept for v in kept if after.leq[i](w, v)) for i in enc.AGENTS
    )
    return (frozenset(kept), *relations)


def _engine(m: PlausibilityModel, after: PlausibilityModel) -> tuple[object, ...]:
    """W and each <=_i of the engine's model, its worlds named as the encoding names them:
    the index in ``m``, paired with the new atom's value after an expansion."""
    index = {bits: i for i, bits in enumerate(m.worlds)}
    new = 1 << len(m.atoms)
    split = len(after.atoms) > len(m.atoms)
    names = [(index[b & ~new], bool(b & new)) if split else index[b] for b in after.worlds]
    relations = []
    for agent in enc.AGENTS:
        cells, ranks = after.cells(agent), after.ranks(agent)
        relations.append(
            frozenset(
                (names[w], names[v])
                for w in range(after.size)
                for v in range(after.size)
                if cells[w] == cells[v] and ranks[w] <= ranks[v]
            )
        )
    return (frozenset(names), *relations)


def disagreements(update: str, encoded: enc.UpdateOf, limit: int = 3) -> list[str]:
    """Where the encoded ``update`` and the engine's differ, up to ``limit`` cases."""
    found = []
    for m in small_models():
        frame = _frame(m)
        names: list[object] = list(range(m.size))
        if update == "expansion by a new atom":
            names = [(w, c) for w in range(m.size) for c in (False, True)]
        for text, formula in truth_sets(m.size).items():
            flags = members(truth_set(m, formula), m.size)
            if update.startswith("[!psi]") and "1" not in flags:
                with pytest.raises(NoSurvivingWorld):
                    REFERENCE[update](m, formula)
                continue
            psi = {w for w, f in enumerate(flags) if f == "1"}
            after = encoded(frame, psi.__contains__)
            mine, theirs = _encoded(after, names), _engine(m, REFERENCE[update](m, formula))
            if mine != theirs:
                found.append(f"{m.worlds} {m.cells('a')} {m.ranks('a')} {text}: {mine} {theirs}")
                if len(found) >= limit:
                    return found
    return found


def test_every_encoded_update_is_tied() -> None:
    assert set(REFERENCE) == set(enc.UPDATES)


def test_the_scope_is_every_model_of_up_to_three_worlds() -> None:
    # 1, 4 and 23 relations on 1, 2, 3 worlds (partitions, each cell totally preordered)
    assert [len(_relations(n)) for n in (1, 2, 3)] == [1, 4, 23]
    assert sum(1 for _ in small_models()) == 1 + 4**2 + 23**2
    for n in (1, 2, 3):
        m = next(m for m in small_models() if m.size == n)
        sets = {truth_set(m, f) for f in truth_sets(n).values()}
        assert sets == set(range(2**n)), n


@pytest.mark.slow
@pytest.mark.parametrize("update", list(enc.UPDATES))
def test_the_encoded_update_is_the_engines(update: str) -> None:
    encoded, _ = enc.UPDATES[update]
    assert disagreements(update, encoded) == []


def test_the_tie_catches_an_upgrade_across_cells() -> None:
    def broken(frame: enc.Frame[Any, bool], psi: Callable[[Any], bool]) -> enc.Frame[Any, bool]:
        return enc.lexicographic(frame, psi, None, within_cells=False)

    assert disagreements("[up-up psi] public", broken, limit=1)
