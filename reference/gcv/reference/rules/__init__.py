"""One home per operation (Table 3, Algorithm 1, Section 2's operation table).

Each of the eight operations has one module here, mirroring its ``process_<operation>``
in ``spec/gcv/spec/transition.py``, and exports one :class:`~gcv.reference.rules.rule.Rule`
(``REVISE``, ...): the value the operation is written as (``Revise``, its fields each
declared with its form, :mod:`~gcv.reference.rules.form`), its row of Table 3, its
preconditions in the clause order the spec checks them (each under its clause id), its
argumentation effect and its epistemic effect, the DEL realisation.  What several share
is in :mod:`~gcv.reference.rules.shared`; the order of a turn is
:data:`gcv.reference.operations.ORDER`, and the turn itself (each operation checked, then
applied, through its rule) :mod:`gcv.reference.apply`.

The Z3 encoding in ``proofs/`` is built from the same rows.  The obligation ``table-3``
proves the encoding built from these rows equal, for every state, to a second statement
written from the spec (``proofs/gcv/proofs/table3.py``); ``tests/test_transition.py`` checks the
engine against the spec, and ``tests/refinement.py`` checks engine, spec and encoding on
every step of every state of a small scope.  That the encoding is the engine is tested
there, not proved.
"""

from gcv.reference.rules.rule import Realisation, Registration, Row, Rule, Update

__all__ = ["Realisation", "Registration", "Row", "Rule", "Update"]
