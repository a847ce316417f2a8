"""Definitions 3.3 and 3.5: the knowledge fragment L_K, the source fragment L_K,src, and tau.

The one factual atom is ``S_ab`` ("agent a is familiar with b's secret";
Section 3 fixes the factual state to secret sets, so there are no other
atoms).  ``S_aa`` is allowed: it is the trivially true conjunct of E_0.

The full language also has the EPLS probability atom ``P_a(phi) >= q``
(:class:`ProbAtLeast`, Section 3 after Definition 3.3), so that "outside L_K"
is something a caller can actually write.

Formulas are trees; every function here walks them iteratively, or recursively
only after :func:`check_formula` has bounded their depth by
``MAX_FORMULA_DEPTH``, so no input raises ``RecursionError``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

from gcv.spec.gossip.calls import Agent, AgentSet, require_agent
from gcv.spec.gossip.errors import FormulaTooDeepError, FragmentError

__all__ = [
    "MAX_FORMULA_DEPTH",
    "And",
    "AwAnd",
    "AwFamiliar",
    "AwFormula",
    "AwKnow",
    "AwNot",
    "AwOr",
    "Formula",
    "Know",
    "Not",
    "ProbAtLeast",
    "Secret",
    "Top",
    "check_formula",
    "compute_aw_text",
    "compute_conjunction",
    "compute_depth",
    "compute_expertise",
    "compute_iff",
    "compute_implies",
    "compute_or",
    "compute_random_formula",
    "compute_subformulas",
    "compute_text",
    "compute_translation",
    "is_factual",
    "is_in_knowledge_fragment",
    "is_in_wn_language",
    "is_source_compatible",
]

# Constants.  The paper bounds no depth; this bound keeps evaluation well inside
# Python's recursion limit (about three frames per level), and every formula the
# paper writes has depth below 10.
MAX_FORMULA_DEPTH = 64


@dataclass(frozen=True, repr=False)
class Top:
    """The constant true, written T."""

    def __repr__(self) -> str:
        return compute_text(self)


@dataclass(frozen=True, repr=False)
class Secret:
    """The atom S_ab: agent ``knower`` is familiar with agent ``owner``'s secret."""

    knower: Agent
    owner: Agent

    def __repr__(self) -> str:
        return compute_text(self)


@dataclass(frozen=True, repr=False)
class Not:
    """Negation."""

    operand: Formula

    def __repr__(self) -> str:
        return compute_text(self)


@dataclass(frozen=True, repr=False)
class And:
    """Conjunction."""

    left: Formula
    right: Formula

    def __repr__(self) -> str:
        return compute_text(self)


@dataclass(frozen=True, repr=False)
class Know:
    """Knowledge K_a(phi): probability one (Definition 3.2), truth at every R_a-successor."""

    agent: Agent
    operand: Formula

    def __repr__(self) -> str:
        return compute_text(self)


@dataclass(frozen=True, repr=False)
class ProbAtLeast:
    """The EPLS probability atom P_a(phi) >= q; it lies outside L_K (Definition 3.3)."""

    agent: Agent
    operand: Formula
    bound: Fraction

    def __repr__(self) -> str:
        return compute_text(self)


Formula: TypeAlias = Top | Secret | Not | And | Know | ProbAtLeast


@dataclass(frozen=True, repr=False)
class AwFamiliar:
    """The Apt-Wojtczak atom F_a p_b: agent ``agent`` is familiar with secret p_``owner``."""

    agent: Agent
    owner: Agent

    def __repr__(self) -> str:
        return compute_aw_text(self)


@dataclass(frozen=True, repr=False)
class AwNot:
    """Negation in the Apt-Wojtczak language."""

    operand: AwFormula

    def __repr__(self) -> str:
        return compute_aw_text(self)


@dataclass(frozen=True, repr=False)
class AwAnd:
    """Conjunction in the Apt-Wojtczak language."""

    left: AwFormula
    right: AwFormula

    def __repr__(self) -> str:
        return compute_aw_text(self)


