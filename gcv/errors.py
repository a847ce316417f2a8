"""Typed errors of the tools: reading files and traces, the conformance protocol, the
session store, the Interpreter's endpoint, the evidence query.

The engine's own errors, and the base classes these extend, are in
:mod:`gcv.reference.errors`; every error here is a :class:`~gcv.reference.errors.GcvError`
with a stable, machine-readable ``code`` (normative for the conformance protocol), so a
caller catches one base class for both.  The engine raises none of these: they name
what only a tool can meet (a file, a store, an endpoint).
"""

from __future__ import annotations

from gcv.reference.errors import GcvError, MalformedInput, PreconditionViolation

__all__ = [
    "EndpointError",
    "EndpointTimeout",
    "MalformedReply",
    "MalformedRequest",
    "MalformedTrace",
    "MalformedVectors",
    "ManifestMismatch",
    "OutOfSequence",
    "StoreBusy",
    "StoreCorrupt",
    "StoreError",
    "StoreExists",
    "StoreForeign",
    "StoreMissing",
    "StoreReadOnly",
    "StoreVersion",
    "UnknownEntity",
    "UnknownOperation",
    "UnreadableFile",
    "Unsupported",
]


# -- input the tools read: files, traces, the conformance protocol and its vectors -----


class MalformedTrace(MalformedInput):
    """A trace is not valid JSON, breaks the trace schema, or is too large or too deep."""

    code = "malformed-trace"


class UnreadableFile(MalformedInput):
    """A file named as input is missing, a directory, or cannot be read."""

    code = "unreadable-file"


class MalformedRequest(MalformedInput):
    """A conformance request is not JSON, breaks the protocol schema, or comes out of place."""

    code = "malformed-request"


class MalformedVectors(MalformedInput):
    """A conformance vector file is not JSON or breaks the vector schema."""

    code = "malformed-vectors"


class ManifestMismatch(MalformedVectors):
    """A vector file is not the one its directory's ``manifest.json`` lists, by SHA-256."""

    code = "manifest-mismatch"


class Unsupported(GcvError):
    """A conformance request asks for a protocol version or feature the implementation lacks."""

    code = "unsupported"


# -- the session store (gcv/store/: a conversation's turns in SQLite or PostgreSQL) ----


class OutOfSequence(MalformedInput):
    """A turn states a number that is not the session's next one (it is not logged)."""

    code = "out-of-sequence"


# -- the Interpreter (gcv/interpret/: an endpoint's replies) ---------------------------


class MalformedReply(MalformedInput):
    """An interpreter's reply is not JSON, not ``{"operations": [...]}``, or off the schema."""

    code = "malformed-reply"


class UnknownOperation(MalformedReply):
    """An interpreter's reply names an operation that is not one of the eight."""

    code = "unknown-operation"


class EndpointError(GcvError):
    """The interpreter's endpoint failed or answered off protocol, after the bounded retries."""

    code = "endpoint-error"


class EndpointTimeout(EndpointError):
    """The interpreter's endpoint did not answer within the timeout, on every attempt."""

    code = "endpoint-timeout"


# -- queries the tools answer (gcv/evidence.py) ----------------------------------------


class UnknownEntity(PreconditionViolation):
    """An evidence query names an entity that is the subject of no fact."""

    code = "unknown-entity"


class StoreError(GcvError):
    """A session store cannot be created, opened or written; the file is left as it was."""

    code = "store-error"


class StoreMissing(StoreError):
    """No session store exists at the path given."""

    code = "store-missing"


class StoreExists(StoreError):
    """A new session store would overwrite a file that already exists."""

    code = "store-exists"


class StoreForeign(StoreError):
    """The file is not a session store: not SQLite, or an SQLite database of another application."""

    code = "store-foreign"


class StoreReadOnly(StoreError):
    """The store, or the folder holding it, cannot be written (SQLite writes beside the file)."""

    code = "store-readonly"


class StoreVersion(StoreError):
    """The store's format version is not the one this reference reads (newer, or older)."""

    code = "store-version"


class StoreCorrupt(StoreError):
    """The store is truncated or damaged: SQLite's check fails, or a logged turn does not replay."""

    code = "store-corrupt"


class StoreBusy(StoreError):
    """Another process held the session's write lock for longer than the wait allowed."""

    code = "store-busy"
