"""Example adapters for ``gcv conform``, shipped in the wheel and in the vectors bundle.

``adapter.py`` wraps a Python verifier (here the reference's API); ``adapter.js`` is a
verifier of its own, in JavaScript on Node, written from the bundle alone.  Each declares
only the features it implements, and both pass the paper profile
(``tests/conformance/test_bundle_alone.py``).
"""
