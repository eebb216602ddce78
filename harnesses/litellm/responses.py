"""litellm's Responses API streaming path as an ``openai-responses`` strategy.

litellm does the work, as its docs show a streamed Responses call: ``litellm.responses(
model="openai/gpt-4o", input=..., stream=True, client=...)`` returns litellm's
``SyncResponsesAPIStreamingIterator``, whose loop ``for event in response`` yields litellm's
typed events (https://docs.litellm.ai/docs/response_api). litellm calls OpenAI through its own
``HTTPHandler``, which takes an ``httpx.Client`` (``client=HTTPHandler(client=...)``); its
transport serves the recorded events as the SSE bytes the provider sent
(``_wire.sse_body(..., "openai-responses")``); nothing is sent anywhere. A ``stream=false``
response of the suite is read as ``litellm.responses(..., stream=False)`` over its JSON body.

Glue choices (everything the adapter decides itself):

* Live stream: as the Chat adapter (``harnesses/litellm/strategy.py``), each buffer's loop
  runs in a worker thread (``_threaded.LiveStream``) fed one event's bytes per
  ``accumulate``, which waits until litellm asks for more; what litellm raises while reading
  an event is raised by that ``accumulate`` (the openai ``error`` / ``response.failed``
  events are handed over like any other; what litellm raises at one of them, its report of
  the provider's error, is raised as ``StreamError`` carrying the event). An event that is no JSON object is refused with
  ``MalformedChunk``. The body never ends on its own (a Responses stream has no ``[DONE]``):
  every read is of a stream still open, so litellm's own error for a body closed before a
  terminal event ("closed the responses stream before any terminal event") is seen by the
  glue view alone.
* The message: litellm keeps no response between events; the events that carry a
  ``response`` (``response.created``, ``response.in_progress``, the completion) give the
  latest one litellm yielded, and the message is that object's ``model_dump(mode="json")``
  (at read time only, ``_glue.lazy_root``), with the keys litellm's model adds that the
  event's own ``response`` on the wire did not hold removed when ``None`` (top level and
  each output item, by position), as ``_glue.wire_keys_only`` does for Chat. Values are
  litellm's, untouched (its response ``id`` too; a response litellm yields as a plain dict
  is taken as it is). Before such an event litellm holds no item, and the message is
  ``{"object": "response", "output": []}``. The message carries ``mcs_litellm: "stream"`` (a top-level ``mcs_*``
  annotation).
* ``extract``, ``content_text``, ``forming_name``, ``result_messages``, recognition and
  ``is_done``: the openai SDK Responses adapter's (``harnesses/sdk/responses.py``), whose
  class this one extends, on the response litellm gave (litellm's docs read a response's
  items as the OpenAI docs do). A response that is not marked (a ``stream=false`` body of
  the suite) is first read by ``litellm.responses(stream=False)`` over its JSON body (once
  per distinct body, the 1,024 latest kept), and its ``model_dump(mode="json")`` read the
  same way; when that call raises, ``extract`` gives one call with ``error`` naming
  litellm's exception.
* Display text: the ``delta`` of each ``response.output_text.delta`` event litellm yielded.
* ``litellm.suppress_debug_info`` set, the ``LiteLLM`` logger disabled and
  ``LITELLM_LOCAL_MODEL_COST_MAP=True``, as the Chat adapter does (logging only; the
  machine is offline).
* ``glue_view``: "library" is the response of the last event litellm yielded with one, read
  by the same reading (calls, ``output_text``, ``status``) and what litellm raised;
  "adapter" is ``extract`` (executable calls) and ``content_text`` on the buffer's message,
  its ``status`` and what the buffer raised. A message case (no events) has no view.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections import OrderedDict

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from typing import Any  # noqa: E402

import httpx  # noqa: E402
import litellm  # noqa: E402
from litellm.llms.custom_httpx.http_handler import HTTPHandler  # noqa: E402

from mcs_conformance import Accumulator, LLMStreamBuffer, MalformedChunk, StreamError, ToolCall  # noqa: E402

from .. import _glue, _threaded, _wire  # noqa: E402
from ..sdk.responses import OpenAIResponsesSDKStrategy  # noqa: E402

litellm.suppress_debug_info = True
logging.getLogger("LiteLLM").disabled = True

__all__ = ["GLUE_LISTED", "LiteLLMResponsesStrategy", "glue_view"]

_WHO = "litellm.responses"
_MARK = "mcs_litellm"
_MODEL = "openai/gpt-4o"
_KEPT = 1024
_local = threading.local()

# a completion whose `output` is null or no list (event orders the API never sends): litellm passes it
# on as sent, and the adapter's reading of the response (the SDK twin's) refuses it with ValueError
# (finding litellm-responses-output-null-passed-on)
_OUTPUT_NOT_LIST = ("litellm passes on a completion whose `output` is null or no list as sent; the adapter's reading "
                    "of that response refuses it (ValueError)")

GLUE_LISTED: dict[str, str] = {
    "refused": "the buffer's body stays open after the case's last event (the suite reads a stream that may go on), "
               "where the library view's body ends there: litellm raises for a body closed before a terminal event",
    "refused.type": "the buffer reports litellm's exception as MalformedChunk, its text naming litellm's",
    "view:openai-responses/syn-completed-twice-second-without-output": _OUTPUT_NOT_LIST,
    "view:openai-responses/syn-completed-without-created-output-null": _OUTPUT_NOT_LIST,
    "view:openai-responses/syn-item-first-seen-at-done-completed-without-output": _OUTPUT_NOT_LIST,
    "view:openai-responses/syn-item-ids-repeated-completed-without-output": _OUTPUT_NOT_LIST,
    "view:openai-responses/syn-malformed-completed-output-not-list": _OUTPUT_NOT_LIST,
}


def _answer(request: Any) -> Any:
    body = getattr(_local, "body", None)
    if body is not None:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    return httpx.Response(200, headers={"content-type": "application/json"}, content=_local.json)


def _client() -> HTTPHandler:
    return HTTPHandler(client=httpx.Client(transport=httpx.MockTransport(_answer)))


def _prune(dumped: dict, wire: Any) -> dict:
    """``dumped`` without the ``None``-valued keys the wire's object did not hold."""
    wire = wire if isinstance(wire, dict) else {}
    out = {k: v for k, v in dumped.items() if v is not None or k in wire}
    if isinstance(out.get("output"), list):
        items = wire.get("output") if isinstance(wire.get("output"), list) else []
        out["output"] = [_prune(item, items[n] if n < len(items) else {}) if isinstance(item, dict) else item
                         for n, item in enumerate(out["output"])]
    return out


