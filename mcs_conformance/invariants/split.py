"""SPLIT: any re-chunking of the deltas gives the same message, calls and display text."""

from __future__ import annotations

from typing import Any

from ..corpus import Case
from ..generators import char_split, merged, rechunked
from .base import Failure, Subject, check, given_run, outcome, same


def _has_descriptor(s: Subject, c: Case | None) -> bool:
    return s.own_stream(c) and s.descriptor is not None


def same_outcome(subject: Subject, case: Case, chunks: list[Any], how: str) -> None:
    want, got = outcome(subject, case.chunks), outcome(subject, chunks)
    if not same(got, want):
        raise Failure(
            f"re-chunking ({how}) changed the result", expected=want, actual=got, chunks=chunks,
        )


@check(
    "SPLIT-001",
    "every delta split at every character gives the same result",
    why="providers and proxies cut deltas anywhere: inside escapes, multi-byte characters, tags",
    level="must",
    sources=('spec B4',),
    applies=_has_descriptor,
)
def char_level(subject: Subject, case: Case) -> None:
    same_outcome(subject, case, char_split(case.chunks, subject.descriptor), "character-level")


@check(
    "SPLIT-002",
    "neighbouring deltas merged into one chunk give the same result",
    why="gateways coalesce chunks; a whole call can arrive in one delta",
    level="must",
    sources=('spec B4',),
    applies=_has_descriptor,
)
def merged_neighbours(subject: Subject, case: Case) -> None:
    same_outcome(subject, case, merged(case.chunks, subject.descriptor), "merged")


@check(
    "SPLIT-003",
    "random re-chunkings (splits and merges, shrunk on failure) give the same result",
    why="the combinations of cut points a fixed test never tries",
    level="must",
    sources=('spec B4',),
    applies=_has_descriptor,
    hypothesis=True,
)
def random_rechunk(subject: Subject, case: Case) -> None:
    given_run(subject, rechunked(case.chunks, subject.descriptor), lambda ch: same_outcome(subject, case, ch, "random"))
