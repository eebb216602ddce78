"""The anthropic SDK's (beta) message stream as an ``anthropic-messages`` strategy.

The SDK does the reading and the accumulating: ``client.beta.messages.stream(...)`` on the
SDK's own ``Anthropic`` client, fed the recorded wire bytes (``_wire.sse_body``) through an
injected ``httpx2`` transport; its ``BetaMessageStream`` runs every event through
``accumulate_event``, and the message is its ``current_message_snapshot``, what
``get_final_message()`` returns once the stream is read. The beta stream is the one the
suite's SDK oracle reads (its accumulator keeps block types the plain
``client.messages.stream`` turns into text); the snapshot is ``to_dict(mode="json")``, the
JSON the suite's SDK oracle writes of it (a ``NaN`` the SDK parsed in a tool input, which
JSON cannot hold, is ``null`` there).

Glue choices (everything the adapter decides itself):

* One request per stream, answered live (``_live``): each event's SSE bytes are pushed to
  the response body when the suite feeds it, and the ``BetaMessageStream`` is stepped until
  the SDK has read them, so it has accumulated the event when ``accumulate`` returns. The
  SDK's ``Stream`` reads some events without yielding anything (anthropic/_streaming.py:
  ``ping``, an event without a name, which is how a ``"[DONE]"`` line or an event without a
  string ``type`` arrives); their bytes are pushed unstepped and read with the next
  event's. A chunk that is no JSON object (and no ``"[DONE]"``) is refused with
  ``MalformedChunk`` before the SDK sees it.
* The snapshot is converted at read time only (``_glue.lazy_root``). Keys the SDK adds that
  were never on the wire are removed: ``stop_reason``, ``stop_sequence`` and ``stop_details``
  when ``None`` and carried neither by ``message_start.message`` nor by a
  ``message_delta.delta`` (every ``message_delta`` assigns all three).
* An ``error`` event: the SDK's ``Stream`` raises ``APIStatusError`` for it, raised as
  ``StreamError`` carrying the event. Any other exception of the SDK's is its refusal of
  the event, re-raised as ``MalformedChunk`` with its text escaped (a lone surrogate in an
  exception's text crashes pytest-xdist's transport and with it the whole run); the stream
  is over after it.
* ``is_done`` is true on ``message_stop``; the display text is the text of ``text_delta``
  events and the text a ``text`` block starts with (``content_block_start``), both of which
  the SDK's snapshot keeps, for the events the SDK accumulated (none before a
  ``message_start``: the SDK passes those on without accumulating them).
* Recognition: a dict whose ``type`` is one of the stream's event types (an ``error`` only
  without the ``sequence_number`` / top-level ``message`` / ``code`` of OpenAI's Responses
  error event), or an assistant message (``type: "message"``, ``role: "assistant"``, a
  ``content`` list) that is no OpenAI Responses message item (those carry ``status`` and
  ``output_text`` / ``input_text`` / ``refusal`` parts).
* ``extract``: the message read as the SDK's ``BetaMessage`` model; each ``tool_use`` block
  (``server_tool_use`` / ``mcp_tool_use`` are run by the provider and not returned) is a
  call with its ``id``, ``name`` and ``input``. A call carries ``error`` when its input is
  not an object, its name or id is no non-empty string (the SDK's ``construct`` does not
  validate them), when the message has no ``stop_reason`` yet (``get_final_message`` is only
  available after ``message_stop``), or when it is the last block of a message cut by
  ``max_tokens``.
* ``content_text``: the ``text`` blocks joined; ``forming_name``: the first ``tool_use``
  block's name.
* ``result_messages``: as Anthropic's tool-use docs show: the assistant turn with the
  message's ``content`` (``None`` values dropped; left out what the API refuses: empty text
  blocks, ``tool_use`` blocks without a string id and name; an input that is no object is
  sent as ``{}``), then one user message with a
  ``tool_result`` block per record (``is_error`` when the record says so). A record whose
  id is no ``tool_use`` block of the message is refused with ``ValueError``.

The glue check (``glue_view``, ``harnesses/glue_check.py``): the ``BetaMessageStream``'s own
snapshot for the case's events fed through the same live body (its ``text`` blocks, its
``tool_use`` blocks, ``stop_reason``, or what the SDK raised) beside the adapter's message
read by ``extract`` / ``content_text``. The differences the adapter knows of are
``GLUE_LISTED``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import re

from anthropic import Anthropic, APIStatusError
from anthropic._models import construct_type
from anthropic.types.beta import BetaMessage

from mcs_conformance import Accumulator, MalformedChunk, StreamError, ToolCall, ToolCallRecord, require_records

from .. import _glue, _wire
from . import _live

__all__ = ["AnthropicSDKStrategy", "GLUE_LISTED", "glue_view"]

GLUE_LISTED: dict[str, str] = {
    "refused:anthropic-messages/syn-malformed-event-not-an-object": "a chunk that is a JSON string (an SSE line "
        "left unparsed), not an object, is refused with MalformedChunk before the SDK sees it: no SSE event carries "
        "a JSON string as an event (the SDK, handed its text as an unnamed event, skips it)",
    "calls.arguments:anthropic-messages/syn-input-json-array": "a tool input that is no object (a JSON array) is "
        "read by extract as a call with error and {} (a ToolCall's arguments are an object); the SDK keeps the array",
    "calls.arguments:anthropic-messages/syn-input-json-nan": "the message is the snapshot's JSON "
        "(to_dict(mode=\"json\"), as the suite's SDK oracle writes it): a NaN the SDK parsed in a tool input, which "
        "JSON cannot hold, is null there; the SDK holds the float NaN",
    "calls.arguments:anthropic-messages/syn-stream-cut-after-array-bracket": "a tool input that is no object (a "
        "JSON array) is read by extract as a call with error and {} (a ToolCall's arguments are an object); the SDK "
        "keeps the array",
}

_WHO = "anthropic BetaMessageStream"
_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                     "message_delta", "message_stop", "ping", "error"})
_ASSIGNED = ("stop_reason", "stop_sequence", "stop_details")
_RESPONSES_PARTS = frozenset({"output_text", "input_text", "refusal", "summary_text"})
_CLIENT: list[Anthropic] = []


def _open() -> _live.LiveBody:
    """One streamed request on the SDK's client (its ``BetaMessageStream``), answered by a live body."""
    if not _CLIENT:
        _CLIENT.append(_live.client(Anthropic, "http://anthropic.harness.invalid"))
    body = _live.LiveBody()
    manager = _CLIENT[0].beta.messages.stream(model="claude-sonnet-4-5", max_tokens=1024,
                                             messages=[{"role": "user", "content": "hi"}], extra_headers=body.headers)
    body.events = manager.__enter__()  # what ``with ... as stream`` binds
    return body


