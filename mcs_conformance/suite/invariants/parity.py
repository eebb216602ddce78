"""PARITY: as_dict() after the whole stream equals the case's stream=false message."""

from __future__ import annotations

from ...corpus_tools.corpus import Case
from .base import Subject, attempt, check, expect_part, feed_case, native_view, read_calls


@check(
    "PARITY-001",
    "as_dict() after the whole stream equals the stream=false message (top-level mcs_* annotations aside)",
    why="the buffer is honest: it holds what the provider would have returned for stream=false",
    level="must",
    sources=('spec B2', "spec per-format 'as_dict() key by key'"),
    parts=('message', 'error'),
    applies=lambda s, c: s.own_stream(c) and "message" in c.expect and c.raises is None,
    needs="a stream case of its format with expect.message that ends without an error",
)
def parity(subject: Subject, case: Case) -> None:
    buf, _ = feed_case(subject, case)
    message = buf.as_dict()
    expect_part(case, "message", native_view(message), "as_dict() differs from the stream=false message",
                view=native_view, calls=attempt(lambda: read_calls(subject, message)), chunks=case.chunks)