class _Live:
    """litellm's stream of one buffer, live: its worker keeps the latest response and text."""

    def __init__(self) -> None:
        self.out: dict[str, Any] = {"response": None, "text": []}
        out = self.out

        def loop(body: Any) -> None:
            _local.body = body
            try:
                for event in litellm.responses(model=_MODEL, input="hi", stream=True, client=_client(),
                                               api_key="placeholder-never-sent"):
                    response = getattr(event, "response", None)
                    if response is not None:
                        out["response"] = response
                    if getattr(event, "type", None) == "response.output_text.delta":
                        delta = getattr(event, "delta", None)
                        if isinstance(delta, str):
                            out["text"].append(delta)
            finally:
                _local.body = None

        self.stream = _threaded.LiveStream(loop, "litellm-responses-stream")
        self.reported = False

    def feed(self, data: bytes) -> str:
        if self.stream.finished:
            return ""
        self.out["text"] = []
        self.stream.feed(data)
        if self.stream.raised is not None and not self.reported:
            self.reported = True
            raise self.stream.raised
        return "".join(self.out["text"])


class LiteLLMResponsesStrategy(OpenAIResponsesSDKStrategy):
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "live" not in state:
            state.update(live=_Live(), wire=None)
        if not (isinstance(chunk, dict) or (isinstance(chunk, str) and chunk.strip() == "[DONE]")):
            raise MalformedChunk(f"{_WHO}: an event is a JSON object, got {type(chunk).__name__}")
        if isinstance(chunk, dict) and isinstance(chunk.get("response"), dict):
            state["wire"] = chunk["response"]
        live: _Live = state["live"]
        _glue.lazy_root(acc, lambda: _render(live.out["response"], state["wire"]))
        try:
            return live.feed(_wire.sse_body([chunk], "openai-responses"))
        except Exception as exc:
            if isinstance(chunk, dict) and chunk.get("type") in ("error", "response.failed"):
                raise StreamError(f"{_WHO}: litellm raised {type(exc).__name__} for the provider's "
                                  f"{chunk.get('type')} event: {exc}", payload=chunk) from exc
            raise

    def extract(self, message: object) -> list[ToolCall]:
        if isinstance(message, dict) and _MARK not in message:
            read = _stream_false(message)
            if isinstance(read, Exception):
                return [ToolCall(name="", error=f"litellm refused the response: {type(read).__name__}: {read}")]
            message = read
        return super().extract(message)

    def content_text(self, message: object) -> str:
        if isinstance(message, dict) and _MARK not in message:
            read = _stream_false(message)
            if isinstance(read, Exception):
                return ""
            message = read
        return super().content_text(message)

    def result_messages(self, message: object, records: Any) -> list[dict]:
        if isinstance(message, dict) and _MARK not in message:
            read = _stream_false(message)
            if isinstance(read, Exception):
                raise ValueError(f"{_WHO}: litellm refused this response ({type(read).__name__}); no turn to replay")
            message = read
        return super().result_messages(message, records)


