"""A Hermes tool-call strategy, built only on mcs-conformance's public API.

Hermes-style models (NousResearch Hermes, Qwen and others served by vLLM without a tool
parser) write each call into their text::

    Sure, let me check.<tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

The wire is plain ``str`` chunks and the native message is the text itself. Every block
becomes one call, in order; the text before, between and after the blocks is the content.

A block ends where its JSON object ends, never at the first ``</tool_call>`` in the text:
an argument may hold the closing tag as data. Inside a block the scanner follows JSON
strings and brackets; only a closing tag outside every string ends it. A tag split across
chunks is held back until the next chunk shows whether it is one.

A block that is not one JSON object with a string ``name`` gives a call with ``error``; so
does a block that the text ends inside (a stream cut short, or a model that never closed
it): such a call is never executable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mcs_conformance import Accumulator, MalformedChunk, ToolCall, ToolCallRecord

__all__ = ["HermesStrategy"]

_OPEN = "<tool_call>"
_CLOSE = "</tool_call>"
_WS = " \t\r\n"
_DECODER = json.JSONDecoder(strict=False)  # models write raw newlines inside strings
_JSON_STOPS = re.compile(r'[{}\[\]"<]')
_STRING_STOPS = re.compile(r'["\\]')
_NAME_HEAD = re.compile(r'\{[ \t\r\n]*"name"[ \t\r\n]*:[ \t\r\n]*"')
_STRING_BODY = re.compile(r'(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')

_TEXT, _START, _JSON, _AFTER, _RAW = range(5)


@dataclass
class _Block:
    """Where one ``<tool_call>`` block sits in the text (indexes into the whole text)."""

    open_end: int
    json_start: int | None = None
    json_end: int | None = None
    close: int | None = None  # index of the closing tag; None while the block is open
    junk: bool = False  # the block holds something other than one JSON object


class _Scanner:
    """Splits Hermes text into prose and blocks, one piece at a time, in linear time.

    ``feed`` returns the prose the piece completes. At most one tag's length of text is
    held back between pieces (a possible tag start), so feeding never rescans.
    """

    def __init__(self) -> None:
        self.mode = _TEXT
        self.held = ""
        self.offset = 0  # index of held[0] in the whole text
        self.depth = 0
        self.in_string = False
        self.escape = False
        self.blocks: list[_Block] = []

    def feed(self, piece: str) -> str:
        s, base = self.held + piece, self.offset
        out: list[str] = []
        i, hold = 0, False
        while i < len(s) and not hold:
            if self.mode == _TEXT:
                i, hold = self._text(s, i, base, out)
            elif self.mode == _START:
                i = self._start(s, i, base)
            elif self.mode == _JSON:
                i, hold = self._json(s, i, base)
            elif self.mode == _AFTER:
                i, hold = self._after(s, i, base)
            else:
                i, hold = self._raw(s, i, base)
        self.held, self.offset = s[i:], base + i
        return "".join(out)

    def _text(self, s: str, i: int, base: int, out: list[str]) -> tuple[int, bool]:
        j = s.find(_OPEN, i)
        if j < 0:
            keep = _partial_tail(s, i, _OPEN)
            out.append(s[i : len(s) - keep])
            return len(s) - keep, keep > 0
        out.append(s[i:j])
        self.blocks.append(_Block(open_end=base + j + len(_OPEN)))
        self.mode = _START
        return j + len(_OPEN), False

    def _start(self, s: str, i: int, base: int) -> int:
        while i < len(s) and s[i] in _WS:
            i += 1
        if i < len(s):
            if s[i] == "{":
                self.blocks[-1].json_start = base + i
                self.mode, self.depth, self.in_string, self.escape = _JSON, 0, False, False
            else:
                self.blocks[-1].junk = True
                self.mode = _RAW
        return i

    def _json(self, s: str, i: int, base: int) -> tuple[int, bool]:
        n = len(s)
        while i < n:
            if self.in_string:
                if self.escape:
                    self.escape, i = False, i + 1
                    continue
                m = _STRING_STOPS.search(s, i)
                if m is None:
                    return n, False
                i = m.end()
                if m.group() == "\\":
                    self.escape = True
                else:
                    self.in_string = False
                continue
            m = _JSON_STOPS.search(s, i)
            if m is None:
                return n, False
            k, c = m.start(), m.group()
            i = k + 1
            if c == '"':
                self.in_string = True
            elif c in "{[":
                self.depth += 1
            elif c in "}]":
                self.depth -= 1
                if self.depth == 0:
                    self.blocks[-1].json_end = base + i
                    self.mode = _AFTER
                    return i, False
            elif s.startswith(_CLOSE, k):  # "<" outside a string is never JSON
                self.blocks[-1].junk = True
                return self._close(base + k, k), False
            elif _CLOSE.startswith(s[k:]):
                return k, True
        return n, False

    def _after(self, s: str, i: int, base: int) -> tuple[int, bool]:
        while i < len(s) and s[i] in _WS:
            i += 1
        if i == len(s):
            return i, False
        if s.startswith(_CLOSE, i):
            return self._close(base + i, i), False
        if _CLOSE.startswith(s[i:]):
            return i, True
        self.blocks[-1].junk = True
        self.mode = _RAW
        return i, False

    def _raw(self, s: str, i: int, base: int) -> tuple[int, bool]:
        j = s.find(_CLOSE, i)
        if j >= 0:
            return self._close(base + j, j), False
        keep = _partial_tail(s, i, _CLOSE)
        return len(s) - keep, keep > 0

    def _close(self, absolute: int, local: int) -> int:
        self.blocks[-1].close = absolute
        self.mode = _TEXT
        return local + len(_CLOSE)


def _partial_tail(s: str, i: int, tag: str) -> int:
    """The length of the longest end of ``s[i:]`` that is a proper start of ``tag``."""
    for size in range(min(len(tag) - 1, len(s) - i), 0, -1):
        if tag.startswith(s[len(s) - size :]):
            return size
    return 0


def _scan(text: str) -> tuple[str, list[_Block]]:
    scanner = _Scanner()
    prose = scanner.feed(text)
    return prose, scanner.blocks


class HermesStrategy:
    """Hermes ``<tool_call>`` blocks in plain text: a text strategy (it claims ``str``)."""

    name = "hermes"
    leaks_into_text = False

    def recognizes(self, shape: object) -> bool:
        """Any ``str`` (the text wire and its message), and a content-only chat message: what an
        OpenAI-compatible server without a tool parser returns, which a text-mode driver's
        chain hands its text strategy (ADR-0001). Never raises."""
        return isinstance(shape, str) or _content_only(shape)

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Append a text chunk; return the prose it completes (blocks are not prose)."""
        if not isinstance(chunk, str):
            raise MalformedChunk(f"hermes: a text stream carries str chunks, got {type(chunk).__name__}")
        scanner = acc.state.get("scanner")
        if scanner is None:
            scanner = acc.state["scanner"] = _Scanner()
            acc.root = ""
        acc.append(None, None, chunk)
        return scanner.feed(chunk)

    def is_done(self, chunk: object) -> bool:
        """Always False: a text stream ends when its transport ends."""
        return False

    def content_text(self, message: object) -> str:
        """The prose around the blocks. A possible tag start at the very end is held back."""
        return _scan(_text(message))[0]

    def extract(self, message: object) -> list[ToolCall]:
        """One call per block, in order; broken or unclosed blocks give calls with ``error``."""
        text = _text(message)
        return [_call(text, block) for block in _scan(text)[1]]

    def forming_name(self, message: object) -> str | None:
        """The first block's name as far as it has arrived, or None."""
        text = _text(message)
        blocks = _scan(text)[1]
        if not blocks or blocks[0].json_start is None:
            return None
        obj = _decoded(text, blocks[0])
        name = obj.get("name") if isinstance(obj, dict) else _partial_name(text, blocks[0].json_start)
        return name if isinstance(name, str) and name else None

    def render(self, calls: Iterable[ToolCall]) -> str:
        """Blocks that :meth:`extract` reads back as ``calls`` (ids are not part of the format)."""
        return "\n".join(
            f"{_OPEN}\n{json.dumps({'name': c.name, 'arguments': c.arguments}, ensure_ascii=False)}\n{_CLOSE}"
            for c in calls
        )

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The assistant text, then one user message with a ``<tool_response>`` per record."""
        text = _text(message)
        calls = [c for c in self.extract(text) if c.error is None]
        for record in records:
            if not isinstance(record, ToolCallRecord):
                raise ValueError(f"hermes: expected ToolCallRecord objects, got {type(record).__name__}")
            if not any(c.name == record.call.name and c.arguments == record.call.arguments for c in calls):
                raise ValueError(f"hermes: the result for {record.call.name!r} answers no call in the assistant text")
        turn = [{"role": "assistant", "content": text}]
        if records:
            turn.append({"role": "user", "content": "\n".join(_response(r) for r in records)})
        return turn


_ENVELOPE_KEYS = frozenset({"tool_calls", "function_call", "type", "object", "choices", "output"})


def _content_only(shape: object) -> bool:
    """A chat message that holds only text: string content, no key of a native envelope."""
    return (isinstance(shape, dict) and isinstance(shape.get("content"), str)
            and not any(key in shape for key in _ENVELOPE_KEYS))


def _text(message: object) -> str:
    if isinstance(message, str):
        return message
    if message is None:
        return ""
    if _content_only(message):
        return message["content"]
    raise ValueError(f"hermes: the message is the text (a str), got {type(message).__name__}")


def _decoded(text: str, block: _Block) -> Any:
    """The block's JSON value, or None when it is incomplete or invalid."""
    if block.json_start is None or block.json_end is None:
        return None
    try:
        return _DECODER.decode(text[block.json_start : block.json_end])
    except ValueError:
        return None


