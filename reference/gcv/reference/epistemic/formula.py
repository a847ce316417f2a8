"""The formula language of M_t (Appendix A.1, Definition A.3): values, parser and printer.

Formulas are immutable values.  Their text form is ASCII::

    true  false  p_auth  m_a            constants and atoms
    ~phi                                negation
    phi & psi & ...    phi | psi | ...  conjunction, disjunction (n-ary)
    phi -> psi         phi <-> psi      implication, equivalence (right-associative)
    K[a] phi    B[a] phi                knowledge K_a, belief B_a
    B[a given psi] phi                  conditional belief B_a(phi | psi)
    E[a,b] phi  C[a,b] phi              everybody knows E_G, common knowledge C_G
    A[a] phi    X[a] phi                awareness A_a, explicit knowledge X_a

Prefix operators bind tightest, then ``&``, ``|``, ``->``, ``<->``.  An atom is
written ``[A-Za-z0-9][A-Za-z0-9_.:']*`` (``true`` and ``false`` are reserved);
an agent inside brackets is any identifier of Ags.

:func:`parse` and :func:`show` round-trip: ``parse(show(f)) == f`` for every
formula ``f``.  No formula is nested deeper than :data:`MAX_DEPTH`: the
constructors refuse it, and the parser, which keeps its stacks in lists, refuses
deeper text with :class:`~gcv.reference.errors.MalformedFormula` instead of
running out of Python stack.  Every function here may therefore recurse on a
formula's structure.

Whole, at about 750 lines: it is one language, its values, its printer and its parser; the
printer and the parser are inverse to each other (tests/epistemic/test_formula.py round-
trips them), so a new connective is one class and its two rules, here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

import icontract

from gcv.reference.errors import MalformedFormula
from gcv.reference.identifiers import is_identifier

__all__ = [
    "BOTTOM",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "TOP",
    "And",
    "Atom",
    "Aware",
    "Believes",
    "Common",
    "CondBelieves",
    "Const",
    "Everybody",
    "Explicit",
    "Formula",
    "Iff",
    "Implies",
    "Knows",
    "Not",
    "Or",
    "agents_of",
    "atoms_of",
    "conjunction",
    "disjunction",
    "is_atom_name",
    "parse",
    "show",
]

MAX_DEPTH = 128
"""The deepest formula accepted: operators and parentheses nested at most this deep."""

# The engine wraps an input formula in at most two operators (B_a ~gamma, Definition A.2),
# so the values themselves may nest a little deeper than any input; the ceiling still
# keeps every recursion here shallow.
_CEILING = MAX_DEPTH + 4

MAX_LENGTH = 100_000
"""The longest formula text accepted, in characters."""

_ATOM = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:']*")
_RESERVED = frozenset({"true", "false"})


@icontract.ensure(
    lambda text, result: not result or is_identifier(text), "an atom is an identifier"
)
def is_atom_name(text: object) -> bool:
    """Check that ``text`` can be written as an atom in a formula.

    >>> is_atom_name("p_auth"), is_atom_name("o8'"), is_atom_name("true"), is_atom_name("a-b")
    (True, True, False, False)
    """
    return (
        isinstance(text, str)
        and _ATOM.fullmatch(text) is not None
        and text not in _RESERVED
        and is_identifier(text)
    )


# -- values --------------------------------------------------------------------------


class Formula:
    """A formula of the epistemic language; every node records its depth."""

    __slots__ = ()
    depth: int

    def _set_depth(self, *children: Formula) -> None:
        for child in children:
            # The bare base class is no formula of the language: it has no depth.
            if not isinstance(child, Formula) or type(child) is Formula:
                raise MalformedFormula(
                    f"{type(self).__name__} needs formulas, got {child!r}", field="formula"
                )
        depth = 1 + max((c.depth for c in children), default=0)
        if depth > _CEILING:
            raise MalformedFormula(
                f"a formula may be nested at most {MAX_DEPTH} deep", field="formula"
            )
        object.__setattr__(self, "depth", depth)

    def __str__(self) -> str:
        return _show(self)


def _check_agent(agent: object) -> None:
    if not is_identifier(agent):
        raise MalformedFormula(f"{agent!r} is not an agent identifier", field="formula")


def _check_group(group: object) -> None:
    if not isinstance(group, tuple) or not group:
        raise MalformedFormula("a group is a non-empty tuple of agents", field="formula")
    for agent in group:
        _check_agent(agent)
    if len(set(group)) != len(group):
        raise MalformedFormula(f"a group repeats an agent: {list(group)!r}", field="formula")


@dataclass(frozen=True, slots=True)
class Const(Formula):
    """``true`` (top) or ``false`` (bottom)."""

    value: bool
    depth: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.value, bool):
            raise MalformedFormula(
                f"a constant is true or false, not {self.value!r}", field="formula"
            )
        self._set_depth()


@dataclass(frozen=True, slots=True)
class Atom(Formula):
    """An atomic proposition p of Prop_t."""

    name: str
    depth: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not is_atom_name(self.name):
            raise MalformedFormula(f"{self.name!r} cannot be written as an atom", field="formula")
        self._set_depth()


@dataclass(frozen=True, slots=True)
class Not(Formula):
    """~phi."""

    body: Formula
    depth: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._set_depth(self.body)


@dataclass(frozen=True, slots=True)
class And(Formula):
    """phi_1 & ... & phi_n (n >= 2)."""

    parts: tuple[Formula, ...]
    depth: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.parts, tuple) or len(self.parts) < 2:
            raise MalformedFormula("a conjunction has at least two parts", field="formula")
        self._set_depth(*self.parts)


@dataclass(frozen=True, slots=True)
class Or(Formula):
    """phi_1 | ... | phi_n (n >= 2)."""

    parts: tuple[Formula, ...]
    depth: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.parts, tuple) or len(self.parts) < 2:
            raise MalformedFormula("a disjunction has at least two parts", field="formula")
        self._set_depth(*self.parts)


@dataclass(frozen=True, slots=True)
class Implies(Formula):
    """phi -> psi."""

    left: Formula
    right: Formula
    depth: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._set_depth(self.left, self.right)


@dataclass(frozen=True, slots=True)
class Iff(Formula):
    """phi <-> psi."""

    left: Formula
    right: Formula
    depth: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._set_depth(self.left, self.right)


@dataclass(frozen=True, slots=True)
class Knows(Formula):
    """K_i phi: phi holds throughout agent i's information cell."""

    agent: str
    body: Formula
    depth: int = field(init=False, compare=False, repr=False)
    head: ClassVar[str] = "K"

    def __post_init__(self) -> None:
        _check_agent(self.agent)
        self._set_depth(self.body)


