"""The walks of ``reference/gcv/reference/closure.py``, proved as written: what Nagini is given.

Each function is woven from the source at every run (:mod:`gcv.proofs.code.weave`); here
are only its verifier types, its contract and its loops' invariants.

What the postconditions state (``n`` records numbered 0 .. n-1, ``supports[i]`` =
Dep(record i), ``dependents`` its reverse index, ``good[i]`` = record i in S_t):

``dependency_walk`` (Lemma 2.1)
    accepted: the returned closure starts at alpha_c, lies in S_t, is closed under Dep,
    lists each record once, and each record after the first has a Dep link from an
    earlier one (so every member has a Dep path from alpha_c: induction on the position).
    A set closed under Dep that holds alpha_c contains Dep*(alpha_c); one whose members all
    have a path from alpha_c is inside it; so it is exactly Dep*(alpha_c), and
    Dep*(alpha_c) is inside S_t.  Rejected: the witness is outside S_t and the path is a
    Dep path from alpha_c to it, so Dep*(alpha_c) is not inside S_t.  Hence: accepted iff
    Dep*(alpha_c) lies in S_t.
``_path_to``
    given parents that each lie before their record in the queue (``parent[i] < i``), the
    path returned starts at ``queue[0]``, ends at ``end`` after ``queue[last]``, and each
    earlier step goes from ``queue[parent[p]]`` to ``queue[p]`` for some p; with the walk's
    invariant that ``queue[p]`` is in Dep(``queue[parent[p]]``), it is a Dep path from the
    start.
``reverse_closure`` (Definition 2.3 / Corollary 2.4)
    the result holds Affected(beta), is closed under the reverse index (the X_k step), lists
    each record once, and each record has a reverse link from beta or from an earlier one
    (so a non-empty Dep path to beta).  Hence it is exactly Affected*(beta), the union of
    the X_k, and beta is in it exactly when beta lies on a cycle.
``active_closure``
    exactly the records of ``reverse_closure``'s answer that are in S_t, in its order.

The last step of each (from "closed and reached" to "exactly Dep*" or "exactly Affected*")
is the definition of the closure as the least set closed under the step, with induction
on a member's position: it is stated here and in docs/proofs.md, not given to Nagini.
What Nagini assumes: Python's semantics of lists, dicts, sets and tuples as Nagini models
them; the map's arrays (``array('i')``) read as lists of ints and the S_t flags
(``bytearray``) as booleans; ``tuple(xs)`` and ``tuple(reversed(xs))`` return the items
of ``xs``, reversed for the second (the prelude states it); ``Walk(...)`` is the tuple of
its four fields (a ``NamedTuple``); ``_flags(seen, n)`` returns n flags, set exactly for
the members of ``seen`` (stated in the prelude, not proved: Nagini does not iterate a set).
Each walk has two phases, marks in a set and then in those flags, whose loop invariants are
one text (``_phases``).  Nagini proves partial correctness here; termination
and the number of pops are the Z3 obligations ``worklist-once`` and ``walk-loops``.
"""

from __future__ import annotations

import re

from gcv.proofs.code.weave import Annotated

__all__ = ["PRELUDE", "WALKS"]

