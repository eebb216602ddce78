"""pydantic-ai's ``OpenAIResponsesModel`` over the OpenAI Responses API as an
``openai-responses`` strategy.

pydantic-ai does the work on the documented public path the Chat adapter
(``harnesses/pydantic_ai/strategy.py``) drives, with the Responses model: each buffer
opens one stream with ``pydantic_ai.direct.model_request_stream(model,
[ModelRequest.user_text_prompt(...)])`` where ``model`` is ``OpenAIResponsesModel("gpt-4o",
provider=OpenAIProvider(openai_client=AsyncOpenAI(api_key=...,
http_client=httpx2.AsyncClient(transport=...))))`` (pydantic-ai's docs: "use the
`OpenAIResponsesModel` class" for the Responses API). The openai SDK reads the recorded
events as SSE bytes (``_wire.sse_body(..., "openai-responses")``) from the transport,
pydantic-ai maps them into parts, and the response at each read is the library's own
current ``StreamedResponse.get()``.

Glue choices (everything the adapter decides itself):

* Live drive, one stream per buffer, as the Chat adapter's (its header): an event loop per
  buffer, the request's task, an async body that ``accumulate`` writes one event's bytes
  into, stepping the loop until pydantic-ai waits for more bytes or has finished. The body
  never ends on its own: a Responses stream has no ``[DONE]`` (a ``"[DONE]"`` chunk is
  written as sent, and the body ends after it, as a server closes the connection), so
  every read is ``get()`` of the stream as far as pydantic-ai has read it. When pydantic-ai
  raises, ``accumulate`` raises at that event and every later one: ``StreamError`` when the
  openai SDK raised ``APIError`` for an event with an ``error`` member, or pydantic-ai raised
  its ``ModelAPIError`` with ``in_stream`` set (its report of the provider's ``error`` /
  ``response.failed`` event), ``MalformedChunk`` with pydantic-ai's text for anything else. An event that cannot be written as JSON, or
  is no JSON object, is refused with ``MalformedChunk``. Every event is handed over,
  ``error`` and ``response.failed`` too.
* Response object rendered from ``get()`` at read time only (``_glue.lazy_root``):
  pydantic-ai keeps no response object, so ``id`` is ``provider_response_id``, ``model``
  ``model_name``, ``status`` the provider's status pydantic-ai keeps in
  ``provider_details["finish_reason"]`` (absent when it keeps none), ``object:
  "response"``; ``output`` one item per part, in part order: a ``TextPart`` a ``message``
  item (``id`` the part's, one ``output_text`` part with its content, ``annotations``
  ``[]``), a ``ToolCallPart`` a ``function_call`` item (``id``, ``call_id``
  ``tool_call_id``, ``name``, ``arguments`` as pydantic-ai holds the streamed text, else
  ``args_as_json_str()``), ``ThinkingPart`` objects of one ``id`` one ``reasoning`` item
  (``id``, a ``summary_text`` per part with content, ``encrypted_content`` the
  ``signature`` pydantic-ai keeps for OpenAI: "OpenAI (corresponds to the
  `encrypted_content` field)"); other parts (built-in tool calls and returns, files)
  are left out. pydantic-ai keeps no item ``status``: none is written. No response so
  rendered can equal the ``stream=false`` response, so PARITY-001 is left out of the run
  (``harnesses.toml``). The response carries ``mcs_pydantic_ai: "stream"`` (a top-level
  ``mcs_*`` annotation) so that ``extract`` reads it as a streaming user reads ``get()``.
* ``extract`` of a marked response: each ``function_call`` item is the
  ``ToolCallPart(tool_name, args, tool_call_id)`` it was rendered from, read with
  ``args_as_dict(raise_if_invalid=True)``; a ``ValueError`` / ``AssertionError`` from it is
  the call's ``error``; a call without a name is given an ``error`` too.
* ``extract`` of any other response (a ``stream=false`` body of the suite): sent as the
  JSON body through ``pydantic_ai.direct.model_request`` on a model with the same client
  shape (``_wire.async_transport``), the calls the returned ``ToolCallPart`` read as above;
  one request per distinct response (kept, keyed by its JSON text, for the 1,024 latest);
  a response pydantic-ai refuses (it raises) gives one call with ``error``.
* ``content_text``: of a marked response, the ``output_text`` parts joined (the SDK
  Responses adapter's rule, whose class this one extends); of any other, the returned
  ``TextPart`` contents joined (``""`` for a refused response). ``result_messages``: the SDK
  Responses adapter's (the items, then a ``function_call_output`` per record) on the marked
  response, or on the one rendered from the ``model_request`` response. Recognition,
  ``is_done`` (``response.completed`` / ``response.incomplete``) and ``forming_name``: the
  SDK Responses adapter's.
* Display text: the ``delta`` of each ``response.output_text.delta`` event read.
* ``glue_view``: "library" is ``get()`` of a stream over the whole case's events (its
  ``ToolCallPart`` read with ``args_as_dict``, its ``TextPart`` contents joined, its
  ``finish_reason``) and what pydantic-ai raised, "adapter" is ``extract`` and
  ``content_text`` on the buffer's response, its ``status`` and what the buffer raised. A
  message case (no events) has no view.
"""

