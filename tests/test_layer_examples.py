"""The layers' docstring examples, run under the names the modules are imported by.

``--doctest-modules`` collects the files under ``testpaths`` by their path, and a path under
``spec/`` names a module ``spec.…``, which cannot be imported (``spec/gcv/spec/__init__.py``: the
folder is ``gcv.spec``).  The examples of ``gcv.spec``, ``gcv.reference`` and ``gcv.proofs``
run here instead, one test per module, with pytest's own option (``ELLIPSIS``).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import gcv.proofs
import gcv.reference
import gcv.spec

MODULES = sorted(
    info.name
    for layer in (gcv.spec, gcv.reference, gcv.proofs)
    for info in pkgutil.walk_packages(layer.__path__, f"{layer.__name__}.")
)


def test_every_layer_module_is_found() -> None:
    assert {"gcv.spec.core", "gcv.reference.closure", "gcv.proofs.encode"} <= set(MODULES)
    assert "gcv.reference.epistemic.formula" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_the_modules_examples_hold(name: str) -> None:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for example in doctest.DocTestFinder().find(importlib.import_module(name)):
        runner.run(example)
    failed, _ = runner.summarize(verbose=False)
    assert failed == 0, f"{failed} example(s) of {name} failed (printed above)"
