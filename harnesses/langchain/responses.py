"""LangChain's ``ChatOpenAI(use_responses_api=True)`` over the OpenAI Responses API as an
``openai-responses`` strategy.

LangChain does the work, on its documented public path: one ``ChatOpenAI(model=...,
api_key=..., use_responses_api=True, http_client=httpx2.Client(transport=<mock>),
max_retries=0)`` (langchain-openai 1.7.4 hands ``http_client`` to the openai SDK's client;
``use_responses_api=True``: "use the Responses API instead of the Chat API"). A stream is
``llm.stream(messages)``, the yielded ``AIMessageChunk`` objects summed with ``+`` as
LangChain's docs aggregate a stream; the calls are the summed chunk's ``tool_calls`` /
``invalid_tool_calls``. A ``stream=false`` response of the suite is ``llm.invoke(messages)``
over its JSON body. The recorded events reach LangChain as the SSE bytes the provider sent
(``_wire.sse_body(..., "openai-responses")``: ``event: <type>`` and ``data: <json>``),
served by the mock transport; nothing is sent anywhere.

Glue choices (everything the adapter decides itself):

* Live stream: as the Chat adapter (``harnesses/langchain/strategy.py``): each buffer's
  ``llm.stream(...)`` runs in a worker thread (``_threaded.LiveStream``) fed one event's
  bytes per ``accumulate``, which waits until LangChain asks for more; an exception
  LangChain (or the SDK under it) raises while reading an event is raised by that
  ``accumulate``; after the SDK's stream stops (``data: [DONE]``) later events are not read.
  Every event is handed to LangChain, ``error`` and ``response.failed`` too (LangChain
  decides what they mean: it raises ``ValueError`` with the provider's message for both,
  ``_convert_responses_chunk_to_generation_chunk``, which ``accumulate`` raises as
  ``StreamError`` carrying the event, the suite's name for a provider's error in the
  stream; so is the ``APIError`` the openai SDK's ``Stream`` under LangChain raises for an
  event with an ``error`` member, as the SDK adapters do); an event that is no JSON object is refused with
  ``MalformedChunk`` (it has no SSE bytes). ``accumulate`` returns the text of the ``text``
  content blocks of the chunks LangChain yielded for those bytes (the display text).
* Request: one user message ``"hi"`` to model ``gpt-4o``, a placeholder API key.
* Response object rendered from the summed ``AIMessageChunk`` (at read time only,
  ``_glue.lazy_root``): LangChain keeps no response object, only content blocks, each with
  an ``index`` (its ``output_version`` default, ``"responses/v1"``: "Formats Responses API
  output items into AIMessage content blocks"), and ``response_metadata``. ``id``,
  ``object``, ``model``, ``status`` come from
  ``response_metadata`` when LangChain put them there; ``output`` is one item per content
  block, in LangChain's order: a ``text`` block becomes (with the ``text`` blocks next to it
  of the same ``id``) a ``message`` item ``{"type": "message", "id", "role": "assistant",
  "content": [{"type": "output_text", "text", "annotations"}]}``, a ``refusal`` block a
  ``refusal`` part of such an item; every other block (``function_call``,
  ``custom_tool_call``, ``reasoning``, built-in tool calls) is the item as LangChain holds
  it, without its ``index`` (LangChain's routing key), a call item's ``call_id`` and
  ``name`` those of LangChain's summed ``tool_call_chunk`` of its ``index`` when it has one
  (the calls ``extract`` reads, below). LangChain keeps no item ``status``:
  none is written. Since no message so rendered can equal the ``stream=false`` response,
  PARITY-001 is left out of the run (``harnesses.toml``). The response carries
  ``mcs_langchain: {"args": [...]}`` (a top-level ``mcs_*`` annotation): for each call item
  in order, the argument text, ``id`` and ``name`` of LangChain's summed ``tool_call_chunk``
  of the same ``index`` (for a ``custom_tool_call`` LangChain writes ``{"__arg1": input}``
  there), so that ``extract`` reads it as a streaming LangChain user does (the block's own
  ``call_id`` and ``name`` only without such a chunk: summing two chunks that repeat an item,
  langchain-core concatenates the block's strings, ``call_id`` too, but keeps the chunk's
  equal ``id`` once).
* ``is_done``: the ``response.completed`` / ``response.incomplete`` event (the SDK
  adapter's rule); the buffer's ``done`` tells the suite's extraction axis.
* ``extract``: a response marked ``mcs_langchain`` is read as the streaming user reads the
  summed chunk: each call item (``function_call``, ``custom_tool_call``) becomes a
  langchain-core ``tool_call_chunk`` (the name, id and argument text the mark holds for
  it) of its own ``AIMessageChunk``, and is read from that chunk's ``tool_calls`` (executable) or ``invalid_tool_calls`` (a call with ``error``); a call without a name is
  given an ``error`` too. The order of calls is LangChain's content blocks'. Any
  other response (a ``stream=false`` body of the suite) is served as the JSON body and read
  by ``llm.invoke``: the returned ``AIMessage``'s ``tool_calls`` and ``invalid_tool_calls``,
  in the order the response lists their ``call_id`` (without a unique id each, valid ones
  first). ``arguments`` are LangChain's ``args``, as it gives them (a custom tool's input
  too: LangChain names it ``__arg1``).
* ``content_text``: the ``output_text`` parts of ``message`` items, joined (LangChain's
  text blocks); ``forming_name``: the first call item's name; recognition and
  ``result_messages`` (the response's items, then one ``function_call_output`` per record):
  the openai SDK Responses adapter's (``harnesses/sdk/responses.py``), whose class this one
  extends.
* ``glue_view``: "library" is the summed ``AIMessageChunk``'s ``tool_calls`` (executable
  calls), its text blocks joined, ``response_metadata["status"]`` and what LangChain raised,
  for the whole case's events; "adapter" is ``extract`` (executable calls) and
  ``content_text`` on the buffer's response, its ``status`` and what the buffer raised. A
  message case (no events) has no view.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk
from langchain_openai import ChatOpenAI
from openai import APIError

from mcs_conformance import Accumulator, LLMStreamBuffer, MalformedChunk, StreamError, ToolCall

from .. import _glue, _threaded, _wire
from ..sdk.responses import OpenAIResponsesSDKStrategy

__all__ = ["GLUE_LISTED", "LangChainOpenAIResponsesStrategy", "glue_view"]

_WHO = "langchain-openai (use_responses_api=True)"
_MARK = "mcs_langchain"
_PROMPT = [("user", "hi")]
_WAIT = 120.0
_CALL_ITEMS = ("function_call", "custom_tool_call")
_LLM: ChatOpenAI | None = None
_HERE = threading.local()

GLUE_LISTED: dict[str, str] = {
    "calls.count": "a call LangChain lists in tool_calls without a name is given an error by extract (it can never "
                   "run), so the adapter's executable calls leave it out",
    "refused.type": "the buffer reports LangChain's exception as MalformedChunk (StreamError for the provider's error "
                    "and response.failed events), its text naming LangChain's",
}


def _respond(request: Any) -> Any:
    http = _wire.http_module("httpx2")
    kind, content = _HERE.response
    return http.Response(200, headers={"content-type": kind}, content=content)


def _llm() -> ChatOpenAI:
    global _LLM
    if _LLM is None:
        http = _wire.http_module("httpx2")
        _LLM = ChatOpenAI(model="gpt-4o", api_key="placeholder-never-sent", max_retries=0, use_responses_api=True,
                          http_client=http.Client(transport=http.MockTransport(_respond)))
    return _LLM


def _block_text(chunk: AIMessageChunk) -> str:
    content = chunk.content
    if isinstance(content, str):
        return content
    return "".join(b["text"] for b in content
                   if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))


class _Live:
    """One ``llm.stream()`` of a buffer, live: its worker sums the yielded chunks."""

    def __init__(self) -> None:
        self.out: dict[str, Any] = {"full": None, "text": []}
        out = self.out

        def loop(body: Any) -> None:
            _HERE.response = ("text/event-stream", body)
            try:
                for chunk in _llm().stream(_PROMPT):
                    out["full"] = chunk if out["full"] is None else out["full"] + chunk
                    out["text"].append(_block_text(chunk))
            finally:
                _HERE.response = None

        self.stream = _threaded.LiveStream(loop, "langchain-responses-stream", wait=_WAIT)
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


class LangChainOpenAIResponsesStrategy(OpenAIResponsesSDKStrategy):
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "live" not in state:
            state["live"] = _Live()
        if not (isinstance(chunk, dict) or (isinstance(chunk, str) and chunk.strip() == "[DONE]")):
            raise MalformedChunk(f"{_WHO}: an event is a JSON object, got {type(chunk).__name__}")
        live: _Live = state["live"]
        _glue.lazy_root(acc, lambda: _render(live.out["full"]))
        try:
            return live.feed(_wire.sse_body([chunk], "openai-responses"))
        except APIError as exc:  # the openai SDK's Stream under LangChain: an event with an error member
            raise StreamError(f"{_WHO}: the openai SDK raised APIError: {exc.message}", payload=chunk) from exc
        except ValueError as exc:  # LangChain's report of the provider's error event
            if isinstance(chunk, dict) and chunk.get("type") in ("error", "response.failed"):
                raise StreamError(f"{_WHO}: LangChain raised ValueError({exc}) for the provider's "
                                  f"{chunk.get('type')} event", payload=chunk) from exc
            raise

    def extract(self, message: object) -> list[ToolCall]:
        if not isinstance(message, dict) or not isinstance(message.get("output"), list):
            raise ValueError(f"{_WHO}.extract: expects a response object with an output list, got "
                             f"{type(message).__name__}")
        mark = message.get(_MARK)
        if isinstance(mark, dict):
            items = [i for i in message["output"] if isinstance(i, dict) and i.get("type") in _CALL_ITEMS]
            args, ids, names = (list(mark.get(k) or ()) for k in ("args", "ids", "names"))
            return [_from_block(item, args[n] if n < len(args) else None, n,
                                ids[n] if n < len(ids) else item.get("call_id"),
                                names[n] if n < len(names) else item.get("name"))
                    for n, item in enumerate(items)]
        return _invoke(message)


def _from_block(item: dict, args: Any, n: int, call_id: Any, name: Any) -> ToolCall:
    """One call item read through langchain-core's own tool-call-chunk parsing, with the
    argument text, id and name LangChain summed for it in its ``tool_call_chunks`` (``item``'s
    own only when LangChain holds no chunk for it): a content block's string fields are
    concatenated when two chunks repeat it, the chunk's ``id`` is not."""
    chunk = AIMessageChunk(content="", tool_call_chunks=[
        tool_call_chunk(name=name, args=args, id=call_id, index=0)])
    raw = args if isinstance(args, str) else None
    for tc in chunk.tool_calls:
        return ToolCall(name=tc["name"] or "", arguments=tc["args"], id=tc.get("id"), raw_arguments=raw,
                        error=None if tc["name"] else "langchain-core: the tool call has no name")
    for tc in chunk.invalid_tool_calls:
        return ToolCall(name=tc.get("name") or "", id=tc.get("id"), raw_arguments=raw,
                        error=tc.get("error") or "langchain-core: invalid tool call")
    return ToolCall(name="", error=f"output[{n}]: langchain-core returned no call")


