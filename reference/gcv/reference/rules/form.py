"""What an operation's fields may hold: each field's form, declared once in its type.

An operation value (``Observe``, ``Revise``, ... in their homes) declares each field with
one of the annotated types below: :data:`Identifier`, :data:`Identifiers`, :data:`Claim`,
:data:`OptionalFormula`, ... The annotation is the field's one statement of form: the
value's ``__post_init__`` checks every field against it (:func:`check_fields`, raising
:class:`~gcv.reference.errors.MalformedOperation` naming the field), and the trace
format's JSON Schema is generated from the same annotations (``gcv schemas``, in the
tools).  Which fields are required is which have no default.  What relates two fields
(evidence dependencies need a claim, a decision's fields) is checked by the operation's
own ``__post_init__`` after the fields, each through a function here so that a
conformance alternative can read that rule the other way.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any

from gcv.reference.epistemic.formula import MAX_DEPTH, Formula, is_atom_name
from gcv.reference.errors import MalformedOperation
from gcv.reference.identifiers import is_identifier, name_list_problem
from gcv.reference.records import MAX_CLAIM_LENGTH, Kind

__all__ = [
    "EPISTEMIC_FIELDS",
    "Atoms",
    "Choice",
    "Claim",
    "Described",
    "FieldForm",
    "Flag",
    "Form",
    "Identifier",
    "Identifiers",
    "Kinds",
    "OptionalClaim",
    "OptionalFlag",
    "OptionalFormula",
    "check_claim",
    "check_evidence_dependencies",
    "check_fields",
    "fail",
    "field_forms",
    "show",
]


class Form(enum.Enum):
    """The shapes a field's value may take (the trace schema's ``$defs`` of the same name)."""

    IDENTIFIER = "identifier"
    IDENTIFIERS = "identifiers"
    CLAIM = "claim"
    FORMULA = "formula"
    ATOMS = "atom-names"
    FLAG = "boolean"


@dataclass(frozen=True, slots=True)
class Kinds:
    """The record kinds a field admits (a subset of :class:`~gcv.reference.records.Kind`)."""

    allowed: tuple[Kind, ...]

    def __init__(self, *allowed: Kind) -> None:
        object.__setattr__(self, "allowed", allowed)


@dataclass(frozen=True, slots=True)
class Choice:
    """The strings a field admits."""

    values: tuple[str, ...]

    def __init__(self, *values: str) -> None:
        object.__setattr__(self, "values", values)


@dataclass(frozen=True, slots=True)
class Described:
    """What a field means, for the reader of the trace schema (its ``description``)."""

    text: str


Identifier = Annotated[str, Form.IDENTIFIER]
"""A record, agent or atom identifier."""
Identifiers = Annotated[tuple[str, ...], Form.IDENTIFIERS]
"""Distinct identifiers, in the order written."""
Claim = Annotated[str, Form.CLAIM]
"""A claim: non-blank text of at most MAX_CLAIM_LENGTH characters."""
OptionalClaim = Annotated[str | None, Form.CLAIM]
"""A claim, or None."""
OptionalFormula = Annotated[Formula | None, Form.FORMULA]
"""A formula of M_t's language at most MAX_DEPTH deep, or None."""
Atoms = Annotated[tuple[str, ...], Form.ATOMS]
"""Distinct names each of which can be written as an atom in a formula."""
Flag = Annotated[bool, Form.FLAG]
"""True or false."""
OptionalFlag = Annotated[bool | None, Form.FLAG]
"""True, false, or None (left to the operation's default reading)."""


@dataclass(frozen=True, slots=True)
class FieldForm:
    """One field of an operation value as its annotation declares it."""

    name: str
    form: Form | Kinds | Choice
    optional: bool
    """The field may hold None."""
    required: bool
    """The field has no default."""
    description: str | None = None


_FORMS: dict[type, tuple[FieldForm, ...]] = {}


def field_forms(value_type: type) -> tuple[FieldForm, ...]:
    """The fields of the operation value ``value_type``, in declaration order, with the form
    each one's annotation declares.

    >>> from gcv.reference.operations import Revise
    >>> [(f.name, f.form.value, f.required) for f in field_forms(Revise)][:2]
    [('target', 'identifier', True), ('attackers', 'identifiers', False)]
    """
    found = _FORMS.get(value_type)
    if found is None:
        hints = typing.get_type_hints(value_type, include_extras=True)
        found = tuple(_field_form(f, hints[f.name]) for f in dataclasses.fields(value_type))
        _FORMS[value_type] = found
    return found


def _field_form(field: dataclasses.Field[Any], hint: Any) -> FieldForm:
    if typing.get_origin(hint) is not Annotated:
        raise TypeError(f"{field.name} declares no form")
    base, *marks = typing.get_args(hint)
    forms = [m for m in marks if isinstance(m, Form | Kinds | Choice)]
    if len(forms) != 1:
        raise TypeError(f"{field.name} declares {len(forms)} forms")
    described = [m.text for m in marks if isinstance(m, Described)]
    required = field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
    return FieldForm(
        field.name,
        forms[0],
        optional=type(None) in typing.get_args(base),
        required=required,
        description=described[0] if described else None,
    )


