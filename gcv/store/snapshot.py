"""A snapshot's bytes: the Verifier pickled compactly, read back by a closed unpickler.

The engine's frozen dataclasses (a record, an operation) are written as their class and
field values, rebuilt by calling the class, rather than through the dataclass's own
``__setstate__`` (a Python loop per object); arrays as their type code and bytes.  That
halves the time to load a map of 10^5 turns (docs/performance.md, "Session store").  The
unpickler admits only the state's own classes, so a damaged or planted snapshot cannot
call code on load.
"""

from __future__ import annotations

import array
import dataclasses
import enum
import gc
import io
import json
import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gcv.reference.depmap import DependencyMap
from gcv.reference.epistemic.effects import EpistemicState
from gcv.reference.epistemic.model import PlausibilityModel
from gcv.reference.verifier import Verifier

__all__ = ["collector_paused", "dump_state", "layout", "load_state"]

# The classes a snapshot may name: the Verifier's state and the values in it.  Anything
# else (a function, a class from elsewhere) makes the snapshot unreadable.
_STATE_CLASSES = (Verifier, DependencyMap, EpistemicState, PlausibilityModel)
_ENGINE_PACKAGE = Verifier.__module__.rpartition(".")[0] + "."


def layout(verifier: Verifier, engine_version: str) -> str:
    """The engine's state layout: its version, where the engine lives, the map's attributes.

    A snapshot written by an engine with another layout (or under another package name)
    would unpickle into a state the running code does not expect, or not at all, so it is
    passed over and the log replayed instead.
    """
    fields = sorted(verifier.state.__getstate__())
    return json.dumps([engine_version, _ENGINE_PACKAGE, fields], separators=(",", ":"))


def _field_names(cls: type) -> tuple[str, ...]:
    """The fields of an engine dataclass that its constructor takes back, else ()."""
    if not (cls.__module__.startswith(_ENGINE_PACKAGE) and dataclasses.is_dataclass(cls)):
        return ()
    fields = dataclasses.fields(cls)
    if not all(f.init for f in fields):
        return ()
    return tuple(f.name for f in fields)


_NAMES: dict[type, tuple[str, ...]] = {}
"""Each class met while pickling, and the fields it is written by (none: pickled as usual)."""


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        if cls is array.array:
            return (array.array, (obj.typecode, obj.tobytes()))
        names = _NAMES.get(cls)
        if names is None:
            names = _NAMES[cls] = () if isinstance(obj, type) else _field_names(cls)
        if names:
            return (cls, tuple([getattr(obj, name) for name in names]))
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module == "array" and name in ("array", "_array_reconstructor"):
            return super().find_class(module, name)
        if module.startswith(_ENGINE_PACKAGE):
            found = super().find_class(module, name)
            if found in _STATE_CLASSES or (
                isinstance(found, type)
                and (dataclasses.is_dataclass(found) or issubclass(found, enum.Enum))
            ):
                return found
        raise pickle.UnpicklingError(f"a snapshot cannot name {module}.{name}")


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off: a replay or a snapshot makes or walks one object per
    record, edge and label, and they all live on, so its passes are wasted work (about
    half the time of a reopen at 10^5 turns)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def dump_state(verifier: Verifier) -> bytes:
    """The snapshot of ``verifier``."""
    buffer = io.BytesIO()
    with collector_paused():
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(verifier)
    return buffer.getvalue()


def load_state(blob: bytes) -> Verifier:
    """The Verifier of a snapshot.

    Raises
    ------
    ValueError
        The bytes are not a snapshot of a Verifier (damaged, or naming another class).
    """
    try:
        with collector_paused():
            verifier = _Unpickler(io.BytesIO(blob)).load()
    except Exception as error:  # a damaged pickle can fail in any of pickle's ways
        raise ValueError(f"not a snapshot: {error}") from None
    if not isinstance(verifier, Verifier):
        raise ValueError("not a snapshot of a Verifier")
    return verifier
