"""LangChain's ``ChatOpenAI`` over OpenAI Chat Completions as an ``openai-chat`` strategy.

LangChain does the work, on its documented public path end to end: one
``ChatOpenAI(model=..., api_key=..., http_client=httpx2.Client(transport=<mock>),
max_retries=0)`` (langchain-openai 1.7.4 hands ``http_client`` to the openai SDK's client,
which with openai 3.x is an ``httpx2`` client: ``langchain_openai._compat``). A stream is
``llm.stream(messages)``, the yielded ``AIMessageChunk`` objects summed with ``+`` as
LangChain's docs aggregate a stream (``full = full + chunk``); the calls are the summed
chunk's ``tool_calls`` / ``invalid_tool_calls``. A ``stream=false`` message of the suite is
``llm.invoke(messages)`` over the JSON response body that carries it. The recorded chunks
reach LangChain as the SSE bytes the provider sent (``_wire.sse_body``), served by the mock
transport; nothing is sent anywhere.

Glue choices (everything the adapter decides itself):

* Live stream: each buffer's ``llm.stream(...)`` runs in a worker thread of its own
  (``_threaded.LiveStream``, shared with the litellm adapter) whose response body is an
  iterator fed one chunk's bytes per ``accumulate``; ``accumulate``
  hands the bytes over and waits until LangChain asks for more (it has then yielded and
  summed every ``AIMessageChunk`` those bytes hold), so only one side ever runs (nothing is
  re-run per read; the worker's CPU time is the process's, which the COST checks measure).
  The body ends when the buffer is dropped (the worker then finishes). After the openai
  SDK's stream stops (``data: [DONE]``), later chunks are not read, as LangChain reads
  none. An exception LangChain (or the SDK under it) raises while reading a chunk's bytes
  is raised by that ``accumulate`` (the buffer reports it as a chunk that cannot be
  accumulated). ``accumulate`` returns the string content of the chunks LangChain yielded
  for those bytes (the display text).
* Request: one user message ``"hi"`` to model ``gpt-4o``, a placeholder API key; the
  request is never looked at. The response: status 200, ``text/event-stream`` for a
  stream, ``application/json`` for ``invoke``.
* Wire message rendered from the summed ``AIMessageChunk`` (at read time only,
  ``_glue.lazy_root``): ``role: "assistant"`` when a delta of choice 0 carried ``role``
  (LangChain's ``AIMessageChunk`` is the assistant's, and keeps no record of the key);
  ``content`` is LangChain's content string, or
  its list of content blocks as it holds them (Mistral's streamed ``thinking`` and ``text``
  parts), or ``None`` when no delta of choice 0 carried a string content (LangChain holds
  ``""`` for both); ``tool_calls`` from ``tool_call_chunks`` in LangChain's order, each
  ``{"id", "type": "function", "function": {"name", "arguments"}}`` with the raw argument
  text LangChain merged (``type`` is not kept by LangChain: ``"function"``, the only type of
  a Chat Completions function call, is written when a fragment carried ``type``; Mistral's
  fragments carry none); ``refusal``, ``audio`` and ``function_call``
  from ``additional_kwargs`` when LangChain put them there. Every other key a delta of
  choice 0 carried that LangChain does not keep is written as ``None``; ``None``-valued
  keys no delta carried are left out (``_glue.wire_keys_only``). The message carries
  ``mcs_langchain: "AIMessageChunk"`` (a top-level ``mcs_*`` annotation, which PARITY
  leaves aside) so that ``extract`` reads it as a streaming LangChain user does.
* Unfinished streams: ``is_done`` (``_glue.chat_is_done``) reads the wire's completion
  signal; the buffer's ``done`` tells the suite's extraction axis. ``extract`` itself returns
  the calls as LangChain reads them (a ``length`` finish is a finish to LangChain).
* ``extract``: a message marked ``mcs_langchain`` is read as the streaming user reads the
  summed chunk: each ``tool_calls`` entry becomes a langchain-core ``tool_call_chunk`` of its
  own ``AIMessageChunk`` (one per entry, so the order of valid and invalid calls is kept)
  and is read from that chunk's ``tool_calls`` (executable) or ``invalid_tool_calls`` (a
  call with ``error``; a call without a name is given an ``error`` too: it can never run).
  Any other message (a provider's ``stream=false`` answer) is served as the JSON body
  ``{"id", "object": "chat.completion", "created", "model", "choices": [{"index": 0,
  "message": {"role": "assistant", ...message}, "finish_reason"}]}`` (``finish_reason``
  ``"tool_calls"`` when the message has ``tool_calls``, else ``"stop"``) and read by
  ``llm.invoke``: the returned ``AIMessage``'s ``tool_calls`` and ``invalid_tool_calls``, in
  the order the message lists their ids (LangChain keeps no order between the two lists;
  without an id each, valid ones first).
* ``content_text``: the message's ``content`` string, or the ``text`` of its ``text``
  blocks joined when it is a list (what LangChain's ``AIMessage.text`` joins); "" otherwise
  (``_glue.ChatAdapter``). ``forming_name``: the
  first ``tool_calls`` entry's name.
* Error chunks: the openai SDK's ``Stream`` raises ``APIError`` for them inside LangChain;
  the adapter raises ``StreamError`` at that chunk before handing it over
  (``_glue.raise_on_error_chunk``), so the suite sees the error as a stream error. A chunk
  that is no JSON object is refused with ``MalformedChunk`` (``_glue.chat_chunk``): it has
  no SSE bytes. Recognition, ``is_done`` and the continuation: ``_glue.ChatAdapter``.
"""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk
from langchain_openai import ChatOpenAI

