"""Vector files (``gcv-vectors/1``): cases and steps, their schema, their canonical text.

A case starts a conversation with its agents and atoms and runs its steps;
each step is a ``gcv-conform/1`` request without its id and the outcome the
reference gives.  A case's id is permanent, and its first two segments name
the file it lives in (``core/operations/observe-kinds`` lives in
``core/operations.json``), as the manifest repeats.  The text of a file is
canonical (fixed key order, sorted sets, one step per line), so regenerating
the vectors gives the same bytes whatever PYTHONHASHSEED is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import icontract

from gcv.conformance.compare import explanations
from gcv.conformance.protocol import PROTOCOL, schema_problem
from gcv.conformance.statements import (
    A1,
    A2,
    A3,
    COMPOSITION,
    COR24,
    DEF21,
    DEF23,
    EXPAND,
    HYPOTHESIZE,
    LEMMA21,
    LEMMA22,
    OBSERVE,
    ORDER,
    PHASE1,
    PHASE2,
    PHASE3,
    PROP23,
    QUESTION,
    RESOLVE,
    REVISE,
    SUBSUMPTION,
    SUPPORT,
    UNDERMINE,
    UPDATES,
)
from gcv.errors import MalformedVectors, ManifestMismatch
from gcv.jsoninput import parse_json, read_bounded

__all__ = [
    "ANSWER_PROFILE_SUITE_VERSION",
    "EPISTEMIC_SUITE_VERSION",
    "FIRST_SUITE_VERSION",
    "FORMAT",
    "MANIFEST",
    "MAX_VECTOR_BYTES",
    "PROFILED_SUITE_VERSION",
    "STATEMENTS",
    "SUITE_VERSION",
    "Case",
    "Step",
    "Suite",
    "combination_key",
    "combination_of",
    "default_directory",
    "dump_vector_file",
    "file_of",
    "load_suite",
    "load_vector_file",
    "open_suite",
]


def combination_key(readings: Iterable[str]) -> str:
    """The key a combination of readings has in a step's ``alternatives``: their names,
    sorted, joined by ``+``.

    >>> combination_key(["turn.numbering", "T3.hypothesize.no-commitment"])
    'T3.hypothesize.no-commitment+turn.numbering'
    """
    return "+".join(sorted(readings))


def combination_of(key: str) -> tuple[str, ...]:
    """The readings a key of ``alternatives`` combines."""
    return tuple(key.split("+"))


def has_unique_ids(cases: Sequence[Any]) -> bool:
    """Check that no two cases share an id."""
    return len({c.id for c in cases}) == len(cases)


def is_round_trip(text: str, cases: Sequence[Any]) -> bool:
    """Check that the vector file ``text`` holds exactly ``cases`` (parsed back, as JSON)."""
    parsed: list[Any] = json.loads(text)["cases"]
    return parsed == [json.loads(json.dumps(c.to_json())) for c in cases]


FORMAT = "gcv-vectors/1"
MANIFEST = "manifest.json"
"""The file, at the top of a vectors directory, that lists every vector file with its SHA-256."""
MAX_VECTOR_BYTES = 64 * 1024 * 1024
"""The largest vector file read (as a trace: spec/gcv/spec/normative.md, "Input bounds")."""
SUITE_VERSION = "2.0.0"
"""The suite version: the major number follows the protocol, the minor grows with new cases."""

FIRST_SUITE_VERSION = "1.0.0"
EPISTEMIC_SUITE_VERSION = "1.1.0"
"""The version that added the epistemic layer's cases."""
PROFILED_SUITE_VERSION = "1.2.0"
"""The version that tagged each step with its choices, and added the cases that catch every
paper clause."""
ANSWER_PROFILE_SUITE_VERSION = "2.0.0"
"""The version whose paper profile is decided by the answers under the alternatives."""
"""The version of the first suite (the core cases); a case added later states its own
``added_in`` (1.1.0: the epistemic layer; 1.2.0 tags each step with the choices it
depends on)."""

STATEMENTS: tuple[str, ...] = (
    DEF21,
    ORDER,
    COMPOSITION,
    OBSERVE,
    HYPOTHESIZE,
    SUPPORT,
    UNDERMINE,
    REVISE,
    RESOLVE,
    EXPAND,
    QUESTION,
    LEMMA21,
    LEMMA22,
    PROP23,
    DEF23,
    COR24,
    A1,
    UPDATES,
    A2,
    A3,
    SUBSUMPTION,
    PHASE1,
    PHASE2,
    PHASE3,
)
"""The paper statements a case can name (the schema's enum, in the paper's order)."""