def _invoke(message: dict) -> list[ToolCall]:
    """The response as ``ChatOpenAI.invoke`` reads it from a ``stream=false`` body."""
    _HERE.response = ("application/json", _wire.json_body(message))
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
    ids = [i.get("call_id") for i in message["output"] if isinstance(i, dict) and i.get("type") in _CALL_ITEMS]
    if len(set(map(repr, ids))) != len(ids) or any(c.id is None or c.id not in ids for c in calls):
        return calls
    return sorted(calls, key=lambda c: ids.index(c.id))


def _render(full: AIMessageChunk | None) -> Any:
    if full is None:
        return None
    meta = full.response_metadata or {}
    response: dict[str, Any] = {k: meta[k] for k in ("id", "object", "model", "status") if k in meta}
    response.setdefault("object", "response")
    output: list[dict] = []
    summed = {tc.get("index"): tc for tc in full.tool_call_chunks}
    args: list[Any] = []
    ids: list[Any] = []
    names: list[Any] = []
    blocks = full.content if isinstance(full.content, list) else [{"type": "text", "text": full.content}]
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in ("text", "refusal"):
            part = ({"type": "output_text", "text": block.get("text"), "annotations": block.get("annotations") or []}
                    if kind == "text" else {"type": "refusal", "refusal": block.get("refusal")})
            last = output[-1] if output else None
            if (last is not None and last.get("type") == "message" and last.get("mcs_open")
                    and last.get("id") == block.get("id")):
                last["content"].append(part)
            else:
                output.append({"type": "message", "id": block.get("id"), "role": "assistant", "content": [part],
                               "mcs_open": True})
            continue
        item = {k: v for k, v in block.items() if k != "index"}
        if kind in _CALL_ITEMS:
            tcc = summed.get(block.get("index")) or {}
            args.append(tcc.get("args"))
            ids.append(tcc.get("id") if "id" in tcc else block.get("call_id"))
            names.append(tcc.get("name") if "name" in tcc else block.get("name"))
            if tcc:  # the item's call_id and name as the calls hold them
                item["call_id"], item["name"] = ids[-1], names[-1]
        output.append(item)
    for item in output:
        item.pop("mcs_open", None)
        if item.get("type") == "message" and item.get("id") is None:
            del item["id"]
    response["output"] = output
    response[_MARK] = {"args": args, "ids": ids, "names": names}
    return response


