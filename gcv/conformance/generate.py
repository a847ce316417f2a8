"""``gcv vectors``: write the vector suite from the reference, or check that it is current.

One command regenerates every file under ``spec/gcv/spec/vectors`` that is generated:
the vector files, ``manifest.json`` and ``COVERAGE.md``.  The hand-written and
scenario cases are built by running them (:mod:`gcv.conformance.cases`);
the findings (``findings/*.json``: fuzz mismatches saved by ``gcv conform
--fuzz``, counterexample traces imported with ``--import-trace``) keep their
requests and get fresh expectations.  ``--check`` regenerates in memory and
fails if any committed file differs, which CI runs.  ``--export DIR`` writes the shipped
suite as a bundle for implementations in other languages (:mod:`gcv.conformance.bundle`).

Case ids are permanent: a case listed in the committed manifest may not
disappear unless :data:`RETIRED` names it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from gcv.conformance.bundle import export_bundle
from gcv.conformance.cases import (
    CaseError,
    case_from_trace,
    hand_written_cases,
    oracle,
    rederive,
    scenario_cases,
)
from gcv.conformance.cases.blame import with_alternatives_all
from gcv.conformance.cases.builder import SURVEY
from gcv.conformance.cases.scenario_maps import scenario_map_cases
from gcv.conformance.protocol import PROTOCOL
from gcv.conformance.session import Session
from gcv.conformance.vectors import (
    STATEMENTS,
    SUITE_VERSION,
    Case,
    default_directory,
    dump_vector_file,
    file_of,
    load_vector_file,
)
from gcv.conformance.versions import (
    RELEASES,
    case_versions,
    dump_releases,
    load_releases,
    recorded,
    schema_hash,
    version_problem,
)
from gcv.errors import MalformedVectors
from gcv.hints import source_checkout
from gcv.progress import add_quiet_argument
from gcv.reference.errors import GcvError
from gcv.reference.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Revise,
    own_formula,
    realisation,
    target_of,
)
from gcv.trace import operation_from_json

__all__ = ["DESCRIPTIONS", "RETIRED", "build_suite", "main", "render_suite"]

EXIT_OK, EXIT_DIFFERS, EXIT_BAD_INPUT = 0, 1, 2

RETIRED: tuple[str, ...] = (
    # A Question registers no record (B.3 T1), so it has no dependencies to check.
    "core/preconditions/question-depends-on-itself",
    "core/preconditions/question-depends-on-unknown",
    # ... and nothing rests on a Question, so its place in the order reads no Dep link.
    "core/interactions/question-after-support",
    # A Question's id names an issue, checked against no record's (T3.question.issue-ids-apart,
    # suite 2.0.0): core/choices/issue-ids-apart has the turns.
    "core/preconditions/question-id-duplicate",
)
"""Ids of cases withdrawn from the suite (never reused)."""

DESCRIPTIONS: Mapping[str, str] = {
    "core/operations.json": "Each operation's accept paths and effects (Table 3, Algorithm 1).",
    "core/preconditions.json": "Every precondition of Table 3 broken once: the error code, and "
    "an unchanged map.",
    "core/turns.json": "Per-turn composition, the fixed operation order, atomic turns.",
    "core/wellformed.json": "Operations the schema admits that are not well formed.",
    "core/queries.json": "The Verify walk, Affected and Affected*, cycles, selective "
    "retraction, query errors.",
    "core/interactions.json": "Operations of one turn that decide each other's outcome, "
    "records out of standing in queries, a rejected turn's reverse links, deep and shared "
    "maps.",
    "core/choices.json": "Turns that tell a choice of the reference from its alternative where "
    "no other case does.",
    "epistemic/operations.json": "Each operation's effect on M_t (Section 2's table, Table 3's "
    "DEL realisations, A.1's updates, Definitions A.2 and A.3).",
    "epistemic/preconditions.json": "Every epistemic rejection path: the error code, and an "
    "unchanged D_t, M_t included.",
    "epistemic/queries.json": "M_t's queries (knowledge, belief, conditional belief, E_G, C_G, "
    "awareness, the worlds, the orders) on declared models, and their errors.",
    "core/scenario-maps.json": "A scenario's final map reached by operations that make no "
    "choice, and the scenario's final-state survey on it.",
    "epistemic/cells.json": "Belief in the agent's own cell on models with several cells "
    "ordered differently, and problems a believed hypothesis must not close (Definition A.2).",
    "epistemic/paper.json": "The epistemic layer where the papers decide whatever the "
    "reference chose: each case checks one sentence of Appendix A (A.1's updates, Definitions "
    "A.2 and A.3), on answers no alternative changes.",
    "scenarios/phase1-muddy-children.json": "Phase 1 (B.1), from "
    "spec/scenarios/phase1-muddy-children.json.",
    "scenarios/phase2-debugging.json": "Phase 2 (B.2), from spec/scenarios/phase2-debugging.json.",
    "scenarios/phase2-epistemic.json": "Phase 2's symbolic model (B.2), from "
    "spec/scenarios/phase2-epistemic.json.",
    "scenarios/phase3-deliberation.json": "Phase 3 (B.3), from "
    "spec/scenarios/phase3-deliberation.json.",
    "findings/fuzz.json": "Shrunk mismatches found by differential fuzzing (gcv conform --fuzz "
    "--save-vector); requests kept, expectations regenerated.",
    "findings/proofs.json": "Counterexamples refuting the non-vacuity twins of proofs/, built "
    "as conversations (python -m tests.conformance.proof_vectors, or gcv vectors "
    "--import-trace); requests kept, expectations regenerated.",
}

SCHEMA = "vectors.schema.json"
"""The vector files' JSON Schema: not generated, but part of every written suite."""


