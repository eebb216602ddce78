"""Anthropic Messages events: the partial tool input read as JSON while it streams
(:class:`_PartialInput`, the SDK's ``from_json(..., partial_mode=True)`` done incrementally),
the final input, and the checks that name a malformed event.
"""

from __future__ import annotations

from typing import Any
import re

import jiter

from ...accumulator import Accumulator
from ...errors import MalformedChunk
from ...wire import describe


_QUOTE_OR_BACKSLASH = re.compile(r'["\\]')


def _json_bytes(text: str) -> bytes:
    """``text`` as UTF-8; surrogate pairs that arrived as two separate pieces are joined."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        joined = text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
        return joined.encode("utf-8")  # still a lone surrogate: ValueError, the text is invalid


def _final_input(text: str) -> Any:
    """The input of a finished block: ``{}`` for no text, the object, or the raw text."""
    if not text.strip():
        return {}
    try:
        value = jiter.from_json(_json_bytes(text), allow_inf_nan=False)
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


class _PartialInput:
    """Read-time view of an open tool input: the partial parse of the text, or, when it
    cannot be parsed (a literal cut short, or no JSON at all), the parse of its longest
    prefix that can (the block's start input when none can). The view depends on the text
    alone, never on which earlier texts were read.

    It is handed the whole text so far on every read, and the text only grows (it is the
    block's appended ``partial_json``). The parse runs with ``partial_mode=True`` (jiter's
    ``"on"``), which drops an unfinished trailing string -- a key or a value, whatever it
    holds. So once a parse has succeeded on a text that ends inside a string, any longer
    text that has not closed that string parses to the same value or fails (and the longest
    parsable prefix of a failing one ends inside that string, giving that value again): the
    parse is skipped for it. Only the added text is scanned to follow the string state.
    """

    __slots__ = ("start", "last", "seen", "in_string", "escaped", "parsed")

    def __init__(self, start: Any) -> None:
        self.start = start
        self.last = start
        self.seen = 0  # how many characters of the text have been scanned
        self.in_string = False  # the scanned text ends inside a JSON string
        self.escaped = False  # ... right after a backslash in it
        self.parsed = False  # the last parse succeeded

    def __call__(self, text: str) -> Any:
        if not text:
            return self.last
        seen = self.seen
        if len(text) <= seen:
            if len(text) == seen:
                return self.last  # the same text parses the same way again
            self.seen = seen = 0  # not a continuation: start over
            self.in_string = self.escaped = self.parsed = False
        added = text[seen:] if seen else text
        was_inside = self.in_string
        closed = self._scan(added)
        self.seen = len(text)
        if was_inside and not closed and self.parsed:
            return self.last  # still inside the string the last parse dropped
        try:
            self.last = jiter.from_json(_json_bytes(text), partial_mode=True, allow_inf_nan=False)
            self.parsed = True
        except ValueError:
            self.last, self.parsed = _longest_parse(text, self.start), False
        return self.last

    def _scan(self, added: str) -> bool:
        """Follow the string state over ``added``; True if a string open before it closed."""
        free = 1 if self.escaped else 0  # the first index not taken by an escape
        closed = False
        if '"' in added or "\\" in added:
            in_string = self.in_string
            for match in _QUOTE_OR_BACKSLASH.finditer(added, free):
                at = match.start()
                if at < free:
                    continue  # the escaped character
                if added[at] == '"':
                    closed = closed or in_string
                    in_string = not in_string
                elif in_string:
                    free = at + 2
            self.in_string = in_string
        self.escaped = free > len(added)
        return closed


def _longest_parse(text: str, start: Any) -> Any:
    """The partial parse of the longest prefix of ``text`` that parses, or ``start`` when none
    does. Validity is not monotone in the length (" 0" parses, " " and " 00" do not), so each
    failed attempt moves the end to where jiter reports the error, then on down."""
    try:
        data = _json_bytes(text)
    except ValueError:  # a lone surrogate half: its bytes are invalid UTF-8, and jiter says where
        data = text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass").encode("utf-8", "surrogatepass")
    end = len(data)
    while end > 0:
        try:
            return jiter.from_json(data[:end], partial_mode=True, allow_inf_nan=False)
        except ValueError as exc:
            end = min(end - 1, _error_offset(data[:end], str(exc)))
    return start


_AT = re.compile(r"at line (\d+) column (\d+)")


def _error_offset(data: bytes, message: str) -> int:
    """The byte offset of a jiter error ("... at line L column C", C counted in bytes from 1)."""
    found = _AT.search(message)
    if found is None:
        return len(data)
    line, column = int(found.group(1)), int(found.group(2))
    offset = 0
    for _ in range(line - 1):
        offset = data.index(b"\n", offset) + 1
    return offset + column - 1


def _changed(acc: Accumulator) -> None:
    """Mark the message changed before a block held in ``acc.state`` is edited in place."""
    acc.root  # noqa: B018 -- reading the live root is what marks it changed


def _bad(problem: str, event: object) -> MalformedChunk:
    """The error for a malformed event, naming the problem and the event."""
    return MalformedChunk(f"anthropic-messages: {problem}: {describe(event)}")


def _index(event: dict) -> int:
    index = event.get("index")
    if not isinstance(index, int) or isinstance(index, bool):
        raise _bad(f"{event.get('type')} has no integer index", event)
    return index


# delta type -> (the block type it belongs to, the block key whose text it grows)
_GROWING = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("thinking", "signature"),
}


def _misplaced(kind: str, index: int, block_type: str, event: dict) -> MalformedChunk:
    """The error for a known delta sent to a block of a type it does not apply to."""
    return _bad(f"{kind} for content block {index} of type {block_type!r}", event)


def _no_string(kind: str, key: str, event: dict) -> MalformedChunk:
    """The error for a delta that lacks the string field it exists to carry."""
    return _bad(f"{kind} carries no string {key!r}", event)
