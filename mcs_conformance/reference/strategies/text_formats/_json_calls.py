"""What the JSON-bodied formats share: one call object ``{"name": ..., "arguments": ...}``
read into a :class:`ToolCall`, and the first call's name peeked from an open body."""

from __future__ import annotations

import json
import re
from typing import Any

from ...protocol import ToolCall
from ..marked_text import DECODER, arguments_of, partial_json_string

__all__ = ["call_from_object", "dumps", "forming_in", "read_json"]

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.S)
_NAME_COLON = re.compile(r'\s*:\s*(?=")')


def read_json(body: str) -> tuple[Any, str | None]:
    """The one JSON value ``body`` holds (white space around it allowed), or the reason why not."""
    text = body.strip()
    if not text:
        return None, "it is empty"
    try:
        return DECODER.decode(text), None
    except (ValueError, RecursionError) as exc:
        return None, f"it is not one JSON value ({exc})"


def call_from_object(obj: Any, fmt: str, keys: tuple[str, ...] = ("arguments",)) -> ToolCall:
    """One call from a JSON object with a string ``name`` and its arguments under one of
    ``keys``; anything else is an error call."""
    if not isinstance(obj, dict):
        return ToolCall(name="", error=f"{fmt}: a call is a JSON object, got {type(obj).__name__}")
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return ToolCall(name="", error=f'{fmt}: the call object has no "name" string')
    value = next((obj[k] for k in keys if k in obj), None)
    arguments, error = arguments_of(value, f"{fmt} call {name!r}")
    raw = value if isinstance(value, str) else None
    return ToolCall(name=name, arguments=arguments, raw_arguments=raw, error=error)


def forming_in(body: str, depth: int = 1) -> str | None:
    """The value of the ``"name"`` member of the first object at ``depth`` (1: the body is the
    object; 2: the body is a list of objects) of an open body, as far as it has arrived. A
    ``"name"`` key inside the arguments is never taken for it."""
    level, i, n = 0, 0, len(body)
    while i < n:
        c = body[i]
        if c == '"':
            m = _STRING.match(body, i)
            if m is None or not m.group().endswith('"') or m.end() - i < 2:
                return None
            end = m.end()
            if level == depth and body[i:end] == '"name"':
                colon = _NAME_COLON.match(body, end)
                if colon is not None:
                    return partial_json_string(body, colon.end())
            i = end
            continue
        if c in "{[":
            level += 1
        elif c in "}]":
            level -= 1
            if level < depth:
                return None
        i += 1
    return None


def dumps(value: Any) -> str:
    """JSON as the models write it (unicode as is)."""
    return json.dumps(value, ensure_ascii=False)
