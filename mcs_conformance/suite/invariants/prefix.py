"""PREFIX: on every prefix of a stream, no executable call differs from the final one."""

from __future__ import annotations

from hypothesis import strategies as st

from ...reference.chain import ExtractionChain
from ...corpus_tools.corpus import Case
from ...reference.errors import MCSError
from ...reference.extraction import extract_calls
from ..examples import rendered_examples
from ..generators import tool_calls
from ..made_up_ids import made_up_ids, settled
from ..synthesize import render_delimiters
from .base import (
    Failure,
    Subject,
    calls_view,
    check,
    expect_part,
    extract_unclaimed,
    positional_prefix_violation,
    same,
)
from .hypothesis_run import given_run


@check(
    "PREFIX-001",
    "cut after any chunk before the completion signal, the extraction axis (given buffer.done) yields no "
    "executable call (on a wire without a signal: none that differs from the final ones); after the last chunk, "
    "extract gives exactly the case's calls",
    why="a valid-JSON prefix executed before the stream ends runs a call the model never finished",
    level="should",
    sources=('spec C6', "spec 'Where not finished lives'", "vercel/ai PR #13137 (reverted in #13172)"),
    parts=('calls',),
    applies=lambda s, c: s.own_stream(c) and c.raises is None,
    needs="a stream case of its format that ends without an error",
)
def stream_prefixes(subject: Subject, case: Case) -> None:
    mine = case.expect.get("extracted_by", subject.name) == subject.name and not case.expect.get("via_backup")
    final = calls_view(case.expect.get("calls", []))
    # a wire with a completion signal is read as a driver reads it: through the extraction axis
    # given buffer.done, which marks every call of an unfinished stream; a text wire has no
    # signal (a cut stream looks finished), so there the strategy's own answer must be safe
    signalled = subject.descriptor is not None and bool(subject.descriptor.data.get("done"))
    # before the completion signal nothing is executable at all: the turn has not ended
    done_at = next((i for i, c in enumerate(case.chunks) if subject.descriptor.is_done_chunk(c)),
                   len(case.chunks)) if signalled else -1
    alone = ExtractionChain([subject.strategy])
    buf = subject.buffer()
    got: list = []
    reads: list[list] = []
    for i, chunk in enumerate(case.chunks):
        try:
            buf.feed(chunk)
        except MCSError:
            return
        got = extract_unclaimed(subject, buf.as_dict()) or []
        read = list(extract_calls(buf.as_dict(), alone, done=buf.done).calls) if signalled else got
        live = [c for c in read if c.executable]
        if i < done_at and live:
            raise Failure(f"after chunk {i}, before the completion signal: {len(live)} call(s) executable "
                          f"(buffer.done is {buf.done})", expected=[], actual=calls_view(live), chunks=case.chunks[: i + 1])
        reads.append(read)
    if mine:
        # the strategy's own answer on the whole stream, when the case accepts it (the SDK's
        # answer may stand beside the reference's, and an id made up where the wire sends none
        # is its own), is what the prefixes of the same stream must not contradict
        whole = calls_view(got)
        ids = made_up_ids(case, whole)
        accepted = [calls_view(alt["calls"]) for alt in case.expect.get("accept", ()) if "calls" in alt]
        if any(same(whole, a) or (ids and same(settled(whole, a, ids), a)) for a in (final, *accepted)):
            final = whole
    for i, read in enumerate(reads):
        why = positional_prefix_violation(read, final)
        if why:
            raise Failure(f"after chunk {i}: {why}", expected=final, actual=calls_view(read), chunks=case.chunks[: i + 1])
    if mine:
        expect_part(case, "calls", calls_view(got), "after the whole stream, extract(as_dict()) differs from the "
                    "case's calls", view=calls_view, chunks=case.chunks)


@check(
    "PREFIX-002",
    "a rendered text cut at any character yields no executable call that differs from the final ones",
    why="text codecs see every prefix of the model's output while it streams",
    level="should",
    sources=('spec C6', 'spec C3'),
    scope="strategy",
    applies=lambda s, c: s.is_text and callable(getattr(s.strategy, "render", None)),
    hypothesis=True,
    needs="render() on a text strategy",
)
def text_prefixes(subject: Subject, case: None) -> None:
    def run(calls: list) -> None:
        text = subject.strategy.render(calls)
        final = calls_view(calls)
        for cut in range(len(text) + 1):
            got = subject.strategy.extract(text[:cut])
            why = positional_prefix_violation(got, final)
            if why:
                raise Failure(f"text cut at character {cut}: {why}", expected=final, actual=calls_view(got),
                              detail=f"prefix: {text[:cut]!r}")

    given_run(subject, tool_calls(max_calls=2, delimiters=render_delimiters(subject.strategy.render)), run,
              examples=rendered_examples(subject.strategy.render))