@dataclass(frozen=True, slots=True)
class Believes(Formula):
    """B_i phi: phi holds at the most plausible worlds of agent i's cell."""

    agent: str
    body: Formula
    depth: int = field(init=False, compare=False, repr=False)
    head: ClassVar[str] = "B"

    def __post_init__(self) -> None:
        _check_agent(self.agent)
        self._set_depth(self.body)


@dataclass(frozen=True, slots=True)
class CondBelieves(Formula):
    """B_i(phi | psi): phi holds at the most plausible psi-worlds of agent i's cell."""

    agent: str
    body: Formula
    condition: Formula
    depth: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        _check_agent(self.agent)
        self._set_depth(self.body, self.condition)


@dataclass(frozen=True, slots=True)
class Everybody(Formula):
    """E_G phi: every agent of G knows phi."""

    group: tuple[str, ...]
    body: Formula
    depth: int = field(init=False, compare=False, repr=False)
    head: ClassVar[str] = "E"

    def __post_init__(self) -> None:
        _check_group(self.group)
        self._set_depth(self.body)


@dataclass(frozen=True, slots=True)
class Common(Formula):
    """C_G phi: phi holds at every world reachable by the union of G's indistinguishabilities."""

    group: tuple[str, ...]
    body: Formula
    depth: int = field(init=False, compare=False, repr=False)
    head: ClassVar[str] = "C"

    def __post_init__(self) -> None:
        _check_group(self.group)
        self._set_depth(self.body)


