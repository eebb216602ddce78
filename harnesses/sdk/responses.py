"""The openai SDK's ``ResponseStreamState`` as an ``openai-responses`` strategy.

The SDK does the reading and the accumulating: ``client.responses.create(..., stream=True)``
on the SDK's own ``OpenAI`` client, fed the recorded wire bytes (``_wire.sse_body``) through
an injected ``httpx2`` transport; each event its ``Stream`` yields goes to
``ResponseStreamState.handle_event``, the accumulator ``client.responses.stream(...)`` runs
over the same ``Stream`` (openai/lib/streaming/responses/_responses.py: ``ResponseStream``
is that ``Stream`` with ``handle_event`` on every event). The message is the ``response``
of the ``response.completed`` / ``response.incomplete`` event it emits; before one, the
SDK's in-progress snapshot.

Glue choices (everything the adapter decides itself):

* ``create(stream=True)`` with the state the SDK's ``ResponseStream`` holds, rather than
  ``responses.stream(...)`` itself: ``ResponseStream`` yields no event for some events
  (``response.output_item.added`` without an item), so it cannot be stepped one chunk at a
  time; ``ResponseStreamState`` does the same accumulation on the same events.
* One request per stream, answered live (``_live``): each event's SSE bytes are pushed to
  the response body when the suite feeds it, and the SDK's ``Stream`` is stepped until it
  has read them (it yields one event per SSE event). ``"[DONE]"`` is sent as sent; the
  SDK's ``Stream`` stops there and the events after it are not read. An event that is no
  JSON object is refused with ``MalformedChunk`` before the SDK sees it. The SDK's
  ``APIError`` (an event with a top-level ``error`` member) is raised as ``StreamError``
  carrying the event; any other exception of the SDK's is its refusal of the event (the
  buffer reports it as ``MalformedChunk``), and the stream is over after it.
* The message is converted at read time only (``_glue.lazy_root``), ``to_dict(mode="json")``,
  with the keys the SDK adds that were never on the wire removed: ``output_parsed``,
  ``parsed_arguments`` on items, ``parsed`` on content parts.
* Before a completion event the message is the SDK's private snapshot
  (``_ResponseStreamState__current_snapshot``), its ``output`` rebuilt from the SDK's items
  (``_output_items``, finished ones from ``_completed_output``): the SDK exposes no public
  partial response, and the suite reads messages mid-stream.
* An ``error`` or ``response.failed`` event is read by the SDK first (what it raises on it,
  an event before ``response.created`` say, is its answer), then raises ``StreamError``
  carrying the event: the SDK yields both as events (``ResponseErrorEvent``,
  ``ResponseFailedEvent``) for its caller to act on (an ``error`` event has no top-level
  ``error`` member, so its ``Stream`` raises nothing; ``response.failed`` ends the response
  without output), and the adapter is that caller (docs/spec.md, openai-responses: the
  should rule that both raise ``StreamError``).
* ``is_done`` is true on ``response.completed``, ``response.incomplete``; the ``delta`` of
  ``response.output_text.delta`` is display text, and when an event that carries a
  snapshot (``*.done``, ``response.created``, the completion) leaves the message's output
  text longer than the text shown so far, the missing tail is returned as display text
  (the display contract of the protocol: the deltas add up to ``content_text``).
* Recognition: a dict whose ``type`` starts with ``response.``, an ``error`` event with a
  ``sequence_number`` or a top-level ``message`` / ``code`` (Anthropic's ``error`` event
  has none of them), or a response object (``object: "response"``).
* ``extract``: the message read as the SDK's ``Response`` model (a dict with an ``output``
  list, else ``ValueError``); each ``function_call`` item is a call (``call_id``, ``name``,
  ``arguments`` parsed by ``_glue.parse_arguments``), each ``custom_tool_call`` one with
  ``{"input": input}``. A call carries ``error`` when its ``status`` is not ``completed``,
  its name or ``call_id`` is no non-empty string (no result could answer it), or a custom
  call's input is no string (the SDK's ``construct`` does not validate these).
  ``content_text`` is the SDK's ``Response.output_text``; where that property stops at an
  item of no known shape (``AttributeError`` / ``TypeError``), the same join done by the
  glue, skipping such items.
* ``result_messages``: as OpenAI's function-calling docs show: the response's ``output``
  items (``None`` values dropped; call items without a string name, ``call_id`` and
  ``arguments`` / ``input``, which the API refuses, left out), then a
  ``function_call_output`` (``custom_tool_call_output``
  for custom tools) per record; a record whose ``call_id`` is not in the output is refused.

The glue check (``glue_view``, ``harnesses/glue_check.py``): the SDK's response for the case's
events fed through the same live body (the completion event's response, else the
in-progress snapshot as the message is built: its ``output_text``, its ``function_call`` /
``custom_tool_call`` items, ``status``, or what the SDK raised) beside the adapter's message
read by ``extract`` / ``content_text``. The differences the adapter knows of are
``GLUE_LISTED``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openai import APIError, OpenAI, omit
from openai._models import construct_type
from openai.lib.streaming.responses import ResponseStreamState
from openai.types.responses import Response

from mcs_conformance import Accumulator, MalformedChunk, StreamError, ToolCall, ToolCallRecord, require_records

from .. import _glue, _wire
from . import _live

__all__ = ["GLUE_LISTED", "OpenAIResponsesSDKStrategy", "glue_view"]

GLUE_LISTED: dict[str, str] = {
    "refused": "an `error` or `response.failed` event the SDK reads without raising (it yields it for its "
               "caller to act on: ResponseErrorEvent, a response with status failed) is raised as StreamError "
               "carrying the event once the SDK has read it: the adapter is the caller acting on it",
    "refused.type:openai-responses/syn-malformed-event-not-an-object": "a chunk that is a JSON string, not an "
               "object, is refused with MalformedChunk before the SDK sees it: no SSE event carries a JSON string "
               "as an event (the SDK, handed the string's text as an event, reads another event)",
}

_WHO = "openai ResponseStreamState"
_FINAL = ("response.completed", "response.incomplete")
_TEXT_SNAPSHOTS = frozenset({"response.output_text.done", "response.content_part.done", "response.output_item.done",
                             "response.created", *_FINAL})
_CLIENT: list[OpenAI] = []


def _open() -> _live.LiveBody:
    """One streamed request on the SDK's client, answered by a live body."""
    if not _CLIENT:
        _CLIENT.append(_live.client(OpenAI, "http://openai.harness.invalid/v1"))
    body = _live.LiveBody()
    body.events = _CLIENT[0].responses.create(model="gpt-4o", input="hi", stream=True, extra_headers=body.headers)
    return body


