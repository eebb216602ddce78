"""EXTRACT: calls equal the case's calls: names, parsed arguments, ids, order, errors; a text
strategy reads them from every wire that carries its text."""

from __future__ import annotations

from typing import Any

from ...corpus_tools.corpus import Case
from ...reference.buffer import LLMStreamBuffer
from ...reference.chain import ExtractionChain
from ...reference.extraction import extract_calls
from ..generators import carry_text
from .base import Failure, Subject, calls_view, check, expect_part, is_text_strategy, with_wire


def source_for(subject: Subject, case: Case) -> object:
    """What the strategy reads: the message, or its content text when the case is a leak."""
    message = case.final_message
    if case.expect.get("via_backup"):
        chain = subject.chain()
        claimant = subject.strategy_named(case.expect.get("claimed_by"), chain)
        if claimant is None:
            raise Failure(f"the case's claiming strategy {case.expect.get('claimed_by')!r} is not in the chain")
        return claimant.content_text(message)
    return message


@check(
    "EXTRACT-001",
    "extract() returns exactly the case's calls (name, arguments, id, order; errors as errors)",
    why="a merged, dropped, reordered or leniently parsed call executes the wrong thing",
    level="must",
    sources=('spec C1', 'spec C2', 'spec C3', 'spec C4'),
    parts=('calls',),
    applies=lambda s, c: c is not None and c.expect.get("extracted_by") == s.name and c.final_message is not None,
    needs="a case whose expect.extracted_by names its format",
)
def calls_match(subject: Subject, case: Case) -> None:
    got = calls_view(subject.strategy.extract(source_for(subject, case)))
    expect_part(case, "calls", got, "extract() differs from the case's calls", view=calls_view, chunks=case.chunks)


def _wires(subject: Subject) -> list[Any]:
    """The loaded native wires that carry text (their descriptor has a text channel)."""
    return sorted((d for d in subject.corpus.descriptors.values()
                   if d.text_channel is not None and d.chunk_kind == "object"), key=lambda d: d.format)


def _carried(s: Subject, c: Case | None) -> bool:
    return (s.is_text and s.own_stream(c) and c.raises is None and "calls" in c.expect
            and all(isinstance(chunk, str) for chunk in c.chunks) and bool(_wires(s)))


def text_mode_chain(subject: Subject) -> ExtractionChain:
    """The chain of a driver whose text strategy is the one under test: the author's declared
    chain, else the default chain with the strategy in place of its text strategies."""
    if subject.declared:
        return subject.chain()
    from ...reference.strategies import default_chain

    return ExtractionChain([s for s in default_chain() if not is_text_strategy(s)] + [subject.strategy])


@check(
    "EXTRACT-002",
    "a text case's stream, its deltas carried in each native wire's text channel (a server without a tool parser), "
    "gives the case's calls through the extraction axis of a chain whose text strategy is this one",
    why="the text strategy is the primary extractor of a text-mode driver: a content-only chat message it does "
    "not claim is claimed by no one, and the model's calls are lost",
    level="must",
    sources=("spec X1", "spec X3", "spec text formats"),
    parts=("calls",),
    applies=_carried,
    needs="a text strategy, a stream case of its format with str chunks and expect.calls, and a loaded native "
    "descriptor with a text_channel",
)
def carried(subject: Subject, case: Case) -> None:
    for descriptor in _wires(subject):
        chain = with_wire(text_mode_chain(subject), descriptor.format)
        order = " > ".join(s.name for s in chain)
        chunks = carry_text(list(case.chunks), descriptor)
        buf = LLMStreamBuffer(chain)
        for chunk in chunks:
            buf.feed(chunk)
        message = buf.as_dict()
        found = extract_calls(message, chain, subject.strategy, done=True)
        if case.expect["calls"] and found.resolved is None:
            raise Failure(f"carried over {descriptor.format}, the assembled message was claimed by no strategy "
                              f"of the chain ({order}), so its calls were lost",
                              expected=calls_view(case.expect["calls"]), actual=[], chunks=chunks,
                              detail=f"the assembled message: {message!r:.400}")
        expect_part(case, "calls", calls_view(found.calls),
                    f"carried over {descriptor.format}, the extraction axis ({order}) gave other calls than the case's",
                    view=calls_view, chunks=chunks)
