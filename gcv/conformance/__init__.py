"""Conformance: the protocol ``gcv-conform/1``, the reference behind it, vectors, runner, fuzzer.

The generator (``generate`` and ``cases``) is where the engine and the spec meet
(DESIGN.md): it checks the engine's answers against the spec's definitions before it
writes them down.  The runner that implementers use reads only the protocol, the
vectors and the comparison rules; it never loads the spec or the generator.

- :mod:`~gcv.conformance.protocol`: version, features, message schemas.
- :mod:`~gcv.conformance.session`: the reference answering requests (no I/O).
- :mod:`~gcv.conformance.server`: ``gcv serve``, the session over JSON lines.
- :mod:`~gcv.conformance.compare`: expected outcomes, comparison, readable diffs.
- :mod:`~gcv.conformance.vectors`: vector files, their schema and canonical form.
- :mod:`~gcv.conformance.cases`: the hand-written cases and the trace hook.
- :mod:`~gcv.conformance.generate`: ``gcv vectors``, the one command that writes them.
- :mod:`~gcv.conformance.process`: an implementation under test, as a subprocess.
- :mod:`~gcv.conformance.runner`: ``gcv conform``; :mod:`~gcv.conformance.report`.
- :mod:`~gcv.conformance.fuzz`: differential fuzzing against the reference.
"""