def _calls_view(calls: list) -> list[dict]:
    return [{"id": c.get("id"), "name": c.get("name"), "arguments": c.get("args")} for c in calls]


def glue_view(case: Any) -> dict | None:
    """The case's events through ``llm.stream``: the summed ``AIMessageChunk`` ("library")
    beside the adapter's ``extract`` / ``content_text`` on the buffer's response ("adapter");
    ``None`` for a message case (no stream to feed)."""
    chunks = _glue.case_chunks(case)
    if chunks is None:
        return None
    # an event that is a JSON string (not the "[DONE]" sentinel) goes on the wire as one, as the
    # strategy's refusal of it reads it; other JSON values likewise
    body = _wire.sse_body([c if isinstance(c, dict) or (isinstance(c, str) and c.strip() == "[DONE]")
                           else json.dumps(c) for c in chunks], "openai-responses")
    full, raised = None, None
    _HERE.response = ("text/event-stream", body)
    try:
        for chunk in _llm().stream(_PROMPT):
            full = chunk if full is None else full + chunk
    except Exception as exc:  # LangChain refused the stream
        raised = f"{type(exc).__name__}: {exc}"
    finally:
        _HERE.response = None
    library = {"text": None, "calls": [], "stop": None, "refused": raised}
    if full is not None and raised is None:
        library = {"text": _block_text(full) or None, "calls": _calls_view(full.tool_calls),
                   "stop": (full.response_metadata or {}).get("status"), "refused": None}
    strategy = LangChainOpenAIResponsesStrategy()
    buf = LLMStreamBuffer([strategy])
    try:
        for chunk in chunks:
            buf.feed(chunk)
        message = buf.as_dict()
    except Exception as exc:  # the buffer refused an event LangChain raised on
        return {"library": library, "adapter": {"text": None, "calls": [], "stop": None,
                                                "refused": f"{type(exc).__name__}: {exc}"}}
    adapter = {"text": None, "calls": [], "stop": None, "refused": None}
    if isinstance(message, dict):
        adapter = {"text": strategy.content_text(message) or None,
                   "calls": [{"id": c.id, "name": c.name, "arguments": c.arguments}
                             for c in strategy.extract(message) if c.error is None],
                   "stop": message.get("status"), "refused": None}
    return {"library": library, "adapter": adapter}
