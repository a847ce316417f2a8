"""The three prompt conditions of Table 2, from versioned text files.

A prompt version is a folder ``gcv/interpret/prompts/<version>/`` holding

=====================  =============================================================
``minimal.txt``        the system prompt of the Minimal condition: operation names only
``definitions.txt``    the system prompt of the Definitions and State-augmented
                       conditions: definitions with examples
``format.txt``         the reply format, appended to every system prompt
``turn.txt``           the user message: agents, the conversation so far, the utterance
``state.txt``          the block ``turn.txt`` carries at a checkpoint under State-augmented
=====================  =============================================================

and ``manifest.json``, the SHA-256 of each file.  A released version is never
edited: a changed prompt is a new version, so that a reported figure names the
exact text that produced it (:func:`prompt_digest`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from string import Template

import icontract

from gcv.interpret.protocol import Condition, Request

__all__ = [
    "PROMPT_FILES",
    "PROMPT_VERSION",
    "PromptSet",
    "build_messages",
    "load_prompts",
    "prompt_digest",
    "prompt_versions",
]

PROMPT_VERSION = "v2"
"""The prompt version used unless another is asked for."""

PROMPT_FILES = ("minimal.txt", "definitions.txt", "format.txt", "turn.txt", "state.txt")

_SYSTEM = {
    Condition.MINIMAL: "minimal.txt",
    Condition.DEFINITIONS: "definitions.txt",
    Condition.STATE_AUGMENTED: "definitions.txt",
}


@dataclass(frozen=True, slots=True)
class PromptSet:
    """The text files of one prompt version, by file name."""

    version: str
    files: Mapping[str, str]


def prompt_versions() -> frozenset[str]:
    """The prompt versions shipped: the folders under ``gcv/interpret/prompts/``.

    >>> PROMPT_VERSION in prompt_versions()
    True
    """
    folder = resources.files("gcv.interpret").joinpath("prompts")
    return frozenset(entry.name for entry in folder.iterdir() if entry.is_dir())


@cache
def load_prompts(version: str = PROMPT_VERSION) -> PromptSet:
    """Read prompt ``version`` from the package data.

    Raises
    ------
    FileNotFoundError
        No such version, or a file is missing from it.
    """
    folder = resources.files("gcv.interpret").joinpath("prompts", version)
    files = {name: folder.joinpath(name).read_text(encoding="utf-8") for name in PROMPT_FILES}
    return PromptSet(version, files)


def _used_files(condition: Condition) -> tuple[str, ...]:
    state = ("state.txt",) if condition is Condition.STATE_AUGMENTED else ()
    return (_SYSTEM[condition], "format.txt", "turn.txt", *state)


def prompt_digest(prompts: PromptSet, condition: Condition) -> str:
    """SHA-256 of the files ``condition`` uses (names and texts), first 12 hex digits.

    >>> len(prompt_digest(load_prompts(), Condition.MINIMAL))
    12
    """
    digest = hashlib.sha256()
    for name in _used_files(condition):
        digest.update(json.dumps([name, prompts.files[name]]).encode())
    return digest.hexdigest()[:12]


def _history(request: Request) -> str:
    if not request.history:
        return "(nothing yet: this is the first utterance)"
    return "\n".join(
        f"T{n} {request.agents.get(speaker, speaker)}: {text}"
        for n, (speaker, text) in enumerate(request.history, start=1)
    )


def _carries_state(condition: Condition, request: Request, messages: list[dict[str, str]]) -> bool:
    shown = condition is Condition.STATE_AUGMENTED and request.state is not None
    return shown == (request.state is not None and request.state in messages[-1]["content"])


@icontract.ensure(
    lambda condition, request, result: _carries_state(condition, request, result),
    "the rendered state reaches the prompt exactly under State-augmented, at a checkpoint",
)
@icontract.ensure(lambda result: [m["role"] for m in result] == ["system", "user"])
def build_messages(
    prompts: PromptSet, condition: Condition, request: Request
) -> list[dict[str, str]]:
    """The chat messages for one utterance under one prompt condition.

    The system message is the condition's prompt and the reply format; the user
    message lists the agents, the conversation so far and the utterance, and,
    under State-augmented at a checkpoint (``request.state`` set), the rendered
    state of D_t.

    Examples
    --------
    >>> request = Request(0, "a", "I see 401s.", {"a": "Alice"}, state="records: none yet")
    >>> messages = build_messages(load_prompts(), Condition.DEFINITIONS, request)
    >>> "undermine: the speaker gives evidence" in messages[0]["content"]
    True
    >>> "records: none yet" in messages[1]["content"]
    False
    >>> state = build_messages(load_prompts(), Condition.STATE_AUGMENTED, request)
    >>> "records: none yet" in state[1]["content"]
    True
    """
    files = prompts.files
    system = files[_SYSTEM[condition]].rstrip() + "\n\n" + files["format.txt"].rstrip()
    state = ""
    if condition is Condition.STATE_AUGMENTED and request.state is not None:
        state = Template(files["state.txt"]).substitute(number=request.number, state=request.state)
    agents = ", ".join(f"{a} = {name}" for a, name in request.agents.items())
    user = Template(files["turn.txt"]).substitute(
        agents=agents or request.speaker,
        history=_history(request),
        state=state,
        number=request.number,
        speaker=f"{request.agents.get(request.speaker, request.speaker)}, agent {request.speaker}",
        utterance=request.utterance,
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user.strip()}]