class OpenAIResponsesSDKStrategy:
    name = "openai-responses"
    leaks_into_text = True

    def recognizes(self, shape: object) -> bool:
        try:
            if not isinstance(shape, dict):
                return False
            kind = shape.get("type")
            if isinstance(kind, str) and kind.startswith("response."):
                return True
            if kind == "error" and any(k in shape for k in ("sequence_number", "message", "code")):
                return True
            return shape.get("object") == "response"
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        return isinstance(chunk, dict) and chunk.get("type") in _FINAL

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "sdk" not in state:
            state.update(live=_open(), sdk=ResponseStreamState(input_tools=omit, text_format=omit), final=None, shown=[])
        done = isinstance(chunk, str) and chunk.strip() == "[DONE]"
        if not done and not isinstance(chunk, dict):
            raise MalformedChunk(f"{_WHO}: an event is a JSON object, got {type(chunk).__name__}")
        live = state["live"]
        try:
            read = live.push(_wire.sse_body([chunk], "openai-responses"))
        except APIError as exc:  # the SDK's Stream raises it for an event with an error member
            raise StreamError(f"{_WHO}: the provider reported an error in the stream: {exc.message}",
                              payload=chunk) from exc
        for event in read:
            try:
                for out in state["sdk"].handle_event(event):
                    if getattr(out, "type", None) in _FINAL:
                        state["final"] = out.response
            except Exception as exc:
                live.error = exc
                raise
        if not done and chunk.get("type") in ("error", "response.failed"):  # the SDK read it: the caller acts
            live.error = StreamError(f"{_WHO}: the provider reported an error in the stream: {chunk.get('type')}",
                                     payload=chunk)
            raise live.error
        if not read:
            return ""
        _glue.lazy_root(acc, lambda: _render(state))
        kind = chunk.get("type")
        if kind == "response.output_text.delta" and isinstance(chunk.get("delta"), str):
            state["shown"].append(chunk["delta"])
            return chunk["delta"]
        if kind in _TEXT_SNAPSHOTS:  # a snapshot may hold text the deltas never delivered
            shown, text = "".join(state["shown"]), _output_text(_render(state) or {})
            if len(text) > len(shown) and text.startswith(shown):
                state["shown"] = [text]
                return text[len(shown):]
        return ""

    def extract(self, message: object) -> list[ToolCall]:
        out = []
        for item in _model(message, "extract").output or []:
            kind = getattr(item, "type", None)
            if kind == "function_call":
                raw = getattr(item, "arguments", None)
                arguments, error = _glue.parse_arguments(raw)
            elif kind == "custom_tool_call":
                raw = getattr(item, "input", None)
                arguments, error = {"input": raw}, None
            else:
                continue
            if kind == "custom_tool_call" and not isinstance(raw, str):
                arguments, error = {}, f"input is {type(raw).__name__}, not a string"
            status = getattr(item, "status", None) or "completed"
            if error is None and status != "completed":
                error = f"the call item's status is {status!r}"
            name, call_id = getattr(item, "name", None), getattr(item, "call_id", None)
            if error is None and not (isinstance(name, str) and name):
                error = "the call has no name"
            if error is None and not (isinstance(call_id, str) and call_id):
                error = "the call has no call_id, so no result can answer it"
            out.append(ToolCall(name=name if isinstance(name, str) else "", arguments=arguments,
                                id=call_id if isinstance(call_id, str) else None,
                                raw_arguments=raw if isinstance(raw, str) else None, error=error))
        return out

    def content_text(self, message: object) -> str:
        model = _model(message, "content_text")
        try:
            return model.output_text
        except (AttributeError, TypeError):  # the SDK's property stops at an item of no known shape
            return _output_text(message)

    def forming_name(self, message: object) -> str | None:
        output = message.get("output") if isinstance(message, dict) else None
        for item in output if isinstance(output, list) else ():
            if isinstance(item, dict) and item.get("type") in ("function_call", "custom_tool_call"):
                name = item.get("name")
                return name if isinstance(name, str) and name else None
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        output = message.get("output") if isinstance(message, dict) else None
        if not isinstance(output, list):
            raise ValueError(f"{_WHO}: not a response object (no output list)")
        records = require_records(records, _WHO)
        items = [{k: v for k, v in i.items() if v is not None} for i in output
                 if isinstance(i, dict) and not _unanswerable(i)]
        kinds = {i.get("call_id"): i.get("type") for i in items if i.get("type") in ("function_call", "custom_tool_call")}
        out = list(items)
        for n, record in enumerate(records):
            if record.call.id is None or record.call.id not in kinds:
                raise ValueError(f"{_WHO}: record {n} answers call_id {record.call.id!r}, which is no call of the "
                                 f"response (its call_ids: {list(kinds)})")
            out.append({"type": f"{kinds[record.call.id]}_output", "call_id": record.call.id, "output": record.result})
        return out


