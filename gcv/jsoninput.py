"""The one way JSON enters the verifier: bounded, shallow, valid Unicode, ECMA patterns.

Every JSON input (traces, ``gcv-conform/1`` request lines, an interpreter's
replies, vector files) is read by :func:`read_bounded` or :func:`read_lines`
and parsed by :func:`parse_json`, which refuse, with the caller's typed error:

- input longer than the caller's bound, checked while reading, so a huge (or
  sparse) file is never read whole and an endless line is never held whole;
- text that is not UTF-8, or not JSON;
- an object that repeats a key (JSON allows it and keeps the last; a reader that kept
  the first would see another turn, so no reader is given the choice);
- arrays and objects nested deeper than :data:`MAX_JSON_DEPTH`, checked before
  any schema is consulted (schema validation recurses on the document);
- strings holding a lone surrogate (``"\\ud800"``), which JSON's escapes allow
  but no UTF-8 output can print.

Schemas are checked by :data:`SchemaValidator`, Draft 2020-12 with its
``pattern`` keyword read as ECMA-262 reads it: ``$`` matches at the end of the
string only (Python's ``$`` also matches before a final newline, so ``"a\\n"``
would pass ``^a$``).  See spec/gcv/spec/normative.md, "Input bounds".
"""

from __future__ import annotations

import importlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from typing import IO, Any, cast

import icontract

from gcv.errors import UnreadableFile
from gcv.reference.errors import GcvError

__all__ = [
    "MAX_JSON_DEPTH",
    "SchemaValidator",  # noqa: F822  (made on first use: __getattr__ below)
    "accepts",
    "ecma_pattern",
    "json_depth_problem",
    "open_input",
    "parse_json",
    "read_bounded",
    "read_file",
    "read_lines",
]

MAX_JSON_DEPTH = 32
"""The deepest nesting of arrays and objects accepted (the shipped inputs need 11)."""

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_CHUNK = 1 << 16


@icontract.require(lambda limit: limit >= 0)
@icontract.ensure(lambda limit, result: len(result) <= limit, "never more than the bound")
def read_bounded(stream: IO[bytes], limit: int, error: type[GcvError], what: str) -> bytes:
    """Read ``stream`` to its end, refusing with ``error`` once it passes ``limit`` bytes.

    At most ``limit + 1`` bytes are ever read, whatever the stream's length.

    >>> import io
    >>> read_bounded(io.BytesIO(b"[1]"), 3, GcvError, "a list")
    b'[1]'
    >>> read_bounded(io.BytesIO(b"[1, 2]"), 3, GcvError, "a list")
    Traceback (most recent call last):
    gcv.reference.errors.GcvError: [gcv-error] a list is at most 3 bytes
    """
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise error(f"{what} is at most {limit} bytes")
    return data


@icontract.require(lambda limit: limit >= 0)
@icontract.ensure(lambda limit, result: len(result) <= limit, "never more than the bound")
def read_file(path: str, limit: int, error: type[GcvError], what: str) -> bytes:
    """The bytes of the file at ``path``, at most ``limit`` of them (else ``error``).

    A missing file, a directory or a read that fails raises
    :class:`~gcv.errors.UnreadableFile` naming the path; a pipe (``<(...)``)
    is read like a file.

    >>> read_file("/", 10, GcvError, "a trace")
    Traceback (most recent call last):
    gcv.errors.UnreadableFile: [unreadable-file] /: is a directory, not a file
    """
    with open_input(path) as stream:
        try:
            return read_bounded(stream, limit, error, f"{what} ({path})")
        except OSError as failure:
            raise _unreadable(path, failure) from None


def _unreadable(path: str, failure: OSError) -> UnreadableFile:
    if isinstance(failure, FileNotFoundError):
        return UnreadableFile(f"{path}: no such file")
    if isinstance(failure, IsADirectoryError):
        return UnreadableFile(f"{path}: is a directory, not a file")
    return UnreadableFile(f"{path}: cannot be read: {failure.strerror or failure}")


def open_input(path: str) -> IO[bytes]:
    """The file at ``path`` opened for reading bytes; a missing file, a directory or a
    refusal raises :class:`~gcv.errors.UnreadableFile` naming the path.

    >>> open_input("/no/such/file")
    Traceback (most recent call last):
    gcv.errors.UnreadableFile: [unreadable-file] /no/such/file: no such file
    """
    try:
        return open(path, "rb")
    except OSError as failure:
        raise _unreadable(path, failure) from None


