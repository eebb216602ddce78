"""NAME: forming_name over a stream's prefixes only grows, and ends at the first call's name."""

from __future__ import annotations

from ..corpus import Case
from ..errors import MCSError
from .base import Failure, Subject, check, part_level


@check(
    "NAME-001",
    "forming_name over the stream's prefixes grows as a prefix and ends equal to the first call's name",
    why="display hold shows the forming call's name; a name that jumps or shrinks misleads the user",
    level="must",
    sources=('spec U2',),
    applies=lambda s, c: s.own_stream(c) and c.raises is None,
)
def grows(subject: Subject, case: Case) -> None:
    """The expected final name is the first call's when this strategy extracts the calls (or
    the first call's of another answer the case accepts: a difference at the reference level).
    A name that only grows is always the rule (must); which name it ends at follows the level
    of the case's calls (``expect.levels.calls``), since it is read from them."""
    mine = case.expect.get("extracted_by") == subject.name and not case.expect.get("via_backup")
    broken = _names(subject, case, _first_name(case.expect.get("calls", []), mine))
    if broken is None:
        return
    for alt in case.expect.get("accept", ()):
        if "calls" in alt and _names(subject, case, _first_name(alt["calls"], mine)) is None:
            raise Failure(f"forming_name follows another accepted answer ({alt['why']}; {alt['source']})",
                          level="reference")
    raise broken


def _first_name(calls: list, mine: bool) -> str | None:
    # a call in the text channel is the text strategy's; a nameless call has no name to show
    return (calls[0]["name"] or None) if calls and mine else None


def _names(subject: Subject, case: Case, final: str | None) -> Failure | None:
    """Why forming_name over the stream's prefixes breaks the rule for ``final``, or None."""
    level, why = part_level(case, "calls")
    level, why = (None, "") if level == "must" else (level, f" ({level}: {why})")
    buf = subject.buffer()
    seen: str | None = None
    for i, chunk in enumerate(case.chunks):
        try:
            buf.feed(chunk)
        except MCSError:
            return None
        name = subject.strategy.forming_name(buf.as_dict())
        if final is None and name is not None:
            return Failure(f"forming_name is {name!r} after chunk {i} on a stream with no named call{why}",
                           level=level, chunks=case.chunks[: i + 1])
        if seen is not None and (name is None or not name.startswith(seen)):
            return Failure(f"forming_name went from {seen!r} to {name!r} after chunk {i}: it must only grow",
                           chunks=case.chunks[: i + 1])
        if name is not None and final is not None and not final.startswith(name):
            return Failure(f"forming_name {name!r} after chunk {i} is not a prefix of the call's name {final!r}{why}",
                           level=level, chunks=case.chunks[: i + 1])
        seen = name
    if seen != final:
        return Failure(f"forming_name at the end of the stream is not the first call's name{why}", level=level,
                       expected=final, actual=seen)
    return None