@dataclass(frozen=True, slots=True)
class Aware(Formula):
    """A_i phi: phi is in agent i's awareness set A_i(w) (Definition A.3)."""

    agent: str
    body: Formula
    depth: int = field(init=False, compare=False, repr=False)
    head: ClassVar[str] = "A"

    def __post_init__(self) -> None:
        _check_agent(self.agent)
        self._set_depth(self.body)


@dataclass(frozen=True, slots=True)
class Explicit(Formula):
    """X_i phi := K_i phi & A_i phi, explicit knowledge (Definition A.3)."""

    agent: str
    body: Formula
    depth: int = field(init=False, compare=False, repr=False)
    head: ClassVar[str] = "X"

    def __post_init__(self) -> None:
        _check_agent(self.agent)
        self._set_depth(self.body)


TOP = Const(True)
"""The formula ``true``."""
BOTTOM = Const(False)
"""The formula ``false``."""

_AGENT_HEADS: dict[str, type[Knows | Believes | Aware | Explicit]] = {
    "K": Knows,
    "B": Believes,
    "A": Aware,
    "X": Explicit,
}
_GROUP_HEADS: dict[str, type[Everybody | Common]] = {"E": Everybody, "C": Common}


def _joins(parts: list[Formula] | tuple[Formula, ...], result: Formula) -> bool:
    return atoms_of(result) == frozenset().union(*(atoms_of(p) for p in parts))


@icontract.ensure(lambda parts, result: _joins(parts, result), "the parts' atoms, no other")
def conjunction(parts: list[Formula] | tuple[Formula, ...]) -> Formula:
    """The conjunction of ``parts``: ``true`` for none, the part itself for one.

    >>> show(conjunction([Atom("p"), Atom("q")])), show(conjunction([]))
    ('p & q', 'true')
    """
    if not parts:
        return TOP
    return parts[0] if len(parts) == 1 else And(tuple(parts))


@icontract.ensure(lambda parts, result: _joins(parts, result), "the parts' atoms, no other")
def disjunction(parts: list[Formula] | tuple[Formula, ...]) -> Formula:
    """The disjunction of ``parts``: ``false`` for none, the part itself for one."""
    if not parts:
        return BOTTOM
    return parts[0] if len(parts) == 1 else Or(tuple(parts))


def _children(formula: Formula) -> tuple[Formula, ...]:
    match formula:
        case Const() | Atom():
            return ()
        case And(parts) | Or(parts):
            return parts
        case Implies(left, right) | Iff(left, right):
            return (left, right)
        case CondBelieves(_, body, condition):
            return (body, condition)
        case Not(body) | Knows(_, body) | Believes(_, body) | Aware(_, body) | Explicit(_, body):
            return (body,)
        case Everybody(_, body) | Common(_, body):
            return (body,)
    raise AssertionError(f"unknown formula {formula!r}")


def _are_atom_names(names: frozenset[str]) -> bool:
    return all(is_atom_name(n) for n in names)


@icontract.ensure(lambda result: _are_atom_names(result), "atoms, written as atoms")
def atoms_of(formula: Formula) -> frozenset[str]:
    """The atoms ``formula`` mentions.

    >>> sorted(atoms_of(parse("K[a] (p -> q) | ~p")))
    ['p', 'q']
    """
    return _atoms(formula)


def _atoms(formula: Formula) -> frozenset[str]:
    if isinstance(formula, Atom):
        return frozenset({formula.name})
    return frozenset().union(*(_atoms(c) for c in _children(formula)))


def _are_agent_names(names: frozenset[str]) -> bool:
    return all(is_identifier(n) for n in names)


@icontract.ensure(lambda result: _are_agent_names(result), "agents, as identifiers")
def agents_of(formula: Formula) -> frozenset[str]:
    """The agents ``formula``'s operators name.

    >>> sorted(agents_of(parse("C[a,b] K[c] p")))
    ['a', 'b', 'c']
    """
    return _agents_named(formula)


