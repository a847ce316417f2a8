"""The prompt files: released texts unchanged, shipped, consistent with the schema."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import tomllib
from pathlib import Path

import pytest

from gcv.interpret.prompts import (
    PROMPT_FILES,
    PROMPT_VERSION,
    build_messages,
    load_prompts,
    prompt_digest,
)
from gcv.interpret.protocol import Condition, Request
from gcv.interpret.validate import OPERATION_NAMES, operation_variants, read_reply

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = ROOT / "gcv" / "interpret" / "prompts"


def _versions() -> list[Path]:
    return sorted(p for p in PROMPTS.iterdir() if p.is_dir() and not p.name.startswith("__"))


@pytest.mark.parametrize("folder", _versions(), ids=lambda p: p.name)
def test_a_released_prompt_version_is_never_edited(folder: Path) -> None:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["version"] == folder.name
    assert sorted(manifest["sha256"]) == sorted(PROMPT_FILES)
    for name, digest in manifest["sha256"].items():
        actual = hashlib.sha256((folder / name).read_bytes()).hexdigest()
        assert actual == digest, f"{folder.name}/{name} changed: make a new version instead"


def test_the_prompt_files_ship_as_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["*"]
    for path in PROMPTS.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            assert any(fnmatch.fnmatch(path.name, p) for p in patterns), path


def test_the_format_lists_each_operations_fields_as_the_schema_does() -> None:
    text = load_prompts().files["format.txt"]
    listed = dict(
        (m.group(1), set(re.findall(r'"(\w+)"\??:', m.group(0))) - {"op"})
        for m in re.finditer(r'^- \{"op": "([\w-]+)".*\}$', text, re.MULTILINE)
    )
    assert sorted(listed) == sorted(OPERATION_NAMES)
    for name, fields in listed.items():
        definition = operation_variants()[name]
        # A later schema may add optional fields; a released prompt need not list them.
        assert fields <= set(definition["properties"]), name
        assert set(definition["required"]) - {"op"} <= fields, name


def test_the_minimal_prompt_names_the_operations_and_defines_none() -> None:
    minimal = load_prompts().files["minimal.txt"]
    definitions = load_prompts().files["definitions.txt"]
    for name in OPERATION_NAMES:
        assert name in minimal
        assert f"\n{name}: " in definitions, f"{name} has a definition"
    assert "weakened" not in minimal and "Examples" not in minimal


def test_every_example_in_the_definitions_is_a_well_formed_reply() -> None:
    definitions = load_prompts().files["definitions.txt"]
    examples = re.findall(r'^\{"operations": .*?\]\}$', definitions, re.MULTILINE | re.DOTALL)
    assert len(examples) == 7
    labels: set[str] = set()
    for example in examples:
        read = read_reply(example)
        assert read.operations is not None, (example, read.problems)
        labels |= read.labels
    assert labels == set(OPERATION_NAMES), "every operation has an example"


def test_the_examples_come_from_neither_scenario() -> None:
    definitions = load_prompts().files["definitions.txt"].lower()
    for word in ("redis", "stripe", "token", "yjs", "crdt", "collaboration"):
        assert word not in definitions


def test_the_digest_names_the_texts_a_condition_uses() -> None:
    prompts = load_prompts(PROMPT_VERSION)
    digests = {c: prompt_digest(prompts, c) for c in Condition}
    assert len(set(digests.values())) == 3


def test_each_condition_builds_its_messages() -> None:
    history = (("a", "I see 401s."),)
    request = Request(1, "b", "Redis is timing out.", {"a": "Alice", "b": "Bob"}, history, "S!")
    prompts = load_prompts()
    minimal, definitions, state = (build_messages(prompts, c, request) for c in Condition)
    assert minimal[0]["content"].startswith(prompts.files["minimal.txt"].rstrip())
    assert definitions[0]["content"] == state[0]["content"]
    assert "S!" not in minimal[1]["content"] + definitions[1]["content"]
    assert "S!" in state[1]["content"]
    user = definitions[1]["content"]
    assert "T1 Alice: I see 401s." in user
    assert user.endswith("T2, Bob, agent b:\nRedis is timing out.")
    no_state = Request(1, "b", "x", {"b": "Bob"})
    assert (
        "dependency map"
        not in build_messages(prompts, Condition.STATE_AUGMENTED, no_state)[1]["content"]
    )


def test_an_unknown_version_is_a_missing_file() -> None:
    with pytest.raises(FileNotFoundError):
        load_prompts("v999")