from __future__ import annotations

import asyncio
import json
import warnings
import weakref
from collections import OrderedDict, deque
from typing import Any

import httpx2
import openai
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request, model_request_stream
from pydantic_ai.exceptions import ModelAPIError
from pydantic_ai.messages import ModelResponse, TextPart, ThinkingPart, ToolCallPart
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

from mcs_conformance import Accumulator, LLMStreamBuffer, MalformedChunk, StreamError, ToolCall, ToolCallRecord

from .. import _glue, _wire
from ..sdk.responses import OpenAIResponsesSDKStrategy

__all__ = ["GLUE_LISTED", "PydanticAIOpenAIResponsesStrategy", "glue_view"]

_WHO = "pydantic-ai OpenAIResponsesModel"
_MARK = "mcs_pydantic_ai"
_PROMPT = "Use the tools."
_KEPT = 1024

GLUE_LISTED: dict[str, str] = {
    "refused.type": "the buffer reports pydantic-ai's exception as MalformedChunk (StreamError for the openai SDK's "
                    "APIError), its text naming pydantic-ai's",
    "stop": "the library's view is pydantic-ai's normalized finish_reason ('stop', 'length', ...), the adapter's the "
            "provider status pydantic-ai keeps in provider_details (what the response object holds)",
}


def _model(transport: Any) -> OpenAIResponsesModel:
    client = openai.AsyncOpenAI(api_key="placeholder-never-sent", http_client=httpx2.AsyncClient(transport=transport))
    return OpenAIResponsesModel("gpt-4o", provider=OpenAIProvider(openai_client=client))


def _messages() -> list:
    return [ModelRequest.user_text_prompt(_PROMPT)]


class _Pipe:
    """The response body: bytes written by ``accumulate``, read by the openai SDK."""

    def __init__(self) -> None:
        self.pending: deque[bytes] = deque()
        self.ended = False
        self.waiter: asyncio.Future | None = None
        self.starved: asyncio.Future | None = None

    def write(self, data: bytes | None) -> None:
        if data is None:
            self.ended = True
        else:
            self.pending.append(data)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def body(self):
        while True:
            while self.pending:
                yield self.pending.popleft()
            if self.ended:
                return
            self.waiter = asyncio.get_running_loop().create_future()
            if self.starved is not None and not self.starved.done():
                self.starved.set_result(None)
            await self.waiter


class _Run:
    """What the request's task shares with the buffer."""

    def __init__(self) -> None:
        self.streamed: Any = None
        self.task: asyncio.Task | None = None
        self.error: BaseException | None = None


async def _drive(pipe: _Pipe, run: _Run) -> None:
    async def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=pipe.body())

    try:
        async with model_request_stream(_model(httpx2.MockTransport(handler)), _messages()) as streamed:
            run.streamed = streamed
            async for _event in streamed:
                pass
    except Exception as exc:  # the library refused the stream; accumulate reports it
        run.error = exc


def _shutdown(loop: asyncio.AbstractEventLoop, run: _Run) -> None:
    if loop.is_closed():
        return
    try:
        asyncio.get_running_loop()
        running = True
    except RuntimeError:
        running = False
    task = run.task
    if running:
        if task is not None:
            task._log_destroy_pending = False  # type: ignore[attr-defined]
        loop.close()
        return
    if task is not None and not task.done():
        task.cancel()
        loop.run_until_complete(asyncio.wait([task]))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


class _Live:
    """One buffer's stream: its own event loop, the request's task and its body."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.pipe = _Pipe()
        self.run = _Run()
        self.done = False
        self._finalizer = weakref.finalize(self, _shutdown, self.loop, self.run)

    def feed(self, data: bytes | None) -> None:
        if self.done:
            return
        self.pipe.write(data)
        loop, run = self.loop, self.run
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if run.task is None:
                run.task = loop.create_task(_drive(self.pipe, run))
            self.pipe.starved = loop.create_future()
            loop.run_until_complete(asyncio.wait([run.task, self.pipe.starved], return_when=asyncio.FIRST_COMPLETED))
        if run.task.done():
            self.done = True
            self._finalizer()


def _describe(exc: BaseException) -> str:
    """``str(exc)``, or its repr where the exception's ``__str__`` fails (pydantic-ai's
    ``ModelAPIError`` built from an error event without a message returns ``None`` there)."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not hide the exception it describes
        return repr(exc)


