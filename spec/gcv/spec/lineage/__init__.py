"""The lineage quotient: replication versus corroboration, DF-QuAD lifting, and the audits.

Executable reading of Cao, Nguyen, Nguyen, Nguyen, Ho, Nguyen, Pham,
Tran-Thanh and Cao, "Replication or Corroboration? An Axiomatic Framework for
Evidential Dependence in Multi-Agent Debate" (arXiv:2610.36151v1), from its
source-linked summary, which gives the results but not every definition.  Modules,
in paper order:

* :mod:`~gcv.spec.lineage.errors`: the typed errors (base ``LineageError``);
* :mod:`~gcv.spec.lineage.dfquad`: QBAFs, DF-QuAD (Rago et al. 2016) and Max-QuAD;
* :mod:`~gcv.spec.lineage.model`: occurrences, root-role units, extensions, matched
  interventions, eligibility (Section 3, Appendices A.1-A.2);
* :mod:`~gcv.spec.lineage.game`: the judgment game and replication-only deviations
  (Sections 3.2, 4.3);
* :mod:`~gcv.spec.lineage.quotient`: the three representations, the judges, the
  generic QBAF lifting with its compatibility check (Sections 5-6, B.1);
* :mod:`~gcv.spec.lineage.principles`: RRI, LNI, CRI, FLR, qFLR, Proposition 4.1,
  the information boundary, factorization and coarseness (Sections 4-5);
* :mod:`~gcv.spec.lineage.response`: Proposition 4, the response modulus,
  Theorem 6, Appendices B.4-B.6 (Section 6.1);
* :mod:`~gcv.spec.lineage.audit`: the toy debate and the structural audits
  (Section 7, Appendix C.1), which ``gcv audit lineage`` (:mod:`gcv.audits.lineage`)
  prints.

The root partition is supplied input throughout, as in the paper.  The
AVeriTeC audit (Section 7.3) needs a dataset this project does not ship and
is left out.  This package imports nothing from ``reference`` or ``proofs``.
"""
