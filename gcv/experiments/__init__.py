"""The core paper's experiments that need no hosted model, on generated data.

``gcv evidence`` reads a fact stream and prints the evidence for a question;
``gcv experiments`` regenerates docs/experiments.md: the closure-versus-one-step
study of Section 4.4 on generated case files, and the token cost and evidence
quality of Section 4.5 on generated fact-consolidation streams.
"""
