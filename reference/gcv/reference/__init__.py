"""The engine of the Grounded Continuation runtime verifier (Definitions 2.1-2.3).

A :class:`Verifier` over one conversation, the eight operations, :class:`Turn`, the
query answers and the typed errors.  The engine imports nothing from :mod:`gcv.spec` or
:mod:`gcv.proofs` and does no I/O; sessions on disk and traces are :mod:`gcv`'s tools.
"""

# setup.py installs this folder as gcv.reference (package_dir); imported by its bare name from a
# checkout, each of its files would become a second module object beside gcv.reference's.
if __name__ != "gcv.reference":
    raise ImportError(
        f"import gcv.reference, not {__name__}: reference/ is installed as gcv.reference"
    )

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what the checkers see; at run time __getattr__ below imports them
    from gcv.reference.closure import Grounding as Grounding
    from gcv.reference.errors import GcvError as GcvError
    from gcv.reference.operations import *  # noqa: F403  (the operations are the package's)
    from gcv.reference.records import Kind as Kind
    from gcv.reference.records import Standing as Standing
    from gcv.reference.verifier import Turn as Turn
    from gcv.reference.verifier import TurnReport as TurnReport
    from gcv.reference.verifier import Verifier as Verifier

# Where each public name lives.  They are imported on first use, so that a tool needing
# one module of the engine (the conformance runner: its errors) loads that module alone.
_HOMES = {
    "GcvError": "gcv.reference.errors",
    "Grounding": "gcv.reference.closure",
    "Kind": "gcv.reference.records",
    "Standing": "gcv.reference.records",
    "Turn": "gcv.reference.verifier",
    "TurnReport": "gcv.reference.verifier",
    "Verifier": "gcv.reference.verifier",
}


def __getattr__(name: str) -> object:
    """The public name ``name``, imported from its module on first use (PEP 562); the
    operations and ``__all__`` from :mod:`gcv.reference.operations`, their one registry."""
    if name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    else:
        operations = importlib.import_module("gcv.reference.operations")
        if name == "__all__":
            value = [*_HOMES, *operations.__all__]
        elif name in operations.__all__:
            value = getattr(operations, name)
        else:
            raise AttributeError(f"module 'gcv.reference' has no attribute {name!r}")
    globals()[name] = value
    return value