from mcs_conformance import Accumulator, ToolCall

from .. import _glue, _threaded, _wire

__all__ = ["LangChainOpenAIStrategy"]

_WHO = "langchain-openai"
_MARK = "mcs_langchain"
_PROMPT = [("user", "hi")]
_WAIT = 120.0  # seconds: a worker that neither yields nor asks for bytes by then is stuck
_LLM: ChatOpenAI | None = None
_HERE = threading.local()  # the response the mock transport gives in this thread


def _respond(request: Any) -> Any:
    http = _wire.http_module("httpx2")
    kind, content = _HERE.response
    return http.Response(200, headers={"content-type": kind}, content=content)


def _llm() -> ChatOpenAI:
    global _LLM
    if _LLM is None:
        http = _wire.http_module("httpx2")
        _LLM = ChatOpenAI(model="gpt-4o", api_key="placeholder-never-sent", max_retries=0,
                          http_client=http.Client(transport=http.MockTransport(_respond)))
    return _LLM


class _Live:
    """One ``llm.stream()`` of a buffer, live (``_threaded.LiveStream``): its worker sums the
    yielded chunks; ``feed`` returns the display text of the chunks those bytes gave, and
    raises, at the chunk being read, what LangChain raised."""

    def __init__(self) -> None:
        self.out: dict[str, Any] = {"full": None, "text": []}
        out = self.out

        def loop(body: Any) -> None:
            _HERE.response = ("text/event-stream", body)
            try:
                for chunk in _llm().stream(_PROMPT):
                    out["full"] = chunk if out["full"] is None else out["full"] + chunk
                    if isinstance(chunk.content, str) and chunk.content:
                        out["text"].append(chunk.content)
            finally:
                _HERE.response = None

        self.stream = _threaded.LiveStream(loop, "langchain-stream", wait=_WAIT)
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


