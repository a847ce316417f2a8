"""``gcv paper``: the claims registry (``gcv/claims.py``) as a table, checked for dangling
references, and written as ``docs/paper-map.md``.

A reference dangles when a named Python object does not import, a named test function
is not in its file, a proof obligation is not in the suite, a vector pattern matches no
vector, or a benchmark script is missing.  Tests and benchmarks live in the source
checkout: an installed copy checks the rest and says what it left out.  Exit codes: 0
clean; 1 a dangling reference, a statement with no check, a claim without a status, a
numbered item of a paper that no claim registers, or (with ``--check``) a stale
``docs/paper-map.md``; 2 ``--markdown`` or ``--check`` outside a source checkout.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import fnmatch
import importlib
import inspect
import json
import sys
from collections import Counter
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path

from gcv.claims import (
    CLAIMS,
    MEANING,
    NEEDS_REASON,
    NUMBERED,
    PAPERS,
    Claim,
    Status,
    is_registered,
)
from gcv.hints import extra_missing, install_hint, source_checkout
from gcv.options import EXIT_BAD_INPUT

__all__ = ["CHECKOUT", "find_problems", "find_unregistered", "main", "render_markdown"]

CHECKOUT = source_checkout()
"""The source checkout (its tests, benchmarks and docs), or None for an installed copy."""
MAP = Path("docs") / "paper-map.md"


class NeedsExtra(Exception):
    """A named object's module imports a dependency of an extra that is not installed."""

    def __init__(self, extra: str) -> None:
        super().__init__(extra)
        self.extra = extra


def _resolves(dotted: str) -> bool:
    """Whether ``dotted`` names an object that imports.

    Raises
    ------
    NeedsExtra
        Its module needs an optional dependency that is not installed.
    """
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError as error:
            extra = extra_missing(error)
            if extra is not None:
                raise NeedsExtra(extra) from error
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