@dataclass(frozen=True, repr=False)
class AwOr:
    """Disjunction in the Apt-Wojtczak language (the Boolean abbreviation of Definition 3.5)."""

    left: AwFormula
    right: AwFormula

    def __repr__(self) -> str:
        return compute_aw_text(self)


@dataclass(frozen=True, repr=False)
class AwKnow:
    """The singleton-agent modality K_a = C_{a} of the Apt-Wojtczak language."""

    agent: Agent
    operand: AwFormula

    def __repr__(self) -> str:
        return compute_aw_text(self)


AwFormula: TypeAlias = AwFamiliar | AwNot | AwAnd | AwOr | AwKnow

_NODE_TYPES = (Top, Secret, Not, And, Know, ProbAtLeast)
_AW_NODE_TYPES = (AwFamiliar, AwNot, AwAnd, AwOr, AwKnow)


def _get_children(node: object) -> tuple[object, ...]:
    """Return the immediate subformulas of a formula node of either language."""
    if isinstance(node, Not | AwNot):
        return (node.operand,)
    if isinstance(node, And | AwAnd | AwOr):
        return (node.left, node.right)
    if isinstance(node, Know | ProbAtLeast | AwKnow):
        return (node.operand,)
    return ()


def compute_subformulas(
    phi: object, limit: int = MAX_FORMULA_DEPTH
) -> Iterator[tuple[object, int]]:
    """Yield every node of ``phi`` with its depth (the root has depth 1), iteratively.

    Raises ``FormulaTooDeepError`` as soon as a node lies deeper than ``limit``.
    """
    stack: list[tuple[object, int]] = [(phi, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            raise FormulaTooDeepError(
                f"formula nested deeper than {limit} levels; refused (MAX_FORMULA_DEPTH)"
            )
        yield node, depth
        stack.extend((child, depth + 1) for child in reversed(_get_children(node)))


def compute_depth(phi: object, limit: int = MAX_FORMULA_DEPTH) -> int:
    """Return the nesting depth of ``phi`` (an atom has depth 1), refusing depths over ``limit``.

    >>> compute_depth(Not(And(Top(), Secret("a", "b"))))
    3
    """
    return max(depth for _, depth in compute_subformulas(phi, limit))


def check_formula(agents: AgentSet, phi: object) -> Formula:
    """Return ``phi`` if it is a well-formed formula over ``agents`` of bounded depth.

    Raises ``FormulaTooDeepError``, ``FragmentError`` (not a formula, or a
    probability bound outside [0, 1]) or ``UnknownAgentError``.
    """
    for node, _ in compute_subformulas(phi):
        if not isinstance(node, _NODE_TYPES):
            raise FragmentError(f"not a formula of the gossip language: {type(node).__name__}")
        if isinstance(node, Secret):
            require_agent(agents, node.knower)
            require_agent(agents, node.owner)
        if isinstance(node, Know | ProbAtLeast):
            require_agent(agents, node.agent)
        if isinstance(node, ProbAtLeast) and (
            not isinstance(node.bound, Fraction | int) or not 0 <= node.bound <= 1
        ):
            raise FragmentError(f"probability bound must be a rational in [0, 1]: {node.bound!r}")
    assert isinstance(phi, _NODE_TYPES)  # the root was checked above
    return phi


def is_in_knowledge_fragment(phi: Formula) -> bool:
    """Definition 3.3 (knowledge fragment). Check ``phi`` in L_K: no probability atoms.

    >>> is_in_knowledge_fragment(Know("a", Know("b", Secret("c", "a"))))
    True
    >>> is_in_knowledge_fragment(ProbAtLeast("a", Top(), Fraction(1, 2)))
    False
    """
    compute_depth(phi)
    return not any(isinstance(node, ProbAtLeast) for node, _ in compute_subformulas(phi))


def is_factual(phi: Formula) -> bool:
    """Definition 3.5 (factual source formulas theta ::= T | S_ab | not theta | theta and theta)."""
    compute_depth(phi)
    return all(isinstance(node, Top | Secret | Not | And) for node, _ in compute_subformulas(phi))


def is_source_compatible(phi: Formula) -> bool:
    """Definition 3.5 (L_K,src). Check ``phi`` is in the modal-depth-one source fragment.

    phi ::= theta | not phi | phi and phi | K_a(theta): the operand of every
    knowledge operator is factual, and there are no probability atoms.

    >>> is_source_compatible(Not(Know("a", Secret("b", "c"))))
    True
    >>> is_source_compatible(Know("a", Know("b", Secret("c", "d"))))
    False
    """
    compute_depth(phi)
    for node, _ in compute_subformulas(phi):
        if isinstance(node, ProbAtLeast):
            return False
        if isinstance(node, Know) and not is_factual(node.operand):
            return False
    return True


def compute_translation(agents: AgentSet, phi: Formula) -> AwFormula:
    """Definition 3.5 (translation tau). Translate ``phi`` in L_K,src into Apt-Wojtczak's language.

    The paper fixes some a0 in A; we take the least agent.  tau(S_ab) = F_a p_b,
    tau(T) = F_a0 p_a0 or not F_a0 p_a0, tau commutes with not and and, and
    tau(K_a theta) = K_a tau(theta).

    >>> compute_aw_text(compute_translation(AgentSet(("a", "b", "c")), Know("a", Top())))
    'K_a((F_a p_a | ~F_a p_a))'
    """
    check_formula(agents, phi)
    if not is_source_compatible(phi):
        raise FragmentError(
            f"tau is defined on L_K,src only (Definition 3.5); {compute_text(phi)} is outside it"
        )
    return _translate(agents.names[0], phi)


def _translate(a0: Agent, phi: Formula) -> AwFormula:
    """The recursion of tau, on a formula already checked to be in L_K,src (depth bounded)."""
    if isinstance(phi, Secret):
        return AwFamiliar(phi.knower, phi.owner)
    if isinstance(phi, Top):
        return AwOr(AwFamiliar(a0, a0), AwNot(AwFamiliar(a0, a0)))
    if isinstance(phi, Not):
        return AwNot(_translate(a0, phi.operand))
    if isinstance(phi, And):
        return AwAnd(_translate(a0, phi.left), _translate(a0, phi.right))
    if isinstance(phi, Know):
        return AwKnow(phi.agent, _translate(a0, phi.operand))
    raise AssertionError(f"unreachable: {type(phi).__name__} is outside L_K,src")


def is_in_wn_language(psi: AwFormula) -> bool:
    """Section 3 (L_wn). Check ``psi`` has no modality inside a modality, no probability terms."""
    compute_depth(psi, MAX_FORMULA_DEPTH + 3)
    for node, _ in compute_subformulas(psi, MAX_FORMULA_DEPTH + 3):
        if not isinstance(node, _AW_NODE_TYPES):
            return False
        if isinstance(node, AwKnow) and any(
            isinstance(inner, AwKnow)
            for inner, _ in compute_subformulas(node.operand, MAX_FORMULA_DEPTH + 3)
        ):
            return False
    return True


def compute_conjunction(items: Sequence[Formula]) -> Formula:
    """Return the conjunction of ``items`` as a balanced tree (T when empty), so depth stays log."""
    if not items:
        return Top()
    if len(items) == 1:
        return items[0]
    middle = len(items) // 2
    return And(compute_conjunction(items[:middle]), compute_conjunction(items[middle:]))


def compute_or(phi: Formula, psi: Formula) -> Formula:
    """Return phi or psi, the Boolean abbreviation not(not phi and not psi)."""
    return Not(And(Not(phi), Not(psi)))


def compute_implies(phi: Formula, psi: Formula) -> Formula:
    """Return phi -> psi, the Boolean abbreviation not(phi and not psi)."""
    return Not(And(phi, Not(psi)))


def compute_iff(phi: Formula, psi: Formula) -> Formula:
    """Return phi <-> psi as (phi -> psi) and (psi -> phi)."""
    return And(compute_implies(phi, psi), compute_implies(psi, phi))


def compute_expertise(agents: AgentSet) -> Formula:
    """Section 3 (E_0). The factual expertise condition: every agent knows every secret."""
    return compute_conjunction([Secret(a, b) for a in agents.names for b in agents.names])


def compute_random_formula(
    agents: AgentSet, rng: random.Random, depth: int, *, modal: bool, nested: bool = True
) -> Formula:
    """Draw a formula of depth at most ``depth`` from ``rng`` (a test and audit helper).

    With ``modal`` false the formula is factual; with ``nested`` false every
    knowledge operator has a factual operand (so the result is in L_K,src).
    """
    names = agents.names
    if depth <= 1:
        return Secret(rng.choice(names), rng.choice(names)) if rng.random() < 0.9 else Top()
    choice = rng.randrange(4 if modal else 3)
    if choice == 0:
        return Secret(rng.choice(names), rng.choice(names))
    if choice == 1:
        return Not(compute_random_formula(agents, rng, depth - 1, modal=modal, nested=nested))
    if choice == 2:
        return And(
            compute_random_formula(agents, rng, depth - 1, modal=modal, nested=nested),
            compute_random_formula(agents, rng, depth - 1, modal=modal, nested=nested),
        )
    operand = compute_random_formula(agents, rng, depth - 1, modal=nested, nested=nested)
    return Know(rng.choice(names), operand)


def compute_text(phi: object) -> str:
    """Render a formula of the gossip language in ASCII (refusing over-deep formulas).

    >>> compute_text(Know("a", Not(Secret("b", "c"))))
    'K_a(~S_bc)'
    """
    try:
        compute_depth(phi)
    except FormulaTooDeepError:
        return f"<formula nested deeper than {MAX_FORMULA_DEPTH}>"
    return _render(phi)


def _pair(x: str, y: str) -> str:
    """Write two agent names as a subscript: ``ab``, or ``a,b`` for longer names."""
    return f"{x}{y}" if len(x) == 1 and len(y) == 1 else f"{x},{y}"


def _render(phi: object) -> str:
    """The recursion of :func:`compute_text` (depth already bounded)."""
    if isinstance(phi, Top):
        return "T"
    if isinstance(phi, Secret):
        return f"S_{_pair(phi.knower, phi.owner)}"
    if isinstance(phi, Not):
        return f"~{_render(phi.operand)}"
    if isinstance(phi, And):
        return f"({_render(phi.left)} & {_render(phi.right)})"
    if isinstance(phi, Know):
        return f"K_{phi.agent}({_render(phi.operand)})"
    if isinstance(phi, ProbAtLeast):
        return f"P_{phi.agent}({_render(phi.operand)}) >= {phi.bound}"
    return f"<not a formula: {type(phi).__name__}>"


def compute_aw_text(psi: object) -> str:
    """Render a formula of the Apt-Wojtczak language in ASCII."""
    try:
        compute_depth(psi, MAX_FORMULA_DEPTH + 3)
    except FormulaTooDeepError:
        return f"<formula nested deeper than {MAX_FORMULA_DEPTH + 3}>"
    return _render_aw(psi)


def _render_aw(psi: object) -> str:
    """The recursion of :func:`compute_aw_text` (depth already bounded)."""
    if isinstance(psi, AwFamiliar):
        return f"F_{psi.agent} p_{psi.owner}"
    if isinstance(psi, AwNot):
        return f"~{_render_aw(psi.operand)}"
    if isinstance(psi, AwAnd):
        return f"({_render_aw(psi.left)} & {_render_aw(psi.right)})"
    if isinstance(psi, AwOr):
        return f"({_render_aw(psi.left)} | {_render_aw(psi.right)})"
    if isinstance(psi, AwKnow):
        return f"K_{psi.agent}({_render_aw(psi.operand)})"
    return f"<not a formula: {type(psi).__name__}>"