class LangChainOpenAIStrategy(_glue.ChatAdapter):
    who = _WHO

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "keys" not in state:
            state.update(live=_Live(), keys=set(), call_keys=set(), text=False)
        if _glue.chat_chunk(chunk, _WHO):
            deltas = _glue.choice0_deltas(chunk)
            _glue.note_keys(deltas, state["keys"], state["call_keys"])
            state["text"] = state["text"] or any(isinstance(d.get("content"), str) for d in deltas)
        live: _Live = state["live"]
        _glue.lazy_root(acc, lambda: _render(live.out["full"], state))
        return live.feed(_wire.sse_body([chunk]))

    def extract(self, message: object) -> list[ToolCall]:
        if not isinstance(message, dict):
            raise ValueError(f"{_WHO}.extract: expects an assistant message dict, got {type(message).__name__}")
        if message.get(_MARK):
            return [_from_chunk(entry, n) for n, entry in enumerate(message.get("tool_calls") or ())]
        return _invoke(message)


def _invoke(message: dict) -> list[ToolCall]:
    """The message as ``ChatOpenAI.invoke`` reads it from a ``stream=false`` response."""
    answer = {"id": "chatcmpl-mcs", "object": "chat.completion", "created": 0, "model": "gpt-4o",
              "choices": [{"index": 0, "message": {"role": "assistant", **message},
                           "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}]}
    _HERE.response = ("application/json", _wire.json_body(answer))
    try:
        converted = _llm().invoke(_PROMPT)
    finally:
        _HERE.response = None
    calls = [ToolCall(name=tc["name"] or "", arguments=tc["args"], id=tc.get("id"),
                      error=None if tc["name"] else "the tool call has no name")
             for tc in getattr(converted, "tool_calls", [])]
    calls += [ToolCall(name=tc.get("name") or "", id=tc.get("id"), raw_arguments=tc.get("args"),
                       error=tc.get("error") or "invalid tool call")
              for tc in getattr(converted, "invalid_tool_calls", [])]
    return _in_message_order(calls, message)


def _in_message_order(calls: list[ToolCall], message: dict) -> list[ToolCall]:
    """LangChain keeps its valid and invalid calls in two lists: the message's own order of
    ids puts them back, when each call has an id the message lists once (else as LangChain
    gives them)."""
    entries = message.get("tool_calls")
    ids = [e.get("id") for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    if len(set(map(repr, ids))) != len(ids) or any(c.id is None or c.id not in ids for c in calls):
        return calls
    return sorted(calls, key=lambda c: ids.index(c.id))


def _from_chunk(entry: Any, n: int) -> ToolCall:
    """One ``tool_calls`` entry read through langchain-core's own tool-call-chunk parsing."""
    if not isinstance(entry, dict) or not isinstance(entry.get("function"), dict):
        return ToolCall(name="", error=f"tool_calls[{n}] is no function call")
    function = entry["function"]
    raw = function.get("arguments")
    chunk = AIMessageChunk(content="", tool_call_chunks=[
        tool_call_chunk(name=function.get("name"), args=raw, id=entry.get("id"), index=n)])
    for tc in chunk.tool_calls:
        return ToolCall(name=tc["name"] or "", arguments=tc["args"], id=tc.get("id"),
                        raw_arguments=raw if isinstance(raw, str) else None,
                        error=None if tc["name"] else "langchain-core: the tool call has no name")
    for tc in chunk.invalid_tool_calls:
        return ToolCall(name=tc.get("name") or "", id=tc.get("id"), raw_arguments=raw if isinstance(raw, str) else None,
                        error=tc.get("error") or "langchain-core: invalid tool call")
    return ToolCall(name="", error=f"tool_calls[{n}]: langchain-core returned no call")


def _render(full: AIMessageChunk | None, state: dict) -> Any:
    if full is None:
        return {}
    keys = state["keys"]
    message: dict[str, Any] = {k: None for k in keys}
    if "role" in keys:
        message["role"] = "assistant"
    content = full.content if isinstance(full.content, (str, list)) else None
    message["content"] = content if state["text"] else (content or None)
    for key in ("refusal", "audio", "function_call"):
        if key in full.additional_kwargs:
            message[key] = full.additional_kwargs[key]
    if full.tool_call_chunks:
        message["tool_calls"] = [
            {"id": tc.get("id"), "type": "function", "function": {"name": tc.get("name"), "arguments": tc.get("args")}}
            for tc in full.tool_call_chunks
        ]
    for call in message.get("tool_calls") or ():
        if "type" not in state["call_keys"]:
            del call["type"]
    message = _glue.wire_keys_only(message, keys, state["call_keys"] | {"type"})
    if message.get("tool_calls"):
        message[_MARK] = "AIMessageChunk"
    return message


GLUE_LISTED: dict[str, str] = {
    "stop": "a Chat message holds no finish reason, and is_done is a function of the chunk: the adapter's "
            "completion signal is the wire's (choice 0's finish_reason), never LangChain's "
            "response_metadata[\"finish_reason\"] (which joins the strings of two finishes or of n > 1 choices: "
            "\"tool_callslength\", \"stopstopstop\")",
    "calls.order": "LangChain keeps executable and invalid calls in two lists (tool_calls, invalid_tool_calls), "
                   "both read from the summed chunk's tool_call_chunks; the adapter keeps the order of those "
                   "chunks, the order the stream gave the calls",
    "refused.type:openai-chat/syn-unparsed-sse-line": "a chunk that is a JSON string (an SSE line left unparsed), "
            "not an object, is refused with MalformedChunk before LangChain sees it: no SSE event carries a JSON "
            "string as a chunk (the openai SDK under LangChain, handed the line's text, raises its JSON error)",
}


def glue_view(case: Any) -> dict | None:
    """LangChain's own output beside the adapter's: for a stream case the summed
    ``AIMessageChunk`` from the same live ``llm.stream()`` (``.content``, ``.tool_calls`` then
    ``.invalid_tool_calls``, ``response_metadata["finish_reason"]``, or what LangChain raised);
    for a message case ``llm.invoke``'s ``AIMessage`` likewise."""
    from ..glue_check import adapter_view, call, refusal, view

    strategy = LangChainOpenAIStrategy()
    if not case.is_stream:
        message = case.message
        if not isinstance(message, dict):
            return None
        answer = {"id": "chatcmpl-mcs", "object": "chat.completion", "created": 0, "model": "gpt-4o",
                  "choices": [{"index": 0, "message": {"role": "assistant", **message},
                               "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}]}
        _HERE.response = ("application/json", _wire.json_body(answer))
        try:
            library = {**_ai_view(_llm().invoke(_PROMPT)), "stop": None}  # the finish reason is the body's, set here
        except Exception as exc:
            library = view(refused=refusal(exc))
        finally:
            _HERE.response = None
        try:
            adapter = view(text=strategy.content_text(message),
                           calls=[call(c.id, c.name, _arguments(c)) for c in strategy.extract(message)])
        except Exception as exc:
            adapter = view(refused=refusal(exc))
        return {"library": library, "adapter": adapter}
    live = _Live()
    refused = None
    for chunk in case.chunks:
        try:
            live.feed(_wire.sse_body([chunk]))
        except Exception as exc:  # what LangChain raised
            refused = exc
            break
    full = live.out["full"]
    library = view(refused=refusal(refused)) if refused is not None else (_ai_view(full) if full is not None else view())
    adapter = adapter_view(strategy, case, stop=lambda fed, _message: _glue.wire_finish(fed), arguments=_arguments)
    return {"library": library, "adapter": adapter}


def _arguments(c: ToolCall) -> Any:
    """A call's arguments as LangChain holds them: the parsed object of an executable call (a
    call without a name is one to LangChain), the raw text of an invalid one."""
    return c.arguments if c.error is None or c.error.endswith("has no name") else c.raw_arguments


def _ai_view(message: Any) -> dict:
    from ..glue_check import call, view

    calls = [call(tc.get("id"), tc.get("name"), tc.get("args")) for tc in getattr(message, "tool_calls", None) or ()]
    calls += [call(tc.get("id"), tc.get("name"), tc.get("args"))
              for tc in getattr(message, "invalid_tool_calls", None) or ()]
    return view(text=message.text, calls=calls, stop=(message.response_metadata or {}).get("finish_reason"))
