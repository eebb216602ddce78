"""OpenAI Chat Completions messages: recognizing an assistant message, reading its calls
(arguments parsed, surrogate pairs joined) and the text of a provider error.
"""

from __future__ import annotations

from typing import Any
import json
import re

from ...protocol import ToolCall
from ...wire import describe, reject_json_constant, to_wire


_NAME = "openai-chat"

_SURROGATE = re.compile("[\ud800-\udfff]")


def _same_idless(mine: ToolCall, theirs: ToolCall) -> bool:
    """The same call when neither carries an id (None, or "")."""
    return not mine.id and not theirs.id and (mine.name, mine.arguments, mine.raw_arguments, mine.error) == (
        theirs.name, theirs.arguments, theirs.raw_arguments, theirs.error)


def _is_message(shape: Any) -> bool:
    if not isinstance(shape, dict) or "tool_calls" not in shape:
        return False
    if shape.get("role") not in (None, "assistant"):
        return False
    if any(k in shape for k in ("choices", "object", "type", "delta")):
        return False
    entries = shape["tool_calls"]
    # arguments as a JSON object rather than a string: another format (Ollama) claims it
    return not (isinstance(entries, list) and any(
        isinstance(e, dict) and isinstance(e.get("function"), dict)
        and isinstance(e["function"].get("arguments"), (dict, list))
        for e in entries
    ))


# -- extraction helpers -------------------------------------------------------------------------
def _message(message: object, what: str) -> dict:
    message = to_wire(message)
    if not isinstance(message, dict):
        raise ValueError(f"{_NAME}.{what} expects an assistant message dict, got {describe(message)}")
    return message


def _to_call(n: int, entry: Any) -> ToolCall:
    if not isinstance(entry, dict):
        return ToolCall(name="", error=f"tool_calls[{n}] is {type(entry).__name__}, not an object")
    call_id = entry.get("id") if isinstance(entry.get("id"), str) and entry.get("id") else None
    function = entry.get("function")
    if not isinstance(function, dict):
        kind = entry.get("type")
        return ToolCall(name="", id=call_id,
                        error=f"tool_calls[{n}] has no function object (type {kind!r})")
    name = function.get("name")
    name = name if isinstance(name, str) else ""
    raw = function.get("arguments")
    if raw is not None and not isinstance(raw, str):
        return ToolCall(name=name, id=call_id,
                        error=f"tool_calls[{n}].function.arguments is {type(raw).__name__}, not a JSON string")
    arguments, error = _parse_arguments(raw)
    if error is None and not name:
        error = f"tool_calls[{n}] has no function name"
    return ToolCall(name=name, arguments=arguments, id=call_id, raw_arguments=raw, error=error)


def _parse_arguments(raw: str | None) -> tuple[dict, str | None]:
    """The arguments object, or {} and the reason they cannot be used."""
    if raw is None or not raw.strip():
        return {}, None
    text = raw
    if _SURROGATE.search(text):
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    try:
        value = json.loads(text, parse_constant=reject_json_constant)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON ({exc.msg} at character {exc.pos})"
    except ValueError as exc:
        return {}, f"arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return {}, f"arguments are a JSON {type(value).__name__}, not an object"
    return value, None


def _drop_none(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}


def _error_text(error: Any) -> str:
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return repr(error)[:200]