def _yields(chunk: object) -> bool:
    """Whether the SDK's ``Stream`` yields an event for this chunk's SSE bytes: one with an
    event name (the line ``event: <type>``, up to a line break) other than ``ping``."""
    kind = chunk.get("type") if isinstance(chunk, dict) else None
    name = re.split(r"[\r\n]", kind, maxsplit=1)[0] if isinstance(kind, str) else ""
    return bool(name) and name != "ping"


def _snapshot(stream: Any) -> Any:
    try:
        return stream.current_message_snapshot
    except AssertionError:  # no message_start yet
        return None


class AnthropicSDKStrategy:
    name = "anthropic-messages"
    leaks_into_text = True

    def recognizes(self, shape: object) -> bool:
        try:
            if not isinstance(shape, dict):
                return False
            kind = shape.get("type")
            if kind == "error":  # OpenAI's Responses error event has the same type, with these keys
                return not any(k in shape for k in ("sequence_number", "message", "code"))
            if kind in _EVENTS:
                return True
            content = shape.get("content")
            return (shape.get("type") == "message" and shape.get("role") == "assistant"
                    and isinstance(content, list) and "status" not in shape
                    and not any(isinstance(b, dict) and b.get("type") in _RESPONSES_PARTS for b in content))
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        return isinstance(chunk, dict) and chunk.get("type") == "message_stop"

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "live" not in state:
            state.update(live=_open(), on_wire=set())
        done = isinstance(chunk, str) and chunk.strip() == "[DONE]"
        if not done and not isinstance(chunk, dict):
            raise MalformedChunk(f"{_WHO}: an event is a JSON object, got {type(chunk).__name__}")
        live = state["live"]
        try:
            read = live.push(_wire.sse_body([chunk], "anthropic-messages"), yields=_yields(chunk))
        except APIStatusError as exc:  # the SDK's Stream raises it for an error event
            raise StreamError(f"{_WHO}: the provider reported an error in the stream: {chunk.get('error')!r}",
                              payload=chunk) from exc
        except Exception as exc:  # the SDK refuses the event; its text may hold a lone surrogate
            raise MalformedChunk(f"{_WHO} raised {type(exc).__name__}: {ascii(str(exc))[1:-1]}") from exc
        if not read or _snapshot(live.events) is None:
            return ""  # the SDK has not read it yet, or passed it on without accumulating it
        source = chunk.get("message") if chunk.get("type") == "message_start" else None
        source = chunk.get("delta") if chunk.get("type") == "message_delta" else source
        if isinstance(source, dict):
            state["on_wire"].update(source)
        _glue.lazy_root(acc, lambda: _render(state))
        delta = chunk.get("delta") if chunk.get("type") == "content_block_delta" else None
        if isinstance(delta, dict) and delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
            return delta["text"]
        block = chunk.get("content_block") if chunk.get("type") == "content_block_start" else None
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            return block["text"]  # a text block may start with text; the SDK's snapshot keeps it
        return ""

    def extract(self, message: object) -> list[ToolCall]:
        model = _model(message, "extract")
        blocks = list(model.content or [])
        out = []
        for i, block in enumerate(blocks):
            if getattr(block, "type", None) != "tool_use":
                continue
            data = getattr(block, "input", None)
            name, call_id = getattr(block, "name", None), getattr(block, "id", None)
            error = None if isinstance(data, dict) else f"input is {type(data).__name__}, not an object"
            if error is None and not (isinstance(name, str) and name):
                error = "the tool_use block has no name"
            if error is None and not (isinstance(call_id, str) and call_id):
                error = "the tool_use block has no string id, so no tool_result can answer it"
            if error is None and model.stop_reason is None:
                error = "the stream has not finished (no stop_reason)"
            if error is None and model.stop_reason == "max_tokens" and i == len(blocks) - 1:
                error = "the message was cut by max_tokens inside this block"
            out.append(ToolCall(name=name if isinstance(name, str) else "", arguments=data if isinstance(data, dict) else {},
                                id=call_id if isinstance(call_id, str) else None, error=error))
        return out

    def content_text(self, message: object) -> str:
        model = _model(message, "content_text")
        return "".join(getattr(b, "text", "") or "" for b in model.content or [] if getattr(b, "type", None) == "text")

    def forming_name(self, message: object) -> str | None:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                name = block.get("name")
                return name if isinstance(name, str) and name else None
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            raise ValueError(f"{_WHO}: not an assembled message (no content list)")
        records = require_records(records, _WHO)
        blocks = [_replayed(b) for b in content if isinstance(b, dict) and _replayable(b)]
        ids = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
        results = []
        for n, record in enumerate(records):
            if record.call.id is None or record.call.id not in ids:
                raise ValueError(f"{_WHO}: record {n} answers id {record.call.id!r}, which is no tool_use block "
                                 f"of the message (its ids: {ids})")
            result = {"type": "tool_result", "tool_use_id": record.call.id, "content": record.result}
            if record.is_error:
                result["is_error"] = True
            results.append(result)
        out = [{"role": "assistant", "content": blocks}]
        if results:
            out.append({"role": "user", "content": results})
        return out


