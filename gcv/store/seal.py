"""The key that seals a store's snapshots to its log, kept outside every store.

A snapshot is trusted only with a seal: an HMAC-SHA256, under this key, of the
checkpoint it stands for (the turn, the row's position and chain link, a digest of
every logged row up to it) and of the state's own digest.  Whoever can write a store
can recompute its unkeyed chain, but not a seal without the key; a snapshot whose seal
fails is passed over and the log replayed (docs/sessions.md, "What the store protects").

The key is one file of 32 random bytes, created on first use (mode 0600): per user at
``$XDG_CONFIG_HOME/gcv/store-key`` (``~/.config/gcv/store-key``), or per deployment
where :data:`KEY_VARIABLE` names another file (every worker of a service, on every
machine, then reads the same one).  A key that cannot be read or created leaves the
stores working without trusted snapshots: each open replays the log.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from contextlib import suppress
from functools import cache
from pathlib import Path

import icontract

__all__ = ["KEY_BYTES", "KEY_VARIABLE", "key_path", "seal", "store_key"]

KEY_VARIABLE = "GCV_STORE_KEY_FILE"
"""The environment variable naming the key file (default: per user, under the config folder)."""
KEY_BYTES = 32


def key_path() -> Path:
    """Where the key is: ``$GCV_STORE_KEY_FILE``, else the user's config folder."""
    named = os.environ.get(KEY_VARIABLE)
    if named:
        return Path(named)
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "gcv" / "store-key"


def store_key() -> bytes | None:
    """The key at :func:`key_path`, created when absent; None when it cannot be had."""
    return _key_at(key_path())


@cache
def _key_at(path: Path) -> bytes | None:
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Written whole under a private name, then linked into place: a process that reads
        # the key never sees half of it, and of two processes creating it one wins.
        building = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        descriptor = os.open(building, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(secrets.token_bytes(KEY_BYTES))
            with suppress(FileExistsError):  # another process made it first: theirs
                os.link(building, path)
        finally:
            building.unlink(missing_ok=True)
        return _read_key(path)
    except OSError:
        return None


def _read_key(path: Path) -> bytes | None:
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        return None
    key = path.read_bytes()
    # Shorter than the HMAC's block of security, or empty (a half-written file): no key.
    return key if len(key) >= KEY_BYTES else None


@icontract.ensure(lambda result: len(result) == 64)
def seal(key: bytes, fields: list[object]) -> str:
    """HMAC-SHA256 under ``key`` of ``fields`` written as JSON (no spaces, ASCII escapes).

    >>> seal(b"k" * 32, ["gcv-seal/3", 1]) == seal(b"k" * 32, ["gcv-seal/3", 1])
    True
    """
    text = json.dumps(fields, separators=(",", ":")).encode()
    return hmac.new(key, text, hashlib.sha256).hexdigest()
