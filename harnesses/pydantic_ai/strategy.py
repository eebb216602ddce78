"""pydantic-ai's OpenAI Chat streaming as an ``openai-chat`` strategy.

pydantic-ai does the work on its documented public path, driven live: each buffer opens one
stream with ``pydantic_ai.direct.model_request_stream(model, [ModelRequest.user_text_prompt
(...)])`` (https://ai.pydantic.dev/direct: "low-level methods for making imperative
requests to LLMs where the only abstraction is input and output schema translation ...
when you don't need the full functionality of an Agent"), where ``model`` is
``OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=AsyncOpenAI(api_key=...,
http_client=httpx2.AsyncClient(transport=...))))`` (openai 3.57 takes an ``httpx2`` client;
pydantic-ai's ``OpenAIProvider`` documents ``httpx2.AsyncClient`` or a legacy
``httpx.AsyncClient``). The openai SDK reads the recorded chunks as SSE bytes from the
transport, pydantic-ai's ``OpenAIStreamedResponse`` maps them into parts through its
``ModelResponsePartsManager``, and the message at each read is the library's own current
``StreamedResponse.get()`` (``TextPart``, ``ThinkingPart``, ``ToolCallPart``; a refusal in
``provider_details``). Direct requests rather than ``Agent.run_stream``: an agent run
would also validate the output and execute the tools (and end its stream at the first
final result), while the suite judges what the library reassembles from the stream; the
direct API is the model request an agent run makes, with nothing on top.

Glue choices (everything the adapter decides itself):

* Live drive, one stream per buffer: the buffer's ``acc.state`` owns an event loop, the
  request's task and the response body, an async byte iterator that the transport's
  handler returns. ``accumulate`` writes the chunk's SSE bytes (``_wire.sse_body``) into
  the body and steps the loop until the library either waits for more bytes or has
  finished; so a read sees everything pydantic-ai made of the chunks so far, and the ids
  pydantic-ai generates (``pyd_ai_<uuid>`` for a call that came without one) stay the same
  for the whole stream, as a user of one stream sees them. The loop is closed when the
  stream ends, or when the buffer is dropped.
* The end of the stream is the wire's: a ``"[DONE]"`` chunk is written as the server sends
  it and the body then ends (the server closes the connection after it), so the openai SDK
  stops and pydantic-ai runs its end-of-stream code (the refusal text published in
  ``provider_details``, a finish reason defaulted to ``"stop"`` when no chunk carried one).
  A stream whose chunks hold no ``"[DONE]"`` stays open: every read is pydantic-ai's
  ``get()`` of a stream still running (its finish reason is then ``None`` until a chunk
  carries one, as the SDK's). A read never ends the stream: the suite may read after any
  chunk and feed more. pydantic-ai's default for a stream that ends without a finish
  reason is reported by harnesses/repro/pydantic_ai_cut_stream_runs_call.py.
* Chunks after ``"[DONE]"`` are not read by the openai SDK (it stops there); they are
  accepted and change nothing. A chunk that cannot be written as JSON is refused with
  ``MalformedChunk``.
* When pydantic-ai's stream raises on a chunk, ``accumulate`` raises at that chunk (and at
  every later one): ``StreamError`` when the openai SDK raised ``APIError`` for a chunk
  with an ``error`` member (the provider's error event), ``MalformedChunk`` with
  pydantic-ai's text for anything else it raised. A read after that is ``get()`` as far
  as the stream got.
* Wire message rendered from ``get()`` at read time only (``_glue.lazy_root``):
  ``role: "assistant"`` when a delta of choice 0 carried ``role`` (a ``ModelResponse`` is the
  assistant's and keeps no record of the key); ``content`` the ``TextPart`` contents joined,
  or, with no ``TextPart`` (pydantic-ai makes none of an empty content), ``""`` when a delta
  carried a string content and ``None`` otherwise (the LangChain adapter's rule); ``tool_calls`` one ``{"id": tool_call_id, "type": "function", "function":
  {"name": tool_name, "arguments": args}}`` per ``ToolCallPart`` in part order (``type``
  only when a fragment carried it: pydantic-ai keeps none, and Mistral sends none) (``args``
  as pydantic-ai holds the streamed text; ``args_as_json_str()`` if it holds no string);
  ``refusal`` from ``provider_details["refusal"]``; ``reasoning_content`` the
  ``ThinkingPart`` contents joined when a delta carried that key. Every other key a delta
  of choice 0 carried is written as ``None``; ``None``-valued keys no delta carried are
  left out (``_glue.wire_keys_only``). The message carries ``mcs_pydantic_ai: "stream"``
  (a top-level ``mcs_*`` annotation, which PARITY leaves aside) so that ``extract`` reads
  it as a streaming user reads ``get()``.
* Settings: pydantic-ai's defaults (no model settings; ``openai_include_unmapped_response_data``
  is off, the default users get).
* ``extract`` of a message marked ``mcs_pydantic_ai``: each ``tool_calls`` entry is the
  ``ToolCallPart(tool_name, args, tool_call_id)`` it was rendered from, read with
  pydantic-ai's ``args_as_dict(raise_if_invalid=True)``; a ``ValueError`` /
  ``AssertionError`` from it is the call's ``error`` (any other exception propagates); a
  call without a name is given an ``error`` too (it can never run).
* ``extract`` of any other message (a provider's ``stream=false`` answer): the message is
  sent as choice 0 of a ``chat.completion`` JSON body (``_wire.json_body``; ``role:
  "assistant"`` when absent, ``finish_reason`` ``"tool_calls"`` when it has calls and
  ``"stop"`` otherwise, ``id``/``created``/``model`` placeholders) through
  ``pydantic_ai.direct.model_request`` on a model with the same client shape
  (``_wire.async_transport``), and the calls are the response's ``ToolCallPart`` read as
  above. One request per distinct message (the response is kept, keyed by the message's
  JSON text, for the 1,024 latest), as a user holds one response: pydantic-ai's generated
  ids then stay the same when the same message is read again. A response pydantic-ai
  refuses (it raises) gives one call with ``error`` (it must not pass for "no call").
* ``content_text`` of any other message: the response's ``TextPart`` contents joined (how
  pydantic-ai reads the text, content parts included), ``""`` for a refused response; of a
  marked message: its ``content`` string (``_glue.ChatAdapter``).
* ``result_messages``: the continuation (``_glue.continuation``) of the message as
  pydantic-ai holds it: a marked message as it is; any other message rendered from its
  ``model_request`` response as above, so the results answer the ids ``extract`` returns.
  A response pydantic-ai refuses holds no turn to replay: ``ValueError``.
* The glue check (``glue_view``, ``harnesses/glue_check.py``): pydantic-ai's own
  ``ModelResponse`` (``get()`` of the same live stream; a message case: ``model_request``'s)
  read part by part (``TextPart`` contents, ``ToolCallPart`` id, name and ``args`` as it holds
  them, the finish reason, or what it raised) beside the adapter's message read by
  ``extract`` / ``content_text``. The differences the adapter knows of are ``GLUE_LISTED``.
* Display text: the ``content`` of choice 0's delta in each chunk. Recognition,
  ``is_done`` (``_glue.chat_is_done``: the wire's completion signal; the buffer's ``done``
  tells the suite's extraction axis) and ``forming_name``: ``_glue.ChatAdapter``. The API key is a placeholder; nothing leaves the process.
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
from pydantic_ai.messages import ModelResponse, TextPart, ThinkingPart, ToolCallPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from mcs_conformance import Accumulator, MalformedChunk, StreamError, ToolCall, ToolCallRecord

from .. import _glue, _wire

__all__ = ["PydanticAIOpenAIStrategy"]

_WHO = "pydantic-ai OpenAIChatModel"
_MARK = "mcs_pydantic_ai"
_PROMPT = "Use the tools."
_KEPT = 1024


def _model(transport: Any) -> OpenAIChatModel:
    client = openai.AsyncOpenAI(api_key="placeholder-never-sent", http_client=httpx2.AsyncClient(transport=transport))
    return OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))


def _messages() -> list:
    return [ModelRequest.user_text_prompt(_PROMPT)]


# -- the live stream ---------------------------------------------------------------------

class _Pipe:
    """The response body: bytes written by ``accumulate``, read by the openai SDK."""

    def __init__(self) -> None:
        self.pending: deque[bytes] = deque()
        self.ended = False
        self.waiter: asyncio.Future | None = None   # the body waits for bytes on it
        self.starved: asyncio.Future | None = None  # set when the body has none to give

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
    """What the request's task shares with the buffer: the streamed response, how it ended."""

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
    if running:  # dropped while another loop runs: the loop cannot be stepped now
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
        """Write ``data`` (``None``: the end of the body) and step the loop until the library
        waits for more bytes or has finished."""
        if self.done:
            return
        self.pipe.write(data)
        loop, run = self.loop, self.run
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if run.task is None:
                run.task = loop.create_task(_drive(self.pipe, run))
            self.pipe.starved = loop.create_future()
            loop.run_until_complete(asyncio.wait([run.task, self.pipe.starved],
                                                 return_when=asyncio.FIRST_COMPLETED))
        if run.task.done():
            self.done = True
            self._finalizer()


