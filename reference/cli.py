"""The ``gcv`` command line.

The command line is the composition root: it is the one place (besides the
conformance runner and the tests) where ``reference``, ``spec`` and ``proofs``
meet.  Subcommands owned by a spec module or by the proof suite are imported
lazily, so ``gcv replay`` never loads Z3 or the audits.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

__all__ = ["main"]

# Subcommands delegated to another package: name -> (module, help).  Each
# module exposes ``main(argv: list[str]) -> int``.
_AUDITS = {
    "lineage": ("spec.lineage.audit", "the lineage-quotient audits (Replication or Corroboration?)"),
    "gossip": ("spec.gossip.audit", "the epistemic gossip guard checks (EPLA)"),
}


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gcv", description="Grounded Continuation reference verifier."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    audit = commands.add_parser("audit", help="run a spec module's audits")
    audit.add_argument("module", choices=sorted(_AUDITS), help="which audit to run")
    audit.add_argument("rest", nargs=argparse.REMAINDER, help="arguments for the audit")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gcv`` with ``argv`` (default: ``sys.argv[1:]``) and return its exit code."""
    args = _build_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    if args.command == "audit":
        module_name, _ = _AUDITS[args.module]
        module = importlib.import_module(module_name)
        code: int = module.main(list(args.rest))
        return code
    raise AssertionError(f"unhandled command {args.command!r}")  # argparse restricts choices


if __name__ == "__main__":
    raise SystemExit(main())