def _agents_named(formula: Formula) -> frozenset[str]:
    own: frozenset[str] = frozenset()
    match formula:
        case Knows(agent) | Believes(agent) | CondBelieves(agent) | Aware(agent) | Explicit(agent):
            own = frozenset({agent})
        case Everybody(group) | Common(group):
            own = frozenset(group)
    return own.union(*(_agents_named(c) for c in _children(formula)))


# -- printing --------------------------------------------------------------------------

# Binding strength: higher binds tighter.
_IFF, _IMPLIES, _OR, _AND, _PREFIX, _PRIMARY = range(1, 7)


def _strength(formula: Formula) -> int:
    match formula:
        case Iff():
            return _IFF
        case Implies():
            return _IMPLIES
        case Or():
            return _OR
        case And():
            return _AND
        case Const() | Atom():
            return _PRIMARY
    return _PREFIX


def _wrapped(formula: Formula, parens: bool) -> str:
    text = _show(formula)
    return f"({text})" if parens else text


def _prefix(formula: Formula) -> str:
    match formula:
        case Not():
            return "~"
        case Knows(agent) | Believes(agent) | Aware(agent) | Explicit(agent):
            return f"{formula.head}[{agent}] "
        case CondBelieves(agent, _, condition):
            return f"B[{agent} given {_show(condition)}] "
        case Everybody(group) | Common(group):
            return f"{formula.head}[{','.join(group)}] "
    raise AssertionError(f"not a prefix formula: {formula!r}")


@icontract.ensure(
    lambda formula, result: _is_text_of(result, formula),
    "the printer round-trips: parse(show(f)) == f",
    enabled=icontract.SLOW,
)
def show(formula: Formula) -> str:
    """The canonical text of ``formula``, with no more parentheses than it needs.

    >>> show(And((Atom("p"), Or((Atom("q"), Atom("r"))))))
    'p & (q | r)'
    >>> show(CondBelieves("a", Atom("p"), Not(Atom("q"))))
    'B[a given ~q] p'
    """
    return _show(formula)


def _is_text_of(text: str, formula: Formula) -> bool:
    return parse(text) == formula


def _show(formula: Formula) -> str:
    match formula:
        case Const(value):
            return "true" if value else "false"
        case Atom(name):
            return name
        case And(parts) | Or(parts):
            # Parts of the same connective are parenthesised, or they would be flattened.
            strength, symbol = _strength(formula), " & " if isinstance(formula, And) else " | "
            return symbol.join(_wrapped(p, _strength(p) <= strength) for p in parts)
        case Implies(left, right) | Iff(left, right):
            # Right-associative: a nested arrow on the right needs no parentheses.
            strength, symbol = (
                _strength(formula),
                " -> " if isinstance(formula, Implies) else " <-> ",
            )
            lhs = _wrapped(left, _strength(left) <= strength)
            return lhs + symbol + _wrapped(right, _strength(right) < strength)
    body = _children(formula)[0]
    return _prefix(formula) + _wrapped(body, _strength(body) < _PREFIX)


# -- parsing ---------------------------------------------------------------------------

_TOKEN = re.compile(
    r"(?P<arrow><->|->)"
    r"|(?P<modal>[KBEACX])\[(?P<agents>[^\]\s]*)(?P<given>\s+given\s)?"
    r"|(?P<word>[A-Za-z0-9_][A-Za-z0-9_.:']*)"
    r"|(?P<punct>[~&|()\]])"
)


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "word", "op", "prefix", "given", "(", ")", "]", "end"
    text: str
    at: int
    agents: tuple[str, ...] = ()


def _fail(text: str, at: int, detail: str) -> MalformedFormula:
    shown = text if len(text) <= 60 else text[:57] + "..."
    return MalformedFormula(f"{detail} at character {at} of {shown!r}", field="formula")