@icontract.require(lambda limit: limit > 0)
def read_lines(stream: IO[bytes], limit: int, *, skip_long: bool = True) -> Iterator[bytes | None]:
    """The lines of ``stream`` (without their newline), ``None`` for one longer than ``limit``.

    An over-long line is skipped in chunks, never held whole, so the next line
    is read as if it had not been there; with ``skip_long`` False it is not read
    further (an endless line has no next one), and the caller stops there.

    >>> import io
    >>> list(read_lines(io.BytesIO(b"ab\\nabcdef\\ncd"), 4))
    [b'ab', None, b'cd']
    """
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line.endswith(b"\n"):
            yield line.removesuffix(b"\n")
            continue
        if not skip_long:
            yield None
            return
        while not line.endswith(b"\n"):  # skip the rest of the over-long line
            line = stream.readline(_CHUNK)
            if not line:
                break
        yield None


@icontract.ensure(lambda result: result is None or result != "", "a problem is named")
def json_depth_problem(document: object) -> str | None:
    """What is wrong with ``document``'s nesting or strings, or ``None``.

    Iterative, so a document of any depth is measured without recursion.

    >>> json_depth_problem([[["a"]]]) is None
    True
    >>> json_depth_problem({"k": "\\ud800"})
    'k: a string holds a lone surrogate (U+D800)'
    """
    if _is_within_bounds(document):  # the common case, without naming every place
        return None
    return _first_problem(document)


def _first_problem(document: object) -> str | None:
    """The walk that names the place of the first problem it meets (a path of keys and
    indices), or ``None``."""
    pending: list[tuple[object, int, str]] = [(document, 1, "")]
    while pending:
        value, depth, where = pending.pop()
        if isinstance(value, str):
            found = _LONE_SURROGATE.search(value)
            if found is not None:
                place = where.lstrip(".") or "(top level)"
                return f"{place}: a string holds a lone surrogate (U+{ord(found[0]):04X})"
            continue
        if not isinstance(value, dict | list):
            continue
        if depth > MAX_JSON_DEPTH:
            return f"{where.lstrip('.') or '(top level)'}: nested more than {MAX_JSON_DEPTH} deep"
        if isinstance(value, dict):
            for key, item in value.items():
                # The path quotes the key, which must not carry the surrogate it reports.
                step = f"{where}.{_LONE_SURROGATE.sub(chr(0xFFFD), key[:40])}"
                pending.append((key, depth, step))
                pending.append((item, depth + 1, step))
        else:
            pending.extend((item, depth + 1, f"{where}[{k}]") for k, item in enumerate(value))
    return None


def _is_within_bounds(document: object, strings: bool = True) -> bool:
    """Whether no list or object of ``document`` nests deeper than :data:`MAX_JSON_DEPTH`
    and (when ``strings``) no string, key or value, holds a lone surrogate: what
    :func:`_first_problem` finds, level by level, without naming the places.

    Nesting needs a bracket per level and a lone surrogate a raw one or a ``\\u``
    escape, so :func:`parse_json` asks only what the text could break (most documents:
    neither, as a store's turns; the shipped vectors: nesting only).
    """
    level: list[object] = [document]
    for _ in range(MAX_JSON_DEPTH):
        inner: list[object] = []
        for value in level:
            if isinstance(value, dict):
                inner.extend(value.keys())
                inner.extend(value.values())
            elif isinstance(value, list):
                inner.extend(value)
            elif strings and isinstance(value, str) and _LONE_SURROGATE.search(value):
                return False
        if not inner:
            return True
        level = inner
    # What is left sits one level below the deepest allowed: strings and scalars only.
    return not any(
        isinstance(value, dict | list)
        or (strings and isinstance(value, str) and _LONE_SURROGATE.search(value) is not None)
        for value in level
    )