PRELUDE = """
from nagini_contracts.contracts import *
from typing import Dict, List, Optional, Set, Tuple


@ContractOnly
def Walk(
    grounded: bool, closure: Tuple[int, ...], witness: Optional[int], path: Tuple[int, ...]
) -> Tuple[bool, Tuple[int, ...], Optional[int], Tuple[int, ...]]:
    Ensures(Result()[0] is grounded and Result()[1] is closure and Result()[2] is witness)
    Ensures(Result()[3] is path)


@ContractOnly
def as_tuple(xs: List[int]) -> Tuple[int, ...]:
    Requires(Acc(list_pred(xs), 1/100))
    Ensures(Acc(list_pred(xs), 1/100))
    Ensures(len(Result()) == len(xs))
    Ensures(Forall(int, lambda i: Implies(0 <= i and i < len(xs), Result()[i] is xs[i])))


@ContractOnly
def reversed_tuple(xs: List[int]) -> Tuple[int, ...]:
    Requires(Acc(list_pred(xs), 1/100))
    Ensures(Acc(list_pred(xs), 1/100))
    Ensures(len(Result()) == len(xs))
    Ensures(Forall(int, lambda i: Implies(0 <= i and i < len(xs),
        Result()[i] is xs[len(xs) - 1 - i])))


_FLAT_FROM_ONE_IN = 16  # any positive value: the proofs hold for each


@ContractOnly
def _flat_marks(marks: Dict[int, int], size: int) -> Dict[int, int]:
    Requires(Acc(dict_pred(marks), 1/100) and 0 <= size)
    Ensures(Acc(dict_pred(marks), 1/100) and Acc(dict_pred(Result())))
    Ensures(Forall(int, lambda x: (x in Result()) == (0 <= x and x < size)))
    Ensures(Forall(int, lambda x: Implies(0 <= x and x < size,
        Result()[x] == (marks[x] if x in marks else 0))))


@ContractOnly
def _flags(marked: Set[int], size: int) -> List[bool]:
    Requires(Acc(set_pred(marked), 1/100) and 0 <= size)
    Ensures(Acc(set_pred(marked), 1/100))
    Ensures(Acc(list_pred(Result())) and len(Result()) == size)
    Ensures(Forall(int, lambda x: Implies(0 <= x and x < size, Result()[x] == (x in marked))))


@Pure
def kept(records: PSeq[int], good: List[bool]) -> PSeq[int]:
    # The records of ``records`` in S_t, in order: the definition of the filter.
    Requires(Acc(list_pred(good), 1/100))
    Requires(Forall(records, lambda r: 0 <= r and r < len(good)))
    Decreases(len(records))
    if len(records) == 0:
        return records
    last = records[len(records) - 1]
    if good[last]:
        return kept(records.take(len(records) - 1), good) + PSeq(last)
    return kept(records.take(len(records) - 1), good)
"""
"""What the woven functions call besides themselves: the stated builtins, ``Walk`` and the
definition of the S_t filter."""

# -- shared clauses --------------------------------------------------------------------------

_LINKS = """
    Forall(int, lambda i: Implies(0 <= i and i < len({links}), Forall(int, lambda k: Implies(
        0 <= k and k < len({links}[i]), 0 <= {links}[i][k] and {links}[i][k] < len({links})))))
"""


def _links_in_range(links: str) -> str:
    return " ".join(_LINKS.format(links=links).split())


def _read(links: str, share: str) -> str:
    """Read permission on the map's arrays (never written by a walk)."""
    return (
        f"Acc(list_pred({links}), {share}) and "
        f"Forall({links}, lambda l: (Acc(list_pred(l), {share}), []))"
    )


_MARKED = re.compile(r"MARKED\(([^()]*)\)")
_MARK = re.compile(r"MARK\(([^()]*)\)")

SET_THEN_FLAGS = (
    ("Acc(set_pred(seen))", "({0}) in seen", ""),
    (
        "Acc(list_pred(flags)) and len(flags) == len({links})",
        "(0 <= ({0}) and ({0}) < len(flags) and flags[{0}])",
        "",
    ),
)
"""Affected*'s marks in each phase: their permission, and "record e is marked" (``MARKED(e)``
in a template): a set while the walk is small, then one flag per record (``_flags``)."""

DICT_THEN_FLAT = (
    ("Acc(dict_pred(marks))", "({0}) in marks", "marks[{0}]"),
    (
        "Acc(dict_pred(flat))"
        " and Forall(int, lambda x: (x in flat) == (0 <= x and x < len({links})))",
        "(({0}) in flat and flat[{0}] != 0)",
        "flat[{0}]",
    ),
)
"""Verify's marks in each phase: as above, and "e's mark" (``MARK(e)``, 1 + the record e was
first reached from): a dict, then one int per record, 0 for the unmarked (``_flat_marks``,
read by the proof as a dict whose keys are the records)."""


def _phases(
    links: str, template: str, phases: tuple[tuple[str, str, str], ...], **inner: str
) -> tuple[str, ...]:
    """A walk's four loop invariants from one text: each phase's outer loop, and its inner
    one, which runs while record ``queue[head - 1]`` is read.  The inner loop holds half
    the outer one's read permission, knows ``head >= 1``, has read every record before that
    one, and states what ``inner`` adds (each a line, at its placeholder); the phases
    differ only in their marks (``phases``: :data:`SET_THEN_FLAGS`, :data:`DICT_THEN_FLAT`)."""

    def filled(
        marks: tuple[str, str, str], share: str, heads: str, read_below: str, adds: dict[str, str]
    ) -> str:
        permission, marked, mark = marks
        text = template.format(
            read=_read(links, share),
            share=share,
            marks=permission.format(links=links),
            links_in_range=_links_in_range(links),
            heads=heads,
            read_below=read_below,
            **adds,
        )
        text = _MARK.sub(lambda m: mark.format(m[1]), text)
        return _MARKED.sub(lambda m: marked.format(m[1]), text)

    blank = dict.fromkeys(inner, "")
    return tuple(
        block
        for marks in phases
        for block in (
            filled(marks, "1/4", "0 <= head", "head", blank),
            filled(marks, "1/8", "1 <= head", "head - 1", inner),
        )
    )