def _findings(directory: Traversable) -> list[Case]:
    cases: list[Case] = []
    folder = directory / "findings"
    if folder.is_dir():
        for path in sorted(folder.iterdir(), key=lambda f: f.name):
            if path.name.endswith(".json"):
                name = f"findings/{path.name}"
                cases.extend(rederive(c) for c in load_vector_file(path.read_bytes(), name))
    return cases


def build_suite(directory: Path, quiet: bool = True) -> list[Case]:
    """Every case of the suite, built now; findings are read from ``directory``, or from the
    shipped suite when ``directory`` has none (so a new ``--out`` keeps every case).

    Unless ``quiet``, a bar on a terminal stderr shows the scenario cases being built.
    """
    findings = _findings(directory)  # read first: a damaged one fails before a minute's build
    built = hand_written_cases() + scenario_cases(quiet) + scenario_map_cases() + findings
    return with_alternatives_all(built)


def _by_file(cases: Sequence[Case]) -> dict[str, list[Case]]:
    files: dict[str, list[Case]] = {}
    for case in cases:
        files.setdefault(file_of(case.id), []).append(case)
    return files


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _manifest(
    files: Mapping[str, str], cases: Mapping[str, list[Case]], versions: Mapping[str, str]
) -> str:
    manifest = {
        "format": "gcv-vectors-manifest/1",
        "suite": SUITE_VERSION,
        "protocol": PROTOCOL,
        "generated_by": "gcv vectors",
        "cases": sum(len(c) for c in cases.values()),
        "steps": sum(len(case.steps) for c in cases.values() for case in c),
        "files": [
            {"path": path, "sha256": _sha256(files[path]), "cases": [c.id for c in cases[path]]}
            for path in sorted(files)
        ],
        "retired": list(RETIRED),
        "versions": dict(sorted(versions.items())),
    }
    return json.dumps(manifest, indent=2) + "\n"