def _raise_if_refused(run: _Run, chunk: Any) -> None:
    exc = run.error
    if exc is None:
        return
    cause = exc
    while cause is not None and not isinstance(cause, openai.APIError):
        cause = cause.__cause__ or cause.__context__
    text = f"pydantic-ai raised {type(exc).__name__}: {_describe(exc)}"
    if isinstance(exc, ModelAPIError) and getattr(exc, "in_stream", False):  # its report of the provider's error
        raise StreamError(f"{_WHO}: {text}", payload=chunk)
    if isinstance(cause, openai.APIError) and not isinstance(cause, openai.APIStatusError):
        raise StreamError(f"{_WHO}: {text}", payload=chunk)
    raise MalformedChunk(f"{_WHO}: {text}")


class PydanticAIOpenAIResponsesStrategy(OpenAIResponsesSDKStrategy):
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "live" not in state:
            state["live"] = _Live()
        live: _Live = state["live"]
        _raise_if_refused(live.run, chunk)
        if isinstance(chunk, str) and chunk.strip() == "[DONE]":
            live.feed(_wire.sse_body([chunk], "openai-responses"))
            live.feed(None)
        else:
            if not isinstance(chunk, dict):
                raise MalformedChunk(f"{_WHO}: an event is a JSON object, got {type(chunk).__name__}")
            try:
                data = _wire.sse_body([chunk], "openai-responses")
            except (TypeError, ValueError) as exc:
                raise MalformedChunk(f"{_WHO}: the event cannot be sent as JSON ({exc})") from None
            live.feed(data)
        _raise_if_refused(live.run, chunk)
        _glue.lazy_root(acc, lambda: _render_stream(live))
        if isinstance(chunk, dict) and chunk.get("type") == "response.output_text.delta" \
                and isinstance(chunk.get("delta"), str):
            return chunk["delta"]
        return ""

    def extract(self, message: object) -> list[ToolCall]:
        if not isinstance(message, dict):
            raise ValueError(f"{_WHO}.extract: expects a response object, got {type(message).__name__}")
        if _MARK in message:
            return [_call(ToolCallPart(tool_name=i.get("name") if isinstance(i.get("name"), str) else "",
                                       args=i.get("arguments"), tool_call_id=i.get("call_id")))
                    for i in message.get("output") or () if isinstance(i, dict) and i.get("type") == "function_call"]
        response = _stream_false(message)
        if isinstance(response, Exception):
            first = str(response).splitlines()[0] if str(response) else ""
            return [ToolCall(name="", error=f"pydantic-ai refused the response: {type(response).__name__}: {first}")]
        return [_call(p) for p in response.parts if isinstance(p, ToolCallPart)]

    def content_text(self, message: object) -> str:
        if isinstance(message, dict) and _MARK not in message:
            response = _stream_false(message)
            if not isinstance(response, ModelResponse):
                return ""
            return "".join(p.content for p in response.parts if isinstance(p, TextPart))
        return super().content_text(message)

    def result_messages(self, message: object, records: list[ToolCallRecord]) -> list[dict]:
        if isinstance(message, dict) and _MARK not in message:
            response = _stream_false(message)
            if not isinstance(response, ModelResponse):
                first = str(response).splitlines()[0] if str(response) else ""
                raise ValueError(f"{_WHO}: pydantic-ai refused this response ({type(response).__name__}: {first}); "
                                 f"it holds no assistant turn to replay")
            message = _render(response)
        return super().result_messages(message, records)


def _call(part: ToolCallPart) -> ToolCall:
    raw = part.args
    try:
        arguments, error = part.args_as_dict(raise_if_invalid=True), None
    except (ValueError, AssertionError) as exc:
        arguments, error = {}, f"pydantic-ai: {exc}"
    if error is None and not part.tool_name:
        error = "the tool call has no name"
    call_id = part.tool_call_id if isinstance(part.tool_call_id, str) else None
    return ToolCall(name=part.tool_name if isinstance(part.tool_name, str) else "", arguments=arguments,
                    id=call_id, raw_arguments=raw if isinstance(raw, str) else None, error=error)


_RESPONSES: OrderedDict[str, Any] = OrderedDict()