REVERSE_CLOSURE = Annotated(
    function="reverse_closure",
    parameters=(("dependents", "List[List[int]]"), ("withdrawn", "int")),
    returns="Tuple[int, ...]",
    contract=f"""
    Requires({_read("dependents", "1/2")})
    Requires(0 <= withdrawn and withdrawn < len(dependents))
    Requires({_links_in_range("dependents")})
    Ensures({_read("dependents", "1/2")})
    Ensures(0 <= withdrawn and withdrawn < len(dependents))
    # Records of Args_t
    Ensures(Forall(int, lambda i: Implies(0 <= i and i < len(Result()),
        0 <= Result()[i] and Result()[i] < len(dependents))))
    # Affected(beta) is inside (X_1)
    Ensures(Forall(int, lambda k: Implies(0 <= k and k < len(dependents[withdrawn]),
        dependents[withdrawn][k] in Result())))
    # closed under the X_k step
    Ensures(Forall(int, lambda i: Implies(0 <= i and i < len(Result()), Forall(int, lambda k:
        Implies(0 <= k and k < len(dependents[Result()[i]]),
            dependents[Result()[i]][k] in Result())))))
    # each record once
    Ensures(Forall(int, lambda i: Implies(0 <= i and i < len(Result()), Forall(int, lambda j:
        Implies(0 <= j and j < i, Result()[j] != Result()[i])))))
    # each reached: a reverse link from beta or from an earlier record
    Ensures(Forall(int, lambda i: Implies(0 <= i and i < len(Result()),
        Result()[i] in dependents[withdrawn] or Exists(int, lambda h: (0 <= h and h < i and
            Result()[i] in dependents[Result()[h]], [[Result()[h]]])))))
    """,
    ghosts=(
        ("head = 0", "ghost_parent = [0]\nghost_position: Dict[int, int] = {}"),
        (
            "seen.add(dependent)",
            "ghost_parent.append(head - 1)\nghost_position[dependent] = len(queue)",
        ),
        (
            "flags[dependent] = True",
            "ghost_parent.append(head - 1)\nghost_position[dependent] = len(queue)",
        ),
    ),
    loops=_phases(
        "dependents",
        """
        Invariant({read})
        Invariant({links_in_range})
        Invariant({marks} and Acc(list_pred(queue)))
        Invariant(Acc(list_pred(ghost_parent)) and Acc(dict_pred(ghost_position)))
        Invariant(len(ghost_parent) == len(queue))
        Invariant(1 <= len(queue) and {heads} and head <= len(queue) and queue[0] == withdrawn)
{record}        Invariant(Forall(int, lambda i: Implies(0 <= i and i < len(queue),
            0 <= queue[i] and queue[i] < len(dependents))))
        Invariant(Forall(int, lambda i: Implies(1 <= i and i < len(queue), MARKED(queue[i])
            and queue[i] in ghost_position and ghost_position[queue[i]] == i)))
        Invariant(Forall(int, lambda x: Implies(MARKED(x), x in ghost_position
            and 1 <= ghost_position[x] and ghost_position[x] < len(queue)
            and queue[ghost_position[x]] == x)))
        Invariant(Forall(int, lambda i: Implies(0 <= i and i < {read_below}, Forall(int, lambda k:
            Implies(0 <= k and k < len(dependents[queue[i]]), MARKED(dependents[queue[i]][k]))))))
{previous}        Invariant(Forall(int, lambda i: Implies(1 <= i and i < len(queue),
            0 <= ghost_parent[i] and ghost_parent[i] < i and ghost_parent[i] < head
            and queue[i] in dependents[queue[ghost_parent[i]]])))
        """,
        record="        Invariant(0 <= record and record < len(dependents)"
        " and record == queue[head - 1])\n",
        phases=SET_THEN_FLAGS,
        previous="        Invariant(Forall(Previous(dependent), lambda d: MARKED(d)))\n",
    ),
)

