"""PARITY: as_dict() after the whole stream equals the case's stream=false message."""

from __future__ import annotations

from ..corpus import Case
from .base import Failure, Subject, check, feed_all, native_view


@check(
    "PARITY-001",
    "as_dict() after the whole stream equals the stream=false message (top-level mcs_* annotations aside)",
    why="the buffer is honest: it holds what the provider would have returned for stream=false",
    adr="Decision; Consequences (the buffer is honest)",
    applies=lambda s, c: s.own_stream(c) and "message" in c.expect and c.raises is None,
)
def parity(subject: Subject, case: Case) -> None:
    buf, _ = feed_all(subject, case.chunks)
    got = native_view(buf.as_dict())
    if got != native_view(case.expect["message"]):
        raise Failure(
            "as_dict() differs from the stream=false message", expected=case.expect["message"], actual=got,
            chunks=case.chunks,
        )
