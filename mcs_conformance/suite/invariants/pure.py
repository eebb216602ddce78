"""PURE: inputs are never mutated; same input, same output; as_dict() is JSON-safe."""

from __future__ import annotations

import json

from ...reference.accumulator import copy_tree
from ...corpus_tools.corpus import Case
from .base import Failure, Subject, calls_view, check, comparable, feed_all, json_safe, outcome, records_for, same


@check(
    "PURE-001",
    "feeding never mutates a chunk; as_dict() is JSON-safe after every chunk, and reading it changes nothing",
    why="clients fan one chunk out to several buffers, log it, and render the message after every chunk",
    level="should",
    sources=('spec B3',),
    applies=lambda s, c: s.own_stream(c),
    needs="a stream case of its format",
)
def chunks_untouched(subject: Subject, case: Case) -> None:
    # every check gets its own copy of the case, so case.chunks is as loaded; the comparison
    # is on the serialization, which also sees a value replaced by an equal one of another
    # type (0 by False, 1 by 1.0)
    chunks = copy_tree(case.chunks)
    pristine = [_serialized(c) for c in case.chunks]
    buf = subject.buffer()
    from ...reference.errors import MCSError

    for i, chunk in enumerate(chunks):
        try:
            buf.feed(chunk)
        except MCSError:
            return
        if _serialized(chunk) != pristine[i]:
            raise Failure(f"feeding chunk {i} mutated it", expected=case.chunks[i], actual=chunk, chunks=case.chunks[: i + 1])
        snapshot = buf.as_dict()
        if not json_safe(snapshot):
            raise Failure(f"as_dict() after chunk {i} does not survive a JSON round trip", actual=repr(snapshot)[:500])
    unread, _ = feed_all(subject, case.chunks)
    if comparable(subject, case, buf.as_dict()) != comparable(subject, case, unread.as_dict()):
        raise Failure("reading as_dict() after every chunk changed the final message (compared with a run "
                      "that reads it once, at the end)", expected=unread.as_dict(), actual=buf.as_dict(),
                      chunks=case.chunks)


def _serialized(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


@check(
    "PURE-002",
    "the same stream gives the same result twice, and extraction never mutates the message",
    why="hidden state between streams or calls makes results depend on history",
    level="should",
    sources=('spec U1',),
    applies=lambda s, c: c is not None and (s.own_stream(c) or (not c.is_stream and c.expect.get("claimed_by") == s.name)),
    needs="a stream case of its format, or a message case it claims",
)
def deterministic(subject: Subject, case: Case) -> None:
    if case.is_stream:
        first, second = outcome(subject, case.chunks, case), outcome(subject, case.chunks, case)
        if not same(first, second):
            raise Failure("feeding the same stream twice gave different results", expected=first, actual=second)
        message = first.get("message")
    else:
        message = case.message
    if message is None:
        return
    before = json.dumps(message, sort_keys=True)
    s = subject.strategy
    calls = s.extract(message)
    s.content_text(message)
    s.forming_name(message)
    records = records_for(calls)
    if records:
        s.result_messages(message, records)
    if json.dumps(message, sort_keys=True) != before:
        raise Failure("extract/content_text/forming_name/result_messages mutated the message", expected=json.loads(before), actual=message)
    again = s.extract(message)
    if not same(_full(again), _full(calls)):
        raise Failure("extract gave different calls on a second call", expected=_full(calls), actual=_full(again))


def _full(calls: object) -> object:
    """Calls as data, with everything a ToolCall holds (NaN-safe comparison through same())."""
    if not isinstance(calls, list):
        return calls
    return [{"name": c.name, "arguments": c.arguments, "id": c.id, "raw_arguments": c.raw_arguments, "error": c.error}
            if hasattr(c, "arguments") else c for c in calls]


_READ_POINTS = 64  # fresh buffers per case at most: long streams are compared at evenly spaced cuts


@check(
    "PURE-003",
    "as_dict() read after every chunk equals what a fresh buffer fed the same chunks reads once, at every cut",
    why="a partial parse cached between reads shows a message that depends on how often the client rendered it, "
    "not on the stream",
    level="should",
    sources=('spec B3',),
    applies=lambda s, c: s.own_stream(c),
    needs="a stream case of its format",
)
def reads_agree(subject: Subject, case: Case) -> None:
    from ...reference.errors import MCSError

    n = len(case.chunks)
    cuts = set(range(1, n + 1)) if n <= _READ_POINTS else {round(k * n / _READ_POINTS) for k in range(1, _READ_POINTS + 1)}
    buf = subject.buffer()
    for i, chunk in enumerate(case.chunks):
        try:
            buf.feed(chunk)
        except MCSError:
            return
        live = buf.as_dict()
        if i + 1 in cuts:
            fresh, _ = feed_all(subject, case.chunks[: i + 1])
            if comparable(subject, case, fresh.as_dict()) != comparable(subject, case, live):
                raise Failure(f"as_dict() after chunk {i}, read after every chunk, differs from a fresh buffer fed "
                              f"the same {i + 1} chunks and read once", expected=fresh.as_dict(), actual=live,
                              chunks=case.chunks[: i + 1])