IN_GOOD_STANDING = Annotated(
    function="in_good_standing",
    parameters=(("records", "List[int]"), ("good", "List[bool]")),
    returns="List[int]",
    contract="""
    Requires(Acc(list_pred(records), 1/2) and Acc(list_pred(good), 1/2))
    Requires(Forall(int, lambda i: Implies(0 <= i and i < len(records),
        0 <= records[i] and records[i] < len(good))))
    Ensures(Acc(list_pred(records), 1/2) and Acc(list_pred(good), 1/2))
    Ensures(Forall(ToSeq(records), lambda r: 0 <= r and r < len(good)))
    Ensures(Acc(list_pred(Result())))
    # exactly the records given that are in S_t, in their order
    Ensures(ToSeq(Result()) == kept(ToSeq(records), good))
    """,
    loops=(
        """
        Invariant(Acc(list_pred(records), 1/4) and Acc(list_pred(good), 1/4))
        Invariant(Forall(int, lambda i: Implies(0 <= i and i < len(records),
            0 <= records[i] and records[i] < len(good))))
        Invariant(Acc(list_pred(active)))
        Invariant(Forall(Previous(record), lambda r: 0 <= r and r < len(good)))
        Invariant(ToSeq(active) == kept(Previous(record), good))
        """,
    ),
    ghosts=(
        (
            "<end of loop 1>",
            """
            Assert((Previous(record) + PSeq(record)).take(len(Previous(record)))
                == Previous(record))
            Assert(ToSeq(active) == kept(Previous(record) + PSeq(record), good))
            Assert(ToSeq(records).take(len(Previous(record)) + 1)
                == Previous(record) + PSeq(record))
            Assert(ToSeq(active) == kept(ToSeq(records).take(len(Previous(record)) + 1), good))
            """,
        ),
    ),
)

DEPENDENCY_WALK = Annotated(
    function="dependency_walk",
    parameters=(("supports", "List[List[int]]"), ("good", "List[bool]"), ("start", "int")),
    returns="Tuple[bool, Tuple[int, ...], Optional[int], Tuple[int, ...]]",
    contract=f"""
    Requires({_read("supports", "1/2")})
    Requires(Acc(list_pred(good), 1/2) and len(good) == len(supports))
    Requires(0 <= start and start < len(supports))
    Requires({_links_in_range("supports")})
    Ensures({_read("supports", "1/2")})
    Ensures(Acc(list_pred(good), 1/2) and len(good) == len(supports))
    Ensures(0 <= start and start < len(supports))
    # accepted: the closure starts at alpha_c, lies in S_t, is closed under Dep, each once,
    # each after the first reached by a Dep link from an earlier one
    Ensures(Implies(Result()[0], len(Result()[1]) >= 1 and Result()[1][0] == start))
    Ensures(Implies(Result()[0], Forall(int, lambda i: Implies(0 <= i and i < len(Result()[1]),
        0 <= Result()[1][i] and Result()[1][i] < len(supports) and good[Result()[1][i]]))))
    Ensures(Implies(Result()[0], Forall(int, lambda i: Implies(0 <= i and i < len(Result()[1]),
        Forall(int, lambda k: Implies(0 <= k and k < len(supports[Result()[1][i]]),
            supports[Result()[1][i]][k] in Result()[1]))))))
    Ensures(Implies(Result()[0], Forall(int, lambda i: Implies(0 <= i and i < len(Result()[1]),
        Forall(int, lambda j: Implies(0 <= j and j < i, Result()[1][j] != Result()[1][i]))))))
    Ensures(Implies(Result()[0], Forall(int, lambda i: Implies(1 <= i and i < len(Result()[1]),
        Exists(int, lambda h: (0 <= h and h < i and Result()[1][i] in supports[Result()[1][h]],
            [[Result()[1][h]]]))))))
    # rejected: the witness is outside S_t, the path a Dep path from alpha_c to it
    Ensures(Implies(not Result()[0], Result()[2] is not None))
    Ensures(Implies(not Result()[0], 0 <= Result()[2] and Result()[2] < len(good)
        and not good[Result()[2]]))
    Ensures(Implies(not Result()[0], len(Result()[3]) >= 1 and Result()[3][0] == start
        and Result()[3][len(Result()[3]) - 1] == Result()[2]))
    Ensures(Implies(not Result()[0], Forall(int, lambda j: Implies(
        0 <= j and j < len(Result()[3]) - 1,
        0 <= Result()[3][j] and Result()[3][j] < len(supports)
        and Result()[3][j + 1] in supports[Result()[3][j]]))))
    """,
    ghosts=(
        ("head = 0", "ghost_parent = [0]\nghost_position = {start: 0}  # type: Dict[int, int]"),
        (
            "marks[support] = record + 1",
            "ghost_parent.append(head - 1)\nghost_position[support] = len(queue)",
        ),
        (
            "flat[support] = record + 1",
            "ghost_parent.append(head - 1)\nghost_position[support] = len(queue)",
        ),
    ),
    loops=_phases(
        "supports",
        """
        Invariant({read})
        Invariant(Acc(list_pred(good), {share}) and len(good) == len(supports))
        Invariant({links_in_range})
        Invariant({marks} and Acc(list_pred(queue)))
        Invariant(Acc(list_pred(ghost_parent)) and Acc(dict_pred(ghost_position)))
        Invariant(len(ghost_parent) == len(queue))
        Invariant(0 <= start and start < len(supports))
        Invariant(1 <= len(queue) and {heads} and head <= len(queue) and queue[0] == start)
        # the queue: records of Args_t in S_t, each marked, each once (its ghost position)
        Invariant(Forall(int, lambda i: Implies(0 <= i and i < len(queue),
            0 <= queue[i] and queue[i] < len(supports) and good[queue[i]]
            and MARKED(queue[i]) and queue[i] in ghost_position
            and ghost_position[queue[i]] == i)))
        # the marks: exactly the queued records, a tree of Dep links rooted at the start
        Invariant(Forall(int, lambda x: Implies(MARKED(x), x in ghost_position
            and 0 <= ghost_position[x] and ghost_position[x] < len(queue)
            and queue[ghost_position[x]] == x)))
        Invariant(MARKED(start) and MARK(start) == start + 1)
        Invariant(Forall(int, lambda x: (Implies(MARKED(x), MARKED(MARK(x) - 1)
            and 0 <= MARK(x) - 1 and MARK(x) - 1 < len(supports)), [[MARK(x)]])))
        Invariant(Forall(int, lambda x: (Implies(MARKED(x) and x != start,
            MARK(x) - 1 != x and x in supports[MARK(x) - 1]), [[MARK(x)]])))
        # every record read so far has its supports marked
        Invariant(Forall(int, lambda i: Implies(0 <= i and i < {read_below}, Forall(int, lambda k:
            Implies(0 <= k and k < len(supports[queue[i]]), MARKED(supports[queue[i]][k]))))))
        # each record after the first reached by a Dep link from an earlier one
        Invariant(Forall(int, lambda i: Implies(1 <= i and i < len(queue),
            0 <= ghost_parent[i] and ghost_parent[i] < i and ghost_parent[i] < head
            and queue[i] in supports[queue[ghost_parent[i]]])))
{reading}        """,
        phases=DICT_THEN_FLAT,
        reading="        Invariant(0 <= record and record < len(supports)"
        " and record == queue[head - 1])\n"
        "        Invariant(Forall(Previous(support), lambda d: MARKED(d)))\n",
    ),
)