EPISTEMIC_FIELDS = frozenset({"formula", "introduces", "specific", "downgrade", "announce"})
"""The fields that carry an operation's epistemic inputs (the same names in a trace)."""


def show(op: object) -> str:
    """An operation value's repr: the dataclass repr, leaving out the epistemic fields at
    their defaults (so an operation without a formula reads as it always has)."""
    shown = []
    for field in dataclasses.fields(op):  # type: ignore[arg-type]
        value = getattr(op, field.name)
        if field.name in EPISTEMIC_FIELDS and value == field.default:
            continue
        shown.append(f"{field.name}={value!r}")
    return f"{type(op).__name__}({', '.join(shown)})"


def fail(name: str, field: str, detail: str) -> MalformedOperation:
    """The error for the operation ``name``'s ``field``."""
    return MalformedOperation(f"{name}: {detail}", field=field)


def check_fields(op: Any) -> None:
    """Check each field of the operation value ``op`` against its declared form, in
    declaration order (clause ``order.fields``).

    Raises
    ------
    MalformedOperation
        The first field whose value its form does not admit, naming it.
    """
    name = op.name
    for field in field_forms(type(op)):
        value = getattr(op, field.name)
        if value is None and field.optional:
            continue
        match field.form:
            case Form.IDENTIFIER:
                check_identifier(name, field.name, value)
            case Form.IDENTIFIERS:
                check_identifiers(name, field.name, value)
            case Form.CLAIM:
                check_claim(name, field.name, value)
            case Form.FORMULA:
                check_formula(name, field.name, value)
            case Form.ATOMS:
                check_atoms(name, field.name, value)
            case Form.FLAG:
                check_flag(name, field.name, value)
            case Kinds(allowed):
                check_kind(name, field.name, value, allowed)
            case Choice(values):
                if value not in values:
                    raise fail(name, field.name, f"{value!r} is not one of {list(values)}")


def check_identifier(name: str, field: str, value: object) -> None:
    """A well-formed identifier."""
    if not is_identifier(value):
        raise fail(name, field, f"{value!r} is not a well-formed identifier")


def check_identifiers(name: str, field: str, values: object) -> None:
    """A tuple of distinct well-formed identifiers."""
    if not isinstance(values, tuple):
        raise fail(name, field, f"expected a tuple of identifiers, got {type(values).__name__}")
    problem = name_list_problem(values)
    if problem is not None:
        raise fail(name, field, problem)


def check_claim(name: str, field: str, value: object) -> None:
    """form.claim-not-blank: a claim is text with something besides white space."""
    if not isinstance(value, str) or not value.strip():
        raise fail(name, field, "a claim must be a non-empty string")
    if len(value) > MAX_CLAIM_LENGTH:
        raise fail(name, field, f"a claim is at most {MAX_CLAIM_LENGTH} characters")


def check_formula(name: str, field: str, value: object) -> None:
    """A formula of the language, at most MAX_DEPTH deep."""
    # The bare base class builds no formula of the language (CrossHair found that
    # ``Formula()`` passed this check and then broke the JSON encoding).
    if not isinstance(value, Formula) or type(value) is Formula:
        raise fail(name, field, f"expected a formula, got {type(value).__name__}")
    if value.depth > MAX_DEPTH:
        raise fail(name, field, f"a formula may be nested at most {MAX_DEPTH} deep")


def check_atoms(name: str, field: str, values: object) -> None:
    """A tuple of distinct names, each writable as an atom in a formula."""
    if not isinstance(values, tuple):
        raise fail(name, field, f"expected a tuple of atoms, got {type(values).__name__}")
    for value in values:
        if not is_atom_name(value):
            raise fail(name, field, f"{value!r} cannot be written as an atom in a formula")
    if len(set(values)) != len(values):
        raise fail(name, field, f"repeats an atom: {list(values)!r}")


def check_flag(name: str, field: str, value: object) -> None:
    """True or false."""
    if not isinstance(value, bool):
        raise fail(name, field, f"expected true or false, got {value!r}")


def check_kind(name: str, field: str, value: object, allowed: Iterable[Kind]) -> None:
    """One of the record kinds ``allowed``."""
    if not isinstance(value, Kind) or value not in allowed:
        names = sorted(k.value for k in allowed)
        raise fail(name, field, f"record kind {value!r} is not one of {names}")


def check_evidence_dependencies(name: str, claim: str | None, depends_on: object) -> None:
    """form.evidence-depends-on-needs-claim: the records evidence rests on are given only
    with the claim that registers it."""
    if claim is None and depends_on != ():
        raise fail(
            name,
            "evidence_depends_on",
            "dependencies can only be given when the evidence is registered (with evidence_claim)",
        )
