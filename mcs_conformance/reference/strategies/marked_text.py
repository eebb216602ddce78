"""Text formats whose tool calls sit in marked regions of the model's own output.

Open models write their calls into the text they generate, each family in its own markup
(``<tool_call>{...}</tool_call>``, ``[TOOL_CALLS]``, ``<|python_tag|>``, ``[f(a=1)]``, ...).
Without a tool parser on the server, that text reaches the client in the content channel of
whatever wire serves it. A strategy for such a format is a text strategy: it claims ``str``,
its native message is the text, and its calls are read from the text.

This module holds what every such format shares, so that a format's module holds only its
own knowledge (a :class:`Grammar`):

* :class:`Scanner` splits a stream of text pieces into prose and regions (a region starts at
  one of the format's markers, or where the format says a call may start, and ends where the
  grammar's :class:`EndScanner` says), in linear time: a piece is scanned once, and at most a
  marker's length of text is held back while it may still become a marker;
* :class:`JsonExtent` and :class:`PythonExtent` find where a JSON value or a Python list ends
  in a stream, across pieces, with strings and escapes respected (a closing marker inside an
  argument string is data);
* :class:`MarkedTextStrategy` is the whole strategy on top of a grammar: display text is the
  prose the scanner releases, ``content_text`` the same over the whole text, ``extract`` one
  call (or several) per region, an unclosed region's calls carrying ``error``.

The rules each format follows, with their sources, are in docs/spec.md ("Text formats of
open models").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..accumulator import Accumulator
from ..errors import MalformedChunk
from ..protocol import ToolCall, ToolCallRecord, require_records
from ..wire import describe, reject_json_constant

__all__ = [
    "DECODER",
    "EndScanner",
    "Grammar",
    "JsonExtent",
    "MarkedTextStrategy",
    "PythonExtent",
    "Region",
    "Scanner",
    "arguments_of",
    "content_only",
    "held_tail",
    "skip_ws",
    "partial_json_string",
]

# Models write raw newlines inside strings; NaN and Infinity are not JSON (docs/spec.md C3).
DECODER = json.JSONDecoder(strict=False, parse_constant=reject_json_constant)
_WS = " \t\r\n"


def skip_ws(s: str, i: int) -> int:
    """The index of the first character at or after ``i`` that is not JSON whitespace."""
    n = len(s)
    while i < n and s[i] in _WS:
        i += 1
    return i


def held_tail(s: str, i: int, markers: Sequence[str]) -> int:
    """The length of the longest end of ``s[i:]`` that is a proper start of one of ``markers``:
    text that may still become a marker once the next piece arrives."""
    best = 0
    for marker in markers:
        for size in range(min(len(marker) - 1, len(s) - i), best, -1):
            if marker.startswith(s[len(s) - size :]):
                best = size
                break
    return best


@dataclass
class Region:
    """Where one call region sits in the whole text: ``start`` (its marker), ``body`` and
    ``body_end`` (what the grammar parses), ``stop`` (just after its end), ``closed``."""

    start: int
    body: int
    body_end: int | None = None
    stop: int | None = None
    marker: str = ""

    @property
    def closed(self) -> bool:
        return self.stop is not None


class EndScanner:
    """Finds the end of one region in a stream of pieces. ``feed(s, i)`` scans ``s`` from
    ``i`` and returns ``(resume, body_end, stop)``: ``stop`` is None while the region is open,
    and then ``s[resume:]`` is held back and handed in again, at the front of the next piece.
    A scanner keeps its own state between calls (depth, inside a string, ...)."""

    def feed(self, s: str, i: int) -> tuple[int, int | None, int | None]:  # pragma: no cover - abstract
        raise NotImplementedError


class JsonExtent:
    """Where a JSON value that starts at an ``{`` or ``[`` ends, scanned piece by piece.

    ``feed(s, i)`` returns the index just after the value, or None when ``s`` ends inside
    it. Brackets inside strings and escaped quotes are data. With ``stop`` (a character), a
    ``stop`` outside every string interrupts the scan: ``feed`` returns None and sets
    ``stopped`` to its index (a closing marker where the value should go on)."""

    _IN_STRING = re.compile(r'["\\]')

    def __init__(self, stop: str = "") -> None:
        self.depth = 0
        self.in_string = False
        self.escape = False
        self.stopped: int | None = None
        self._stops = re.compile(r'[{}\[\]"' + re.escape(stop) + "]")
        self._stop = stop

    def feed(self, s: str, i: int) -> int | None:
        n = len(s)
        self.stopped = None
        while i < n:
            if self.in_string:
                if self.escape:
                    self.escape, i = False, i + 1
                    continue
                m = self._IN_STRING.search(s, i)
                if m is None:
                    return None
                i = m.end()
                if m.group() == "\\":
                    self.escape = True
                else:
                    self.in_string = False
                continue
            m = self._stops.search(s, i)
            if m is None:
                return None
            c = m.group()
            if c == self._stop:
                self.stopped = m.start()
                return None
            i = m.end()
            if c == '"':
                self.in_string = True
            elif c in "{[":
                self.depth += 1
            else:
                self.depth -= 1
                if self.depth <= 0:
                    return i
        return None


class PythonExtent:
    """Where a Python list literal that starts at ``[`` ends, scanned piece by piece: brackets
    of every kind are counted, ``'`` and ``"`` strings (with backslash escapes) are data."""

    _STOPS = re.compile(r"""[\[\](){}'"]""")

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""
        self.escape = False

    def feed(self, s: str, i: int) -> int | None:
        n = len(s)
        while i < n:
            if self.quote:
                if self.escape:
                    self.escape, i = False, i + 1
                    continue
                j = i
                while j < n and s[j] != self.quote and s[j] != "\\":
                    j += 1
                if j == n:
                    return None
                if s[j] == "\\":
                    self.escape = True
                else:
                    self.quote = ""
                i = j + 1
                continue
            m = self._STOPS.search(s, i)
            if m is None:
                return None
            c, i = m.group(), m.end()
            if c in "'\"":
                self.quote = c
            elif c in "[({":
                self.depth += 1
            else:
                self.depth -= 1
                if self.depth <= 0:
                    return i
        return None


class UntilMarker(EndScanner):
    """A region that ends at the first ``close`` marker (its body is the text before it)."""

    def __init__(self, close: str) -> None:
        self.close = close

    def feed(self, s: str, i: int) -> tuple[int, int | None, int | None]:
        j = s.find(self.close, i)
        if j >= 0:
            return j + len(self.close), j, j + len(self.close)
        return len(s) - held_tail(s, i, (self.close,)), None, None


class ToEnd(EndScanner):
    """A region that runs to the end of the text (the format's calls end the turn)."""

    def feed(self, s: str, i: int) -> tuple[int, int | None, int | None]:
        return len(s), None, None


class JsonThenMarker(EndScanner):
    """A region holding one JSON value, then ``close`` after optional white space. The value's
    strings may hold ``close`` as data; a ``close`` outside every string ends the region
    wherever it stands, and a body that is no JSON value runs to the next ``close``."""

    def __init__(self, close: str) -> None:
        self.close = close
        self.phase = "lead"
        self.json = JsonExtent(stop=close[0])

    def feed(self, s: str, i: int) -> tuple[int, int | None, int | None]:
        n, close = len(s), self.close
        while i < n:
            if self.phase == "lead":
                i = skip_ws(s, i)
                if i == n:
                    return i, None, None
                self.phase = "json" if s[i] in "{[" else "raw"
            elif self.phase == "json":
                end = self.json.feed(s, i)
                if end is not None:
                    i, self.phase = end, "after"
                    continue
                k = self.json.stopped
                if k is None:
                    return n, None, None
                if s.startswith(close, k):
                    return k + len(close), k, k + len(close)
                if close.startswith(s[k:]):
                    return k, None, None
                i = k + 1  # the stop character alone, outside a string: not the marker
            elif self.phase == "after":
                i = skip_ws(s, i)
                if i == n:
                    return i, None, None
                if s.startswith(close, i):
                    return i + len(close), i, i + len(close)
                if close.startswith(s[i:]):
                    return i, None, None
                self.phase = "raw"
            else:
                j = s.find(close, i)
                if j >= 0:
                    return j + len(close), j, j + len(close)
                return n - held_tail(s, i, (close,)), None, None
        return i, None, None

class Grammar:
    """One text format's knowledge: where its regions start and end, and what a region holds.

    Subclasses set ``name``, ``markers`` (the strings that open a region) and override
    :meth:`end_scanner`, :meth:`parse`, :meth:`forming` and :meth:`render`. A format whose
    call may also stand at the very start of the output without a marker (Llama 3's bare JSON,
    the pythonic list) overrides :meth:`opens_at_start`.
    """

    name = ""
    markers: tuple[str, ...] = ()

    def opens_at_start(self, s: str, i: int) -> int | None:
        """At the start of the output (``s[i:]`` after leading white space): the index where a
        region starts (its body), -1 when the output is prose, None when it cannot be told yet.
        Default: a region starts only at a marker."""
        return -1

    def end_scanner(self, marker: str) -> EndScanner:
        raise NotImplementedError

    def parse(self, body: str, closed: bool, marker: str) -> list[ToolCall]:
        """The calls of one region (``closed`` False: the text ended inside it)."""
        raise NotImplementedError

    def forming(self, body: str, marker: str) -> str | None:
        """The first call's name as far as it has arrived in an open region's body, or None."""
        return None

    def render(self, calls: Sequence[ToolCall]) -> str:
        """Text that :meth:`parse` reads back as ``calls``."""
        raise NotImplementedError

    def render_result(self, record: ToolCallRecord) -> str:
        """One tool result as the user turn of a text-style continuation carries it."""
        payload: dict[str, Any] = {"name": record.call.name, "content": record.result}
        if record.is_error:
            payload["error"] = True
        return json.dumps(payload, ensure_ascii=False)


_TEXT, _REGION, _START = range(3)


class Scanner:
    """Splits a format's text into prose and regions, one piece at a time, in linear time.

    ``feed(piece)`` returns the prose the piece completes. What may still turn into a marker
    (or, at the output's start, into a call) is held back until a later piece decides it; at
    the end of the text it stays held back, in ``content_text`` as in the display."""

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self.mode = _START
        self.held = ""
        self.offset = 0  # index of held[0] in the whole text
        self.regions: list[Region] = []
        self.end: EndScanner | None = None

    def feed(self, piece: str) -> str:
        s, base = self.held + piece, self.offset
        out: list[str] = []
        i, hold = 0, False
        while i < len(s) and not hold:
            if self.mode == _START:
                at = self.grammar.opens_at_start(s, i)
                if at is None:
                    hold = True
                elif at < 0:
                    self.mode = _TEXT
                else:
                    self._open(base + at, base + at, "")
                    i = at
            elif self.mode == _TEXT:
                i, hold = self._text(s, i, base, out)
            else:
                resume, body_end, stop = self.end.feed(s, i)  # type: ignore[union-attr]
                if stop is None:
                    i, hold = resume, True
                else:
                    region = self.regions[-1]
                    region.body_end, region.stop = base + body_end, base + stop  # type: ignore[operator]
                    self.mode, self.end, i = _TEXT, None, stop
        self.held, self.offset = s[i:], base + i
        return "".join(out)

    def _text(self, s: str, i: int, base: int, out: list[str]) -> tuple[int, bool]:
        markers = self.grammar.markers
        found = [(j, m) for m in markers if (j := s.find(m, i)) >= 0]
        if not found:
            keep = held_tail(s, i, markers)
            out.append(s[i : len(s) - keep])
            return len(s) - keep, keep > 0
        j, marker = min(found, key=lambda f: (f[0], -len(f[1])))
        out.append(s[i:j])
        self._open(base + j, base + j + len(marker), marker)
        return j + len(marker), False

    def _open(self, start: int, body: int, marker: str) -> None:
        self.regions.append(Region(start, body, marker=marker))
        self.end = self.grammar.end_scanner(marker)
        self.mode = _REGION


# Keys that mark a dict as a native envelope (or a native message with calls), never a
# content-only chat message (as text-json reads them: docs/spec.md, text-json).
_ENVELOPE_KEYS = frozenset({"tool_calls", "function_call", "type", "object", "choices", "output"})


def content_only(shape: object) -> bool:
    """Is ``shape`` a chat message that holds only text (string content, no envelope keys)?"""
    return (isinstance(shape, dict) and isinstance(shape.get("content"), str)
            and not any(key in shape for key in _ENVELOPE_KEYS))


def scan(grammar: Grammar, text: str) -> tuple[str, list[Region]]:
    """The prose and the regions of a whole text."""
    scanner = Scanner(grammar)
    prose = scanner.feed(text)
    return prose, scanner.regions


def partial_json_string(text: str, quote: int) -> str | None:
    """The decoded prefix of a JSON string that starts at ``quote`` and may run to the text's
    end: None where no string starts there; a trailing half escape or a high surrogate whose
    other half has not arrived is left out, so successive prefixes only grow."""
    if text[quote : quote + 1] != '"':
        return None
    body = re.match(r'(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*', text[quote + 1 :]).group()
    try:
        value: str = DECODER.decode(f'"{body}"')
    except ValueError:
        return None
    if value and "\ud800" <= value[-1] <= "\udbff":
        value = value[:-1]
    return value


def arguments_of(value: Any, what: str) -> tuple[dict[str, Any], str | None]:
    """Arguments as a call carries them: an object; absent or null give ``{}``; a string
    holding a JSON object is that object (models that serialize their arguments); anything
    else is an error (docs/spec.md C2, C3)."""
    if value is None:
        return {}, None
    if isinstance(value, dict):
        return value, None
    if isinstance(value, str):
        if not value.strip():
            return {}, None
        try:
            parsed = DECODER.decode(value)
        except (ValueError, RecursionError) as exc:
            return {}, f"{what}: the arguments string is not JSON ({exc})"
        if isinstance(parsed, dict):
            return parsed, None
        return {}, f"{what}: the arguments string holds a JSON {type(parsed).__name__}, not an object"
    return {}, f"{what}: arguments must be a JSON object, not {type(value).__name__}"


class MarkedTextStrategy:
    """A text strategy for one format of marked regions (the format's :class:`Grammar`).

    The wire is plain ``str`` chunks and the native message is the text itself. Subclasses
    set ``grammar``; ``name`` is the grammar's."""

    name: str
    grammar: Grammar
    leaks_into_text = False

    def recognizes(self, shape: object) -> bool:
        """A ``str`` (the text wire and its message), or a content-only chat message (string
        content, no envelope keys): a server without a tool parser returns the format's text as
        such a message, and the text strategy is its extractor (ADR-0001). Never raises."""
        try:
            return isinstance(shape, str) or content_only(shape)
        except Exception:
            return False

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Append a text chunk; return the prose it completes (regions are not prose)."""
        if not isinstance(chunk, str):
            raise MalformedChunk(f"{self.name}: a text stream carries str chunks, got {describe(chunk)}")
        scanner = acc.state.get("scanner")
        if scanner is None:
            scanner = acc.state["scanner"] = Scanner(self.grammar)
            acc.root = ""
        acc.append(None, None, chunk)
        return scanner.feed(chunk)

    def is_done(self, chunk: object) -> bool:
        """Always False: a text stream ends when its transport ends."""
        return False

    def content_text(self, message: object) -> str:
        """The prose around the regions (what the display showed)."""
        return scan(self.grammar, self._text(message))[0]

    def extract(self, message: object) -> list[ToolCall]:
        """The calls of every region, in order; an unclosed region's calls carry ``error``."""
        text = self._text(message)
        calls: list[ToolCall] = []
        for region in scan(self.grammar, text)[1]:
            body = text[region.body : region.body_end if region.closed else len(text)]
            calls.extend(self.grammar.parse(body, region.closed, region.marker))
        return calls

    def forming_name(self, message: object) -> str | None:
        """The first call's name as far as it has arrived, or None."""
        text = self._text(message)
        regions = scan(self.grammar, text)[1]
        if not regions:
            return None
        first = regions[0]
        if first.closed:
            calls = self.grammar.parse(text[first.body : first.body_end], True, first.marker)
            return next((c.name for c in calls if c.name), None)
        return self.grammar.forming(text[first.body :], first.marker) or None

    def render(self, calls: Iterable[ToolCall]) -> str:
        """Text that :meth:`extract` reads back as ``calls`` (the format carries no ids)."""
        calls = list(calls)
        for call in calls:
            if not isinstance(call, ToolCall):
                raise ValueError(f"{self.name}: render takes ToolCall objects, got {type(call).__name__}")
        return self.grammar.render(calls)

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The assistant text, then one user message with every result, in record order; each
        record must answer a call of the text (by name and arguments: the text has no ids)."""
        text = self._text(message)
        records = require_records(records, self.name)
        calls = [c for c in self.extract(text) if c.error is None]
        for record in records:
            if not any(c.name == record.call.name and c.arguments == record.call.arguments for c in calls):
                raise ValueError(f"{self.name}: the result for {record.call.name!r} answers no call in the assistant text")
        turn = [{"role": "assistant", "content": text}]
        if records:
            turn.append({"role": "user", "content": "\n".join(self.grammar.render_result(r) for r in records)})
        return turn

    def _text(self, message: object) -> str:
        if isinstance(message, str):
            return message
        if message is None:
            return ""
        if content_only(message):
            return message["content"]  # type: ignore[index]
        raise ValueError(f"{self.name}: the message is the text (a str), got {describe(message)}")
