"""Benchmarks: scripts that print figures, run on demand, never collected by pytest."""
