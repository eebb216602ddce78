"""DISPLAY: the deltas accumulate returned, joined, equal the message's content text."""

from __future__ import annotations

from ...corpus_tools.corpus import Case
from .base import Failure, Subject, check, expect_part, feed_case


@check(
    "DISPLAY-001",
    "the concatenated accumulate() deltas equal display_text, content_text(as_dict()) and the case's content text",
    why="display text is format-agnostic only if every content delta is reported, once, in order",
    level="must",
    sources=('spec B5',),
    parts=('content_text', 'error'),
    applies=lambda s, c: s.own_stream(c) and c.raises is None,
    needs="a stream case of its format that ends without an error",
)
def deltas_match(subject: Subject, case: Case) -> None:
    buf, deltas = feed_case(subject, case)
    shown = "".join(deltas)
    text = subject.strategy.content_text(buf.as_dict())
    if shown != text:
        raise Failure("the accumulate() deltas differ from content_text(as_dict())", expected=text, actual=shown, chunks=case.chunks)
    if buf.display_text != shown:
        raise Failure("buffer.display_text differs from the concatenated accumulate() deltas", expected=shown,
                      actual=buf.display_text, chunks=case.chunks)
    if case.expect.get("content_text") is not None:
        expect_part(case, "content_text", text, "content_text(as_dict()) differs from the case's content text")