def _dump(response: Any) -> dict:
    """litellm's response object as JSON (litellm yields some as plain dicts)."""
    if isinstance(response, dict):
        return json.loads(json.dumps(response, default=str))
    return response.model_dump(mode="json", warnings=False)


def _render(response: Any, wire: Any) -> Any:
    if response is None:  # litellm has yielded no response yet: it holds no item
        return {"object": "response", "output": [], _MARK: "stream"}
    message = _prune(_dump(response), wire)
    message[_MARK] = "stream"
    return message


_READ: OrderedDict[str, Any] = OrderedDict()


def _stream_false(message: dict) -> Any:
    """litellm's answer for ``message`` sent as a ``stream=false`` body (a dict, or what it raised)."""
    try:
        key = json.dumps(message, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        key = repr(message)
    if key in _READ:
        _READ.move_to_end(key)
        return _READ[key]
    try:
        _local.json = _wire.json_body(message)
        response = litellm.responses(model=_MODEL, input="hi", stream=False, client=_client(),
                                     api_key="placeholder-never-sent")
        read: Any = _prune(_dump(response), message)
    except Exception as exc:  # litellm refuses this response
        read = exc
    finally:
        _local.json = None
    _READ[key] = read
    while len(_READ) > _KEPT:
        _READ.popitem(last=False)
    return read


def glue_view(case: Any) -> dict | None:
    """The case's events through ``litellm.responses(stream=True)`` ("library": the last
    response it yielded) beside the adapter's reading of the buffer's message ("adapter")."""
    chunks = _glue.case_chunks(case)
    if chunks is None:
        return None
    strategy = LiteLLMResponsesStrategy()
    _local.body = iter([_wire.sse_body([c for c in chunks if isinstance(c, (dict, str))], "openai-responses")])
    last, raised = None, None
    try:
        for event in litellm.responses(model=_MODEL, input="hi", stream=True, client=_client(),
                                       api_key="placeholder-never-sent"):
            if getattr(event, "response", None) is not None:
                last = event.response
    except Exception as exc:  # litellm refused the stream
        raised = f"{type(exc).__name__}: {exc}"
    finally:
        _local.body = None
    library: dict[str, Any] = {"text": None, "calls": [], "stop": None, "refused": raised}
    if last is not None and raised is None:
        dumped = _dump(last)
        dumped[_MARK] = "stream"
        library = {"text": strategy.content_text(dumped) or None,
                   "calls": [{"id": c.id, "name": c.name, "arguments": c.arguments}
                             for c in strategy.extract(dumped) if c.error is None],
                   "stop": dumped.get("status"), "refused": None}
    buf = LLMStreamBuffer([strategy])
    try:
        for chunk in chunks:
            buf.feed(chunk)
        message = buf.as_dict()
    except Exception as exc:
        return {"library": library, "adapter": {"text": None, "calls": [], "stop": None,
                                                "refused": f"{type(exc).__name__}: {exc}"}}
    adapter: dict[str, Any] = {"text": None, "calls": [], "stop": None, "refused": None}
    if isinstance(message, dict):
        adapter = {"text": strategy.content_text(message) or None,
                   "calls": [{"id": c.id, "name": c.name, "arguments": c.arguments}
                             for c in strategy.extract(message) if c.error is None],
                   "stop": message.get("status"), "refused": None}
    return {"library": library, "adapter": adapter}
