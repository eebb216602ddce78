"""LangChain's streaming path for OpenAI Chat Completions as an ``openai-chat`` strategy.

LangChain does the work, as ``ChatOpenAI.stream()`` does it: each wire chunk becomes the
openai SDK's ``ChatCompletionChunk`` and is dumped with ``model_dump()`` (as
``ChatOpenAI._stream`` receives it from the SDK), converted by langchain-openai's own
``ChatOpenAI._convert_chunk_to_generation_chunk``, its ``generation_info`` merged into the
message's ``response_metadata`` (as ``BaseChatModel.stream`` does), and the resulting
``AIMessageChunk`` objects are summed with ``+`` (langchain-core's ``add_ai_message_chunks``),
the way LangChain's docs aggregate a stream (``full = full + chunk``). The calls are the
summed chunk's ``tool_calls`` / ``invalid_tool_calls`` (langchain-core parses each
``tool_call_chunk``).

Glue choices (everything the adapter decides itself):

* Wire message rendered from the summed ``AIMessageChunk`` (at read time only,
  ``_glue.lazy_root``): ``role: "assistant"``; ``content`` is LangChain's content string,
  or ``None`` when no delta of choice 0 carried a string content (LangChain holds ``""``
  for both); ``tool_calls`` from ``tool_call_chunks`` in LangChain's order, each
  ``{"id", "type": "function", "function": {"name", "arguments"}}`` with the raw argument
  text LangChain merged (``type`` is not kept by LangChain; ``"function"`` is the only
  type of a Chat Completions function call); ``refusal`` and ``function_call`` from
  ``additional_kwargs`` when LangChain put them there. Every other key a delta of choice 0
  carried that LangChain does not keep is written as ``None``; ``None``-valued keys no
  delta carried are left out (``_glue.wire_keys_only``). The message carries
  ``mcs_langchain: "AIMessageChunk"`` (a top-level ``mcs_*`` annotation, which PARITY leaves
  aside) so that ``extract`` reads it as a streaming LangChain user does.
* Unfinished streams: ``is_done`` (``_glue.chat_is_done``) reads the wire's completion
  signal; the buffer's ``done`` tells the suite's extraction axis. ``extract`` itself returns
  the calls as LangChain reads them (a ``length`` finish is a finish to LangChain).
* ``extract``: a message marked ``mcs_langchain`` is read as the streaming user reads the
  summed chunk: each ``tool_calls`` entry becomes a langchain-core ``tool_call_chunk`` of its
  own ``AIMessageChunk`` (one per entry, so the order of valid and invalid calls is kept)
  and is read from that chunk's ``tool_calls`` (executable) or ``invalid_tool_calls`` (a
  call with ``error``; a call without a name is given an ``error`` too: it can never run).
  Any other message (a provider's ``stream=false`` answer) is read as
  ``ChatOpenAI.invoke`` reads one: the openai SDK's ``ChatCompletionMessage`` dumped with
  ``model_dump()`` (as ``_create_chat_result`` receives it), then langchain-openai's
  ``_convert_dict_to_message`` (``role`` taken as ``"assistant"`` when absent).
* ``content_text``: the message's ``content`` string ("" otherwise). ``forming_name``: the
  first ``tool_calls`` entry's name. Display text: the content LangChain's chunk carries.
* Error chunks: the openai SDK's ``Stream`` raises before LangChain sees the chunk
  (``_glue.raise_on_error_chunk``). Recognition, ``is_done`` and the continuation:
  ``_glue.ChatAdapter``. The ``ChatOpenAI`` object is made with a placeholder API key; nothing is sent.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models.base import _convert_dict_to_message
from openai._models import construct_type
from openai.types.chat import ChatCompletionChunk, ChatCompletionMessage

from mcs_conformance import Accumulator, ToolCall

from .. import _glue

__all__ = ["LangChainOpenAIStrategy"]

_WHO = "langchain-openai"
_MARK = "mcs_langchain"
_LLM: ChatOpenAI | None = None


def _llm() -> ChatOpenAI:
    global _LLM
    if _LLM is None:
        _LLM = ChatOpenAI(model="gpt-4o", api_key="placeholder-never-sent")
    return _LLM


class LangChainOpenAIStrategy(_glue.ChatAdapter):
    who = _WHO

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "keys" not in state:
            state.update(full=None, cls=AIMessageChunk, keys=set(), call_keys=set(), text=False)
        if not _glue.chat_chunk(chunk, _WHO):
            return ""
        deltas = _glue.choice0_deltas(chunk)
        _glue.note_keys(deltas, state["keys"], state["call_keys"])
        state["text"] = state["text"] or any(isinstance(d.get("content"), str) for d in deltas)
        dumped = construct_type(type_=ChatCompletionChunk, value=chunk).model_dump()
        generation = _llm()._convert_chunk_to_generation_chunk(dumped, state["cls"], {})
        _glue.lazy_root(acc, lambda: _render(state))
        if generation is None:
            return ""
        state["cls"] = generation.message.__class__
        message = generation.message
        message.response_metadata = {**(generation.generation_info or {}), **message.response_metadata}
        state["full"] = message if state["full"] is None else state["full"] + message
        return message.content if isinstance(message.content, str) else ""

    def extract(self, message: object) -> list[ToolCall]:
        if not isinstance(message, dict):
            raise ValueError(f"{_WHO}.extract: expects an assistant message dict, got {type(message).__name__}")
        if message.get(_MARK):
            return [_from_chunk(entry, n) for n, entry in enumerate(message.get("tool_calls") or ())]
        dumped = construct_type(type_=ChatCompletionMessage, value={"role": "assistant", **message}).model_dump(warnings=False)
        converted = _convert_dict_to_message(dumped)
        calls = [ToolCall(name=tc["name"] or "", arguments=tc["args"], id=tc.get("id"),
                          error=None if tc["name"] else "the tool call has no name")
                 for tc in getattr(converted, "tool_calls", [])]
        calls += [ToolCall(name=tc.get("name") or "", id=tc.get("id"), raw_arguments=tc.get("args"),
                           error=tc.get("error") or "invalid tool call")
                  for tc in getattr(converted, "invalid_tool_calls", [])]
        return calls


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


def _render(state: dict) -> Any:
    full: AIMessageChunk | None = state["full"]
    if full is None:
        return {}
    keys = state["keys"]
    message: dict[str, Any] = {k: None for k in keys}
    message["role"] = "assistant"
    content = full.content if isinstance(full.content, str) else None
    message["content"] = content if state["text"] else (content or None)
    for key in ("refusal", "function_call"):
        if key in full.additional_kwargs:
            message[key] = full.additional_kwargs[key]
    if full.tool_call_chunks:
        message["tool_calls"] = [
            {"id": tc.get("id"), "type": "function", "function": {"name": tc.get("name"), "arguments": tc.get("args")}}
            for tc in full.tool_call_chunks
        ]
    message = _glue.wire_keys_only(message, keys, state["call_keys"] | {"type"})
    if message.get("tool_calls"):
        message[_MARK] = "AIMessageChunk"
    return message
