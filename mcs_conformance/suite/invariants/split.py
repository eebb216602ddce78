"""SPLIT: any re-chunking of the deltas gives the same message, calls and display text."""

from __future__ import annotations

from typing import Any

from ...corpus_tools.corpus import Case
from ..examples import rechunk_examples
from ..generators import Derived, char_split, merged, rechunked
from .base import Failure, Subject, accepted_refusal, calls_view, check, native_view, outcome, same
from .hypothesis_run import given_run

_RECIPE_LINES = 8


def _has_descriptor(s: Subject, c: Case | None) -> bool:
    return s.own_stream(c) and s.descriptor is not None


def same_outcome(subject: Subject, case: Case, chunks: list[Any], how: str, *, level: str | None = None,
                 why: str = "") -> None:
    """Fail when ``chunks`` give another outcome than the case's own stream. ``level`` is the
    level of what made the stream when it is weaker than the check's (a ``reference`` noise
    item, with ``why``); a :class:`Derived` stream's recipe goes into the failure's detail."""
    want, got = outcome(subject, case.chunks, case), outcome(subject, chunks, case)
    if same(got, want):
        return
    if _answers_where_refusal_accepted(case, want, got):
        raise Failure(f"re-chunking ({how}) changed the result from a refusal the case accepts to the case's "
                      "answer: both are accepted", expected=want, actual=got, chunks=chunks, level="reference")
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


def _answers_where_refusal_accepted(case: Case, want: dict[str, Any], got: dict[str, Any]) -> bool:
    """Did the strategy refuse the case's own stream with a refusal the case accepts
    (``expect.accept`` with an ``error``: the official SDK's), and read the derived stream to
    the case's answer or another accepted one? A refusal of chunks no provider sends does not
    bind the strategy to refuse a re-chunking that reads as one it can fold (the SDK itself
    folds surrogate halves that a merge puts in one delta)."""
    kind, accept = want.get("error"), case.expect.get("accept", ())
    if kind is None or "error" in got or case.raises == kind or accepted_refusal(case, kind) is None:
        return False
    for answer in (case.expect, *(alt for alt in accept if "message" in alt or "calls" in alt)):
        message, calls = answer.get("message", case.expect.get("message")), answer.get("calls", case.expect.get("calls"))
        if message is None or calls is None:
            continue
        if (same(native_view(got.get("message")), native_view(message)) and same(got.get("calls"), calls_view(calls))
                and got.get("done") == case.expect.get("done", got.get("done"))):
            return True
    return False


@check(
    "SPLIT-001",
    "every delta split at every character gives the same result",
    why="providers and proxies cut deltas anywhere: inside escapes, multi-byte characters, tags",
    level="must",
    sources=('spec B4',),
    applies=_has_descriptor,
    needs="a stream case of its format, and a descriptor of its format",
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
    needs="a stream case of its format, and a descriptor of its format",
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
    needs="a stream case of its format, and a descriptor of its format",
)
def random_rechunk(subject: Subject, case: Case) -> None:
    given_run(subject, rechunked(case.chunks, subject.descriptor), lambda ch: same_outcome(subject, case, ch, "random"),
              examples=rechunk_examples(case.chunks, subject.descriptor))