PATH_TO = Annotated(
    function="_path_to",
    parameters=(("marks", "Dict[int, int]"), ("end", "int")),
    returns="Tuple[int, ...]",
    contract="""
    Requires(Acc(dict_pred(marks), 1/2) and end in marks)
    Requires(Forall(int, lambda x: (Implies(x in marks, (marks[x] - 1) in marks), [[marks[x]]])))
    Ensures(Acc(dict_pred(marks), 1/2))
    Ensures(len(Result()) >= 1 and Result()[len(Result()) - 1] == end)
    # starts at the record marked from itself, follows the marks back, and meets it once
    Ensures(Result()[0] in marks and marks[Result()[0]] - 1 == Result()[0])
    Ensures(Forall(int, lambda j: Implies(0 <= j and j < len(Result()) - 1,
        Result()[j + 1] in marks and Result()[j] == marks[Result()[j + 1]] - 1
        and marks[Result()[j + 1]] - 1 != Result()[j + 1])))
    """,
    loops=(
        """
        Invariant(Acc(dict_pred(marks), 1/4) and Acc(list_pred(path)))
        Invariant(Forall(int, lambda x: (
            Implies(x in marks, (marks[x] - 1) in marks), [[marks[x]]])))
        Invariant(len(path) >= 1 and path[0] == end)
        Invariant(Forall(int, lambda i: Implies(0 <= i and i < len(path), path[i] in marks)))
        Invariant(Forall(int, lambda i: Implies(0 <= i and i < len(path) - 1,
            path[i + 1] == marks[path[i]] - 1 and marks[path[i]] - 1 != path[i])))
        """,
    ),
    ghosts=(
        (
            "<after loop 1>",
            """
            Assert(path[len(path) - 1] in marks)
            Assert(marks[path[len(path) - 1]] - 1 == path[len(path) - 1])
            """,
        ),
    ),
)

WALKS: tuple[Annotated, ...] = (DEPENDENCY_WALK, PATH_TO, REVERSE_CLOSURE, IN_GOOD_STANDING)
"""The proved functions, in the order ``gcv prove --code`` runs them."""
