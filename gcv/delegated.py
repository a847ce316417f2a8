"""The ``gcv`` commands delegated to a module that parses its own options, and how one is
run: imported only when its command runs, so each starts with what it needs alone."""

from __future__ import annotations

import importlib
import sys

from gcv.options import EXIT_BAD_INPUT, EXIT_OK

__all__ = ["DELEGATED", "delegate"]

# Commands delegated to a module that parses its own arguments: name -> (module,
# help).  Each module exposes ``main(argv: list[str]) -> int`` and is imported only
# when its command runs.
DELEGATED: dict[str, tuple[str, str]] = {
    "prove": ("gcv.proofs.runner", "run the Z3 proof obligations and their non-vacuity twins"),
    "paper": ("gcv.paper", "the papers' claims: where each is implemented and checked"),
    "normative": (
        "gcv.normative",
        "rewrite (or --check) spec/gcv/spec/normative.md's clause entries",
    ),
    "schemas": ("gcv.schemas", "rewrite (or --check) the schemas' operations, from the engine's"),
    "serve": ("gcv.conformance.server", "answer gcv-conform/1 requests on stdin/stdout"),
    "conform": ("gcv.conformance.runner", "check an implementation against the vectors"),
    "smoke": ("gcv.conformance.smoke", "check a handshake and one case per declared feature"),
    "vectors": ("gcv.conformance.generate", "regenerate (or --check) the vectors"),
    "interpret-eval": ("gcv.interpret.cli", "score an interpreter on a trace (Table 2)"),
    "export": ("gcv.export", "write the map as ICCMA, GraphML, node-link JSON or JSON"),
    "draw": ("gcv.draw", "draw the map (DOT, Mermaid, SVG, PNG), a query highlighted"),
    "explore": ("gcv.explore", "write an offline HTML page stepping through the turns"),
    "figures": ("gcv.figures", "redraw (or --check) the figures of docs/pictures.md"),
    "evidence": (
        "gcv.experiments.evidence_command",
        "the active records linked to the entities a question names",
    ),
    "experiments": ("gcv.experiments.report", "regenerate docs/experiments.md"),
    "session": ("gcv.session_cli", "a conversation kept in an SQLite store, turn by turn"),
    "mcp": ("gcv.agent.command", "serve a folder of sessions to an agent host (MCP)"),
}


def delegate(module_name: str, argv: list[str], usage: str = "") -> int:
    """Run a command's module.  One that needs an extra not installed says which: on
    ``--help`` with its one-line help (exit 0), otherwise as bad input (exit 2)."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        from gcv.hints import extra_missing, install_hint

        extra = extra_missing(error)
        if extra is None:
            raise
        needs = f"this command needs {error.name}, from the {extra} extra: {install_hint(extra)}"
        if "-h" in argv or "--help" in argv:
            print(f"{usage}\n\n{needs}")
            return EXIT_OK
        print(f"gcv: {needs}", file=sys.stderr)
        return EXIT_BAD_INPUT
    code: int = module.main(argv)
    return code
