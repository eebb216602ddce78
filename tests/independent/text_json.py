"""A text-json strategy written from docs/spec.md and the public API alone.

The wire is plain ``str`` chunks; the message is the text. A call is a JSON object in the
text: ``{"tool": NAME, "arguments": {...}}`` (arguments optional) or ``{"name": NAME,
"arguments": {...}}`` (arguments required, so ``{"name": "Alice"}`` is data); ``"parameters"``
may stand for ``"arguments"``; a string ``"id"`` is the call's id. Objects that start a
JSON value in the text count, alone or as elements of a top-level array; an object inside
another object is data. A call-looking object that is cut off or malformed gives a call
with ``error``. Parsing uses Python's JSON decoder for whole values and jiter's partial
mode for what a broken or unfinished object holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import jiter

from mcs_conformance import Accumulator, MalformedChunk, ToolCall, ToolCallRecord, require_records

NAME = "text-json"
_ARGUMENT_KEYS = ("arguments", "parameters")
_ENVELOPE_KEYS = ("tool_calls", "function_call", "type", "object", "choices", "output")
_CANDIDATE = re.compile(r"[\[{]")
_WS = " \t\r\n"


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


_DECODER = json.JSONDecoder(strict=False, parse_constant=_no_constant)


def _skip(text: str, start: int) -> int:
    """The index after the bracketed value at ``start`` (strings respected), or the text's end."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _partial(text: str, trailing: bool = False) -> dict | None:
    """What an unfinished or broken object holds so far (jiter's partial parse), or None.

    ``trailing`` keeps a string cut short (a name still arriving); without it only whole
    strings count. When the text cannot be parsed even partially (a value nested too
    deeply, a number too long), the members before the last top-level comma are read.
    """
    mode = "trailing-strings" if trailing else True
    for candidate in (text, text[: _last_member_end(text)]):
        try:
            value = jiter.from_json(candidate.encode("utf-8", "surrogatepass"), partial_mode=mode)
        except ValueError:
            continue
        return value if isinstance(value, dict) else None
    return None


def _last_member_end(text: str) -> int:
    """The index of the last comma at the object's own level (strings respected), or 1."""
    depth, i, n, last = 0, 0, len(text), 1
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 1:
            last = i
        i += 1
    return last


def _arguments_started(source: str) -> bool:
    """Has an arguments (or parameters) key started at the object's own level?"""
    depth, i, n = 0, 0, len(source)
    while i < n:
        c = source[i]
        if c == '"':
            end = i + 1
            while end < n and source[end] != '"':
                end += 2 if source[end] == "\\" else 1
            if depth == 1 and source[i + 1:end] in _ARGUMENT_KEYS and source[i - 1 : i].strip(_WS) in ("", ",", "{") \
                    and re.match(r"\s*(:|\Z)", source[end + 1 :]):
                return True
            i = end
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        i += 1
    return False


def _name(obj: dict, arguments_started: bool = False) -> str | None:
    """The call's name when ``obj`` is call syntax, else None."""
    if isinstance(obj.get("tool"), str):
        return obj["tool"]
    if isinstance(obj.get("name"), str) and (arguments_started or any(k in obj for k in _ARGUMENT_KEYS)):
        return obj["name"]
    return None