def _partial_name(text: str, start: int) -> str | None:
    """The name string of ``{"name": "...`` at ``start``, as far as whole characters have arrived."""
    head = _NAME_HEAD.match(text, start)
    if head is None:
        return None
    body = _STRING_BODY.match(text, head.end()).group()
    name = _DECODER.decode(f'"{body}"')
    if name and "\ud800" <= name[-1] <= "\udbff":
        name = name[:-1]  # half of a surrogate pair: the other half is still to come
    return name


def _call(text: str, block: _Block) -> ToolCall:
    obj = _decoded(text, block)
    name = obj.get("name") if isinstance(obj, dict) else None
    if not isinstance(name, str):
        name = (_partial_name(text, block.json_start) if obj is None and block.json_start is not None else None) or ""
    if block.close is None:
        return ToolCall(name=name, error="the <tool_call> block is not closed: the text ends inside it")
    if block.json_start is None:
        return ToolCall(name=name, error="the <tool_call> block holds no JSON object")
    if block.junk:
        return ToolCall(name=name, error="the <tool_call> block holds more than one JSON object")
    if obj is None:
        return ToolCall(name=name, error=f"the <tool_call> block holds invalid JSON: {_why_invalid(text, block)}")
    if not isinstance(obj, dict):
        return ToolCall(name="", error=f"the <tool_call> block holds a JSON {type(obj).__name__}, not an object")
    if not name:
        return ToolCall(name="", error='the <tool_call> object has no "name" string')
    arguments, raw, problem = _arguments(obj)
    return ToolCall(name=name, arguments=arguments, raw_arguments=raw, error=problem)


def _why_invalid(text: str, block: _Block) -> str:
    try:
        _DECODER.decode(text[block.json_start : block.json_end])
    except ValueError as exc:
        return str(exc)
    return "unknown"


def _arguments(obj: dict[str, Any]) -> tuple[dict[str, Any], str | None, str | None]:
    """(arguments, raw text when they came as a string, error)."""
    args = obj.get("arguments")
    if args is None:
        return {}, None, None
    if isinstance(args, dict):
        return args, None, None
    if isinstance(args, str):
        if not args.strip():
            return {}, args, None
        try:
            parsed = _DECODER.decode(args)
        except ValueError as exc:
            return {}, args, f"the string arguments are not JSON: {exc}"
        if isinstance(parsed, dict):
            return parsed, args, None
        return {}, args, f"the string arguments hold a JSON {type(parsed).__name__}, not an object"
    return {}, None, f"arguments must be a JSON object, got {type(args).__name__}"


def _response(record: ToolCallRecord) -> str:
    payload: dict[str, Any] = {"name": record.call.name, "content": record.result}
    if record.is_error:
        payload["error"] = True
    return f"<tool_response>\n{json.dumps(payload, ensure_ascii=False)}\n</tool_response>"
