"""``gcv vectors --export DIR``: the suite as a bundle for implementations in any language.

A bundle holds what an implementation needs besides this package, and everything its
documents cite: the vector files with their manifest and coverage table, the JSON Schemas
(the vector files', the protocol's messages, and the trace format's, whose operations the
messages reuse), the protocol with the formula language and the profiles, the trace
format, ``normative.md`` (the error codes and the reference's choices), two example
adapters (Python and JavaScript), a README for implementers, and a top-level
``manifest.json`` listing every other file with its size and SHA-256.  The documents'
paths are those under ``gcv.spec``, so their relative links between them hold, and no
link leads out of the bundle (``tests/conformance/test_bundle.py`` checks every one).

The files are the shipped suite's bytes, read after the suite has been checked against
its own manifest (:func:`~gcv.conformance.vectors.open_suite`): a bundle is exactly what
``gcv conform`` runs, and ``gcv conform --vectors DIR/vectors`` runs it.  ``normative.md``
alone gains a note under its title: the files of the source repository it names are not
in the bundle, and nothing in it needs them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from gcv import __version__
from gcv.conformance.vectors import MANIFEST, default_directory, open_suite

__all__ = ["BUNDLE_FORMAT", "SOURCE_NOTE", "bundle_files", "bundle_manifest", "export_bundle"]

BUNDLE_FORMAT = "gcv-vectors-bundle/1"

# Beside the vector files the suite's manifest lists: path in the bundle, under gcv.spec.
_DOCUMENTS = (
    "vectors/manifest.json",
    "vectors/COVERAGE.md",
    "vectors/vectors.schema.json",
    "protocol/protocol.md",
    "protocol/formulas.md",
    "protocol/profiles.md",
    "protocol/request.schema.json",
    "protocol/response.schema.json",
    "trace.schema.json",
    "trace-format.md",
    "normative.md",
)

# The example adapters, from gcv.conformance.examples: name in the package -> path.
_EXAMPLES = {"adapter.py": "examples/adapter.py", "adapter.js": "examples/adapter.js"}

README = """\
# Conformance vectors of the Grounded Continuation verifier, suite {suite}

The conformance suite of the formal reference of *Grounded Continuation: A Linear-Time
Runtime Verifier for LLM Conversations*, exported by `gcv vectors --export` (gcv
{version}). Everything here is JSON, JSON Schema (draft 2020-12) or Markdown: {cases} cases,
{steps} steps, protocol `{protocol}`.

- `vectors/`: the cases, one JSON file per group (`core/operations.json`, ...), each
  valid against `vectors/vectors.schema.json`; `vectors/manifest.json` lists every vector
  file with its SHA-256 and case ids, and `vectors/COVERAGE.md` the paper statements and
  operation outcomes the cases exercise;
- `protocol/protocol.md`: the protocol `{protocol}` (JSON lines on standard input and
  output) and how answers compare; its messages' schemas are `protocol/request.schema.json`
  and `protocol/response.schema.json`; `protocol/formulas.md` is the formula language
  (grammar, precedence, associativity, bounds) and `protocol/profiles.md` what the paper
  and reference profiles and the fuzzer's cut turns mean;
- `trace.schema.json` and `trace-format.md`: the trace format, whose `$defs/operation`
  encodes a turn's operations;
- `normative.md`: the error codes, and every choice the reference makes where the paper is
  silent;
