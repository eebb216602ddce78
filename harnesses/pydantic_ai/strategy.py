"""pydantic-ai's OpenAI Chat streaming as an ``openai-chat`` strategy.

pydantic-ai does the work, on the path ``Agent.run_stream`` takes: the chunks so far, as
the openai SDK's ``ChatCompletionChunk`` models, are handed (as an async stream) to
``OpenAIChatModel._process_streamed_response``; its ``OpenAIStreamedResponse`` maps them
into parts through pydantic-ai's ``ModelResponsePartsManager``, and ``get()`` returns the
``ModelResponse`` (``TextPart``, ``ThinkingPart``, ``ToolCallPart``; a refusal and the
finish reason in ``provider_details`` / ``finish_reason``). A call's arguments are read
with pydantic-ai's ``ToolCallPart.args_as_dict(raise_if_invalid=True)``.

Glue choices (everything the adapter decides itself):

* ``accumulate`` keeps the chunks; the ``ModelResponse`` is built from all chunks so far
  when the message is read (``_glue.lazy_root``), each read in a fresh event loop
  (``asyncio.run``). The model is ``OpenAIChatModel("gpt-4o")`` with an ``OpenAIProvider``
  holding a placeholder API key; nothing is sent.
* When pydantic-ai raises on the chunks, the message is ``{"mcs_error": <its text>}``: the
  response is built when the message is read, and a read must not raise (the suite would
  take the exception for its own fault).
* Wire message rendered from the ``ModelResponse``: ``role: "assistant"``; ``content`` the
  ``TextPart`` contents joined (``None`` when there is none); ``tool_calls`` one
  ``{"id": tool_call_id, "type": "function", "function": {"name": tool_name, "arguments":
  args_as_json_str()}}`` per ``ToolCallPart`` in part order; ``refusal`` from
  ``provider_details["refusal"]``; ``reasoning_content`` the ``ThinkingPart`` contents
  joined when a delta carried that key. Every other key a delta of choice 0 carried is
  written as ``None``; ``None``-valued keys no delta carried are left out
  (``_glue.wire_keys_only``).
* ``extract``: each ``tool_calls`` entry becomes pydantic-ai's ``ToolCallPart(tool_name,
  args, tool_call_id)`` and is read with ``args_as_dict(raise_if_invalid=True)``; a
  ``ValueError`` / ``AssertionError`` from it is the call's ``error``; a call without a name
  is given an ``error`` too (it can never run).
* Unfinished streams: ``is_done`` (``_glue.chat_is_done``) reads the wire's completion
  signal and the buffer's ``done`` tells the suite's extraction axis. (Every read runs
  pydantic-ai over the chunks so far to their end, and ``ModelResponse.finish_reason`` is
  ``"stop"`` even when no chunk carried a finish reason: pydantic-ai's default for servers
  that never send one; see harnesses/repro/pydantic_ai_cut_stream_runs_call.py.)
* Error chunks: the openai SDK's ``Stream`` raises before pydantic-ai sees the chunk
  (``_glue.raise_on_error_chunk``). Recognition, ``is_done``, display text (choice 0's
  delta ``content``), ``forming_name`` and the continuation: ``_glue.ChatAdapter``.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

from openai._models import construct_type
from openai.types.chat import ChatCompletionChunk
from pydantic_ai.messages import TextPart, ThinkingPart, ToolCallPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from mcs_conformance import Accumulator, ToolCall

from .. import _glue

__all__ = ["PydanticAIOpenAIStrategy"]

_WHO = "pydantic-ai OpenAIChatModel"
_MODEL: OpenAIChatModel | None = None


def _model() -> OpenAIChatModel:
    global _MODEL
    if _MODEL is None:
        _MODEL = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key="placeholder-never-sent"))
    return _MODEL


class _Stream:
    """The chunks so far as the async stream the openai SDK would hand pydantic-ai."""

    def __init__(self, chunks: list[ChatCompletionChunk]) -> None:
        self._chunks = iter(chunks)

    def __aiter__(self) -> _Stream:
        return self

    async def __anext__(self) -> ChatCompletionChunk:
        try:
            return next(self._chunks)
        except StopIteration:
            raise StopAsyncIteration from None

    async def close(self) -> None:
        return None


async def _response(chunks: list[ChatCompletionChunk]) -> Any:
    streamed = await _model()._process_streamed_response(_Stream(chunks), ModelRequestParameters())
    async for _event in streamed:
        pass
    return streamed.get()


class PydanticAIOpenAIStrategy(_glue.ChatAdapter):
    who = _WHO

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "chunks" not in state:
            state.update(chunks=[], keys=set(), call_keys=set())
        if not _glue.chat_chunk(chunk, _WHO):
            return ""
        deltas = _glue.choice0_deltas(chunk)
        _glue.note_keys(deltas, state["keys"], state["call_keys"])
        state["chunks"].append(construct_type(type_=ChatCompletionChunk, value=chunk))
        _glue.lazy_root(acc, lambda: _render(state))
        return "".join(d["content"] for d in deltas if isinstance(d.get("content"), str))

    def extract(self, message: object) -> list[ToolCall]:
        if not isinstance(message, dict):
            raise ValueError(f"{_WHO}.extract: expects an assistant message dict, got {type(message).__name__}")
        entries = message.get("tool_calls")
        return [_call(entry, n) for n, entry in enumerate(entries if isinstance(entries, list) else ())]


def _call(entry: Any, n: int) -> ToolCall:
    if not isinstance(entry, dict) or not isinstance(entry.get("function"), dict):
        return ToolCall(name="", error=f"tool_calls[{n}] is no function call")
    function = entry["function"]
    name, raw, call_id = function.get("name"), function.get("arguments"), entry.get("id")
    part = ToolCallPart(tool_name=name if isinstance(name, str) else "", args=raw, tool_call_id=call_id)
    try:
        arguments, error = part.args_as_dict(raise_if_invalid=True), None
    except (ValueError, AssertionError) as exc:
        arguments, error = {}, f"pydantic-ai: {exc}"
    if error is None and not part.tool_name:
        error = "the tool call has no name"
    return ToolCall(name=part.tool_name, arguments=arguments, id=part.tool_call_id,
                    raw_arguments=raw if isinstance(raw, str) else None, error=error)


def _render(state: dict) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            response = asyncio.run(_response(list(state["chunks"])))
    except Exception as exc:  # pydantic-ai refuses these chunks; a read must not raise
        return {"mcs_error": f"pydantic-ai raised {type(exc).__name__}: {exc}"}
    keys = state["keys"]
    message: dict[str, Any] = {k: None for k in keys}
    message["role"] = "assistant"
    texts = [p.content for p in response.parts if isinstance(p, TextPart)]
    message["content"] = "".join(texts) if texts else None
    refusal = (response.provider_details or {}).get("refusal")
    if refusal is not None:
        message["refusal"] = refusal
    thinking = [p.content for p in response.parts if isinstance(p, ThinkingPart)]
    if thinking and "reasoning_content" in keys:
        message["reasoning_content"] = "".join(thinking)
    calls = [p for p in response.parts if isinstance(p, ToolCallPart)]
    if calls:
        message["tool_calls"] = [
            {"id": p.tool_call_id, "type": "function", "function": {"name": p.tool_name, "arguments": p.args if isinstance(p.args, str) else p.args_as_json_str()}}
            for p in calls
        ]
    return _glue.wire_keys_only(message, keys, state["call_keys"] | {"type", "id"})
