"""``gcv evidence``: the verifier's evidence for a question over a fact stream.

The stream is a text file of facts, one a line, ``subject<TAB>relation<TAB>object``
(blank lines and lines starting with ``#`` are skipped).  Facts are numbered from 1
in the order they appear, and a fact replaces the current value of its subject and
relation (spec/gcv/spec/normative.md, "Evidence for a question").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable

import icontract

from gcv.evidence import Fact, FactMemory
from gcv.options import EXIT_BAD_INPUT, EXIT_OK
from gcv.reference.errors import GcvError, MalformedInput

__all__ = ["load_facts", "main"]


@icontract.ensure(
    lambda result: list(result.facts) == [str(n) for n in range(1, len(result.facts) + 1)],
    "facts are numbered from 1 in the order they appear",
)
def load_facts(lines: Iterable[str]) -> FactMemory:
    """Feed the stream's facts, in order, to a new :class:`FactMemory`.

    Raises
    ------
    MalformedInput
        A line is not three tab-separated fields (field ``line N``).
    """
    memory = FactMemory()
    number = 0
    for line_number, line in enumerate(lines, start=1):
        text = line.rstrip("\r\n")
        if not text.strip() or text.startswith("#"):
            continue
        fields = text.split("\t")
        if len(fields) != 3:
            raise MalformedInput(
                f"expected subject, relation and object separated by tabs, got {text!r}",
                field=f"line {line_number}",
            )
        number += 1
        try:
            fact = Fact(*fields)
        except MalformedInput as error:
            raise MalformedInput(error.detail, field=f"line {line_number}") from None
        memory.observe(str(number), fact)
    return memory


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gcv evidence",
        description="The active records linked to the entities a question names "
        "(Sections 1 and 4.5): superseded facts are left out.",
    )
    parser.add_argument("facts", help="the fact stream: subject, relation, object per line")
    parser.add_argument("entities", nargs="+", help="the entities the question names")
    parser.add_argument(
        "--hops", type=int, default=1, help="subject-object links to follow (default 1)"
    )
    parser.add_argument("--json", action="store_true", help="print the records as JSON")
    return parser


def main(argv: list[str]) -> int:
    """Run ``gcv evidence`` with ``argv``; return the exit code."""
    args = _parser().parse_args(argv)
    try:
        with open(args.facts, encoding="utf-8") as stream:
            memory = load_facts(stream)
        records = memory.evidence(args.entities, args.hops)
    except FileNotFoundError:
        # The README's example file is in the source checkout, not in the package.
        print(
            f"gcv evidence: no file {args.facts!r} (a tab-separated facts file; the "
            "example docs/facts-example.tsv is in the source repository)",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except (GcvError, OSError, UnicodeDecodeError) as error:
        print(f"gcv evidence: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        claims = memory.verifier.state.records
        listed = [{"record": r, "claim": claims[r].claim} for r in records]
        print(json.dumps({"entities": args.entities, "hops": args.hops, "evidence": listed}))
    else:
        print(memory.render(records))
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
