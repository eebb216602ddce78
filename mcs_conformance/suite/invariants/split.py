"""SPLIT: any re-chunking of the deltas gives the same message, calls and display text."""

from __future__ import annotations

from typing import Any

from ...corpus_tools.corpus import Case
from ..examples import rechunk_examples
from ..generators import Derived, char_split, merged, rechunked
from .base import Failure, Subject, check, outcome, same
from .hypothesis_run import given_run

_RECIPE_LINES = 8


def _has_descriptor(s: Subject, c: Case | None) -> bool:
    return s.own_stream(c) and s.descriptor is not None


def same_outcome(subject: Subject, case: Case, chunks: list[Any], how: str, *, level: str | None = None,
                 why: str = "") -> None:
    """Fail when ``chunks`` give another outcome than the case's own stream. ``level`` is the
    level of what made the stream when it is weaker than the check's (a ``reference`` noise
    item, with ``why``); a :class:`Derived` stream's recipe goes into the failure's detail."""
    want, got = outcome(subject, case.chunks), outcome(subject, chunks)
    if same(got, want):
        return
    level = level or getattr(chunks, "level", None)
    level = None if level == "must" else level
    lines = [f"level: {level}: {why}"] if level and why else []
    recipe = chunks.recipe if isinstance(chunks, Derived) else []
    if recipe:
        more = len(recipe) - _RECIPE_LINES
        lines += ["how the stream was made:", *(f"  {r}" for r in recipe[:_RECIPE_LINES])]
        lines += [f"  ... and {more} more steps"] if more > 0 else []
    raise Failure(f"re-chunking ({how}) changed the result", expected=want, actual=got, chunks=chunks,
                  detail="\n".join(lines), level=level)


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
    given_run(subject, rechunked(case.chunks, subject.descriptor), lambda ch: same_outcome(subject, case, ch, "random"),
              examples=rechunk_examples(case.chunks, subject.descriptor))
