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

from gcv.reference import operations
from gcv.reference.closure import Grounding
from gcv.reference.errors import GcvError
from gcv.reference.operations import *  # noqa: F403  (the operations are the package's)
from gcv.reference.records import Kind, Standing
from gcv.reference.verifier import Turn, TurnReport, Verifier

__all__ = ["GcvError", "Grounding", "Kind", "Standing", "Turn", "TurnReport", "Verifier"]
__all__ += operations.__all__