@icontract.require(lambda limit: limit >= 0)
def parse_json(
    data: str | bytes, limit: int, error: type[GcvError], what: str = "the input"
) -> object:
    """Parse ``data`` as JSON within the bounds above, or raise ``error`` naming the defect.

    >>> parse_json(b'{"a": [1, 2]}', 100, GcvError)
    {'a': [1, 2]}
    >>> parse_json(b"[" * 40 + b"]" * 40, 100, GcvError, "a list")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gcv.reference.errors.GcvError: [gcv-error] a list: [0]...[0][0]: nested more than 32 deep
    """
    if len(data) > limit:
        unit = "bytes" if isinstance(data, bytes) else "characters"
        raise error(f"{what} is at most {limit} {unit}; this one has {len(data)}")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as failure:
        raise error(f"{what} is not UTF-8: byte {failure.start} is invalid") from None
    try:
        document: object = json.loads(text, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise error(f"{what}: nested more than {MAX_JSON_DEPTH} deep") from None
    except _RepeatedKey as repeated:
        raise error(f"{what}: an object repeats the key {repeated.args[0]!r}") from None
    except ValueError as failure:
        raise error(f"{what} is not valid JSON: {failure}") from None
    may_hold_surrogates = "\\u" in text or _LONE_SURROGATE.search(text) is not None
    deep = text.count("[") + text.count("{") > MAX_JSON_DEPTH
    if (may_hold_surrogates or deep) and not _is_within_bounds(document, may_hold_surrogates):
        raise error(f"{what}: {_shorten(str(_first_problem(document)))}")
    return document


class _RepeatedKey(ValueError):
    """An object of the document repeats a key (the key is the argument)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    document = dict(pairs)
    if len(document) < len(pairs):
        counts = Counter(key for key, _ in pairs)
        raise _RepeatedKey(next(key for key, count in counts.items() if count > 1)[:40])
    return document


def _shorten(problem: str) -> str:
    # A deep path repeats itself; keep its two ends.
    place, _, detail = problem.rpartition(": ")
    if len(place) > 60:
        place = place[:12] + "..." + place[-6:]
    return f"{place}: {detail}"


def _ecma_dollars(pattern: str) -> list[int]:
    """The positions of ``$`` as an anchor: not escaped, not inside a character class."""
    found, escaped, in_class = [], False, False
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            found.append(index)
    return found


@icontract.ensure(lambda result: not _ecma_dollars(result), "no anchor is left to Python's $")
def ecma_pattern(pattern: str) -> str:
    """The Python regular expression that reads ``pattern`` as ECMA-262 does (no ``m`` flag).

    ECMA-262's ``$`` is the end of the string; Python's also matches before a
    final newline, so each anchor ``$`` becomes ``\\Z``.

    >>> ecma_pattern("^[a-z$]+$")
    '^[a-z$]+\\\\Z'
    >>> bool(re.search(ecma_pattern("^a$"), "a\\n"))
    False
    """
    pieces, start = [], 0
    for index in _ecma_dollars(pattern):
        pieces.append(pattern[start:index] + "\\Z")
        start = index + 1
    return "".join(pieces) + pattern[start:]


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(ecma_pattern(pattern))


def _pattern(validator: Any, pattern: str, instance: object, schema: object) -> Iterator[Any]:
    if isinstance(instance, str) and not _compiled(pattern).search(instance):
        shown = instance if len(instance) <= 60 else instance[:57] + "..."
        import jsonschema  # loaded already: this runs inside its validation

        yield jsonschema.ValidationError(f"{shown!r} does not match {pattern!r}")


@cache
def _schema_validator() -> Any:
    """JSON Schema Draft 2020-12 with ECMA-262 ``pattern`` anchors (``SchemaValidator``),
    made on first use: a run whose documents the native check accepts (gcv conform on
    the shipped suite) never imports jsonschema."""
    import jsonschema

    return jsonschema.validators.extend(
        jsonschema.Draft202012Validator, validators={"pattern": _pattern}
    )


def __getattr__(name: str) -> Any:
    """``SchemaValidator``: JSON Schema Draft 2020-12 with ECMA-262 ``pattern`` anchors;
    use it for every schema (imported on first use, PEP 562)."""
    if name == "SchemaValidator":
        return _schema_validator()
    raise AttributeError(f"module 'gcv.jsoninput' has no attribute {name!r}")


def accepts(schema: Mapping[str, Any]) -> Callable[[object], bool]:
    """Whether a document is valid for ``schema`` (self-contained: no ``$ref`` outside it):
    :data:`SchemaValidator`'s answer, given fast.

    With jsonschema-rs installed (a dependency; optional where no wheel exists) the schema
    is also compiled to native code, and its "valid" is taken as it is: a tool call's
    arguments in 0.2 us instead of 25 us, the shipped vectors in milliseconds instead of a
    second.  Whatever it refuses is judged again by :data:`SchemaValidator`, which names
    what is wrong, so it can only ever say "valid" sooner.  tests/test_jsoninput.py and
    tests/test_mcp.py check that the two agree on the shipped documents, hostile ones and
    generated mutations of both.
    """

    @cache
    def judge() -> Callable[[object], bool]:  # made at the first refusal
        return cast("Callable[[object], bool]", _schema_validator()(schema).is_valid)

    try:
        native = importlib.import_module("jsonschema_rs")
    except ImportError:
        return lambda document: judge()(document)
    compiled = native.Draft202012Validator(dict(schema))
    return lambda document: bool(compiled.is_valid(document)) or judge()(document)
