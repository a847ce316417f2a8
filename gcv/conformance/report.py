"""What a conformance run found, and its three renderings: text, JSON, JUnit XML.

Each case ends in one status:

- ``pass``: every step agreed with the vector;
- ``fail``: a step's response was valid but not the expected one;
- ``error``: the implementation hung, crashed or wrote something that is not a
  response (it was killed and restarted for the next case);
- ``skip``: the case needs a feature the implementation did not declare, or the
  implementation answered ``unsupported``;
- ``xfail`` / ``xpass``: a case in the known-failures file that failed (does
  not count) or passed (counts only under ``--strict``); for a case whose steps are
  listed (``CASE#N``), those steps do not count, the case is ``xfail`` when only they
  differ and ``xpass`` when one of them agrees and no other step differs.

A run that sent fewer than all steps of the features the implementation declared is
incomplete (:meth:`RunReport.incomplete` says what was not run), whatever the statuses.

Whole, at about 640 lines: it is one value, what a run found (:class:`CaseResult`,
:class:`RunReport`), and the three renderings read its fields; a field added to a result is
added to its text, JSON and JUnit forms here, in one place. Split by rendering, each new
field would touch three files.
"""

from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import icontract

__all__ = [
    "NOT_REACHED",
    "QUOTE_CHARS",
    "STATUSES",
    "CaseResult",
    "FuzzFinding",
    "RunReport",
    "quoted",
    "quoted_text",
]

QUOTE_CHARS = 4096
"""A response longer than this (as compact JSON) is quoted in the reports by its first
QUOTE_CHARS characters, its length and its SHA-256, so a huge answer costs no report more
than that."""


@icontract.ensure(
    lambda response, result: (
        result == response or len(result["quoted"]) == QUOTE_CHARS < result["chars"]
    ),
    "a response is kept whole, or quoted by a prefix of QUOTE_CHARS characters",
)
def quoted(response: Any) -> Any:
    """``response`` as the reports keep it: whole if its compact JSON is at most
    :data:`QUOTE_CHARS` characters, else ``{"quoted": prefix, "chars": n, "sha256": hex}``
    (of the compact JSON, UTF-8)."""
    text = json.dumps(response, separators=(",", ":"))
    if len(text) <= QUOTE_CHARS:
        return response
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return {"quoted": text[:QUOTE_CHARS], "chars": len(text), "sha256": digest}


@icontract.ensure(
    lambda text, result: result == text or result.startswith(text[:QUOTE_CHARS]),
    "a text is kept whole, or quoted by its first QUOTE_CHARS characters",
)
def quoted_text(text: str) -> str:
    """``text`` (what an answer was, a diff) as the reports keep it: whole if at most
    :data:`QUOTE_CHARS` characters, else its prefix, its length and its SHA-256."""
    if len(text) <= QUOTE_CHARS:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{text[:QUOTE_CHARS]}... ({len(text)} characters, sha256 {digest})"


STATUSES = ("pass", "fail", "error", "skip", "xfail", "xpass")

NOT_REACHED = "not run: the run stopped"
"""The reason of a skipped case the run did not reach or did not finish (the summary says
why the run stopped, and counts them rather than list each)."""

