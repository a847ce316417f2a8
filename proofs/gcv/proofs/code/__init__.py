"""Proofs about the engine's source itself: the walks of ``reference/gcv/reference/closure.py``
verified as written by Nagini (``gcv prove --code``), and the module-level bindings that decide
which function answers checked."""