def _call(obj: dict) -> ToolCall | None:
    name = _name(obj)
    if name is None:
        return None
    call_id = obj.get("id") if isinstance(obj.get("id"), str) else None
    if not name:
        return ToolCall(name="", id=call_id, error="the call's name is empty")
    key = next((k for k in _ARGUMENT_KEYS if k in obj), None)
    value = obj.get(key) if key else None
    raw = None if key is None else (value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    if value is None:
        return ToolCall(name=name, id=call_id, raw_arguments=raw)
    if isinstance(value, str):
        if not value.strip():
            return ToolCall(name=name, id=call_id, raw_arguments=raw)
        try:
            value = _DECODER.decode(value)
        except (ValueError, RecursionError) as exc:
            return ToolCall(name=name, id=call_id, raw_arguments=raw, error=f"the arguments string is not JSON: {exc}")
    if not isinstance(value, dict):
        return ToolCall(name=name, id=call_id, raw_arguments=raw,
                        error=f"the arguments are a JSON {type(value).__name__}, not an object")
    return ToolCall(name=name, arguments=value, id=call_id, raw_arguments=raw)


def _objects(text: str) -> Iterator[tuple[str, Any]]:
    """Every top-level value that may hold a call, in order: ("whole", value) for a value
    read whole, ("broken", (partial object, complete?)) for an object that could not be."""
    pos = 0
    while (m := _CANDIDATE.search(text, pos)) is not None:
        start = m.start()
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            if text[start] == "{":
                cut = exc.pos >= len(text) or exc.msg.startswith("Unterminated string")
                yield "broken", (text[start:] if cut else text[start:exc.pos], cut)
            pos = _resume(text, start, exc.pos)
            continue
        except (ValueError, RecursionError):  # nested too deeply, a number too long, NaN
            end = _skip(text, start)
            if text[start] == "{":
                yield "broken", (text[start:end], False)
            pos = end
            continue
        yield "whole", value
        pos = end


def _resume(text: str, start: int, failed_at: int) -> int:
    """Where to look for the next call after the object at ``start`` failed at ``failed_at``.

    A stray quote in prose can make a string swallow the ``{`` of a real call: when the
    failure comes right after a string whose last character is ``{``, the scan resumes there.
    """
    i = failed_at - 1
    while i > start and text[i] in _WS:
        i -= 1
    if i > start and text[i] == '"':
        j = i - 1
        while j > start and text[j] in _WS:
            j -= 1
        if j > start and text[j] == "{":
            return j
    return max(failed_at, start + 1)


class Strategy:
    name = NAME
    leaks_into_text = False

    def recognizes(self, shape: object) -> bool:
        try:
            return isinstance(shape, str) or (isinstance(shape, dict) and isinstance(shape.get("content"), str)
                                              and not any(k in shape for k in _ENVELOPE_KEYS))
        except Exception:
            return False

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        if not isinstance(chunk, str):
            raise MalformedChunk(f"{NAME}: a text stream carries str chunks, got {type(chunk).__name__}")
        acc.append(None, None, chunk)
        return chunk

    def is_done(self, chunk: object) -> bool:
        return False  # a text stream ends when its transport ends

    def content_text(self, message: object) -> str:
        if message is None:
            return ""
        if isinstance(message, str):
            return message
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            return message["content"]
        raise ValueError(f"{NAME}: expected text or a content-only message, got {type(message).__name__}")

    def extract(self, message: object) -> list[ToolCall]:
        calls: list[ToolCall] = []
        for kind, value in _objects(self.content_text(message)):
            if kind == "broken":
                source, cut = value
                obj = _partial(source)
                name = _name(obj, _arguments_started(source)) if obj is not None else None
                if name is not None:
                    call_id = obj.get("id") if isinstance(obj.get("id"), str) else None
                    calls.append(ToolCall(name=name, id=call_id,
                                          error=f"the call {name!r} is {'cut off' if cut else 'malformed'}"))
                continue
            for obj in value if isinstance(value, list) else [value]:
                call = _call(obj) if isinstance(obj, dict) else None
                if call is not None:
                    calls.append(call)
        return calls

    def forming_name(self, message: object) -> str | None:
        for kind, value in _objects(self.content_text(message)):
            if kind == "whole":
                for obj in value if isinstance(value, list) else [value]:
                    if isinstance(obj, dict) and _name(obj) is not None:
                        return _name(obj)
                continue
            source, cut = value
            obj = _partial(source, trailing=True)
            if obj is not None:
                name = _name(obj, _arguments_started(source))
                if name is not None:
                    return name
        return None

    def render(self, calls: Iterable[ToolCall]) -> str:
        lines = []
        for call in calls:
            obj: dict[str, Any] = {"tool": call.name}
            if call.id is not None:
                obj["id"] = call.id
            obj["arguments"] = call.arguments
            lines.append(json.dumps(obj, ensure_ascii=False, allow_nan=False))
        return "\n".join(lines)

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        text = self.content_text(message)
        records = require_records(records, NAME)
        calls = [c for c in self.extract(text) if c.executable]
        lines = []
        for record in records:
            wanted = record.call
            if not any((c.id == wanted.id) if wanted.id is not None else (c.name == wanted.name and c.arguments == wanted.arguments)
                       for c in calls):
                raise ValueError(f"{NAME}: the result for {wanted.name!r} (id {wanted.id!r}) answers no call of the text")
            result: dict[str, Any] = {"tool_result": wanted.name}
            if wanted.id is not None:
                result["id"] = wanted.id
            result["result"] = record.result
            if record.is_error:
                result["is_error"] = True
            lines.append(json.dumps(result, ensure_ascii=False))
        return [{"role": "assistant", "content": text}, {"role": "user", "content": "\n".join(lines)}]
