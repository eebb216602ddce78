"""DONE: is_done fires on the completion signal only; truncated streams never finish; errors raise."""

from __future__ import annotations

from ...corpus_tools.corpus import Case
from ...reference.errors import MCSError, StreamError
from .base import Failure, Subject, check, feed_case, part_level, refused


@check(
    "DONE-001",
    "is_done is false before the completion signal and true on it; buffer.done follows (and buffer.chunks counts)",
    why="an early 'done' executes a half-streamed call; a missed one hangs the client",
    level="must",
    sources=('spec per-format completion signal', "spec 'Where not finished lives'"),
    parts=('error',),
    applies=lambda s, c: s.own_stream(c) and c.expect.get("done") is True and s.descriptor is not None,
    needs="a stream case of its format that carries its completion signal (expect.done true), and a descriptor",
)
def signal(subject: Subject, case: Case) -> None:
    buf = subject.buffer()
    if buf.done is not False or buf.as_dict() is not None:
        raise Failure(f"a fresh buffer must have done False and as_dict() None, has {buf.done!r} and {buf.as_dict()!r}")
    for i, chunk in enumerate(case.chunks):
        try:
            buf.feed(chunk)
        except MCSError as exc:
            judged = refused(case, exc, case.chunks[: i + 1])
            if judged is exc:
                raise
            raise judged from exc
        is_signal = subject.descriptor.is_done_chunk(chunk)
        if subject.strategy.is_done(chunk) is not is_signal and (is_signal or not _after_done(subject, case, i)):
            raise Failure(
                f"is_done(chunk {i}) is {not is_signal} but the chunk {'is' if is_signal else 'is not'} the completion signal",
                chunks=case.chunks[: i + 1],
            )
        if buf.chunks != i + 1:
            raise Failure(f"buffer.chunks is {buf.chunks!r} after {i + 1} chunks", chunks=case.chunks[: i + 1])
        if type(buf.done) is not bool:
            raise Failure(f"buffer.done is {buf.done!r} after chunk {i}, not a bool", chunks=case.chunks[: i + 1])
        if is_signal and not buf.done:
            raise Failure(f"buffer.done is False after the completion signal (chunk {i})", chunks=case.chunks[: i + 1])
        if not buf.done and _after_done(subject, case, i):
            raise Failure(f"buffer.done went back to False after chunk {i}", chunks=case.chunks[: i + 1])
        if buf.done and not _after_done(subject, case, i):
            raise Failure(f"buffer.done is True at chunk {i}, before the completion signal", chunks=case.chunks[: i + 1])


def _after_done(subject: Subject, case: Case, i: int) -> bool:
    return any(subject.descriptor.is_done_chunk(c) for c in case.chunks[: i + 1])


@check(
    "DONE-002",
    "a truncated stream (no completion signal) never reports done",
    why="a stream cut by the network or max_tokens must not look like a completed turn",
    level="must",
    sources=("spec 'Where not finished lives'",),
    parts=('error',),
    applies=lambda s, c: s.own_stream(c) and c.expect.get("done") is False and c.raises is None,
    needs="a stream case of its format cut before its completion signal (expect.done false, no error)",
)
def truncated(subject: Subject, case: Case) -> None:
    buf, _ = feed_case(subject, case)
    if buf.done:
        raise Failure("buffer.done is True for a stream that never completed", chunks=case.chunks)


@check(
    "DONE-003",
    "an in-stream provider error raises StreamError carrying the provider's payload",
    why="a swallowed error event makes a truncated turn look complete",
    level="should",
    sources=('spec P4', 'spec per-format errors'),
    parts=('error',),
    applies=lambda s, c: s.own_stream(c) and c.raises is not None,
    needs="a stream case of its format that must raise (expect.error: StreamError for an in-stream error event, MalformedChunk for a chunk it must refuse)",
)
def errors_raise(subject: Subject, case: Case) -> None:
    buf = subject.buffer()
    want = case.raises
    level, why = part_level(case, "error")
    because = f" ({level}: {why})" if why else ""
    for i, chunk in enumerate(case.chunks):
        try:
            buf.feed(chunk)
        except MCSError as exc:
            if type(exc).__name__ != want:
                judged = refused(case, exc, case.chunks[: i + 1])
                if isinstance(judged, Failure) and judged.level == "reference":
                    raise judged from exc  # another error the case accepts
                raise Failure(f"chunk {i} raised {type(exc).__name__}, expected {want}{because}", level=level,
                              chunks=case.chunks[: i + 1]) from exc
            if isinstance(exc, StreamError) and exc.payload is None:
                raise Failure("StreamError raised without the provider's payload", chunks=case.chunks[: i + 1]) from exc
            payload = case.expect["error"].get("payload")
            if isinstance(exc, StreamError) and payload is not None and exc.payload != payload:
                raise Failure("StreamError carries a payload other than the provider's", expected=payload, actual=exc.payload)
            return
    raise Failure(f"the stream holds {'a provider error' if want == 'StreamError' else 'a malformed chunk'} but feeding "
                  f"it raised nothing (expected {want}){because}", level=level, chunks=case.chunks)
