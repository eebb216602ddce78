"""Cohere v2 chat events and calls: the checks that name a malformed event, the pieces an
event carries, and the reading of one ``tool_calls`` entry of the message.
"""

from __future__ import annotations

import json
from collections.abc import Container
from typing import Any

from ...errors import MalformedChunk
from ...wire import describe, reject_json_constant

# The completions after which the turn is finished: the model ended it, called its tools or hit
# a stop sequence. MAX_TOKENS cut it; ERROR and TIMEOUT ended it without an answer.
FINISHED = frozenset({"COMPLETE", "TOOL_CALL", "STOP_SEQUENCE"})


def bad(problem: str, event: object) -> MalformedChunk:
    """The error for a malformed event, naming the problem and the event."""
    return MalformedChunk(f"cohere: {problem}: {describe(event)}")


def index_of(event: dict) -> int:
    """The event's integer ``index`` (a content block's, a call's or a citation's)."""
    index = event.get("index")
    if type(index) is not int:
        raise bad(f"{event.get('type')} has no integer index", event)
    return index


def delta_message(event: dict, key: str, kinds: type | tuple[type, ...] = dict) -> Any:
    """``event.delta.message[key]``, which must be of ``kinds``; MalformedChunk when it is not."""
    delta = event.get("delta")
    message = delta.get("message") if isinstance(delta, dict) else None
    value = message.get(key) if isinstance(message, dict) else None
    if not isinstance(value, kinds):
        raise bad(f"{event.get('type')} carries no delta.message.{key} of the right type", event)
    return value


def piece(event: dict, holder: dict, key: str) -> str:
    """The string ``holder[key]`` a delta event grows its target by."""
    value = holder.get(key)
    if not isinstance(value, str):
        raise bad(f"{event.get('type')} carries no string {key!r}", event)
    return value


def _joined_surrogates(text: str) -> str:
    """``text`` with surrogate halves that arrived in separate pieces joined into one character."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


def read_arguments(raw: object) -> tuple[dict, str | None]:
    """The arguments of a call and the reason it cannot run (None when it can).

    The wire and the stream=false body carry them as JSON text: ``""`` (a tool without
    parameters whose stream sent no delta) and ``"null"`` (the stream=false body of such a call)
    give ``{}``; a JSON object gives itself; anything else (cut or invalid JSON, ``NaN``, an
    array, a number, no string at all) is no runnable call.
    """
    if raw is None:
        return {}, None
    if not isinstance(raw, str):
        return {}, f"arguments are {type(raw).__name__}, not JSON text"
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(_joined_surrogates(raw), parse_constant=reject_json_constant)
    except ValueError as exc:
        return {}, f"arguments are not valid JSON ({exc})"
    if value is None:
        return {}, None
    if not isinstance(value, dict):
        return {}, f"arguments are a JSON {type(value).__name__}, not an object"
    return value, None


def unanswerable(call: dict, taken: Container[str]) -> str | None:
    """Why no result could be sent back for a call, or None: it has no name, no id (a tool
    message answers a ``tool_call_id``), or an id an earlier call already has."""
    function = call.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    call_id = call.get("id")
    if not isinstance(name, str) or not name:
        return "tool call has no name"
    if not isinstance(call_id, str) or not call_id:
        return "tool call has no id, so its result cannot be sent back"
    if call_id in taken:
        return f"tool call id {call_id!r} repeats an earlier call's, so its result cannot be told apart"
    return None


def body_parts(message: object) -> tuple[dict | None, object]:
    """The assistant message of a response body and its ``finish_reason``.

    A request-side assistant turn (``{"role": "assistant", "tool_calls": ...}``, as
    ``result_messages`` replays it) is read as a finished turn: ``finish_reason`` "TOOL_CALL".
    Anything else gives ``(None, None)``.
    """
    if not isinstance(message, dict):
        return None, None
    inner = message.get("message")
    if isinstance(inner, dict):
        return inner, message.get("finish_reason")
    if message.get("role") == "assistant" and "message" not in message:
        return message, "TOOL_CALL"
    return None, None