- `examples/`: two adapters that pass the paper profile, each declaring only the features
  it implements: `adapter.py` wraps a Python API (the reference's, `pip install` below),
  `adapter.js` is a verifier of its own in JavaScript (Node, no dependencies) without the
  epistemic layer;
- `manifest.json`: this bundle's suite and protocol versions, and every other file's size
  and SHA-256.

## Checking the bundle

```sh
jq -r '.files[] | "\\(.sha256)  \\(.path)"' manifest.json | sha256sum --check
```

## Running the vectors

With the reference's runner, for an implementation that speaks the protocol:

```sh
pip install grounded-continuation=={version}
gcv smoke -- ./my-verifier       # the handshake, and one case per declared feature
gcv conform --vectors vectors --vectors-version {suite} -- ./my-verifier
gcv conform --vectors vectors -- node examples/adapter.js
```

With a harness of your own: for each case, open a fresh conversation (the `start` request
with the case's `agents`, `atoms` and, when present, `model`), then send each step's
`request` and compare the answer with its `expect` as `protocol/protocol.md` says (sets in
any order, formulas by parsing, an ungrounded Verify's witness any of its `witnesses`):
`{{"accepted": true}}` or `{{"rejected": CODE}}` for a turn, `{{"result": VALUE}}` or
`{{"error": CODE}}` for a query. A step without `alternatives` is decided by the papers
alone (the `paper` profile): no paper-compatible reading of the reference's choices answers
it otherwise. A step with `alternatives` lists, for each combination of such readings
(clause ids of `normative.md`, joined by `+`), the answer it gives: an answer that one of
them, or several changing different parts of it, gives is a choice, not a failure; an
answer none gives fails the paper profile (`protocol/profiles.md`).

## Fuzzing

The runner can also drive an implementation in lockstep with the reference on generated
conversations, comparing every answer; it needs Hypothesis, the `conformance` extra:

```sh
pip install 'grounded-continuation[conformance]=={version}'
gcv conform --fuzz 200 -- ./my-verifier             # the paper profile: only what the papers decide
gcv conform --fuzz 200 --seed 7 --save-vector mine.json -- ./my-verifier
```

Each distinct cause of difference is reported once, with its shortest shrunk
conversation and how many times it was met (`protocol/profiles.md`, "Fuzzing").
The conversations run in shards of `--shard-examples` (default 10), each starting its own
copy of the implementation; `--workers K` spreads them over K local processes and
`--cluster ADDRESS` over a Dask cluster (the `campaign` extra), with the same findings,
and `--checkpoint FILE` with `--resume` continues a stopped run.

Case ids are permanent; `added_in` names the suite version that added a case, and
`vectors/manifest.json`'s `versions` the version since which each case's answers are as
they are. Every link in these documents leads to another file of this bundle; where
`normative.md` names a file of the reference's source repository (under its folders docs,
tests, gcv, reference and proofs), it says so, and nothing here needs it.
"""
"""The bundle's README for implementers; ``str.format`` fills in the versions and counts."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def bundle_files() -> dict[str, bytes]:
    """Path in the bundle -> bytes, for every file but the bundle's manifest.

    Raises
    ------
    ManifestMismatch, MalformedVectors
        The shipped suite is not what its manifest lists (as for ``gcv conform``).
    """
    open_suite()  # every vector file checked against the suite's manifest
    spec = resources.files("gcv.spec")
    manifest = json.loads(default_directory().joinpath(MANIFEST).read_bytes())
    paths = [*_DOCUMENTS, *(f"vectors/{f['path']}" for f in manifest["files"])]
    files = {path: spec.joinpath(path).read_bytes() for path in paths}
    examples = resources.files("gcv.conformance.examples")
    files |= {path: examples.joinpath(name).read_bytes() for name, path in _EXAMPLES.items()}
    readme = README.format(
        suite=manifest["suite"],
        version=__version__,
        protocol=manifest["protocol"],
        cases=manifest["cases"],
        steps=manifest["steps"],
    )
    files["README.md"] = readme.encode("utf-8")
    files["normative.md"] = _with_source_note(files["normative.md"].decode("utf-8")).encode()
    return files


SOURCE_NOTE = (
    "> In this bundle: the paths this page names under the folders docs, tests, gcv, "
    "reference and proofs are files of the reference's source repository, where they explain "
    "or test what is stated here; nothing in this bundle needs them, and every link of this "
    "page leads to a file of the bundle."
)
"""Put under the title of the bundle's ``normative.md``."""


def _with_source_note(text: str) -> str:
    title, rest = text.split("\n", 1)
    return f"{title}\n\n{SOURCE_NOTE}\n{rest}"


def bundle_manifest(files: Mapping[str, bytes]) -> str:
    """The bundle's ``manifest.json``: the versions, and each file's size and SHA-256."""
    suite = json.loads(files["vectors/manifest.json"])
    manifest = {
        "format": BUNDLE_FORMAT,
        "suite": suite["suite"],
        "protocol": suite["protocol"],
        "exported_by": f"gcv {__version__}",
        "cases": suite["cases"],
        "steps": suite["steps"],
        "files": [
            {"path": path, "bytes": len(files[path]), "sha256": _sha256(files[path])}
            for path in sorted(files)
        ],
    }
    return json.dumps(manifest, indent=2) + "\n"


def export_bundle(directory: Path) -> dict[str, bytes]:
    """Write the bundle into ``directory`` (new, or empty); every file written, by path.

    Raises
    ------
    FileExistsError
        ``directory`` holds something already: a bundle is never mixed with other files.
    """
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise FileExistsError(f"{directory}: exists and is not an empty folder")
    files = bundle_files()
    files["manifest.json"] = bundle_manifest(files).encode("utf-8")
    for path, data in files.items():
        target = directory / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return files