def _agents(text: str, at: int, head: str, spec: str) -> tuple[str, ...]:
    names = tuple(spec.split(","))
    if not all(is_identifier(n) for n in names):
        raise _fail(text, at, f"{head}[...] needs agent identifiers, got {spec!r}")
    if head not in _GROUP_HEADS and len(names) != 1:
        raise _fail(text, at, f"{head}[...] names exactly one agent")
    if len(set(names)) != len(names):
        raise _fail(text, at, f"{head}[...] repeats an agent")
    return names


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            out.append(_Token("end", "", at))
            return out
        match = _TOKEN.match(text, at)
        if match is None:
            raise _fail(text, at, f"unexpected {text[at]!r}")
        end = match.end()
        if match.group("arrow"):
            out.append(_Token("op", match.group("arrow"), at))
        elif match.group("modal"):
            head = match.group("modal")
            names = _agents(text, at, head, match.group("agents"))
            if match.group("given"):
                if head != "B":
                    raise _fail(text, at, "only B[...] takes a condition ('given')")
                out.append(_Token("given", f"B[{names[0]} given", at, names))
            else:
                if end >= len(text) or text[end] != "]":
                    raise _fail(text, at, f"{head}[...] is not closed")
                out.append(_Token("prefix", head, at, names))
                end += 1
        elif match.group("word"):
            out.append(_Token("word", match.group("word"), at))
        else:
            punct = match.group("punct")
            kind = "op" if punct in "&|" else "prefix" if punct == "~" else punct
            out.append(_Token(kind, punct, at))
        at = end


_BINARY = {"<->": _IFF, "->": _IMPLIES, "|": _OR, "&": _AND}
_RIGHT = frozenset({"<->", "->"})


@dataclass(slots=True)
class _Operand:
    """A parsed operand; an ungrouped ``&`` or ``|`` chain stays a list until it is used.

    Appending to the list, rather than rebuilding the n-ary node for each
    operator, keeps a flat chain of n parts O(n) instead of O(n^2).
    """

    formula: Formula | None  # None while a chain is open
    grouped: bool  # written in parentheses: never flattened into an outer & or |
    chain: list[Formula] = field(default_factory=list)
    symbol: str = ""  # the open chain's connective
    at: int = 0  # where the chain's first operator is, for errors

    def value(self, text: str) -> Formula:
        if self.formula is None:
            connective = And if self.symbol == "&" else Or
            try:
                self.formula = connective(tuple(self.chain))
            except MalformedFormula as error:
                raise _fail(text, self.at, error.detail) from None
            self.chain = []
        return self.formula


def _prefix_node(token: _Token, condition: Formula | None, body: Formula) -> Formula:
    if token.kind == "given":
        assert condition is not None, "a conditional belief has its condition"
        return CondBelieves(token.agents[0], body, condition)
    if token.text == "~":
        return Not(body)
    if token.text in _GROUP_HEADS:
        return _GROUP_HEADS[token.text](token.agents, body)
    return _AGENT_HEADS[token.text](token.agents[0], body)


def _combine(token: _Token, left: _Operand, right: _Operand, text: str) -> _Operand:
    symbol = token.text
    if symbol in ("&", "|"):
        if left.formula is None and left.symbol == symbol and not left.grouped:
            left.chain.append(right.value(text))
            return left
        parts = [left.value(text), right.value(text)]
        return _Operand(None, False, parts, symbol, token.at)
    connective = Implies if symbol == "->" else Iff
    try:
        return _Operand(connective(left.value(text), right.value(text)), False)
    except MalformedFormula as error:
        raise _fail(text, token.at, error.detail) from None


# An entry of the operator stack: a binary operator, a prefix operator (with the
# condition of a conditional belief once it is read), or an open "(" / "B[a given".
_Pending = tuple[_Token, Formula | None]


def _reduce_binary(stack: list[_Pending], operands: list[_Operand], text: str) -> None:
    token, _ = stack.pop()
    right, left = operands.pop(), operands.pop()
    operands.append(_combine(token, left, right, text))


def _reduce_prefixes(stack: list[_Pending], operands: list[_Operand], text: str) -> None:
    """Apply the prefix operators waiting on top of the stack to the last operand."""
    while stack and (stack[-1][0].kind == "prefix" or stack[-1][1] is not None):
        token, condition = stack.pop()
        body = operands[-1].value(text)
        try:
            operands[-1] = _Operand(_prefix_node(token, condition, body), False)
        except MalformedFormula as error:
            raise _fail(text, token.at, error.detail) from None