@cache
def _test_names(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            names |= {f"{node.name}::{m.name}" for m in node.body if isinstance(m, ast.FunctionDef)}
    return frozenset(names)


def _test_exists(node_id: str, root: Path) -> bool:
    path, _, name = node_id.partition("::")
    file = root / path
    return file.is_file() and name in _test_names(file)


@cache
def _obligation_ids() -> frozenset[str]:
    from gcv.proofs.suite import OBLIGATIONS

    return frozenset(o.id for o in OBLIGATIONS)


@cache
def _vector_ids() -> frozenset[str]:
    manifest = resources.files("gcv.spec").joinpath("vectors", "manifest.json")
    if not manifest.is_file():
        return frozenset()
    files = json.loads(manifest.read_text(encoding="utf-8")).get("files", [])
    return frozenset(case for f in files for case in f.get("cases", []))


def _checks(claim: Claim) -> Iterable[str]:
    yield from claim.tests
    yield from claim.obligations
    yield from claim.vectors
    yield from claim.benchmarks


def _problems(c: Claim) -> Iterable[str]:
    if not isinstance(c.status, Status):
        yield f"{c.id}: no status"
        return
    if c.status is not Status.NOT_APPLICABLE and not any(_checks(c)):
        yield f"{c.id}: no test, obligation, vector or benchmark checks it"
    if c.status in (Status.PROVED_UNBOUNDED, Status.PROVED_BOUNDED) and not c.obligations:
        yield f"{c.id}: status {c.status.value!r} but no proof obligation"
    yield from _misused(c)
    if c.status in NEEDS_REASON and not c.reason:
        yield f"{c.id}: status {c.status.value!r} needs a reason"
    yield from (
        f"{c.id}: {name} does not import" for name in c.implemented_in if not _imports(name)
    )
    if CHECKOUT is not None:
        yield from (
            f"{c.id}: test {t} does not exist" for t in c.tests if not _test_exists(t, CHECKOUT)
        )
    yield from (
        f"{c.id}: obligation {o} is not in the proof suite"
        for o in c.obligations
        if o not in _obligation_ids()
    )
    yield from (
        f"{c.id}: vector pattern {v} matches no vector"
        for v in c.vectors
        if not fnmatch.filter(_vector_ids(), v)
    )
    if CHECKOUT is not None:
        yield from (
            f"{c.id}: benchmark {b} does not exist"
            for b in c.benchmarks
            if not (CHECKOUT / b).is_file()
        )


CAN_FAIL = frozenset(
    {Status.TESTED, Status.CHECKED, Status.REPRODUCED, Status.REPRODUCED_ON_GENERATED_DATA}
)
"""The statuses that need a check that can fail: a test or a vector (a benchmark prints
figures and cannot fail)."""
CITED = "cited, not encoded"
"""What an obligation's module says of a result it rests on without encoding it."""


def _misused(c: Claim) -> Iterable[str]:
    """Where a claim's status word says more than its checks show (:data:`MEANING`)."""
    if c.status in CAN_FAIL and any(_checks(c)) and not (c.tests or c.vectors):
        yield f"{c.id}: status {c.status.value!r} but no test or vector checks it"
    layers = {name.split(".")[1] for name in c.implemented_in if name.startswith("gcv.")}
    if c.status is Status.TESTED and not {"spec", "reference"} <= layers:
        yield f"{c.id}: status 'tested' but it does not name a spec and a reference object"
    if c.status is Status.MEASURED and not c.benchmarks:
        yield f"{c.id}: status 'measured' but no benchmark measures it"
    replayed = "gcv.replay.replay" in c.implemented_in or any(
        v.startswith("scenarios/") for v in c.vectors
    )
    if c.status is Status.REPRODUCED and replayed and not c.encoding:
        yield f"{c.id}: reproduced by a scenario, but it names no encoding it rests on"
    for o in c.obligations:
        if CITED in _obligation_text(o) and not c.cites:
            yield f"{c.id}: obligation {o} cites a result it does not encode; name it in cites"


def _obligation_text(obligation: str) -> str:
    """The docstring of the module defining ``obligation``'s checks ("" if unknown)."""
    from gcv.proofs.suite import OBLIGATIONS

    found = [o for o in OBLIGATIONS if o.id == obligation]
    module = inspect.getmodule(found[0].checks) if found else None
    return " ".join((module.__doc__ or "").split()) if module else ""


def _imports(name: str) -> bool:
    """Whether ``name`` imports; one that needs an extra not installed counts as importing,
    and is reported by :func:`needing_extras`."""
    try:
        return _resolves(name)
    except NeedsExtra:
        return True


def needing_extras(claims: Iterable[Claim] = CLAIMS) -> list[str]:
    """The claims whose implementation needs an extra that is not installed, one line each."""
    lines = []
    for c in claims:
        for name in c.implemented_in:
            try:
                _resolves(name)
            except NeedsExtra as missing:
                lines.append(
                    f"{c.id}: {name} needs the {missing.extra} extra: {install_hint(missing.extra)}"
                )
    return lines


def find_problems(claims: Iterable[Claim] = CLAIMS) -> list[str]:
    """Every dangling reference and unchecked statement, one message each."""
    claims = list(claims)
    seen = Counter(c.id for c in claims)
    problems = [f"{cid}: registered {n} times" for cid, n in seen.items() if n > 1]
    for c in claims:
        problems += _problems(c)
    return problems


def find_unregistered(
    claims: Iterable[Claim] = CLAIMS, numbered: dict[str, tuple[str, ...]] = NUMBERED
) -> list[str]:
    """Every numbered item of a paper that no claim of that paper names in its label."""
    labels = [(c.paper, c.label) for c in claims]
    return [
        f"{paper}: {item} has no claim"
        for paper, items in numbered.items()
        for item in items
        if not any(is_registered(item, label) for p, label in labels if p == paper)
    ]


def _status(c: Claim) -> str:
    # A claim built without a status is reported by find_problems, and printed as such.
    return c.status.value if isinstance(c.status, Status) else "no status"


def _checked_by(c: Claim) -> str:
    parts = [f"`{t.split('::')[-1]}`" for t in c.tests]
    parts += [f"obligation `{o}`" for o in c.obligations]
    parts += [f"vectors `{v}`" for v in c.vectors]
    parts += [f"benchmark `{b}`" for b in c.benchmarks]
    return "<br>".join(parts) or "-"


def render_markdown(claims: Iterable[Claim] = CLAIMS) -> str:
    """The registry as docs/paper-map.md."""
    claims = list(claims)
    lines = [
        "# Paper map: claim, code, check",
        "",
        "Generated by `gcv paper --markdown` from `gcv/claims.py`; do not edit by hand "
        "(a test checks that it is current). Choices the reference makes where the papers are "
        "silent are in [`spec/gcv/spec/normative.md`](../spec/gcv/spec/normative.md).",
        "",
    ]
    lines += ["Status words, each with one meaning:", ""]
    lines += [f"- **{status.value}**: {meaning}." for status, meaning in MEANING.items()]
    lines.append("")
    counts = Counter(c.status for c in claims)
    lines.append(
        "Statements: " + ", ".join(f"{counts[s]} {s.value}" for s in Status if counts[s]) + "."
    )
    for paper, title in PAPERS.items():
        mine = [c for c in claims if c.paper == paper]
        if not mine:
            continue
        lines += [
            "",
            f"## {title}",
            "",
            "| id | statement | status | implemented in | checked by |",
            "|---|---|---|---|---|",
        ]
        for c in mine:
            status = _status(c) + (f": {c.reason}" if c.reason else "")
            status += f"; rests on the encoding: {c.encoding}" if c.encoding else ""
            status += f"; cites, not checked here: {'; '.join(c.cites)}" if c.cites else ""
            code = "<br>".join(f"`{name}`" for name in c.implemented_in) or "-"
            cells = (f"`{c.id}`", f"**{c.label}**: {c.statement}", status, code, _checked_by(c))
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    open_items = [c for c in claims if c.status in NEEDS_REASON]
    if open_items:
        lines += ["", "## Not fully checked", ""]
        lines += [f"- `{c.id}` ({_status(c)}): {c.reason}" for c in open_items]
    return "\n".join(lines) + "\n"


def _claim_data(c: Claim) -> dict[str, object]:
    return {**dataclasses.asdict(c), "status": _status(c)}


def _print_table(claims: Iterable[Claim]) -> None:
    for c in claims:
        print(f"{c.id:<28} {_status(c):<22} {c.label}")


def main(argv: list[str]) -> int:
    """See ``gcv paper --help``."""
    parser = argparse.ArgumentParser(prog="gcv paper", description=__doc__)
    parser.add_argument("--markdown", action="store_true", help=f"write {MAP} (a checkout's)")
    parser.add_argument("--check", action="store_true", help=f"fail if {MAP} is stale")
    parser.add_argument("--json", action="store_true", help="print the claims and problems as JSON")
    args = parser.parse_args(argv)
    if (args.markdown or args.check) and CHECKOUT is None:
        print(
            f"gcv paper: --markdown and --check need the source checkout's {MAP}; "
            "this copy is installed",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    problems = find_problems(CLAIMS) + find_unregistered(CLAIMS)
    text = render_markdown(CLAIMS)
    document = (CHECKOUT or Path()) / MAP
    stale = args.check and (not document.is_file() or document.read_text("utf-8") != text)
    if args.markdown:
        document.write_text(text, encoding="utf-8")
    if args.json:
        report = {
            "claims": [_claim_data(c) for c in CLAIMS],
            "dangling": problems,
            "needs_extra": needing_extras(CLAIMS),
        }
        print(json.dumps(report | ({"stale": stale} if args.check else {}), indent=2))
        return 1 if problems or stale else 0
    if args.markdown:
        print(f"wrote {MAP}")
    else:
        _print_table(CLAIMS)
    for problem in problems:
        print(f"dangling: {problem}")
    for line in needing_extras(CLAIMS):
        print(f"not checked here: {line}")
    if CHECKOUT is None:
        print("not checked: the tests and benchmarks named (they are in the source checkout)")
    if stale:
        print(f"{MAP} is stale: run `gcv paper --markdown`")
    return 1 if problems or stale else 0