def _replayable(block: dict) -> bool:
    """Blocks the API accepts back: no empty text block, no tool_use without string id and name."""
    if block.get("type") == "text":
        return bool(block.get("text"))
    if block.get("type") == "tool_use":
        return all(isinstance(block.get(k), str) and block[k] for k in ("id", "name"))
    return True


def _replayed(block: dict) -> dict:
    out = {k: v for k, v in block.items() if v is not None}
    if out.get("type") == "tool_use" and not isinstance(out.get("input"), dict):
        out["input"] = {}  # the API takes an object only; such a call was never executable
    return out


def _render(state: dict) -> Any:
    snapshot = _snapshot(state["live"].events)
    if snapshot is None:
        return None
    message = snapshot.to_dict(mode="json", warnings=False)
    for key in _ASSIGNED:
        if key not in state["on_wire"] and key in message and message[key] is None:
            del message[key]
    return message


def _model(message: object, what: str) -> Any:
    if not isinstance(message, dict):
        raise ValueError(f"{_WHO}.{what}: expects a message dict, got {type(message).__name__}")
    return construct_type(type_=BetaMessage, value=message)


def glue_view(case: Any) -> dict | None:
    """The SDK's own snapshot beside the adapter's message for a stream case (None for a
    message case: the adapter reads a message with the SDK's model, nothing to compare)."""
    from ..glue_check import adapter_view, call, refusal, view

    if not case.is_stream:
        return None
    live, refused = _open(), None
    try:
        for chunk in case.chunks:
            live.push(_wire.sse_body([chunk], "anthropic-messages"), yields=_yields(chunk))
    except Exception as exc:  # the SDK's answer: a refusal
        refused = exc
    snapshot = _snapshot(live.events) if refused is None else None
    if refused is not None:
        library = view(refused=refusal(refused))
    elif snapshot is None:
        library = view()
    else:
        blocks = list(snapshot.content or [])
        library = view(text="".join(getattr(b, "text", "") or "" for b in blocks if getattr(b, "type", None) == "text"),
                       calls=[call(b.id, b.name, b.input) for b in blocks if getattr(b, "type", None) == "tool_use"],
                       stop=snapshot.stop_reason)
    return {"library": library,
            "adapter": adapter_view(AnthropicSDKStrategy(), case,
                                    stop=lambda _fed, message: message.get("stop_reason") if isinstance(message, dict) else None)}
