"""NAME: forming_name over a stream's prefixes only grows, and ends at the first call's name."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ...corpus_tools.corpus import Case
from ...reference.errors import MCSError
from .base import Failure, Subject, check, part_level


@check(
    "NAME-001",
    "forming_name over the stream's prefixes grows as a prefix and ends equal to the first call's name",
    why="display hold shows the forming call's name; a name that jumps or shrinks misleads the user",
    level="must",
    sources=('spec U2',),
    parts=('calls', 'forming_name'),
    applies=lambda s, c: s.own_stream(c) and c.raises is None,
    needs="a stream case of its format that ends without an error",
)
def grows(subject: Subject, case: Case) -> None:
    """The expected final name is the first call's when this strategy extracts the calls (or
    the first call's of another answer the case accepts: a difference at the reference level).
    A name that only grows is always the rule (must); which name it ends at follows the level
    of the case's calls (``expect.levels.calls``), since it is read from them; a case whose
    wire leaves the growth open (a name sent in pieces, on which the official SDKs' prefixes
    differ) gives it its level (``expect.levels.forming_name``)."""
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
    """Why forming_name over the stream's prefixes breaks the rule for ``final``, or None.
    A name that jumps or shrinks breaks U2 itself (must, or the level the case gives
    ``forming_name``); a name other than the case's breaks
    the rule at the level of the case's calls, and so does a jump to the name of the strategy's
    own first call where its calls are not the case's (the jump is how a merge of two calls
    shows, and the case rates the merge)."""
    buf = subject.buffer()
    readings: list[tuple[str, str | None]] = []
    for i, chunk in enumerate(case.chunks):
        try:
            buf.feed(chunk)
        except MCSError:
            return None
        readings.append((f"after chunk {i}", subject.strategy.forming_name(buf.as_dict())))
    broken = growth_problem(readings, final)
    if broken is None:
        return None
    level, why = part_level(case, "calls")
    own = None if broken.about_final or level is None else _jump_to_own_call(subject, buf, readings, broken.at, final)
    if own is not None:  # the name switched to the strategy's own first call: its calls decide the level
        why = f"{why}; the name changed to the first call of the strategy's own calls, {own!r}, which differ from the case's"
    if broken.about_final or own is not None:
        level, why = (level, f" ({level}: {why})") if level is not None else (None, "")
    else:
        level, why = part_level(case, "forming_name")
        why = f" ({level}: {why})" if level is not None else ""
    if broken.at == len(readings):  # the name it ended at
        return Failure(broken.why + why, level=level, expected=final, actual=readings[-1][1] if readings else None)
    return Failure(broken.why + why, level=level, chunks=case.chunks[: broken.at + 1])


def _jump_to_own_call(subject: Subject, buf: object, readings: list[tuple[str, str | None]], at: int,
                      final: str | None) -> str | None:
    """The strategy's own first call's name when the jump at ``readings[at]`` is the switch to
    it: from there on the name grows to it, and it is not the case's (the strategy made other
    calls of the stream, a merge or a split the case's calls level rates). None otherwise: a
    name that jumps while the strategy's calls are the case's breaks U2 by itself."""
    try:
        calls = subject.strategy.extract(buf.as_dict())
    except Exception:  # extraction is judged elsewhere (EXTRACT-001)
        return None
    own = (calls[0].name or None) if calls else None
    if own is None or own == final or growth_problem(readings[at:], own) is not None:
        return None
    return own


class GrowthProblem(NamedTuple):
    """Where U2 breaks (the reading's index; the number of readings for the end), why, and
    whether it is about the expected name (a prefix of it, ending at it) rather than growth."""

    at: int
    why: str
    about_final: bool


def growth_problem(names: Iterable[tuple[str, str | None]], final: str | None) -> GrowthProblem | None:
    """Where and why a run of ``(where, forming_name)`` readings breaks U2 for the first
    call's name ``final`` (None: the stream has no named call), or None when it holds: a name
    never shrinks, jumps or disappears, is always a prefix of ``final``, and ends equal to it."""
    seen: str | None = None
    n = 0
    for n, (where, name) in enumerate(names, 1):
        if final is None and name is not None:
            return GrowthProblem(n - 1, f"forming_name is {name!r} {where} on a stream with no named call", True)
        if seen is not None and (name is None or not name.startswith(seen)):
            return GrowthProblem(n - 1, f"forming_name went from {seen!r} to {name!r} {where}: it must only grow", False)
        if name is not None and final is not None and not final.startswith(name):
            return GrowthProblem(n - 1, f"forming_name {name!r} {where} is not a prefix of the first call's name "
                                        f"{final!r}", True)
        seen = name
    if seen != final:
        return GrowthProblem(n, f"forming_name at the end of the stream is {seen!r}, not the first call's name "
                                f"{final!r}", True)
    return None