@dataclass(frozen=True, slots=True)
class Step:
    """A request (without its id) and the outcome the reference gives.

    ``alternatives`` maps each combination of the reference's alternative readings that
    answers this step otherwise (its key, :func:`combination_key`) to that answer's
    expectation.  A step none answers otherwise belongs to the ``paper`` profile: every
    paper-compatible reading the suite knows gives its answer; the others to the
    ``reference`` profile.  ``choices`` are the chosen clauses of ``spec/gcv/spec/transition.py``
    the step's turn and those before it exercised on the reference's path: information only.
    """

    request: Mapping[str, Any]
    expect: Mapping[str, Any]
    note: str = ""
    choices: tuple[str, ...] = ()
    alternatives: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def explained_by(self, response: Mapping[str, Any]) -> list[tuple[str, ...]]:
        """The smallest sets of readings whose answers give ``response`` (empty: none does),
        :func:`gcv.conformance.compare.explanations`."""
        return explanations(self.request, self.expect, self.alternatives, response)

    @property
    def profile(self) -> str:
        """``paper`` when no alternative answers the step otherwise, else ``reference``."""
        return "reference" if self.alternatives else "paper"

    def to_json(self) -> dict[str, Any]:
        """The step's JSON object."""
        data: dict[str, Any] = {"request": dict(self.request), "expect": dict(self.expect)}
        data |= {"choices": list(self.choices)} if self.choices else {}
        if self.alternatives:
            data["alternatives"] = {
                c: dict(self.alternatives[c]) for c in sorted(self.alternatives)
            }
        return data | ({"note": self.note} if self.note else {})


@dataclass(frozen=True, slots=True)
class Case:
    """One conformance case: a fresh conversation and its steps, with where it comes from."""

    id: str
    description: str
    statements: tuple[str, ...]
    features: tuple[str, ...]
    tags: tuple[str, ...]
    added_in: str
    origin: Mapping[str, Any]
    agents: tuple[str, ...]
    atoms: tuple[str, ...]
    steps: tuple[Step, ...] = field(default=())
    model: Mapping[str, Any] | None = None
    """M_0 as ``start`` declares it (the trace format's ``model``), or ``None``: the default."""

    def to_json(self) -> dict[str, Any]:
        """The case's JSON object, keys in the schema's order."""
        data: dict[str, Any] = {
            "id": self.id,
            "description": self.description,
            "statements": list(self.statements),
            "features": list(self.features),
            "tags": list(self.tags),
            "added_in": self.added_in,
            "origin": dict(self.origin),
            "agents": list(self.agents),
            "atoms": list(self.atoms),
        }
        if self.model is not None:
            data["model"] = dict(self.model)
        return data | {"steps": [step.to_json() for step in self.steps]}

    def start(self) -> dict[str, Any]:
        """The ``start`` request (without its id) that opens the case's conversation."""
        request: dict[str, Any] = {
            "cmd": "start",
            "agents": list(self.agents),
            "atoms": list(self.atoms),
        }
        if self.model is not None:
            request["model"] = dict(self.model)
        return request

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Case:
        """A case from its (schema-valid) JSON object."""
        return Case(
            id=data["id"],
            description=data["description"],
            statements=tuple(data["statements"]),
            features=tuple(data["features"]),
            tags=tuple(data["tags"]),
            added_in=data["added_in"],
            origin=data["origin"],
            agents=tuple(data["agents"]),
            atoms=tuple(data.get("atoms", ())),
            steps=tuple(
                Step(
                    s["request"],
                    s["expect"],
                    s.get("note", ""),
                    tuple(s.get("choices", ())),
                    s.get("alternatives", {}),
                )
                for s in data["steps"]
            ),
            model=data.get("model"),
        )


@icontract.ensure(lambda result: result.endswith(".json"), "a vector file is a JSON file")
def file_of(case_id: str) -> str:
    """The file, relative to the vectors directory, a case id lives in.

    >>> file_of("core/operations/observe-kinds")
    'core/operations.json'
    """
    first, second, *_ = case_id.split("/")
    return f"{first}/{second}.json"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _case_text(case: Case) -> str:
    data = case.to_json()
    steps = data.pop("steps")
    lines = [f"      {_compact(k)}: {_compact(v)}," for k, v in data.items()]
    body = ",\n".join(f"        {_compact(step)}" for step in steps)
    return "    {\n" + "\n".join(lines) + '\n      "steps": [\n' + body + "\n      ]\n    }"


@icontract.ensure(
    lambda cases, result: is_round_trip(result, cases),
    "the text parses back to the same cases",
    enabled=icontract.SLOW,
)
def dump_vector_file(cases: Sequence[Case], description: str) -> str:
    """The canonical text of a vector file: fixed key order, one step per line.

    >>> text = dump_vector_file([], "nothing yet")
    >>> json.loads(text)["format"], text.endswith("\\n")
    ('gcv-vectors/1', True)
    """
    head = {"format": FORMAT, "suite": SUITE_VERSION, "protocol": PROTOCOL}
    lines = [f"  {_compact(k)}: {_compact(v)}," for k, v in head.items()]
    lines.append(f'  "description": {_compact(description)},')
    body = ",\n".join(_case_text(case) for case in cases)
    cases_text = '  "cases": [\n' + body + "\n  ]" if cases else '  "cases": []'
    return "{\n" + "\n".join(lines) + "\n" + cases_text + "\n}\n"