def _raise_if_refused(run: _Run, chunk: Any) -> None:
    exc = run.error
    if exc is None:
        return
    cause = exc
    while cause is not None and not isinstance(cause, openai.APIError):
        cause = cause.__cause__ or cause.__context__
    text = f"pydantic-ai raised {type(exc).__name__}: {exc}"
    if isinstance(cause, openai.APIError) and not isinstance(cause, openai.APIStatusError):
        raise StreamError(f"{_WHO}: {text}", payload=chunk) from exc
    raise MalformedChunk(f"{_WHO}: {text}") from exc


# -- the strategy ------------------------------------------------------------------------

class PydanticAIOpenAIStrategy(_glue.ChatAdapter):
    who = _WHO

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "live" not in state:
            state.update(live=_Live(), keys=set(), call_keys=set(), text=False)
        live: _Live = state["live"]
        _raise_if_refused(live.run, chunk)
        if isinstance(chunk, str) and chunk.strip() == "[DONE]":
            live.feed(_wire.sse_body([chunk]))
            live.feed(None)
            _raise_if_refused(live.run, chunk)
            _glue.lazy_root(acc, lambda: _render_stream(state))
            return ""
        try:
            data = _wire.sse_body([chunk])
        except (TypeError, ValueError) as exc:
            raise MalformedChunk(f"{_WHO}: the chunk cannot be sent as JSON ({exc})") from None
        live.feed(data)
        _raise_if_refused(live.run, chunk)
        deltas = _glue.choice0_deltas(chunk) if isinstance(chunk, dict) else []
        _glue.note_keys(deltas, state["keys"], state["call_keys"])
        state["text"] = state["text"] or any(isinstance(d.get("content"), str) for d in deltas)
        _glue.lazy_root(acc, lambda: _render_stream(state))
        return "".join(d["content"] for d in deltas if isinstance(d.get("content"), str))

    def extract(self, message: object) -> list[ToolCall]:
        if not isinstance(message, dict):
            raise ValueError(f"{_WHO}.extract: expects an assistant message dict, got {type(message).__name__}")
        if _MARK in message:
            entries = message.get("tool_calls")
            return [_marked_call(entry, n) for n, entry in enumerate(entries if isinstance(entries, list) else ())]
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
        if not isinstance(message, dict):
            raise ValueError(f"{_WHO}: the message is a dict, got {type(message).__name__}")
        if _MARK not in message:
            response = _stream_false(message)
            if not isinstance(response, ModelResponse):
                first = str(response).splitlines()[0] if str(response) else ""
                raise ValueError(f"{_WHO}: pydantic-ai refused this response ({type(response).__name__}: {first}); "
                                 f"it holds no assistant turn to replay")
            entries = message.get("tool_calls")
            call_keys = {k for e in entries if isinstance(e, dict) for k in e} if isinstance(entries, list) else set()
            message = _render(response, set(message), call_keys, isinstance(message.get("content"), str))
        return _glue.continuation(_WHO, message, records, self.extract(message))