# Characters XML 1.0 cannot carry, even escaped; an implementation's output may hold them.
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _some(items: Sequence[str], shown: int = 10) -> str:
    """The first ``shown`` of ``items``, and how many more there are."""
    more = f", and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The outcome of one case, and for a failure or error the first diverging step."""

    id: str
    status: str
    statements: tuple[str, ...] = ()
    reason: str = ""
    step: int | None = None
    steps: int = 0
    steps_run: int = 0
    steps_skipped: int = 0
    request: Mapping[str, Any] | None = None
    response: Any = None
    expected: str = ""
    got: str = ""
    diff: str = ""
    stderr: str = ""
    seconds: float = 0.0
    failed_steps: tuple[int, ...] = ()
    """Every step whose answer differed (the case runs to its end)."""
    paper_failed_steps: tuple[int, ...] = ()
    """Those of them that fail the paper profile: no alternative of the reference's choices,
    alone or with others, gives their answer (a step of the paper profile has none)."""
    explanations: tuple[tuple[int, tuple[tuple[str, ...], ...]], ...] = ()
    """Each differing step some alternatives explain: its number, and the smallest sets of
    readings (spec/gcv/spec/normative.md's clause ids) whose answers give its answer."""
    paper_steps: int = 0
    """How many steps run are in the paper profile."""
    known_failed_steps: tuple[int, ...] = ()
    """Steps listed as known failures (``CASE#N``) that still differ: not counted."""
    known_passing_steps: tuple[int, ...] = ()
    """Steps listed as known failures that agreed (the case is ``xpass``, unless another
    step differs)."""

    def blamed(
        self, blame: Mapping[int, tuple[str, ...]] | None = None
    ) -> dict[int, tuple[str, ...]]:
        """The readings each explained step is put down to: ``blame``'s, else each step's
        first smallest explanation."""
        if blame is not None:
            return dict(blame)
        return {step: found[0] for step, found in self.explanations}

    def fails(self, profile: str) -> bool:
        """Whether the case fails under ``profile``: ``reference``, any differing step or an
        error; ``paper``, a differing step no alternative explains, or an error."""
        if self.status == "error":
            return True
        if self.status != "fail":
            return False
        return profile == "reference" or bool(self.paper_failed_steps)

    def only_on_choices(self, profile: str) -> bool:
        """Whether the case differs, but only on steps the ``profile`` does not fail: in the
        paper profile, a failure whose differing steps the reference's alternatives all
        explain."""
        return self.status == "fail" and not self.fails(profile)

    def describe(
        self, profile: str = "reference", blame: Mapping[int, tuple[str, ...]] | None = None
    ) -> list[str]:
        """The details shown for a case that did not pass (judged under ``profile``; ``blame``:
        the readings each explained step is put down to, :meth:`RunReport.blame`, by default
        the first smallest set of each)."""
        where = f"  [{', '.join(self.statements)}]" if self.statements else ""
        heading = "CHOICE" if self.only_on_choices(profile) else f"{self.status.upper():5}"
        lines = [f"{heading} {self.id}{where}"]
        if self.only_on_choices(profile):
            lines.append("  differs only where the reference's alternatives explain the answer")
        if self.reason:
            lines.append(f"  reason:   {self.reason}")
        if self.step is not None:
            lines.append(f"  step:     {self.step} of {self.steps}")
        if len(self.failed_steps) > 1:
            lines.append(f"  differing steps: {_some([str(n) for n in self.failed_steps])}")
        if self.status == "fail":
            paper = _some([str(n) for n in self.paper_failed_steps]) or "none"
            lines.append(f"  steps no alternative explains (they fail the paper profile): {paper}")
        if self.known_failed_steps:
            known = _some([str(n) for n in self.known_failed_steps])
            lines.append(f"  known failing steps (not counted): {known}")
        if self.known_passing_steps:
            known = _some([str(n) for n in self.known_passing_steps])
            lines.append(f"  steps listed as known failures that pass: {known}")
        chosen = self.blamed(blame)
        for readings, steps in _by_readings(chosen).items():
            shown = _some([str(n) for n in steps])
            names = " + ".join(readings)
            lines.append(f"  explained by the alternatives to {names}: steps {shown}")
        if self.request is not None:
            lines.append(f"  request:  {json.dumps(self.request)}")
        if self.response is not None:
            lines.append(f"  response: {json.dumps(self.response)}")
        if self.expected:
            lines.append(f"  expected: {self.expected}")
        if self.got and self.response is None:
            lines.append(f"  got:      {self.got}")
        if self.diff:
            lines.append("  diff:")
            lines += [f"    {line}" for line in self.diff.splitlines()]
        if self.stderr.strip():
            lines.append("  stderr:")
            lines += [f"    | {line}" for line in self.stderr.rstrip().splitlines()[-20:]]
        return lines


def _by_readings(chosen: Mapping[int, tuple[str, ...]]) -> dict[tuple[str, ...], list[int]]:
    grouped: dict[tuple[str, ...], list[int]] = {}
    for step, readings in sorted(chosen.items()):
        grouped.setdefault(readings, []).append(step)
    return grouped


def _blamed_readings(chosen: Mapping[int, tuple[str, ...]]) -> list[str]:
    return sorted({reading for readings in chosen.values() for reading in readings})


def choose_blame(
    options: Sequence[tuple[Any, tuple[tuple[str, ...], ...]]],
) -> dict[Any, tuple[str, ...]]:
    """One explanation for each differing step, from its smallest ones (``options``: key and
    explanations), so that together they name as few readings as can be found: a step with one
    explanation takes it, then each other step, fewest explanations first, takes one already
    named whole if it can, else the one naming fewest new readings.

    >>> choose_blame([("s1", (("x",), ("y",))), ("s2", (("x",),))])
    {'s2': ('x',), 's1': ('x',)}
    """
    named: set[str] = set()
    chosen: dict[Any, tuple[str, ...]] = {}
    for key, found in sorted(options, key=lambda item: len(item[1])):
        best = min(found, key=lambda readings: (len(set(readings) - named), readings))
        chosen[key] = best
        named |= set(best)
    return chosen