def load_vector_file(text: str | bytes, name: str = "vectors") -> tuple[Case, ...]:
    """Parse and validate one vector file against ``spec/gcv/spec/vectors/vectors.schema.json``.

    Raises
    ------
    MalformedVectors
        Naming the file and the place that is wrong.
    """
    # surrogatepass: a lone surrogate in the text is refused by parse_json, not by encode.
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    digest = hashlib.sha256(data).hexdigest()
    if digest in _VALIDATED:  # schema validation is the slow part of loading a suite
        return _VALIDATED[digest]
    document = parse_json(data, MAX_VECTOR_BYTES, MalformedVectors, name)
    found = schema_problem("urn:gcv:vectors:1", "", document)
    if found is not None:
        raise MalformedVectors(f"{name}: {found}", field=found.split(":", 1)[0])
    assert isinstance(document, dict), "the schema requires an object"
    cases = tuple(Case.from_json(c) for c in document["cases"])
    _VALIDATED[digest] = cases
    return cases


_VALIDATED: dict[str, tuple[Case, ...]] = {}


def default_directory() -> Traversable:
    """The vectors shipped in ``spec/gcv/spec/vectors``."""
    return resources.files("gcv.spec").joinpath("vectors")


def _vector_files(directory: Traversable) -> Iterable[tuple[str, Traversable]]:
    for group in sorted(directory.iterdir(), key=lambda p: p.name):
        if group.is_dir():
            for file in sorted(group.iterdir(), key=lambda p: p.name):
                if file.name.endswith(".json"):
                    yield f"{group.name}/{file.name}", file


@dataclass(frozen=True, slots=True)
class Suite:
    """The cases of a vectors directory, and what identifies them in a report."""

    cases: tuple[Case, ...]
    version: str
    """The manifest's suite version (without a manifest: this runner's)."""
    sha256: str | None
    """The SHA-256 of ``manifest.json``, which pins every file's; ``None`` without one."""


def _manifest_hashes(name: str, data: bytes) -> tuple[str, dict[str, str]]:
    """The suite version and path -> SHA-256 a manifest lists."""
    try:
        manifest = json.loads(data)
        return manifest["suite"], {f["path"]: f["sha256"] for f in manifest["files"]}
    except (ValueError, RecursionError, KeyError, TypeError) as error:
        raise MalformedVectors(f"{name}: not a gcv-vectors manifest: {error!r}") from None


@icontract.ensure(
    lambda result: has_unique_ids(result.cases), "case ids are unique across the suite"
)
def open_suite(directory: Traversable | Path | None = None) -> Suite:
    """Every case in the vector files under ``directory`` (default: the shipped suite),
    each file checked against the SHA-256 the directory's manifest lists.

    Vector files are the ``*.json`` files one level down (``core/operations.json``);
    the schema and the manifest, at the top, are not vector files.  Ids must be
    unique across the suite.  The shipped suite must have its manifest; a directory of
    one's own may go without (its files are then not checked, and ``sha256`` is ``None``).

    Raises
    ------
    ManifestMismatch
        A file's bytes are not the ones the manifest lists, a listed file is missing, or a
        vector file is not listed.
    MalformedVectors
        The manifest or a vector file is malformed, or a case id is used twice.
    """
    root = default_directory() if directory is None else directory
    manifest = root.joinpath(MANIFEST)
    version, digest, listed = SUITE_VERSION, None, None
    if manifest.is_file():
        data = manifest.read_bytes()
        version, listed = _manifest_hashes(MANIFEST, data)
        digest = hashlib.sha256(data).hexdigest()
    elif directory is None:
        raise ManifestMismatch(f"the shipped suite has no {MANIFEST}")
    cases: list[Case] = []
    seen: set[str] = set()
    files = dict(_vector_files(root))
    if listed is not None:
        missing = sorted(set(listed) - set(files))
        if missing:
            raise ManifestMismatch(f"{MANIFEST} lists {missing}, which are not there")
    for name, file in files.items():
        with file.open("rb") as stream:  # hashed and parsed from the same bytes
            data = read_bounded(stream, MAX_VECTOR_BYTES, MalformedVectors, name)
        if listed is not None and hashlib.sha256(data).hexdigest() != listed.get(name):
            why = "is not listed in" if name not in listed else "has another SHA-256 than"
            raise ManifestMismatch(
                f"{name} {why} {MANIFEST} (regenerate with `gcv vectors`)", field=name
            )
        for case in load_vector_file(data, name):
            if case.id in seen:
                raise MalformedVectors(f"{name}: case id {case.id!r} is used twice")
            seen.add(case.id)
            cases.append(case)
    return Suite(tuple(cases), version, digest)


@icontract.ensure(lambda result: has_unique_ids(result), "case ids are unique across the suite")
def load_suite(directory: Traversable | Path | None = None) -> tuple[Case, ...]:
    """The cases of :func:`open_suite`, checked against the manifest the same way."""
    return open_suite(directory).cases
