"""Synthesized streams: arbitrary calls written into a wire come back equal (ROUNDTRIP-002),
and forming_name grows on every cut of a rendered or synthesized stream (NAME-002).

A native wire's calls are written through its descriptor's ``call_channel``
(:mod:`mcs_conformance.suite.synthesize`), a text format's through its own ``render``. The
written calls are the expectation: the project's tests prove with the official SDKs that
the provider's stream=false message for such a stream holds exactly them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ...reference.buffer import LLMStreamBuffer
from ...reference.errors import MCSError
from ...reference.extraction import extract_calls
from ..examples import native_examples, rendered_examples
from ..generators import tool_calls
from ...reference.protocol import ToolCall
from ..synthesize import Synthesized, render_delimiters, synthesized_streams
from .base import Failure, Subject, calls_view, check, same
from .hypothesis_run import given_run
from .name import growth_problem

_RECIPE_LINES = 10


def _synthesizes(s: Subject, c: object) -> bool:
    return not s.is_text and s.descriptor is not None and s.descriptor.call_channel is not None


def _renders(s: Subject) -> bool:
    return s.is_text and callable(getattr(s.strategy, "render", None))


def _how(drawn: Synthesized) -> str:
    recipe = drawn.chunks.recipe
    more = len(recipe) - _RECIPE_LINES
    lines = ["how the stream was made:", *(f"  {r}" for r in recipe[:_RECIPE_LINES])]
    return "\n".join(lines + ([f"  ... and {more} more steps"] if more > 0 else []))


def _view(calls: Iterable[ToolCall], ids: bool) -> list[dict[str, Any]]:
    """The calls as compared: without ids when the wire carries none (a strategy may make
    one up for a call that came without)."""
    return calls_view(calls if ids else [replace(c, id=None) for c in calls])


@check(
    "ROUNDTRIP-002",
    "arbitrary calls (and leading text) written into the native wire through the descriptor's call_channel, "
    "re-chunked and fed through the chain, extract back exactly: ids, names, arguments, and the text",
    why="a strategy that trims, re-parses or re-keys what it reassembles changes calls no recording happens to show "
        "(white space at a string's ends, escapes cut in half, a value spelling the wire's own delimiters)",
    level="must",
    sources=("spec C7", "spec B2"),
    scope="strategy",
    applies=_synthesizes,
    hypothesis=True,
    needs="a call_channel in the descriptor of its (native) format",
)
def native_round_trip(subject: Subject, case: None) -> None:
    def run(drawn: Synthesized) -> None:
        chain = subject.chain()
        buf = LLMStreamBuffer(chain)
        try:
            for chunk in drawn.chunks:
                buf.feed(chunk)
        except MCSError as exc:
            raise _saved(Failure(f"feeding a synthesized stream raised {type(exc).__name__}: {exc}",
                                 chunks=list(drawn.chunks), detail=_how(drawn)), subject, drawn, None) from exc
        message = buf.as_dict()
        found = extract_calls(message, chain, done=buf.done)
        if found.resolved is not subject.strategy:
            who = found.resolved.name if found.resolved is not None else "no strategy"
            raise _saved(Failure(f"the chain resolved the assembled message to {who}, not {subject.name}",
                                 chunks=list(drawn.chunks), detail=_how(drawn)), subject, drawn, message)
        want, got = _view(drawn.calls, drawn.ids), _view(found.calls, drawn.ids)
        if not same(got, want):
            unfinished = "" if buf.done else " (is_done never fired, so every call is marked unfinished)"
            raise _saved(Failure("the calls written into the wire did not come back equal" + unfinished,
                                 expected=want, actual=got, chunks=list(drawn.chunks), detail=_how(drawn)),
                         subject, drawn, message)
        text = subject.strategy.content_text(message)
        if text != (drawn.text or ""):
            raise _saved(Failure("the text written before the calls did not come back as content_text",
                                 expected=drawn.text or "", actual=text, chunks=list(drawn.chunks),
                                 detail=_how(drawn)), subject, drawn, message)

    given_run(subject, synthesized_streams(subject.descriptor), run, examples=native_examples(subject.descriptor))


def _saved(failure: Failure, subject: Subject, drawn: Synthesized, message: Any) -> Failure:
    """Give the failure what a counterexample case file of the synthesized stream expects: the
    written calls and text (must); the message is the strategy's own assembly (reference), and
    an id the wire does not carry may be the strategy's own (the calls' level is then reference)."""
    own = "the strategy's own assembly of a synthesized stream"
    source = "docs/spec.md C7 (the written calls and text are the rule's)"
    levels = {"message": {"level": "reference", "why": own, "source": source}}
    if not drawn.ids:
        levels["calls"] = {"level": "reference", "why": "the wire carries no call ids: a strategy may make them up",
                           "source": source}
    failure.derived = {
        "format": subject.descriptor.format,
        "why": "; ".join(drawn.chunks.recipe[:_RECIPE_LINES]),
        "expect": {
            "message": message,
            "calls": [{"name": c.name, "arguments": c.arguments, "id": c.id if drawn.ids else None, "error": False}
                      for c in drawn.calls],
            "content_text": drawn.text or "",
            "done": any(subject.descriptor.is_done_chunk(c) for c in drawn.chunks),
            "claimed_by": subject.name, "extracted_by": subject.name, "via_backup": False,
            "levels": levels,
        },
    }
    return failure


@check(
    "NAME-002",
    "forming_name on every cut of a synthesized native stream or a rendered text only grows, as a prefix of the "
    "first call's name, and ends equal to it",
    why="display hold shows the forming call's name; names of any spelling (unicode, dots, escapes cut in half) "
        "must grow, never jump or shrink",
    level="must",
    sources=("spec U2",),
    scope="strategy",
    applies=lambda s, c: _synthesizes(s, c) or _renders(s),
    hypothesis=True,
    needs="a call_channel in its descriptor (a native wire), or render() (a text strategy)",
)
def forming_name_grows(subject: Subject, case: None) -> None:
    strategy = subject.strategy
    if _renders(subject):
        delimiters = render_delimiters(strategy.render)

        def run_text(calls: list[ToolCall]) -> None:
            text = strategy.render(calls)
            names = ((f"at character {cut}", strategy.forming_name(text[:cut])) for cut in range(len(text) + 1))
            broken = growth_problem(names, calls[0].name)
            if broken:
                raise Failure(f"on a rendered text: {broken.why}", detail=f"rendered text: {text!r}")

        given_run(subject, tool_calls(max_calls=2, delimiters=delimiters), run_text,
                  examples=rendered_examples(strategy.render))
        return

    def run_native(drawn: Synthesized) -> None:
        buf = subject.buffer()
        readings: list[tuple[str, str | None]] = []
        for i, chunk in enumerate(drawn.chunks):
            try:
                buf.feed(chunk)
            except MCSError as exc:
                raise Failure(f"feeding a synthesized stream raised {type(exc).__name__}: {exc}",
                              chunks=list(drawn.chunks), detail=_how(drawn)) from exc
            readings.append((f"after chunk {i}", strategy.forming_name(buf.as_dict())))
        broken = growth_problem(readings, drawn.calls[0].name)
        if broken:
            raise Failure(f"on a synthesized stream: {broken.why}", chunks=list(drawn.chunks[: broken.at + 1]),
                          detail=_how(drawn))

    given_run(subject, synthesized_streams(subject.descriptor), run_native, examples=native_examples(subject.descriptor))