@dataclass(frozen=True, slots=True)
class FuzzFinding:
    """A distinct cause of difference differential fuzzing found: the seed of the round
    that first found it, its shortest shrunk trace, its cause (``key``: the kind of
    difference and the clauses or choices behind it), the keys of the differences it
    was met as (:func:`gcv.conformance.fuzz.finding_key`), and how many times it was met."""

    seed: int
    examples: int
    mismatch: CaseResult
    trace: Sequence[Mapping[str, Any]] = ()
    saved_as: str = ""
    key: str = ""
    keys: tuple[str, ...] = ()
    count: int = 1


@dataclass(slots=True)
class RunReport:
    """A whole run: who was tested, every case result, and the totals."""

    implementation: Mapping[str, Any]
    suite: str
    selected: int
    suite_sha256: str | None = None
    """The SHA-256 of the suite's manifest (which pins every vector file's), if it has one."""
    results: list[CaseResult] = field(default_factory=list)
    seconds: float = 0.0
    stopped: str = ""
    notes: list[str] = field(default_factory=list)
    fuzz_findings: list[FuzzFinding] = field(default_factory=list)
    """Each distinct difference fuzzing found, once."""
    fuzz_examples: int = 0
    """Conversations asked for (0: not a fuzzing run)."""
    fuzz_shard_examples: int = 0
    """Conversations per shard (each shard's rounds are of this many)."""
    fuzz_shards: int = 0
    fuzz_shards_done: int = 0
    fuzz_requests: int = 0
    fuzz_seed: int | None = None
    fuzz_rounds: int = 0
    fuzz_uncompared: int = 0
    """Answers not judged: they depend on a choice (paper profile) or an ignored clause."""
    fuzz_not_generated: int = 0
    """Turns drawn that were cut to their first operation or not sent: in the paper
    profile, turns that exercise a choice."""
    fuzz_repeats: int = 0
    """Differences met again after their finding (deduplicated: not reported again)."""
    fuzz_profile: str = "paper"
    profile: str = "paper"
    """The profile the run is judged by (``--profile``): how a case differing only on the
    reference's choices is shown."""
    fuzz_ignored: tuple[str, ...] = ()
    unsupported: dict[str, int] = field(default_factory=dict)
    """Case id -> the step the implementation answered ``unsupported`` at (0: ``start``)."""
    not_run: dict[str, int] = field(default_factory=dict)
    """Case id -> how many of its steps of declared features were not sent."""
    unusable: str = ""
    """Why the implementation could not be used at all (it never got past the handshake)."""

    @property
    def counts(self) -> Counter[str]:
        """How many cases ended in each status."""
        return Counter(r.status for r in self.results)

    @property
    def steps(self) -> int:
        """Steps sent, over all cases."""
        return sum(r.steps_run for r in self.results)

    @property
    def steps_skipped(self) -> int:
        """Query steps not sent because the implementation lacks their feature."""
        return sum(r.steps_skipped for r in self.results)

    def incomplete(self) -> list[str]:
        """What a run of the vectors left out of the features the implementation declared;
        empty when it sent every such step of every selected case (and at least one)."""
        if self.fuzz_examples or self.unusable:
            return []
        lines = []
        if self.not_run:
            lines.append(
                f"{sum(self.not_run.values())} steps of declared features not run, in "
                f"{len(self.not_run)} cases: {_some(sorted(self.not_run))}"
            )
        if self.unsupported:
            answers = [f"{i} at step {n}" for i, n in self.unsupported.items()]
            lines.append(f"{len(answers)} cases answered unsupported: {_some(answers)}")
        if not self.steps:
            lines.append("no step was run")
        return lines

    def conforms(self, strict: bool, profile: str = "paper") -> bool:
        """No case failing under ``profile`` (:meth:`CaseResult.fails`; under ``strict``, no
        known failure that now passes either), and no fuzzing mismatch."""
        bad = sum(r.fails(profile) for r in self.results)
        if strict:  # a listed step that agrees, in an xpass case or beside another difference
            bad += sum(bool(r.known_passing_steps) or r.status == "xpass" for r in self.results)
        return bad == 0 and not self.fuzz_findings

    def blame(self) -> dict[str, dict[int, tuple[str, ...]]]:
        """The readings each explained differing step is put down to, by case and step
        (:func:`choose_blame` over the whole run: one implementation, one set of choices)."""
        options = [((r.id, step), found) for r in self.results for step, found in r.explanations]
        chosen: dict[str, dict[int, tuple[str, ...]]] = {}
        for (case, step), readings in choose_blame(options).items():
            chosen.setdefault(case, {})[step] = readings
        return chosen

    def profiles(self) -> dict[str, Any]:
        """Steps run in each profile, the steps failing the paper profile (differing, and
        explained by no alternative) and those differing at all, and the readings the
        differing steps are put down to, by name, with how many cases show each."""
        blame = self.blame()
        named = Counter(r for steps in blame.values() for r in _blamed_readings(steps))
        return {
            "paper": {
                "steps": sum(r.paper_steps for r in self.results),
                "differing": sum(len(r.paper_failed_steps) for r in self.results),
            },
            "reference": {
                "steps": self.steps,
                "differing": sum(len(r.failed_steps) for r in self.results),
            },
            "differing_choices": dict(sorted(named.items())),
            "only_on_choices": sum(r.only_on_choices(self.profile) for r in self.results),
        }

    # -- renderings ----------------------------------------------------------------

    def text(self, verbose: bool = False) -> str:
        """The human summary: the implementation, each case that did not pass, the totals."""
        impl = self.implementation
        if self.unusable:
            return f"the implementation could not be used: {self.unusable}\n"
        who = f"{impl['name']} {impl['version']}" if "name" in impl else impl.get("command")
        lines = [
            f"implementation: {who}",
            f"features: {', '.join(sorted(impl.get('features', ())))}",
        ]
        if self.fuzz_examples:
            return "\n".join([*lines, "", *self._fuzz_text()]) + "\n"
        lines += [f"suite {self.suite} ({self._identity()}): {self.selected} cases selected", ""]
        blame = self.blame()
        for result in self.results:
            if result.status == "pass":
                if verbose:
                    lines.append(f"PASS  {result.id}")
            elif result.reason == NOT_REACHED and not verbose:
                continue
            elif result.status in ("skip", "xfail", "xpass") and not verbose:
                lines.append(f"{result.status.upper():5} {result.id}: {result.reason}")
            else:
                lines += [*result.describe(self.profile, blame.get(result.id, {})), ""]
        lines += [f"note: {note}" for note in self.notes]
        if self.stopped:
            lines.append(f"stopped: {self.stopped}")
        lines += [f"incomplete: {line}" for line in self.incomplete()]
        profiles = self.profiles()
        paper, full = profiles["paper"], profiles["reference"]
        lines.append(
            f"paper profile: {paper['differing']} differing steps no alternative explains "
            f"({paper['steps']} steps run are in the profile); reference profile: "
            f"{full['differing']} of {full['steps']} steps differ"
        )
        if profiles["differing_choices"]:
            named = [f"{c} ({n} cases)" for c, n in profiles["differing_choices"].items()]
            lines.append(f"differs from the reference's choices on: {_some(named)}")
        if profiles["only_on_choices"]:
            lines.append(
                f"{profiles['only_on_choices']} cases differ only on the reference's choices "
                f"(not failures in the {self.profile} profile)"
            )
        counts = self.counts
        rate = self.steps / self.seconds if self.seconds > 0 else 0.0
        lines.append(
            f"{len(self.results)} cases: {counts['pass']} passed, "
            f"{counts['fail'] - profiles['only_on_choices']} failed, "
            f"{counts['error']} errors, {counts['skip']} skipped, {counts['xfail']} known "
            f"failures, {counts['xpass']} known failures now passing; {self.steps} steps in "
            f"{self.seconds:.2f} s ({rate:.0f} steps/s)"
            + (f"; {self.steps_skipped} query steps skipped" if self.steps_skipped else "")
        )
        return "\n".join(lines) + "\n"

    def _identity(self) -> str:
        if self.suite_sha256 is None:
            return "no manifest: files not checked"
        return f"manifest sha256 {self.suite_sha256[:16]}..., every file checked"

    def _fuzz_text(self) -> list[str]:
        ignored = f", ignoring {', '.join(self.fuzz_ignored)}" if self.fuzz_ignored else ""
        # No time taken: a run's report is the same however many workers ran it.
        totals = [
            f"fuzz: {self.fuzz_shards_done} of {self.fuzz_shards} shards of at most "
            f"{self.fuzz_shard_examples} examples, {self.fuzz_rounds} rounds, "
            f"{self.fuzz_profile} profile{ignored}; {self.fuzz_not_generated} turns cut or not "
            f"sent (they make a choice), {self.fuzz_uncompared} answers not compared, "
            f"{self.fuzz_repeats} repeats of a finding not reported again",
            f"fuzz: {self.fuzz_requests} requests",
            *([f"stopped: {self.stopped}"] if self.stopped else []),
        ]
        seed = f" (seed {self.fuzz_seed})" if self.fuzz_seed is not None else ""
        rerun = (
            f"--fuzz {self.fuzz_examples} --seed {self.fuzz_seed} "
            f"--shard-examples {self.fuzz_shard_examples}"
        )
        if not self.fuzz_findings:
            verdict = f"fuzz: {self.fuzz_examples} examples{seed}: no difference from the reference"
            return [verdict, *totals]
        lines = [
            f"fuzz: {len(self.fuzz_findings)} distinct differences from the reference{seed}; "
            f"rerun with {rerun}",
            "",
        ]
        for number, finding in enumerate(self.fuzz_findings, start=1):
            lines.append(
                f"finding {number}: {finding.key}, met {finding.count} times "
                f"(round seed {finding.seed}); shortest shrunk trace:"
            )
            if len(finding.keys) > 1:
                lines.append(f"  met as: {'; '.join(finding.keys)}")
            lines += [f"  {json.dumps(request)}" for request in finding.trace]
            lines += finding.mismatch.describe()
            if finding.saved_as:
                lines.append(f"saved as a vector: {finding.saved_as}")
            lines.append("")
        return [*lines, *totals]

    def known_failures(self, profile: str) -> str:
        """The run's failures as a known-failures file (``--known-failures``): a ``CASE#N``
        line for each step that differs in ``profile`` (or is listed and still differs), the
        case id alone for a case that ended in an error (its later steps were not judged),
        so that a rerun with the file fails only on what changes."""
        lines = [f"# gcv conform --write-known-failures, {profile} profile, suite {self.suite}"]
        for result in self.results:
            if result.status == "error" or (
                result.status == "xfail" and not result.known_failed_steps
            ):
                lines.append(result.id)
                continue
            differing = result.paper_failed_steps if profile == "paper" else result.failed_steps
            steps = sorted({*differing, *result.known_failed_steps})
            lines += [f"{result.id}#{n}" for n in steps]
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data."""
        blame = self.blame()
        data: dict[str, Any] = {
            "implementation": dict(self.implementation),
            "suite": self.suite,
            "suite_sha256": self.suite_sha256,
            "profile": self.profile,
            "unusable": self.unusable,
            "selected": self.selected,
            "counts": {status: self.counts[status] for status in STATUSES},
            "steps": self.steps,
            "steps_skipped": self.steps_skipped,
            "seconds": round(self.seconds, 3),
            "stopped": self.stopped,
            "incomplete": self.incomplete(),
            "profiles": self.profiles(),
            "unsupported": dict(self.unsupported),
            "not_run": dict(self.not_run),
            "notes": self.notes,
            "results": [
                asdict(r) | {"differing_choices": _blamed_readings(blame.get(r.id, {}))}
                for r in self.results
            ],
        }
        if self.fuzz_examples:
            data["fuzz"] = {
                "examples": self.fuzz_examples,
                "shard_examples": self.fuzz_shard_examples,
                "shards": self.fuzz_shards,
                "shards_done": self.fuzz_shards_done,
                "requests": self.fuzz_requests,
                "seed": self.fuzz_seed,
                "rounds": self.fuzz_rounds,
                "profile": self.fuzz_profile,
                "ignored": list(self.fuzz_ignored),
                "uncompared": self.fuzz_uncompared,
                "not_generated": self.fuzz_not_generated,
                "repeats": self.fuzz_repeats,
                "findings": [
                    {
                        "key": f.key,
                        "keys": list(f.keys),
                        "count": f.count,
                        "seed": f.seed,
                        "mismatch": asdict(f.mismatch),
                        "trace": list(f.trace),
                        "saved_as": f.saved_as,
                    }
                    for f in self.fuzz_findings
                ],
            }
        return data

    def _properties(self) -> list[tuple[str, str]]:
        """What every JUnit testsuite carries: the suite's version and hash, and the verdict
        on completeness."""
        found = [("suite", self.suite), ("suite_sha256", self.suite_sha256 or "none")]
        found += [("stopped", self.stopped)] if self.stopped else []
        return found + [("incomplete", line) for line in self.incomplete()]

    def _fuzz_junit(self, suite: ET.Element) -> None:
        """One testcase per distinct finding (a failure), or one passing testcase."""
        if not self.fuzz_findings:
            ET.SubElement(suite, "testcase", classname="fuzz", name="no-difference")
        for number, finding in enumerate(self.fuzz_findings, start=1):
            case = ET.SubElement(suite, "testcase", classname="fuzz", name=f"finding-{number}")
            trace = [json.dumps(request) for request in finding.trace]
            detail = "\n".join([*trace, *finding.mismatch.describe()])
            failure = ET.SubElement(case, "failure", message=_xml(finding.key), type="fuzz")
            failure.text = _xml(detail)
            if finding.mismatch.stderr:
                ET.SubElement(case, "system-err").text = _xml(finding.mismatch.stderr)
        tests = max(len(self.fuzz_findings), 1)
        suite.set("tests", str(tests))
        suite.set("failures", str(len(self.fuzz_findings)))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        suite.set("time", f"{self.seconds:.3f}")

    def junit(self) -> str:
        """The report as JUnit XML: one testsuite per vector file, one testcase per case."""
        counts = self.counts
        blame = self.blame()
        unusable = int(bool(self.unusable))  # then a handshake testcase holds the error
        fuzzed = max(len(self.fuzz_findings), 1) if self.fuzz_examples else 0
        root = ET.Element(
            "testsuites",
            name="gcv-conform",
            tests=str(len(self.results) + unusable + fuzzed),
            failures=str(
                sum(r.status == "fail" and r.fails(self.profile) for r in self.results)
                + counts["xpass"]
                + len(self.fuzz_findings)
            ),
            errors=str(counts["error"] + unusable),
            skipped=str(counts["skip"] + counts["xfail"]),
            time=f"{self.seconds:.3f}",
        )
        suites: dict[str, ET.Element] = {}
        if self.unusable:
            suite = suites["gcv-conform"] = ET.SubElement(root, "testsuite", name="gcv-conform")
            case = ET.SubElement(suite, "testcase", classname="gcv-conform", name="handshake")
            ET.SubElement(case, "error", message=_xml(self.unusable), type="unusable")
        for result in self.results:
            group = "/".join(result.id.split("/")[:2])
            if group not in suites:
                suites[group] = ET.SubElement(root, "testsuite", name=group)
            case = ET.SubElement(
                suites[group],
                "testcase",
                classname=group.replace("/", "."),
                name=result.id.split("/", 2)[2],
                time=f"{result.seconds:.3f}",
            )
            detail = _xml("\n".join(result.describe(self.profile, blame.get(result.id, {}))))
            reason = _xml(result.reason)
            match result.status:
                case "fail" if result.only_on_choices(self.profile):
                    ET.SubElement(case, "system-out").text = detail
                case "fail" | "xpass":
                    failure = ET.SubElement(case, "failure", message=reason, type=result.status)
                    failure.text = detail
                case "error":
                    ET.SubElement(case, "error", message=reason, type="error").text = detail
                case "skip" | "xfail":
                    ET.SubElement(case, "skipped", message=f"{result.status}: {reason}")
            if result.stderr:
                ET.SubElement(case, "system-err").text = _xml(result.stderr)
        if self.fuzz_examples:
            suite = suites["fuzz"] = ET.SubElement(root, "testsuite", name="fuzz")
            self._fuzz_junit(suite)
        if not suites:  # a run stopped before any case: the suite is still named
            suites["gcv-conform"] = ET.SubElement(root, "testsuite", name="gcv-conform")
        for group, suite in suites.items():
            properties = ET.Element("properties")
            for name, value in self._properties():
                ET.SubElement(properties, "property", name=name, value=_xml(value))
            suite.insert(0, properties)  # JUnit puts them before the testcases
            if group == "fuzz":
                continue  # counted by _fuzz_junit
            members = [r for r in self.results if r.id.startswith(group + "/")]
            tally = Counter(r.status for r in members)
            handshake = unusable if group == "gcv-conform" else 0
            tally["error"] += handshake
            suite.set("tests", str(len(members) + handshake))
            suite.set("failures", str(tally["fail"] + tally["xpass"]))
            suite.set("errors", str(tally["error"]))
            suite.set("skipped", str(tally["skip"] + tally["xfail"]))
            suite.set("time", f"{sum(r.seconds for r in members):.3f}")
        ET.indent(root)
        return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
