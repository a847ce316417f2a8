"""Weave a proof's annotations into the source of the functions it proves.

The program Nagini verifies is made from the source file as it is, at every run: each
proved function is taken whole from the module's syntax tree, and only these are added or
changed, none of which changes what the function computes:

- the parameter and return annotations become the verifier's types (the parameters' names
  must be the source's, in order);
- the docstring and the decorators (icontract's contracts, checked at run time) are left
  out, and the contract (``Requires``, ``Ensures``) is put first in the body;
- each loop gets its invariants first in its body, the k-th loop of the function (``while``
  and ``for``, in the order they start in the source) the k-th block of the proof;
- ghost statements (assignments to variables named ``ghost_*``, which no source statement
  reads, and ``Assert`` hints) go right after the source statement they name, which must
  occur exactly once, or at the end of a loop's body;
- ``tuple(reversed(xs))`` and ``tuple(xs)`` become calls of the prelude's functions that
  state what CPython's builtins return (the same items; reversed).

Anything else that differs between the source and the proof (a loop more or less, a
renamed parameter, an anchor that moved) makes the weaving fail, and so the proof.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Annotated", "WeavingError", "weave"]


class WeavingError(ValueError):
    """The source no longer has the shape the proof's annotations are written for."""


@dataclass(frozen=True)
class Annotated:
    """A proved function: its verifier signature, contract, loop invariants and ghosts.

    ``parameters`` maps each parameter, in the source's order, to its verifier type;
    ``loops`` holds one block of ``Invariant(...)`` lines per loop of the function;
    ``ghosts`` pairs a source statement (as ``ast.unparse`` prints it) with the ghost
    statements that follow it; the anchor ``"<entry>"`` puts them before the first
    statement, ``"<end of loop k>"`` at the end of the k-th loop's body and ``"<after loop
    k>"`` right after that loop).
    """

    function: str
    parameters: tuple[tuple[str, str], ...]
    returns: str
    contract: str
    loops: tuple[str, ...] = ()
    ghosts: tuple[tuple[str, str], ...] = field(default_factory=tuple)


def _statements(text: str) -> list[ast.stmt]:
    return ast.parse(_dedent(text)).body


def _dedent(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in lines), default=0)
    return "\n".join(line[indent:] for line in lines)


def _find(module: ast.Module, name: str) -> ast.FunctionDef:
    found = [n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if len(found) != 1:
        raise WeavingError(f"{name}: {len(found)} top-level definitions in the source")
    return found[0]


class _Builtins(ast.NodeTransformer):
    """``tuple(reversed(xs))`` and ``tuple(xs)`` as the prelude's stated builtins."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "tuple" and len(node.args) == 1:
            (arg,) = node.args
            if (
                isinstance(arg, ast.Call)
                and isinstance(arg.func, ast.Name)
                and arg.func.id == "reversed"
            ):
                return ast.Call(ast.Name("reversed_tuple", ast.Load()), arg.args, [])
            return ast.Call(ast.Name("as_tuple", ast.Load()), [arg], [])
        return node


def _ghost_reads(body: Sequence[ast.stmt]) -> list[str]:
    return [
        node.id
        for statement in body
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and node.id.startswith("ghost_")
    ]


def _woven_body(body: list[ast.stmt], spec: Annotated, loops: list[str]) -> list[ast.stmt]:
    """``body`` with each loop's invariants and each anchored ghost in place."""
    out: list[ast.stmt] = []
    for statement in body:
        text = ast.unparse(statement)  # the source's, before its loops are annotated
        if isinstance(statement, ast.While | ast.For):
            text = f"<after loop {len(spec.loops) - len(loops) + 1}>"
            if not loops:
                raise WeavingError(f"{spec.function}: a loop the proof has no invariant for")
            number = len(spec.loops) - len(loops) + 1
            invariants = _statements(loops.pop(0))
            statement.body = invariants + _woven_body(statement.body, spec, loops)
            for anchor, ghost in spec.ghosts:
                if anchor == f"<end of loop {number}>":
                    statement.body += _statements(ghost)
        elif isinstance(statement, ast.If):
            statement.body = _woven_body(statement.body, spec, loops)
            statement.orelse = _woven_body(statement.orelse, spec, loops)
        out.append(statement)
        for anchor, ghost in spec.ghosts:
            if anchor == text:
                out.extend(_statements(ghost))
    return out


def _check_anchors(function: ast.FunctionDef, spec: Annotated) -> None:
    texts = [ast.unparse(s) for s in ast.walk(function) if isinstance(s, ast.stmt)]
    for anchor, _ in spec.ghosts:
        if not anchor.startswith("<") and texts.count(anchor) != 1:
            raise WeavingError(
                f"{spec.function}: the ghost anchor {anchor!r} occurs {texts.count(anchor)} times"
            )


def weave_function(module: ast.Module, spec: Annotated) -> str:
    """The source's ``spec.function`` with the proof's annotations, as program text."""
    function = _find(module, spec.function)
    names = [a.arg for a in function.args.args]
    if names != [name for name, _ in spec.parameters]:
        raise WeavingError(f"{spec.function}: parameters {names}, the proof has {spec.parameters}")
    if _ghost_reads(function.body):
        raise WeavingError(f"{spec.function}: the source reads a ghost_ variable")
    _check_anchors(function, spec)
    body = list(function.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    loops = list(spec.loops)
    woven = _woven_body(body, spec, loops)
    if loops:
        raise WeavingError(f"{spec.function}: {len(loops)} loop invariant block(s) unused")
    entry = [g for anchor, g in spec.ghosts if anchor == "<entry>"]
    new = ast.FunctionDef(
        name=function.name,
        args=ast.arguments(
            posonlyargs=[],
            args=[
                ast.arg(name, ast.parse(kind, mode="eval").body) for name, kind in spec.parameters
            ],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=_statements(spec.contract) + [s for g in entry for s in _statements(g)] + woven,
        decorator_list=[],
        returns=ast.parse(spec.returns, mode="eval").body,
    )
    new = _Builtins().visit(new)
    _annotations_as_typing(new)
    ast.fix_missing_locations(new)
    return ast.unparse(new)


_TYPING = {"set": "Set", "dict": "Dict", "list": "List", "tuple": "Tuple"}


def _annotations_as_typing(function: ast.AST) -> None:
    """``x: set[int] = ...`` as ``x: Set[int] = ...``: the verifier's mypy reads typing's."""
    for node in ast.walk(function):
        if isinstance(node, ast.AnnAssign):
            for name in ast.walk(node.annotation):
                if isinstance(name, ast.Name) and name.id in _TYPING:
                    name.id = _TYPING[name.id]


def weave(source: str, prelude: str, specs: Sequence[Annotated]) -> str:
    """The program Nagini verifies: the prelude, then each proved function of ``source``
    with its annotations."""
    module = ast.parse(source)
    return "\n\n\n".join([_dedent(prelude), *(weave_function(module, s) for s in specs)]) + "\n"
