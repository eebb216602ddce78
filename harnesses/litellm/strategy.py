"""litellm's streaming path for OpenAI Chat Completions as an ``openai-chat`` strategy.

litellm does the work, as its docs show for a streamed call and for rebuilding it:
``litellm.completion(model="openai/gpt-4o", messages=..., stream=True, client=...)``
returns litellm's ``CustomStreamWrapper``; its chunks are collected as the loop
``for chunk in response`` yields them, and ``litellm.stream_chunk_builder(chunks,
messages=messages)`` returns the ``ModelResponse`` whose ``choices[0].message`` is the
message (https://docs.litellm.ai/docs/completion/stream; the calls read as in
https://docs.litellm.ai/docs/completion/function_call). The client is the openai SDK's ``openai.OpenAI`` with an ``httpx2.Client`` whose
transport serves the recorded chunks as the SSE bytes the provider sent
(``_wire.sse_body``); nothing is sent anywhere. A ``stream=false`` message of the suite is
read as litellm returns one: ``litellm.completion(..., stream=False)`` over the JSON body of a
``chat.completion`` holding it, then ``choices[0].message.tool_calls``.

Glue choices (everything the adapter decides itself):

* The glue check (``glue_view``, ``harnesses/glue_check.py``): the chunks the wrapper
  yielded over the same live body and ``stream_chunk_builder``'s message (its ``content``,
  ``tool_calls`` with their ``arguments`` text, ``finish_reason``, or what litellm raised)
  beside the adapter's message read by ``extract`` / ``content_text``; a message case:
  ``completion(stream=False)``'s message beside ``extract``. The differences the adapter
  knows of are ``GLUE_LISTED``.
* One live stream per buffer: the first chunk starts a worker thread that runs ``for chunk in
  litellm.completion(..., stream=True)`` over a response body that waits for bytes;
  ``accumulate`` hands it the chunk's SSE bytes and waits until litellm asks for more (or its
  loop has ended), so litellm has read exactly the chunks fed so far, each once, as from a
  live connection (``_threaded.LiveStream``, shared with the LangChain adapter). The thread
  stops when the buffer is dropped (a private ``BaseException`` from the body, which no
  ``except Exception`` of litellm or the SDK catches).
* The message is ``litellm.stream_chunk_builder`` over the chunks the wrapper has yielded so
  far, run when the message is read (``_glue.lazy_root``: nothing per chunk, so COST measures
  litellm): the chunks a litellm user holds at that point of the stream.
* The end of the stream: once ``"[DONE]"`` has been fed, the body ends after it (the
  provider's end of the stream), the openai SDK's ``Stream`` stops there and the wrapper runs
  its own end-of-stream code: its last chunk is collected; later bytes are not read. What the
  wrapper's loop raises (``MidStreamFallbackError`` around "Stream ended before a
  finish_reason was received" for a stream that never carried one, or on a chunk it cannot
  read) is raised by the ``accumulate`` of the chunk it raised at, the exception itself (the
  buffer reports it as a chunk that cannot be accumulated): a litellm user's loop gets it
  there. Once the loop is over, ``accumulate`` runs ``stream_chunk_builder`` over the chunks
  collected, as a litellm user does after the loop, and raises what it raises (litellm's
  ``APIError`` "Error building chunks ..."). A stream whose chunks end without ``"[DONE]"``
  is read as still open (the suite's message is the state after its chunks); where the
  connection closes there without a finish reason, litellm raises as above.
* A read before the loop is over builds the message from the chunks so far; a read must not
  raise (the suite would take the exception for its own fault), so a builder that raises
  there gives the message ``{"mcs_error": <its text>}`` (no call); the ``accumulate`` that
  ends the loop raises it.
* The message is ``choices[0].message.model_dump()`` with the keys litellm adds that were
  never on the wire removed (``_glue.wire_keys_only``: ``None``-valued keys no delta of
  choice 0 carried, ``index`` on tool calls). A key a delta of choice 0 carried that
  litellm's message lacks is written as ``None``. Values are litellm's, untouched. The
  message carries ``mcs_litellm: "stream_chunk_builder"`` (a top-level ``mcs_*``
  annotation, which PARITY leaves aside) so that ``extract`` reads it as a streaming litellm
  user reads the rebuilt message. Before the wrapper yields a chunk with choices, the
  message is ``{}``.
* ``extract``: a message marked ``mcs_litellm`` is read as litellm's docs read the calls of
  a message: ``tool_calls[i].function.name`` / ``.id``, and ``json.loads`` of
  ``.function.arguments`` (``_glue.chat_calls``). Any other message (a provider's
  ``stream=false`` answer) is served as the JSON body ``{"object": "chat.completion",
  "choices": [{"index": 0, "message": <message>, "finish_reason": ...}]}`` (``"tool_calls"``
  when it has calls, else ``"stop"``) to ``litellm.completion(..., stream=False)``, and the
  calls are read from its ``choices[0].message`` the same way, once per distinct message (the
  response is kept and read again: litellm gives an id-less call a random id, as a response
  read twice keeps it). When that call raises, the
  message gives one call with ``error`` naming litellm's exception (it cannot be read, and
  must not pass for "no call"). The continuation of such a message is built from litellm's
  message (``_glue.continuation``), as a litellm user appends ``response.choices[0].message``
  to the history: the ids are litellm's (it gives an id-less call one of its own).
* One ``openai.OpenAI`` client (placeholder API key, ``max_retries=0``) for every call, its
  ``httpx2.MockTransport`` answering a stream's worker with that stream's live body and any
  other caller with the JSON body it set just before its ``stream=false`` call.
  ``messages`` is one user message; ``model="openai/gpt-4o"`` routes to litellm's OpenAI
  provider, which takes ``client=``.
  ``litellm.suppress_debug_info`` and ``litellm.disable_streaming_logging`` are set and the
  ``LiteLLM`` logger is disabled (logging only: litellm's success logging per chunk runs in a
  thread pool and changes no chunk; its error log repeats what the message says) and
  ``LITELLM_LOCAL_MODEL_COST_MAP=True``: litellm reads its bundled model list instead of
  fetching one at import (this machine is offline).
* Unfinished streams: ``is_done`` (``_glue.chat_is_done``) reads the wire's completion
  signal and the buffer's ``done`` tells the suite's extraction axis.
* Error chunks: the openai SDK's ``Stream`` raises ``APIError`` for them inside litellm's
  loop; ``accumulate`` raises ``StreamError`` at the same point (``_glue.chat_chunk``).
  Recognition, ``is_done``, display text (choice 0's delta ``content``), ``forming_name`` and
  the continuation: ``_glue.ChatAdapter``.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import threading
from collections import OrderedDict

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from collections.abc import Sequence  # noqa: E402
from typing import Any  # noqa: E402

import httpx2  # noqa: E402
import litellm  # noqa: E402
import openai  # noqa: E402

from mcs_conformance import Accumulator, ToolCall, ToolCallRecord  # noqa: E402

from .. import _glue, _threaded, _wire  # noqa: E402

litellm.suppress_debug_info = True
litellm.disable_streaming_logging = True
logging.getLogger("LiteLLM").disabled = True  # its tracebacks of what it raises; the message says it

__all__ = ["LiteLLMStrategy"]

_WHO = "litellm"
_MARK = "mcs_litellm"
_MODEL = "openai/gpt-4o"
_MESSAGES = [{"role": "user", "content": "What should I call?"}]
class _Live:
    """litellm's stream of one buffer, live (``_threaded.LiveStream``): its worker runs ``for
    chunk in litellm.completion(..., stream=True)`` and keeps the chunks yielded."""

    def __init__(self) -> None:
        self.chunks: list = []
        chunks = self.chunks

        def loop(body: Any) -> None:
            _local.body = body
            for chunk in litellm.completion(model=_MODEL, messages=_MESSAGES, stream=True, client=_client()):
                chunks.append(chunk)

        self.stream = _threaded.LiveStream(loop, "litellm-stream")


_local = threading.local()
_CLIENT: openai.OpenAI | None = None


def _answer(request: Any) -> Any:
    """The fake endpoint: a live stream's body for the worker of a stream, else the JSON body
    set for the ``stream=false`` call made on this thread."""
    body = getattr(_local, "body", None)
    if body is not None:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    return httpx2.Response(200, headers={"content-type": "application/json"}, content=_local.json)


def _client() -> openai.OpenAI:
    global _CLIENT
    if _CLIENT is None:
        _CLIENT = openai.OpenAI(api_key="placeholder-never-sent", max_retries=0,
                                http_client=httpx2.Client(transport=httpx2.MockTransport(_answer)))
    return _CLIENT


def _complete(response: dict) -> Any:
    """``litellm.completion(stream=False)`` over the JSON body ``response``."""
    _local.json = _wire.json_body(response)
    return litellm.completion(model=_MODEL, messages=_MESSAGES, stream=False, client=_client())


class LiteLLMStrategy(_glue.ChatAdapter):
    who = _WHO

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "live" not in state:
            state.update(live=_Live(), keys=set(), call_keys=set(), raised=None)
        if state["raised"] is not None:  # the loop raised at an earlier chunk: the stream is over
            return ""
        live: _Live = state["live"]
        if isinstance(chunk, str) and chunk.strip() == "[DONE]":
            live.stream.feed(_wire.sse_body(["[DONE]"]))
            live.stream.end()
            _end(state)
            _glue.lazy_root(acc, lambda: _render(state))
            return ""
        _glue.chat_chunk(chunk, _WHO)
        deltas = _glue.choice0_deltas(chunk)
        _glue.note_keys(deltas, state["keys"], state["call_keys"])
        live.stream.feed(_wire.sse_body([chunk]))
        _end(state)
        _glue.lazy_root(acc, lambda: _render(state))
        return "".join(d["content"] for d in deltas if isinstance(d.get("content"), str))

    def extract(self, message: object) -> list[ToolCall]:
        if not isinstance(message, dict):
            raise ValueError(f"{_WHO}.extract: expects an assistant message dict, got {type(message).__name__}")
        if message.get(_MARK) is not None:
            return _glue.chat_calls(message, _WHO)
        answer, refused = _answered(message)
        if answer is None:
            return [ToolCall(name="", error=refused)]
        return _glue.chat_calls(answer, _WHO)

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        if isinstance(message, dict) and message.get(_MARK) is None:
            answer, _ = _answered(message)
            if answer is not None:  # the turn a litellm user sends back: litellm's message, its ids
                return _glue.continuation(self.who, answer, records, self.extract(message))
        return super().result_messages(message, records)


_ANSWERS: OrderedDict[str, tuple[dict | None, str]] = OrderedDict()


def _key(message: dict) -> str:
    return json.dumps(message, sort_keys=True, ensure_ascii=False, default=repr)


def _answered(message: dict) -> tuple[dict | None, str]:
    """``choices[0].message`` of ``litellm.completion(stream=False)`` over ``message``, dumped,
    or (None, what litellm raised). One call per distinct message: litellm gives an id-less
    call a random id, and a response is read as often as one likes once it has arrived."""
    key = _key(message)
    if key in _ANSWERS:
        _ANSWERS.move_to_end(key)
    else:
        try:
            _ANSWERS[key] = (_complete(_completion(message)).choices[0].message.model_dump(), "")
        except Exception as exc:  # litellm refuses the response; what it says is the calls' error
            _ANSWERS[key] = (None, f"litellm.completion(stream=False) raised {type(exc).__name__}: "
                                   f"{_first_line(exc)}")
        while len(_ANSWERS) > 4096:
            _ANSWERS.popitem(last=False)
    answer, refused = _ANSWERS[key]
    return copy.deepcopy(answer), refused


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else ""


def _completion(message: dict) -> dict:
    calls = message.get("tool_calls")
    return {"id": "chatcmpl-mcs", "object": "chat.completion", "created": 1760000000, "model": "gpt-4o",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "tool_calls" if calls else "stop"}]}


def _end(state: dict) -> None:
    """Once the wrapper's loop is over: raise what it raised, else what ``stream_chunk_builder``
    raises over the chunks it yielded (what a litellm user's loop, then builder call, gets)."""
    live: _Live = state["live"]
    if not live.stream.finished:
        return
    raised = live.stream.raised
    if raised is None and any(c.get("choices") for c in live.chunks):
        try:
            litellm.stream_chunk_builder(list(live.chunks), messages=_MESSAGES)
        except Exception as exc:  # litellm refuses the chunks it yielded
            raised = exc
    if raised is not None:
        state["raised"] = raised
        raise raised


def _render(state: dict) -> Any:
    live = state["live"]
    if live.stream.raised is not None:
        raised = live.stream.raised
        return {"mcs_error": f"litellm's stream raised {type(raised).__name__}: {_first_line(raised)}"}
    chunks = list(live.chunks)
    if not any(c.get("choices") for c in chunks):
        return {}
    try:
        response = litellm.stream_chunk_builder(chunks, messages=_MESSAGES)
    except Exception as exc:  # litellm refuses these chunks; a read must not raise
        return {"mcs_error": f"litellm.stream_chunk_builder raised {type(exc).__name__}: {_first_line(exc)}"}
    if response is None or not response.choices:
        return {}
    message = {**{k: None for k in state["keys"]}, **response.choices[0].message.model_dump()}
    return {**_glue.wire_keys_only(message, state["keys"], state["call_keys"]), _MARK: "stream_chunk_builder"}


GLUE_LISTED: dict[str, str] = {
    "stop": "a Chat message holds no finish reason, and is_done is a function of the chunk: the adapter's "
            "completion signal is the wire's (choice 0's finish_reason), never litellm's own finish_reason "
            "(stream_chunk_builder's: \"stop\" for chunks without one yet, the first of two, its own reading of "
            "Mistral's)",
    "refused.type:openai-chat/syn-unparsed-sse-line": "a chunk that is a JSON string (an SSE line left unparsed), "
            "not an object, is refused with MalformedChunk before litellm sees it: no SSE event carries a JSON "
            "string as a chunk (litellm, handed the line's text, raises on it)",
}


def glue_view(case: Any) -> dict:
    """litellm's own message beside the adapter's: for a stream case ``stream_chunk_builder``
    over what the wrapper yielded from the same live body (or what litellm raised); for a
    message case ``completion(stream=False)``'s ``choices[0].message``."""
    from ..glue_check import adapter_view, call, refusal, view

    strategy = LiteLLMStrategy()
    if not case.is_stream:
        message = case.message
        if not isinstance(message, dict):
            return None
        answer, refused = _answered(message)
        library = view(refused=refused or None) if answer is None else _message_view(answer)
        try:
            adapter = view(text=strategy.content_text(message),
                           calls=[call(c.id, c.name, c.raw_arguments) for c in strategy.extract(message)])
        except Exception as exc:
            adapter = view(refused=refusal(exc))
        if answer is None:  # the adapter's answer to a refused response: one call with error
            adapter = view(refused=refused) if [c.error for c in strategy.extract(message)] == [refused] else adapter
        return {"library": library, "adapter": adapter}
    live, raised = _Live(), None
    for chunk in case.chunks:
        done = isinstance(chunk, str) and chunk.strip() == "[DONE]"
        live.stream.feed(_wire.sse_body([chunk]))
        if done:
            live.stream.end()
        if live.stream.finished:
            break
    raised = live.stream.raised
    response = None
    if raised is None and any(c.get("choices") for c in live.chunks):
        try:
            response = litellm.stream_chunk_builder(list(live.chunks), messages=_MESSAGES)
        except Exception as exc:
            raised = exc
    if raised is not None:
        library = view(refused=refusal(raised))
    elif response is None or not response.choices:
        library = view()
    else:
        library = _message_view(response.choices[0].message.model_dump(), response.choices[0].finish_reason)
    adapter = adapter_view(strategy, case, stop=lambda fed, _message: _glue.wire_finish(fed))
    return {"library": library, "adapter": adapter}


def _message_view(message: dict, stop: Any = None) -> dict:
    from ..glue_check import call, view

    calls = []
    for entry in message.get("tool_calls") or ():
        function = (entry.get("function") if isinstance(entry, dict) else None) or {}
        calls.append(call(entry.get("id") if isinstance(entry, dict) else None, function.get("name"),
                          function.get("arguments")))
    return view(text=message.get("content"), calls=calls, stop=stop)
