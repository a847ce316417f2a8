"""The epistemic component M_t of D_t (Appendix A): formulas, plausibility models, updates.

* :mod:`~gcv.reference.epistemic.formula`: the language (K, B, conditional B, E, C, A, X),
  its parser and printer.
* :mod:`~gcv.reference.epistemic.model`: the plausibility model over an explicit world set.
* :mod:`~gcv.reference.epistemic.semantics`: truth sets.
* :mod:`~gcv.reference.epistemic.updates`: announcements, upgrades, downgrades, awareness expansion.
* :mod:`~gcv.reference.epistemic.abduction`: Definition A.2's problems and checks.
* :mod:`~gcv.reference.epistemic.effects`: M_t with its problem queue, and a turn's announcement.

Each operation's DEL realisation is in its home, :mod:`gcv.reference.rules`.

The brute-force oracle is ``gcv.spec.epistemic``; the choices are in ``spec/gcv/spec/normative.md``.
"""