def _call(part: ToolCallPart) -> ToolCall:
    raw = part.args
    try:
        arguments, error = part.args_as_dict(raise_if_invalid=True), None
    except (ValueError, AssertionError) as exc:
        arguments, error = {}, f"pydantic-ai: {exc}"
    if error is None and not part.tool_name:
        error = "the tool call has no name"
    return ToolCall(name=part.tool_name if isinstance(part.tool_name, str) else "", arguments=arguments,
                    id=part.tool_call_id, raw_arguments=raw if isinstance(raw, str) else None, error=error)


def _marked_call(entry: Any, n: int) -> ToolCall:
    if not isinstance(entry, dict) or not isinstance(entry.get("function"), dict):
        return ToolCall(name="", error=f"tool_calls[{n}] is no function call")
    function = entry["function"]
    name, raw, call_id = function.get("name"), function.get("arguments"), entry.get("id")
    return _call(ToolCallPart(tool_name=name if isinstance(name, str) else "", args=raw, tool_call_id=call_id))


# -- the stream=false path ----------------------------------------------------------------

_RESPONSES: OrderedDict[str, Any] = OrderedDict()


def _stream_false(message: dict) -> Any:
    """pydantic-ai's ``ModelResponse`` for ``message`` sent as a ``stream=false`` answer (or
    the exception it raised), one request per distinct message."""
    try:
        key = json.dumps(message, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        key = repr(message)
    if key in _RESPONSES:
        _RESPONSES.move_to_end(key)
        return _RESPONSES[key]
    sent = dict(message)
    sent.setdefault("role", "assistant")
    body = {"id": "chatcmpl-stream-false", "object": "chat.completion", "created": 0, "model": "gpt-4o",
            "choices": [{"index": 0, "message": sent, "logprobs": None,
                         "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}]}
    try:
        data = _wire.json_body(body)
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


# -- rendering ---------------------------------------------------------------------------

def _render_stream(state: dict) -> Any:
    streamed = state["live"].run.streamed
    if streamed is None:
        return None
    message = _render(streamed.get(), state["keys"], state["call_keys"], state["text"])
    message[_MARK] = "stream"
    return message


def _render(response: ModelResponse, keys: set, call_keys: set, text: bool) -> dict:
    """The wire message of ``response``; ``keys`` / ``call_keys``: the message and tool-call
    keys the wire carried; ``text``: whether it carried a string ``content``."""
    message: dict[str, Any] = {k: None for k in keys if not (isinstance(k, str) and k.startswith("mcs_"))}
    if "role" in keys:
        message["role"] = "assistant"
    texts = [p.content for p in response.parts if isinstance(p, TextPart)]
    message["content"] = "".join(texts) if texts else ("" if text else None)
    refusal = (response.provider_details or {}).get("refusal")
    if refusal is not None:
        message["refusal"] = refusal
    thinking = [p.content for p in response.parts if isinstance(p, ThinkingPart)]
    if thinking and "reasoning_content" in keys:
        message["reasoning_content"] = "".join(thinking)
    calls = [p for p in response.parts if isinstance(p, ToolCallPart)]
    if calls:
        message["tool_calls"] = [
            {"id": p.tool_call_id, **({"type": "function"} if "type" in call_keys else {}),
             "function": {"name": p.tool_name, "arguments": p.args if isinstance(p.args, str) else p.args_as_json_str()}}
            for p in calls
        ]
    return _glue.wire_keys_only(message, keys, call_keys | {"type", "id"})


GLUE_LISTED: dict[str, str] = {
    "stop": "a Chat message holds no finish reason, and is_done is a function of the chunk: the adapter's "
            "completion signal is the wire's (choice 0's finish_reason), never pydantic-ai's finish_reason "
            "(\"content_filter\" for a refusal, \"stop\" for a stream that ended without one: "
            "pydantic-ai-cut-stream-finished)",
    "refused:openai-chat/msg-arguments-lone-surrogate": "pydantic-ai returns the response, and its own "
            "ToolCallPart.args_as_dict, which extract reads the arguments with, raises TypeError on them "
            "(pydantic-ai-lone-surrogate-crash); the library's view reads the parts without it",
    "refused.type:openai-chat/syn-unparsed-sse-line": "a chunk that is a JSON string (an SSE line left unparsed), "
            "not an object, is handed to pydantic-ai as an SSE line holding a JSON string, on which it raises "
            "ModelAPIError; the adapter's stream, which does the same, sees it as a MalformedChunk of its own",
}


def glue_view(case: Any) -> dict | None:
    """pydantic-ai's own ``ModelResponse`` beside the adapter's message: for a stream case
    ``get()`` of the same live stream (or what it raised), for a message case
    ``model_request``'s response."""
    from ..glue_check import adapter_view, call, refusal, view

    strategy = PydanticAIOpenAIStrategy()
    if not case.is_stream:
        message = case.message
        if not isinstance(message, dict):
            return None
        response = _stream_false(message)
        library = (view(refused=refusal(response)) if isinstance(response, Exception)
                   else {**_response_view(response), "stop": None})  # the finish reason is the body's, set here
        try:
            calls = strategy.extract(message)
        except Exception as exc:
            return {"library": library, "adapter": view(refused=refusal(exc))}
        if isinstance(response, Exception):  # the adapter's answer to a refused response: one call with error
            refused = len(calls) == 1 and (calls[0].error or "").startswith("pydantic-ai refused the response")
            adapter = view(refused=refusal(response)) if refused else view(calls=[call(c.id, c.name, c.raw_arguments)
                                                                             for c in calls])
        else:
            adapter = view(text=strategy.content_text(message),
                           calls=[call(_made_up(c.id), c.name, c.raw_arguments if c.raw_arguments is not None
                                       else c.arguments) for c in calls])
        return {"library": library, "adapter": adapter}
    live = _Live()
    for chunk in case.chunks:
        if live.run.error is not None or live.done:
            break
        try:
            data = _wire.sse_body([chunk])
        except (TypeError, ValueError):
            break
        live.feed(data)
        if isinstance(chunk, str) and chunk.strip() == "[DONE]":
            live.feed(None)
    if live.run.error is not None:
        library = view(refused=refusal(live.run.error))
    elif live.run.streamed is None:
        library = view()
    else:
        library = _response_view(live.run.streamed.get())
    adapter = adapter_view(strategy, case, stop=lambda fed, _message: _glue.wire_finish(fed))
    adapter["calls"] = [{**c, "id": _made_up(c["id"])} for c in adapter["calls"]]
    return {"library": library, "adapter": adapter}


def _made_up(call_id: Any) -> Any:
    """An id pydantic-ai made up (``pyd_ai_<uuid>``, new per stream and per request) as one
    placeholder, so two runs of one case compare equal."""
    return "pyd_ai_*" if isinstance(call_id, str) and call_id.startswith("pyd_ai_") else call_id


def _response_view(response: ModelResponse) -> dict:
    from ..glue_check import call, view

    texts = [p.content for p in response.parts if isinstance(p, TextPart)]
    calls = [call(_made_up(p.tool_call_id), p.tool_name, p.args) for p in response.parts if isinstance(p, ToolCallPart)]
    raw = (response.provider_details or {}).get("finish_reason")
    stop = raw or {"tool_call": "tool_calls"}.get(response.finish_reason, response.finish_reason)
    return view(text="".join(texts) if texts else None, calls=calls, stop=stop)