def _replayed(case: Case) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The case replayed through the reference once, for the coverage table: (operation,
    outcome) for each operation of each turn (``accepted``, or ``CODE (field)`` for the
    operation a rejected turn failed on), and (operation, realisation) for each operation
    with an epistemic input of each accepted turn, with Definition A.2's queue: problems
    posed and closed."""
    session = Session()
    session.handle({"id": 0, **case.start()})
    outcomes: list[tuple[str, str]] = []
    effects: list[tuple[str, str]] = []
    for index, step in enumerate(case.steps, start=1):
        if step.request["cmd"] != "apply":
            continue
        verifier = session.verifier
        assert verifier is not None, "the case started"
        atoms = set(verifier.state.model.atoms)
        problems = verifier.state.epistemic.problems
        response = session.handle({"id": index, **step.request}, valid=True)
        if not response["ok"]:
            error = response["error"]
            where = error.get("operation", "(turn)")
            outcomes.append((where, f"{error['code']} ({error.get('field', '-')})"))
            continue
        outcomes += [(op["op"], "accepted") for op in step.request["operations"]]
        effects += _turn_effects(verifier, step.request["operations"], atoms, problems)
    return outcomes, effects


def _outcomes(case: Case) -> list[tuple[str, str]]:
    """(operation, outcome) for each operation of each turn (:func:`_replayed`)."""
    return _replayed(case)[0]


def _effects(case: Case) -> list[tuple[str, str]]:
    """(operation, realisation) for each accepted operation with an epistemic input, and
    the queue's problems posed and closed (:func:`_replayed`)."""
    return _replayed(case)[1]


def _reading(op: Operation, atoms: Collection[str], observed: int) -> str:
    """The DEL realisation an accepted operation with epistemic inputs applied, as the
    coverage table names it (Section 2's table; spec/gcv/spec/normative.md, "M_t")."""
    if isinstance(op, ExpandAwareness):
        return "split W on a new atom" if op.atom not in atoms else "awareness only"
    if isinstance(op, Observe):
        return "[!psi], simultaneous" if observed > 1 else "[!psi]"
    if isinstance(op, Question):
        return "queue (B_i, chi) for every i who does not believe chi"
    reading = realisation(op)
    if reading.update is None:
        return "no update (attacks only)" if isinstance(op, Revise) else "no update (decision)"
    text = reading.update.value.replace("phi", "~gamma" if reading.negated else "gamma")
    return text.replace("psi", "gamma")


def _turn_effects(
    verifier: Any, operations: Sequence[Mapping[str, Any]], atoms: Collection[str], problems: Any
) -> list[tuple[str, str]]:
    """What an accepted turn's operations did to M_t (see :func:`_replayed`)."""
    found: list[tuple[str, str]] = []
    records = verifier.state.records
    ops = [operation_from_json(op) for op in operations]
    observed = sum(isinstance(op, Observe) and op.formula is not None for op in ops)
    for op in ops:
        target = target_of(op)
        gamma = own_formula(op) or (target and records[target].formula)
        if gamma is not None or isinstance(op, ExpandAwareness):
            found.append((op.name, _reading(op, atoms, observed)))
        if isinstance(op, Hypothesize) and op.introduces:
            found.append((op.name, "introduces atoms, W split"))
    after = verifier.state.epistemic.problems
    for problem in after[len(problems) :]:
        # A Question's problem has its issue as source, which is no record (B.3 T1).
        source = records[problem.source].kind.value if problem.source in records else "question"
        found.append(("abduction", f"problem posed by {source}"))
    kept = zip(problems, after[: len(problems)], strict=True)
    closed = sum(len(q.closed_by) - len(p.closed_by) for p, q in kept)
    found += [("abduction", "problem closed by a hypothesis")] * closed
    return found