@icontract.ensure(lambda result: result.depth <= MAX_DEPTH)
def parse(text: str) -> Formula:
    """Parse the text of a formula.

    Raises
    ------
    MalformedFormula
        The text is not a formula, is longer than :data:`MAX_LENGTH`, or nests
        deeper than :data:`MAX_DEPTH`; the message names the place.

    Notes
    -----
    Shunting-yard over explicit stacks, so the Python stack does not grow with
    the nesting; one pass, O(len(text)).

    Examples
    --------
    >>> parse("~K[a] m_a & ~K[a] ~m_a")
    And(parts=(Not(body=Knows(agent='a', body=Atom(name='m_a'))), Not(body=Knows(agent='a', \
body=Not(body=Atom(name='m_a'))))))
    >>> show(parse("B[a given q] (p | q)"))
    'B[a given q] (p | q)'
    >>> try:
    ...     parse("~" * 100_000 + "p")
    ... except MalformedFormula as error:
    ...     print(error.code)
    malformed-formula
    """
    if not isinstance(text, str):
        raise MalformedFormula(f"a formula is text, got {type(text).__name__}", field="formula")
    if len(text) > MAX_LENGTH:
        raise MalformedFormula(f"a formula is at most {MAX_LENGTH} characters", field="formula")
    operands: list[_Operand] = []
    stack: list[_Pending] = []
    expect_operand = True
    for token in _tokens(text):
        # Every waiting operator is an ancestor of what follows and every open group
        # a level of parentheses, so a formula within MAX_DEPTH never needs more;
        # refusing here keeps the stacks small for text that cannot be a formula.
        groups = sum(1 for t, c in stack if t.kind in ("(", "given") and c is None)
        if groups > MAX_DEPTH or len(stack) > 2 * MAX_DEPTH:
            raise _fail(text, token.at, f"nested more than {MAX_DEPTH} deep")
        if expect_operand:
            if token.kind == "word":
                if token.text in _RESERVED:
                    formula: Formula = Const(token.text == "true")
                else:
                    formula = Atom(token.text)
                operands.append(_Operand(formula, False))
                expect_operand = False
            elif token.kind in ("(", "prefix", "given"):
                stack.append((token, None))
            else:
                raise _fail(text, token.at, "expected a formula")
            continue
        if token.kind == "op":
            _reduce_prefixes(stack, operands, text)
            strength = _BINARY[token.text]
            while stack and stack[-1][0].kind == "op":
                top = _BINARY[stack[-1][0].text]
                if top > strength or (top == strength and token.text not in _RIGHT):
                    _reduce_binary(stack, operands, text)
                else:
                    break
            stack.append((token, None))
            expect_operand = True
        elif token.kind in (")", "]"):
            opener = "(" if token.kind == ")" else "given"
            _reduce_prefixes(stack, operands, text)
            while stack and stack[-1][0].kind == "op":
                _reduce_binary(stack, operands, text)
                _reduce_prefixes(stack, operands, text)
            if not stack or stack[-1][0].kind != opener or stack[-1][1] is not None:
                raise _fail(text, token.at, f"unmatched {token.text!r}")
            if opener == "(":
                stack.pop()
                operands[-1].grouped = True
            else:
                # The condition of "B[a given psi]" is read; the operator now waits
                # for its body like any prefix operator.
                opening, _ = stack.pop()
                stack.append((opening, operands.pop().value(text)))
                expect_operand = True
        elif token.kind == "end":
            _reduce_prefixes(stack, operands, text)
            while stack and stack[-1][0].kind == "op":
                _reduce_binary(stack, operands, text)
                _reduce_prefixes(stack, operands, text)
            if stack:
                raise _fail(text, stack[-1][0].at, f"unclosed {stack[-1][0].text!r}")
            if len(operands) != 1:
                raise _fail(text, 0, "not one formula")
            result = operands[0].value(text)
            if result.depth > MAX_DEPTH:
                raise _fail(text, 0, f"nested more than {MAX_DEPTH} deep")
            return result
        else:
            raise _fail(text, token.at, f"expected an operator, got {token.text!r}")
    raise _fail(text, len(text), "unexpected end")
