"""The registry of hand-written cases: one decorated function per case, in file order."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gcv.conformance.cases.builder import CaseBuilder
from gcv.conformance.vectors import Case

__all__ = ["REGISTRY", "case"]

REGISTRY: dict[str, Callable[[], Case]] = {}
"""Case id -> the function that builds it, in the order the cases were declared."""


def case(
    case_id: str, description: str, statements: Sequence[str], **options: Any
) -> Callable[[Callable[[CaseBuilder], None]], Callable[[CaseBuilder], None]]:
    """Declare the decorated function as the case ``case_id``.

    The function receives a :class:`CaseBuilder` for a fresh conversation
    (``options`` go to the builder: ``agents``, ``atoms``, ``tags``) and runs
    the case's steps on it.
    """

    def declare(steps: Callable[[CaseBuilder], None]) -> Callable[[CaseBuilder], None]:
        if case_id in REGISTRY:
            raise ValueError(f"case id {case_id} is declared twice")

        def build() -> Case:
            builder = CaseBuilder(case_id, description, statements, **options)
            steps(builder)
            return builder.build()

        REGISTRY[case_id] = build
        return steps

    return declare


def declared(registry: Mapping[str, Callable[[], Case]] = REGISTRY) -> list[Case]:
    """Build every declared case, in declaration order."""
    return [build() for build in registry.values()]