def _output_text(message: dict) -> str:
    """What ``Response.output_text`` joins (the ``output_text`` parts of message items),
    skipping items and parts of no known shape."""
    return "".join(
        part["text"]
        for item in message.get("output") or () if isinstance(item, dict) and item.get("type") == "message"
        for part in item.get("content") or () if isinstance(part, dict) and part.get("type") == "output_text"
        and isinstance(part.get("text"), str)
    )


def _unanswerable(item: dict) -> bool:
    """A call item the API would refuse in ``input``: its name, call_id, arguments (function)
    or input (custom) is no string."""
    kind = item.get("type")
    if kind not in ("function_call", "custom_tool_call"):
        return False
    payload = item.get("arguments") if kind == "function_call" else item.get("input")
    return not (isinstance(item.get("name"), str) and item["name"] and isinstance(item.get("call_id"), str)
                and item["call_id"] and isinstance(payload, str))


def _render(state: dict) -> Any:
    if state["final"] is not None:
        return _strip(state["final"].to_dict(mode="json", warnings=False))
    sdk = state["sdk"]
    snapshot = getattr(sdk, "_ResponseStreamState__current_snapshot", None)
    if snapshot is None:
        return None
    message = snapshot.to_dict(mode="json", warnings=False)
    items = dict(getattr(sdk, "_output_items", {}))
    items.update(getattr(sdk, "_completed_output", {}))
    if items:
        message["output"] = [items[i].to_dict(mode="json", warnings=False) for i in sorted(items)]
    return _strip(message)


def _strip(message: dict) -> dict:
    message.pop("output_parsed", None)
    for item in message.get("output") or []:
        if isinstance(item, dict):
            item.pop("parsed_arguments", None)
            for part in item.get("content") or []:
                if isinstance(part, dict):
                    part.pop("parsed", None)
    return message


def _model(message: object, what: str) -> Any:
    if not isinstance(message, dict) or not isinstance(message.get("output"), list):
        raise ValueError(f"{_WHO}.{what}: expects a response object with an output list, got "
                         f"{type(message).__name__}")
    return construct_type(type_=Response, value=message)


def glue_view(case: Any) -> dict | None:
    """The SDK's own response beside the adapter's message for a stream case (None for a
    message case: the adapter reads a response with the SDK's model, nothing to compare)."""
    from ..glue_check import adapter_view, call, refusal, view

    if not case.is_stream:
        return None
    state: dict[str, Any] = {"live": _open(), "sdk": ResponseStreamState(input_tools=omit, text_format=omit),
                             "final": None}
    refused = None
    try:
        for chunk in case.chunks:
            for event in state["live"].push(_wire.sse_body([chunk], "openai-responses")):
                for out in state["sdk"].handle_event(event):
                    if getattr(out, "type", None) in _FINAL:
                        state["final"] = out.response
    except Exception as exc:  # the SDK's answer: a refusal
        refused = exc
    if refused is not None:
        library = view(refused=refusal(refused))
    else:
        message = _render(state)
        if message is None:
            library = view()
        else:
            model = construct_type(type_=Response, value=message)
            calls = []
            for item in model.output or []:
                kind = getattr(item, "type", None)
                if kind in ("function_call", "custom_tool_call"):
                    calls.append(call(getattr(item, "call_id", None), getattr(item, "name", None),
                                      getattr(item, "arguments" if kind == "function_call" else "input", None)))
            try:
                text = model.output_text
            except (AttributeError, TypeError):
                text = None
            library = view(text=text, calls=calls, stop=message.get("status"))
    return {"library": library,
            "adapter": adapter_view(OpenAIResponsesSDKStrategy(), case,
                                    stop=lambda _fed, message: message.get("status") if isinstance(message, dict) else None)}
