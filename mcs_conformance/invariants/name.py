"""NAME: forming_name over a stream's prefixes only grows, and ends at the first call's name."""

from __future__ import annotations

from ..corpus import Case
from ..errors import MCSError
from .base import Failure, Subject, check


@check(
    "NAME-001",
    "forming_name over the stream's prefixes grows as a prefix and ends equal to the first call's name",
    why="display hold shows the forming call's name; a name that jumps or shrinks misleads the user",
    adr="Decision: Responsibilities (forming_name)",
    level="must",
    applies=lambda s, c: s.own_stream(c) and c.raises is None,
)
def grows(subject: Subject, case: Case) -> None:
    """The expected final name is the first call's when this strategy extracts the calls."""
    calls = case.expect.get("calls", [])
    mine = case.expect.get("extracted_by") == subject.name and not case.expect.get("via_backup")
    # a call in the text channel is the text strategy's; a nameless call has no name to show
    final = (calls[0]["name"] or None) if calls and mine else None
    buf = subject.buffer()
    seen: str | None = None
    for i, chunk in enumerate(case.chunks):
        try:
            buf.feed(chunk)
        except MCSError:
            return
        name = subject.strategy.forming_name(buf.as_dict())
        if final is None and name is not None:
            raise Failure(f"forming_name is {name!r} after chunk {i} on a stream with no named call", chunks=case.chunks[: i + 1])
        if seen is not None and (name is None or not name.startswith(seen)):
            raise Failure(
                f"forming_name went from {seen!r} to {name!r} after chunk {i}: it must only grow",
                chunks=case.chunks[: i + 1],
            )
        if name is not None and final is not None and not final.startswith(name):
            raise Failure(f"forming_name {name!r} after chunk {i} is not a prefix of the call's name {final!r}",
                          chunks=case.chunks[: i + 1])
        seen = name
    if seen != final:
        raise Failure("forming_name at the end of the stream is not the first call's name", expected=final, actual=seen)
