"""ROUNDTRIP: calls rendered by a text strategy come back equal over every wire's text channel."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from ...reference.buffer import LLMStreamBuffer
from ..examples import text_carriage_examples
from ..generators import carry_text, tool_calls
from ..synthesize import render_delimiters
from ...reference.protocol import ToolCall
from .base import Failure, Subject, calls_view, check, with_wire
from .hypothesis_run import given_run


def _renders(s: Subject, c: object) -> bool:
    return s.is_text and callable(getattr(s.strategy, "render", None))


def _shown(subject: Subject, calls: list[ToolCall]) -> list[ToolCall]:
    """The calls as their rendering carries them: an id the rendered text does not show (a
    format without ids renders the call the same with or without it) comes back as None."""
    render = subject.strategy.render
    return [c if c.id is None or render([c]) != render([replace(c, id=None)]) else replace(c, id=None)
            for c in calls]


def _wires(subject: Subject) -> list[Any]:
    return [d for d in subject.corpus.descriptors.values() if d.text_channel is not None]


@st.composite
def _scenario(draw: st.DrawFn, subject: Subject) -> tuple[list, str, list[str]]:
    calls = draw(tool_calls(ids=True, delimiters=render_delimiters(subject.strategy.render)))
    text = subject.strategy.render(calls)
    wire = draw(st.sampled_from(sorted(_wires(subject), key=lambda d: d.format)))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=8))) if len(text) > 1 else []
    bounds = [0, *cuts, len(text)]
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]
    return calls, wire.format, pieces


@check(
    "ROUNDTRIP-001",
    "arbitrary calls, rendered, carried in each wire's text channel and re-chunked, extract back equal "
    "(their ids too, where the rendering shows them)",
    why="a codec that cannot read its own output loses calls with unicode, nesting or empty arguments",
    level="should",
    sources=('spec text-json render',),
    scope="strategy",
    applies=_renders,
    hypothesis=True,
    needs="render() on a text strategy, and a loaded descriptor with a text_channel",
)
def round_trip(subject: Subject, case: None) -> None:
    if not _wires(subject):
        raise Failure("no loaded descriptor has a text_channel to carry rendered text")
    chain = subject.chain()

    def run(scenario: tuple[list, str, list[str]]) -> None:
        calls, fmt, pieces = scenario
        chunks = carry_text(pieces, subject.corpus.descriptors[fmt])
        carrier = with_wire(chain, fmt)
        buf = LLMStreamBuffer(carrier)
        for chunk in chunks:
            buf.feed(chunk)
        wire = carrier.resolve(chunks[0])
        text = wire.content_text(buf.as_dict())
        got, want = calls_view(subject.strategy.extract(text)), calls_view(_shown(subject, calls))
        if got != want:
            raise Failure(f"rendered calls carried over {fmt} did not come back equal (an id the rendering "
                          f"shows must come back)", expected=want, actual=got, chunks=chunks)

    formats = sorted(d.format for d in _wires(subject))
    given_run(subject, _scenario(subject), run, examples=text_carriage_examples(subject.strategy.render, formats))