def _coverage(cases: Sequence[Case]) -> str:
    by_statement: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        for statement in case.statements:
            by_statement[statement].append(case.id)
    lines = [
        "# Coverage of the conformance vectors",
        "",
        f"Generated by `gcv vectors` (suite {SUITE_VERSION}, protocol {PROTOCOL}): do not edit.",
        f"{len(cases)} cases, {sum(len(c.steps) for c in cases)} steps.",
        "",
        "## Paper statements",
        "",
        "| statement | cases | ids |",
        "|---|---|---|",
    ]
    for statement in STATEMENTS:
        ids = by_statement.get(statement, [])
        lines.append(f"| {statement} | {len(ids)} | {', '.join(f'`{i}`' for i in ids)} |")
    outcomes: dict[str, Counter[str]] = defaultdict(Counter)
    effects: Counter[tuple[str, str]] = Counter()
    for case in cases:
        found, done = _replayed(case)
        for op, outcome in found:
            outcomes[op][outcome] += 1
        effects.update(done)
    lines += [
        "",
        "## Operations: accepted, and rejected by code (field)",
        "",
        "Counted over every turn of every case, replayed through the reference.",
        "",
        "| operation | accepted | rejected with |",
        "|---|---|---|",
    ]
    for op in sorted(outcomes):
        counts = outcomes[op]
        rejected = ", ".join(f"{k}: {n}" for k, n in sorted(counts.items()) if k != "accepted")
        lines.append(f"| {op} | {counts['accepted']} | {rejected or '-'} |")
    lines += [
        "",
        "## Epistemic effects: the DEL realisation each accepted operation applied",
        "",
        "Counted over every accepted turn of every case, replayed through the reference: each "
        "operation with a formula of its own or its target's, every Expand-Awareness, and "
        "Definition A.2's queue.",
        "",
        "| operation | realisation | times |",
        "|---|---|---|",
    ]
    lines += [f"| {op} | {reading} | {n} |" for (op, reading), n in sorted(effects.items())]
    features: Counter[str] = Counter(f for c in cases for f in c.features)
    tags: Counter[str] = Counter(t for c in cases for t in c.tags)
    lines += ["", "## Features and tags", "", "| feature or tag | cases |", "|---|---|"]
    lines += [f"| `{name}` | {features[name]} |" for name in sorted(features)]
    lines += [f"| {name} | {tags[name]} |" for name in sorted(tags)]
    return "\n".join(lines) + "\n"


def render_suite(
    cases: Sequence[Case], releases: Sequence[Mapping[str, Any]] = ()
) -> dict[str, str]:
    """Relative path -> canonical text, for every generated file (each case's version from
    the suite's ``releases``, :func:`gcv.conformance.versions.case_versions`)."""
    by_file = _by_file(cases)
    unknown = sorted(set(by_file) - set(DESCRIPTIONS))
    if unknown:
        raise MalformedVectors(f"no description for vector file(s) {unknown}")
    files = {path: dump_vector_file(c, DESCRIPTIONS[path]) for path, c in by_file.items()}
    texts = dict(files)
    current = recorded(SUITE_VERSION, cases, schema_hash(resources.files("gcv.spec")))
    texts["manifest.json"] = _manifest(files, by_file, case_versions(releases, current))
    texts["COVERAGE.md"] = _coverage(cases)
    return texts


def _check_permanence(directory: Path, cases: Sequence[Case]) -> None:
    manifest = directory / "manifest.json"
    if not manifest.is_file():
        return
    listed = {i for f in json.loads(manifest.read_text())["files"] for i in f["cases"]}
    gone = sorted(listed - {c.id for c in cases} - set(RETIRED))
    if gone:
        raise MalformedVectors(f"case ids are permanent, but these would disappear: {gone}")


def _stale(directory: Path, texts: Mapping[str, str]) -> list[str]:
    """Files that differ from ``texts``, and generated files that should not exist."""
    stale = []
    for path, text in texts.items():
        file = directory / path
        if not file.is_file() or file.read_text(encoding="utf-8") != text:
            stale.append(path)
    for file in sorted(directory.glob("*/*.json")):
        relative = file.relative_to(directory).as_posix()
        if relative not in texts:
            stale.append(relative)
    return stale


