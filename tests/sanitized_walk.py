"""A pytest plugin for tests/sanitize_walk.sh: make the sanitized build of the compiled
walk (the file named by ``GCV_SANITIZED_WALK``) the module ``gcv.reference._walk``, before
anything imports the engine, and check that the engine answers with it."""

from __future__ import annotations

import importlib.util
import os
import sys

_path = os.environ["GCV_SANITIZED_WALK"]
_spec = importlib.util.spec_from_file_location("gcv.reference._walk", _path)
assert _spec is not None and _spec.loader is not None, _path
_kernel = importlib.util.module_from_spec(_spec)
sys.modules["gcv.reference._walk"] = _kernel
_spec.loader.exec_module(_kernel)

from gcv.reference import closure  # noqa: E402  (after the sanitized build is in place)

assert closure.COMPILED is not None and closure.COMPILED.grounding is _kernel.walk, _path
