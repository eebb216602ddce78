"""OpenAI Responses response objects: the output items, their text, the calls they hold and
the items ``result_messages`` replays, and the text of a provider error.
"""

from __future__ import annotations

from typing import Any
import json

from ...accumulator import Accumulator
from ...protocol import ToolCall
from ...wire import describe, reject_json_constant, to_wire


_NAME = "openai-responses"

_CALL_TYPES = ("function_call", "custom_tool_call")


def _part_texts(parts: list, acc: Accumulator | None = None) -> list[str]:
    out = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "output_text":
            text = acc.text(part, "text") if acc is not None else None
            if text is None:
                text = part.get("text")
            if isinstance(text, str):
                out.append(text)
    return out


def _texts(output: list, acc: Accumulator | None = None) -> list[str]:
    """The output_text strings of the message items (live pieces when ``acc`` is given)."""
    out: list[str] = []
    for item in output:
        if isinstance(item, dict) and item.get("type") == "message" and isinstance(item.get("content"), list):
            out.extend(_part_texts(item["content"], acc))
    return out


def _output(message: object) -> list:
    message = to_wire(message)
    if not isinstance(message, dict):
        raise ValueError(f"{_NAME}: expected a response object (dict), got {describe(message)}")
    output = message.get("output")
    if output is None:
        return []
    if not isinstance(output, list):
        raise ValueError(f"{_NAME}: the response's 'output' is not a list: {describe(output)}")
    return output


def _call(item: dict) -> ToolCall:
    name = item.get("name") if isinstance(item.get("name"), str) else ""
    call_id = item.get("call_id") if isinstance(item.get("call_id"), str) else None
    custom = item.get("type") == "custom_tool_call"
    raw = item.get("input" if custom else "arguments")
    raw_text = raw if isinstance(raw, str) else None

    def broken(reason: str) -> ToolCall:
        return ToolCall(name=name, arguments={}, id=call_id, raw_arguments=raw_text, error=reason)

    status = item.get("status")
    if status not in (None, "completed"):
        return broken(f"the {item.get('type')} item has status {status!r}: the call did not finish")
    if not name:
        return broken(f"the {item.get('type')} item has no name")
    if call_id is None:
        return broken(f"the {item.get('type')} item has no call_id, so its result cannot be sent back")
    if raw_text is None:
        field = "input" if custom else "arguments"
        return broken(f"the {item.get('type')} item's {field} is {type(raw).__name__}, not a string")
    if custom:
        return ToolCall(name=name, arguments={"input": raw_text}, id=call_id, raw_arguments=raw_text)
    if not raw_text.strip():
        return ToolCall(name=name, arguments={}, id=call_id, raw_arguments=raw_text)
    try:
        args = json.loads(raw_text, parse_constant=reject_json_constant)
    except ValueError as exc:
        return broken(f"arguments are not valid JSON: {exc}")
    if not isinstance(args, dict):
        return broken(f"arguments are a JSON {_JSON_TYPES.get(type(args), 'value')}, not an object")
    return ToolCall(name=name, arguments=args, id=call_id, raw_arguments=raw_text)


def _replayable(item: dict) -> bool:
    """Has the call item what a request's call item needs: a name, a call_id, string arguments?"""
    raw = item.get("input" if item.get("type") == "custom_tool_call" else "arguments")
    name, call_id = item.get("name"), item.get("call_id")
    return isinstance(name, str) and bool(name) and isinstance(call_id, str) and isinstance(raw, str)


_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def _drop_none(value: Any) -> Any:
    """A copy without None-valued keys: request items omit what the response left null."""
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def _error_text(source: Any, chunk: dict, where: str = "error event") -> str:
    """A one-line summary of a provider error: code and message, wherever they sit."""
    message = code = None
    nested = source.get("error") if isinstance(source, dict) else None
    for place in (nested, source):
        if isinstance(place, dict):
            message = message or _str(place.get("message"))
            code = code or _str(place.get("code"))
    if isinstance(nested, dict):
        code = code or _str(nested.get("type"))
    detail = f"{code}: {message}" if code and message else (message or code or describe(chunk))
    return f"{_NAME}: the provider reported an error ({where}): {detail}"


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
