"""Oracles: second computations of the spec's definitions, fast enough where the spec's
brute force is not, each tested against the spec wherever both run (docs/layout.md)."""