def _import_trace(args: argparse.Namespace, directory: Path) -> None:
    origin: dict[str, Any] = {"kind": "proof", "obligation": args.obligation}
    if args.twin:
        origin["twin"] = args.twin
    case = case_from_trace(
        Path(args.import_trace).read_bytes(),
        args.id,
        args.description,
        args.statement,
        origin=origin,
        final_survey=SURVEY,
        tags=["counterexample"],
    )
    path = directory / file_of(args.id)
    existing = list(load_vector_file(path.read_bytes(), str(path))) if path.is_file() else []
    if any(c.id == case.id for c in existing):
        raise MalformedVectors(f"{path}: case id {case.id!r} is already there")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_vector_file([*existing, case], DESCRIPTIONS[file_of(args.id)]))


def _releases(directory: Path) -> list[dict[str, Any]]:
    """The releases ``directory`` records, else the shipped suite's."""
    file = directory / RELEASES
    shipped = default_directory().joinpath(RELEASES)
    text = file.read_text("utf-8") if file.is_file() else None
    if text is None and shipped.is_file():
        text = shipped.read_text("utf-8")
    return load_releases(text)


def _released(releases: Sequence[Mapping[str, Any]], cases: Sequence[Case]) -> str:
    """``releases.json`` with the suite as generated recorded as released.

    Raises
    ------
    MalformedVectors
        Its version is released with other answers, or is not the bump its changes need.
    """
    current = recorded(SUITE_VERSION, cases, schema_hash(resources.files("gcv.spec")))
    problem = version_problem(releases, current)
    if problem is not None:
        raise MalformedVectors(problem)
    if releases and releases[-1]["suite"] == SUITE_VERSION:
        return dump_releases(releases)
    return dump_releases([*releases, current])


def _tally_counts(worlds: int) -> dict[str, int]:
    """What spec.transition recomputed, and how much of it lay beyond its bound of ``worlds``
    (recomputed by gcv.oracles.epistemic_bits)."""
    tally = oracle.TALLY
    kinds = ("turns", "answers", "refusals")
    counts = {kind: tally[f"{kind} recomputed"] for kind in kinds}
    counts["beyond_bound"] = sum(tally[f"{kind} recomputed bit-parallel"] for kind in kinds)
    counts["bound_worlds"] = worlds
    return counts


def _tally(worlds: int) -> str:
    c = _tally_counts(worlds)
    return (
        f"gcv.spec.transition recomputed {c['turns']} turns, {c['answers']} answers, "
        f"{c['refusals']} refusals; {c['beyond_bound']} of them beyond {worlds} worlds, "
        "by gcv.oracles.epistemic_bits"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gcv vectors",
        description="Regenerate the conformance vectors from the reference (or check them).",
    )
    parser.add_argument(
        "--out",
        help="the vectors directory (default: spec/gcv/spec/vectors of the source checkout; "
        "an installed copy needs --out to write)",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a file is not current"
    )
    parser.add_argument(
        "--export",
        metavar="DIR",
        help="write the shipped suite into DIR (new or empty) as a bundle for other "
        "languages: the vector files, their schemas, the protocol, a README and a manifest "
        "of SHA-256s",
    )
    parser.add_argument(
        "--release",
        action="store_true",
        help=f"record the suite, as generated, as released in {RELEASES} (refused when its "
        "version is released with other answers, or is not the bump its changes need)",
    )
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    add_quiet_argument(parser)
    parser.add_argument(
        "--spec-worlds",
        type=int,
        default=oracle.BOUND.worlds,
        metavar="N",
        help="recompute epistemic answers with spec.epistemic on models of up to N worlds "
        f"(default {oracle.BOUND.worlds}; larger is slower and changes no vector)",
    )
    group = parser.add_argument_group("adding a counterexample trace as a vector")
    group.add_argument("--import-trace", metavar="TRACE", help="a gcv-trace/1 file")
    group.add_argument("--id", help="its case id, findings/proofs/NAME")
    group.add_argument("--description", default="", help="what it shows")
    group.add_argument("--statement", action="append", default=[], help="a paper statement")
    group.add_argument("--obligation", default="", help="the proofs/ obligation it refutes")
    group.add_argument("--twin", default="", help="the non-vacuity twin it comes from")
    return parser


