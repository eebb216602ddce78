"""The JSON text codec: tool calls written as JSON objects inside free text.

Call syntax (one JSON object per call, anywhere in the text):

* ``{"tool": NAME, "arguments": {...}}``: ``arguments`` is optional (``{}`` when absent),
  ``"parameters"`` is accepted in its place;
* ``{"name": NAME, "arguments": {...}}`` (or ``"parameters"``): with the ``name`` key the
  arguments key is REQUIRED, so an ordinary object such as ``{"name": "Alice", "age": 3}``
  is not a call;
* other keys are allowed; a string ``"id"`` is the call id;
* ``arguments`` may be an object, absent or ``null`` (both ``{}``), or a string holding a
  JSON object (string-serialized arguments; the empty string gives ``{}``). Anything else
  gives a call with ``error``.

Calls are found wherever they sit: in markdown code fences, in a JSON array of calls,
back to back, between prose, inside ``<tool_call>`` tags. Only objects that start a JSON
value in the text count: an object nested inside another object's value is part of that
value (a call's arguments may hold call-looking objects; they are data). A call-looking
object that is cut off or malformed, and whose name can be read, gives a call with
``error`` (never executable); the scan then goes on after the broken part.

Strings may hold raw control characters (newlines in code arguments are common in model
output); everything else is strict JSON.

Scanning is linear in the text's length for every input. Candidate starts (``{`` then
``"``) are found with a regex that cannot backtrack across the text, each candidate is
read once with the C JSON scanner, and the scan resumes after the value it read, or after
the point where reading failed, never at the next brace inside the failed part.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..protocol import ToolCall, ToolCallRecord
from ..wire import reject_json_constant

__all__ = ["JsonCodec"]

# Raw control characters in strings are read (strict=False); NaN and Infinity are not JSON.
_DECODER = json.JSONDecoder(strict=False, parse_constant=reject_json_constant)
_WS = re.compile(r"[ \t\n\r]*")
_START = re.compile(r'\{[ \t\n\r]*"')
_STRUCT = re.compile(r'[\[\]{}"]')
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
_SCALAR = re.compile(r'[^,\]}\s"\[{]*')
# A valid JSON string body as far as it goes (unrolled, so matching is linear).
_STRING_BODY = re.compile(r'[^"\\]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\]*)*')
_ESCAPE_PREFIX = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?\Z")
_ARGUMENT_KEYS = ("arguments", "parameters")
_JSON_WS = " \t\n\r"


# -- the three scanning primitives (module functions so a test can count their work) ------
def _next_start(text: str, pos: int) -> int:
    """The index of the next candidate call start (``{`` then ``"``) at or after pos, or -1."""
    match = _START.search(text, pos)
    return -1 if match is None else match.start()


def _decode(text: str, pos: int) -> tuple[Any, int]:
    """One JSON value starting exactly at pos, and the index after it."""
    return _DECODER.raw_decode(text, pos)


def _skip_value(text: str, pos: int) -> int:
    """The index after the value starting at pos, by bracket counting (strings respected).

    Used where the JSON scanner gives no position (nesting too deep, a number too long,
    NaN): the scan must still move past the whole value rather than into it. Such a value
    is an array, an object or a bare scalar, never a string (the scanner reads every string
    to its end or to the text's end, and says where).
    """
    if text[pos] not in "[{":
        return _SCALAR.match(text, pos).end()  # a number or NaN/Infinity: at least one character
    depth = 0
    while True:
        match = _STRUCT.search(text, pos)
        if match is None:
            return len(text)
        pos = match.start()
        char = text[pos]
        if char == '"':
            pos = _STRING.match(text, pos).end()
            continue
        depth += 1 if char in "[{" else -1
        pos += 1
        if depth <= 0:
            return pos


# -- reading one candidate object ---------------------------------------------------------
@dataclass
class _Read:
    """What was read of the object at ``start``: its top-level members, as far as they go."""

    start: int
    fields: dict[str, tuple[Any, int, int]] = field(default_factory=dict)  # key -> (value, from, to)
    complete: bool = False
    stop: int = 0  # where scanning resumes
    error: str | None = None
    pending: str | None = None  # the key whose value could not be read
    pending_pos: int = 0


def _read_object(text: str, start: int) -> _Read:
    """Read the members of the object at ``start`` one by one, keeping each value's span."""
    read = _Read(start)
    pos = _WS.match(text, start + 1).end()
    while True:
        if text[pos : pos + 1] != '"':
            return _fail(text, read, pos, "expected a key string")
        try:
            key, pos = _decode(text, pos)
        except json.JSONDecodeError as exc:  # a string raises nothing else
            cut = exc.msg.startswith("Unterminated string")
            return _fail(text, read, exc.pos, f"bad key: {exc.msg}", cut=cut)
        key_end = pos
        pos = _WS.match(text, pos).end()
        if text[pos : pos + 1] != ":":
            return _fail(text, read, pos, f"expected ':' after key {key!r}", after_string=key_end)
        pos = _WS.match(text, pos + 1).end()
        value_start = pos
        try:
            value, pos = _decode(text, pos)
        except json.JSONDecodeError as exc:
            read.pending, read.pending_pos = key, value_start
            cut = exc.msg.startswith("Unterminated string")
            return _fail(text, read, exc.pos, f"value of {key!r}: {_reason(exc)}", cut=cut)
        except (ValueError, RecursionError) as exc:  # too deep, or a number too long
            read.pending, read.pending_pos = key, value_start
            return _fail(text, read, _skip_value(text, value_start), f"value of {key!r}: {_reason(exc)}")
        read.fields[key] = (value, value_start, pos)
        value_end = pos
        pos = _WS.match(text, pos).end()
        char = text[pos : pos + 1]
        if char == ",":
            pos = _WS.match(text, pos + 1).end()
            continue
        if char == "}":
            read.complete, read.stop = True, pos + 1
            return read
        after = value_end if isinstance(value, str) else None
        return _fail(text, read, pos, f"expected ',' or '}}' after the value of {key!r}", after_string=after)


def _fail(
    text: str, read: _Read, pos: int, message: str, after_string: int | None = None, cut: bool = False
) -> _Read:
    """Mark the read failed at ``pos``; choose where scanning resumes.

    ``pos`` is always past ``read.start`` (every failure lies at or after the first key's
    quote), so the scan always moves on.
    """
    if cut or pos >= len(text):
        read.error = "cut off (the text ends inside it)"
    else:
        read.error = f"malformed (at character {pos}: {message})"
    stop = pos
    if after_string is not None:
        # A stray quote in prose can make a string swallow the `{` of a real call. A
        # candidate can hide inside a string only at its tail (`{`, then the closing
        # quote), so resume there; the rest of the string is not scanned again.
        j = after_string - 2
        while j > read.start and text[j] in _JSON_WS:
            j -= 1
        if j > read.start and text[j] == "{":
            stop = j
    read.stop = stop
    return read


def _reason(exc: BaseException) -> str:
    """Why a value could not be read: the JSON error, nesting, or Python's own refusal (an
    integer of too many digits, NaN or Infinity), each with a message of its own."""
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc)


# -- scanning a text ----------------------------------------------------------------------
class _Doc(str):
    """The text under scan, once a JSON error has occurred in it.

    ``JSONDecodeError`` computes a line and column by counting newlines from the start of
    the document, so every error would cost time proportional to its position and many
    errors in a long text would cost quadratic time. The codec never reads those two
    numbers; this document answers the two questions in constant time.
    """

    __slots__ = ()

    def count(self, *args: Any) -> int:  # type: ignore[override]
        return 0

    def rfind(self, *args: Any) -> int:  # type: ignore[override]
        return -1


def _reads(text: str) -> Iterator[tuple[str, _Read]]:
    """Every candidate object of ``text``, read in order, each with the text to slice."""
    pos = 0
    while (start := _next_start(text, pos)) >= 0:
        read = _read_object(text, start)
        yield text, read
        if read.error is not None and not isinstance(text, _Doc):
            text = _Doc(text)  # one copy per scan, after the first error
        pos = read.stop


# -- from a read object to a call ---------------------------------------------------------
def _string_field(read: _Read, key: str) -> str | None:
    entry = read.fields.get(key)
    return entry[0] if entry is not None and isinstance(entry[0], str) else None


def _call_name(read: _Read) -> str | None:
    """The call's name when the object is call syntax (as far as it was read), else None."""
    name = _string_field(read, "tool")
    if name is not None:
        return name
    name = _string_field(read, "name")
    if name is None:
        return None
    if any(k in read.fields for k in _ARGUMENT_KEYS) or read.pending in _ARGUMENT_KEYS:
        return name
    return None


def _call_from(text: str, read: _Read) -> ToolCall | None:
    """The call the object makes (possibly with ``error``), or None when it is no call."""
    name = _call_name(read)
    if name is None:
        return None
    call_id = _string_field(read, "id")
    if not read.complete:
        return ToolCall(name, {}, call_id, None, f"tool call {name!r} is {read.error}")
    if not name:
        return ToolCall(name, {}, call_id, None, "tool call with an empty name")
    entry = next((read.fields[k] for k in _ARGUMENT_KEYS if k in read.fields), None)
    if entry is None:
        return ToolCall(name, {}, call_id)
    value, begin, end = entry
    raw = text[begin:end]
    if isinstance(value, dict):
        return ToolCall(name, value, call_id, raw)
    if value is None:
        return ToolCall(name, {}, call_id, raw)
    if isinstance(value, str):
        arguments, error = _parse_argument_string(value)
        if error is not None:
            error = f"tool call {name!r}: {error}"
        return ToolCall(name, arguments, call_id, value, error)
    return ToolCall(
        name, {}, call_id, raw, f"tool call {name!r}: arguments must be a JSON object, not {_json_type(value)}"
    )


def _parse_argument_string(value: str) -> tuple[dict[str, Any], str | None]:
    """String-serialized arguments: the JSON object they hold, or an error."""
    if not value.strip():
        return {}, None
    try:
        parsed = _DECODER.decode(value)
    except (ValueError, RecursionError) as exc:
        return {}, f"arguments string is not valid JSON ({_reason(exc)})"
    if not isinstance(parsed, dict):
        return {}, f"arguments string holds {_json_type(parsed)}, not a JSON object"
    return parsed, None


def _json_type(value: Any) -> str:
    """The JSON type of a decoded value that is no object, as an error names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "a number"


def _partial_string(text: str, quote: int) -> str | None:
    """The decoded prefix of a string that starts at ``quote`` and runs to the text's end.

    None when no string starts there or the string is broken before the end. A trailing
    half escape is left out, and so is a high surrogate whose low half has not arrived,
    so successive prefixes of the text give successive prefixes of the final string.
    """
    if text[quote : quote + 1] != '"':
        return None
    body = _STRING_BODY.match(text, quote + 1)
    if body.end() < len(text) and not _ESCAPE_PREFIX.match(text, body.end()):
        return None
    value: str = _DECODER.decode('"' + body.group() + '"')
    if value and "\ud800" <= value[-1] <= "\udbff":
        value = value[:-1]
    return value


def _forming(text: str, read: _Read) -> str | None:
    """The name of the call forming in ``read`` as far as it has arrived, or None."""
    if read.complete:
        call = _call_from(text, read)
        return None if call is None else call.name
    if "tool" in read.fields:
        return _string_field(read, "tool")
    if read.pending == "tool":
        return _partial_string(text, read.pending_pos)
    arguments = {"arguments", "parameters"}
    if "name" in read.fields and (arguments & set(read.fields) or read.pending in arguments):
        return _string_field(read, "name")  # a "name" object is a call only once its arguments start
    return None


# -- the codec ------------------------------------------------------------------------------
class JsonCodec:
    """Format knowledge of the JSON call syntax: find, peek, render (module docstring)."""

    def find(self, text: str) -> list[ToolCall]:
        """Every call in ``text``, in order; broken call-looking objects give calls with ``error``."""
        _require_text(text)
        calls = (_call_from(doc, read) for doc, read in _reads(text))
        return [call for call in calls if call is not None]

    def forming_name(self, text: str) -> str | None:
        """The first call's name as far as it has arrived (``""`` right after the opening
        quote), or None when no call is forming.

        The ``tool`` key counts as soon as its value starts; the ``name`` key counts once
        the object's ``arguments`` (or ``parameters``) key has started, since without it
        the object is no call (``{"name": "Alice", "age": 3}``).
        """
        _require_text(text)
        for doc, read in _reads(text):
            name = _forming(doc, read)
            if name is not None:
                return name
        return None

    def render(self, calls: Iterable[ToolCall]) -> str:
        """Text that :meth:`find` reads back as equal calls (name, arguments, id): one
        ``{"tool": ..., "id": ..., "arguments": ...}`` object per call, one per line."""
        lines = []
        for call in calls:
            if not isinstance(call, ToolCall):
                raise ValueError(f"render: expected ToolCall objects, got {type(call).__name__}")
            obj: dict[str, Any] = {"tool": call.name}
            if call.id is not None:
                obj["id"] = call.id
            obj["arguments"] = call.arguments
            lines.append(_dumps(obj, f"tool call {call.name!r}"))
        return "\n".join(lines)

    def render_results(self, records: Iterable[ToolCallRecord]) -> str:
        """The tool results as text for the user turn: one JSON object per line.

        Each names the tool under ``tool_result`` (not ``tool``, so a result is never
        read back as a call), with the call's ``id`` when it has one, the ``result``, and
        ``is_error: true`` for failed calls.
        """
        lines = []
        for record in records:
            if not isinstance(record, ToolCallRecord):
                raise ValueError(f"render_results: expected ToolCallRecord objects, got {type(record).__name__}")
            obj: dict[str, Any] = {"tool_result": record.call.name}
            if record.call.id is not None:
                obj["id"] = record.call.id
            obj["result"] = record.result
            if record.is_error:
                obj["is_error"] = True
            lines.append(_dumps(obj, f"result of {record.call.name!r}"))
        return "\n".join(lines)


def _require_text(text: object) -> None:
    if not isinstance(text, str):
        raise ValueError(f"the JSON codec reads str, got {type(text).__name__}")


def _dumps(obj: dict[str, Any], what: str) -> str:
    try:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} cannot be written as JSON: {exc}") from exc