def _stream_false(message: dict) -> Any:
    """pydantic-ai's ``ModelResponse`` for ``message`` sent as a ``stream=false`` body (or
    the exception it raised), one request per distinct response."""
    try:
        key = json.dumps(message, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        key = repr(message)
    if key in _RESPONSES:
        _RESPONSES.move_to_end(key)
        return _RESPONSES[key]
    try:
        data = _wire.json_body(message)
    except (TypeError, ValueError) as exc:
        response: Any = exc
    else:
        async def request() -> ModelResponse:
            return await model_request(_model(_wire.async_transport(data, httpx2)), _messages())

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                response = asyncio.run(request())
        except Exception as exc:  # the library refuses this response
            response = exc
    _RESPONSES[key] = response
    while len(_RESPONSES) > _KEPT:
        _RESPONSES.popitem(last=False)
    return response


def _render_stream(live: _Live) -> Any:
    streamed = live.run.streamed
    if streamed is None:
        return None
    response = _render(streamed.get())
    response[_MARK] = "stream"
    return response


def _render(response: ModelResponse) -> dict:
    out: dict[str, Any] = {"object": "response"}
    if response.provider_response_id is not None:
        out["id"] = response.provider_response_id
    if response.model_name is not None:
        out["model"] = response.model_name
    status = (response.provider_details or {}).get("finish_reason")
    if isinstance(status, str):
        out["status"] = status
    items: list[dict] = []
    for part in response.parts:
        if isinstance(part, TextPart):
            item: dict[str, Any] = {"type": "message", "role": "assistant",
                                    "content": [{"type": "output_text", "text": part.content, "annotations": []}]}
        elif isinstance(part, ToolCallPart):
            item = {"type": "function_call", "call_id": part.tool_call_id, "name": part.tool_name,
                    "arguments": part.args if isinstance(part.args, str) else part.args_as_json_str()}
        elif isinstance(part, ThinkingPart):
            last = items[-1] if items else None
            if (last is not None and last.get("type") == "reasoning" and part.id is not None
                    and last.get("id") == part.id):  # one reasoning item, several summary parts
                if part.content:
                    last["summary"].append({"type": "summary_text", "text": part.content})
                if part.signature is not None and part.provider_name == "openai":
                    last["encrypted_content"] = part.signature
                continue
            item = {"type": "reasoning",
                    "summary": [{"type": "summary_text", "text": part.content}] if part.content else []}
            if part.signature is not None and part.provider_name == "openai":
                item["encrypted_content"] = part.signature
        else:
            continue
        if getattr(part, "id", None) is not None:
            item["id"] = part.id
        items.append(item)
    out["output"] = items
    return out


def glue_view(case: Any) -> dict | None:
    """The case's events through ``model_request_stream`` ("library": ``get()``) beside the
    adapter's ``extract`` / ``content_text`` on the buffer's response ("adapter"); ``None`` for
    a message case (no stream to feed)."""
    chunks = _glue.case_chunks(case)
    if chunks is None:
        return None
    # an event that is a JSON string (not the "[DONE]" sentinel) goes on the wire as one, as the
    # strategy's refusal of it reads it; other JSON values likewise
    body = _wire.sse_body([c if isinstance(c, dict) or (isinstance(c, str) and c.strip() == "[DONE]")
                           else json.dumps(c) for c in chunks], "openai-responses")

    async def stream() -> Any:
        async with model_request_stream(_model(_wire.async_transport(body, httpx2)), _messages()) as streamed:
            async for _event in streamed:
                pass
            return streamed.get()

    got, raised = None, None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = asyncio.run(stream())
    except Exception as exc:  # pydantic-ai refused the stream
        raised = f"{type(exc).__name__}: {_describe(exc)}"
    library = {"text": None, "calls": [], "stop": None, "refused": raised}
    if got is not None:
        calls = [_call(p) for p in got.parts if isinstance(p, ToolCallPart)]
        library = {"text": "".join(p.content for p in got.parts if isinstance(p, TextPart)) or None,
                   "calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls if c.error is None],
                   "stop": got.finish_reason, "refused": None}
    strategy = PydanticAIOpenAIResponsesStrategy()
    buf = LLMStreamBuffer([strategy])
    try:
        for chunk in chunks:
            buf.feed(chunk)
        message = buf.as_dict()
    except Exception as exc:  # the buffer refused an event pydantic-ai raised on
        return {"library": library, "adapter": {"text": None, "calls": [], "stop": None,
                                                "refused": f"{type(exc).__name__}: {exc}"}}
    adapter = {"text": None, "calls": [], "stop": None, "refused": None}
    if isinstance(message, dict):
        adapter = {"text": strategy.content_text(message) or None,
                   "calls": [{"id": c.id, "name": c.name, "arguments": c.arguments}
                             for c in strategy.extract(message) if c.error is None],
                   "stop": message.get("status"), "refused": None}
    return {"library": library, "adapter": adapter}