def _export(args: argparse.Namespace) -> int:
    if args.check or args.out or args.import_trace:
        print(
            "gcv vectors: --export writes the shipped suite as it is; "
            "it takes no --check, --out or --import-trace",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    try:
        files = export_bundle(Path(args.export))
    except (GcvError, OSError) as error:
        print(f"gcv vectors: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    suite = json.loads(files["manifest.json"])["suite"]
    if args.json:
        print(json.dumps({"directory": args.export, "suite": suite, "files": sorted(files)}))
    else:
        print(f"suite {suite}: {len(files)} files exported to {args.export}")
    return EXIT_OK


def main(argv: list[str]) -> int:
    """Run ``gcv vectors``."""
    args = _parser().parse_args(argv)
    if args.export is not None:
        return _export(args)
    if args.out is None and not args.check and source_checkout() is None:
        print(
            "gcv vectors: --out DIR is needed: the installed suite is read-only "
            "(--check checks it)",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    directory = Path(args.out or str(default_directory()))
    try:
        if args.import_trace:
            if not (args.id and args.id.startswith("findings/") and args.statement):
                print(
                    "gcv vectors: --import-trace needs --id findings/... and --statement",
                    file=sys.stderr,
                )
                return EXIT_BAD_INPUT
            _import_trace(args, directory)
        oracle.TALLY.clear()
        conservative = max(oracle.BOUND.conservative, args.spec_worlds // 4)
        with oracle.bound(args.spec_worlds, min(conservative, args.spec_worlds)):
            cases = build_suite(directory, args.quiet)
        _check_permanence(directory, cases)
        releases = _releases(directory)
        texts = render_suite(cases, releases)
        released = _released(releases, cases) if args.release else None
    except (GcvError, CaseError, OSError) as error:
        print(f"gcv vectors: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    summary: dict[str, object] = {
        "directory": str(directory),
        "cases": len(cases),
        "steps": sum(len(c.steps) for c in cases),
        "files": len(texts) - 2,
        "spec_transition": _tally_counts(args.spec_worlds),
    }
    if not args.json:
        print(_tally(args.spec_worlds))
    if args.check:
        stale = _stale(directory, texts)
        for path in stale:
            print(
                f"gcv vectors: {directory / path} is not what the reference generates",
                file=sys.stderr,
            )
        if args.json:
            print(json.dumps({**summary, "current": not stale, "stale": sorted(stale)}))
        if stale:
            print("gcv vectors: run `gcv vectors` and commit the result", file=sys.stderr)
            return EXIT_DIFFERS
        if not args.json:
            print(f"{len(cases)} cases in {len(texts) - 2} files: current")
        return EXIT_OK
    for path, text in texts.items():
        file = directory / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    if released is not None:
        (directory / RELEASES).write_text(released, encoding="utf-8")
        if not args.json:
            print(f"suite {SUITE_VERSION} recorded as released in {directory / RELEASES}")
    if not (directory / SCHEMA).is_file():
        (directory / SCHEMA).write_bytes(default_directory().joinpath(SCHEMA).read_bytes())
    removed = _stale(directory, texts)
    for path in removed:
        (directory / path).unlink()
        if not args.json:
            print(f"removed {directory / path}")
    if args.json:
        print(json.dumps({**summary, "written": True, "removed": sorted(removed)}))
    else:
        print(
            f"{len(cases)} cases, {summary['steps']} steps, "
            f"{len(texts) - 2} vector files written to {directory}"
        )
    return EXIT_OK
