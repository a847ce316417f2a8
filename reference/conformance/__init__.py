"""Conformance: the protocol ``gcv-conform/1``, the reference behind it, vectors, runner, fuzzer.

This package is where ``reference`` and ``spec`` meet outside the tests
(DESIGN.md): the vector generator checks the reference's answers against the
spec's definitions before it writes them down.

- :mod:`~reference.conformance.protocol`: version, features, message schemas.
- :mod:`~reference.conformance.session`: the reference answering requests (no I/O).
- :mod:`~reference.conformance.server`: ``gcv serve``, the session over JSON lines.
- :mod:`~reference.conformance.compare`: expected outcomes, comparison, readable diffs.
- :mod:`~reference.conformance.vectors`: vector files, their schema and canonical form.
- :mod:`~reference.conformance.cases`: the hand-written cases and the trace hook.
- :mod:`~reference.conformance.generate`: ``gcv vectors``, the one command that writes them.
- :mod:`~reference.conformance.process`: an implementation under test, as a subprocess.
- :mod:`~reference.conformance.runner`: ``gcv conform``; :mod:`~reference.conformance.report`.
- :mod:`~reference.conformance.fuzz`: differential fuzzing against the reference.
- :mod:`~reference.conformance.predicates`: what the package's contracts state.
"""
