"""litellm's ``stream_chunk_builder`` as an ``openai-chat`` strategy.

litellm does the work, as its docs show for rebuilding a streamed response: the chunks
are collected as litellm's own ``ModelResponseStream`` objects and
``litellm.stream_chunk_builder(chunks)`` returns the ``ModelResponse``; the message is its
``choices[0].message``.

Glue choices (everything the adapter decides itself):

* ``accumulate`` keeps the chunks (``ModelResponseStream(**chunk)`` on a deep copy of the
  wire dict: the constructor edits the dicts it is given, adding ``index`` and ``type`` to
  tool-call fragments, and in litellm's own pipeline those dicts are its own, never the
  caller's); the builder runs over
  all chunks so far when the message is read (``_glue.lazy_root``), as a litellm user calls
  it once the stream is over. Before the first chunk with choices the message is ``{}``.
* When the builder raises (litellm's ``APIError`` "Error building chunks"), the message is
  ``{"mcs_error": <its text>}``: the builder runs when the message is read, and a read must
  not raise (the suite would take the exception for its own fault).
* The message is ``choices[0].message.model_dump()`` with the keys litellm adds that were
  never on the wire removed (``_glue.wire_keys_only``: ``None``-valued keys no delta of
  choice 0 carried, ``index`` on tool calls). A key a delta of choice 0 carried that
  litellm's message lacks is written as ``None``. Values are litellm's, untouched.
* ``litellm.suppress_debug_info`` is set and ``LITELLM_LOCAL_MODEL_COST_MAP=True``: litellm
  reads its bundled model list instead of fetching one at import (this machine is offline).
* ``extract``: litellm leaves the arguments a JSON string; ``_glue.chat_calls`` reads them
  with ``json.loads`` as litellm's docs do.
* Unfinished streams: ``is_done`` (``_glue.chat_is_done``) reads the wire's completion
  signal and the buffer's ``done`` tells the suite's extraction axis. (The builder itself
  reports ``finish_reason: "stop"`` for chunks that never carried one; in litellm's own
  pipeline the stream of ``litellm.completion(..., stream=True)`` raises "Stream ended
  before a finish_reason was received" first.)
* Error chunks: the openai SDK's ``Stream`` raises before litellm sees the chunk
  (``_glue.raise_on_error_chunk``). Recognition, ``is_done``, display text (choice 0's
  delta ``content``), ``forming_name`` and the continuation: ``_glue``.
"""

from __future__ import annotations

import copy
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from collections.abc import Sequence  # noqa: E402
from typing import Any  # noqa: E402

import litellm  # noqa: E402
from litellm.types.utils import ModelResponseStream  # noqa: E402

from mcs_conformance import Accumulator, MalformedChunk, ToolCall, ToolCallRecord  # noqa: E402

from .. import _glue  # noqa: E402

litellm.suppress_debug_info = True

__all__ = ["LiteLLMStrategy"]

_WHO = "litellm stream_chunk_builder"


class LiteLLMStrategy:
    name = "openai-chat"
    leaks_into_text = False

    def recognizes(self, shape: object) -> bool:
        try:
            return _glue.is_chat_chunk(shape) or _glue.is_chat_message(shape)
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        return _glue.chat_is_done(chunk)

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "chunks" not in state:
            state.update(chunks=[], keys=set(), call_keys=set())
        if isinstance(chunk, str) and chunk.strip() == "[DONE]":
            return ""
        if not isinstance(chunk, dict):
            raise MalformedChunk(f"{_WHO}: a chunk is a JSON object or \"[DONE]\", got {type(chunk).__name__}")
        _glue.raise_on_error_chunk(chunk, _WHO)
        deltas = _glue.choice0_deltas(chunk)
        _glue.note_keys(deltas, state["keys"], state["call_keys"])
        state["chunks"].append(ModelResponseStream(**copy.deepcopy(chunk)))
        _glue.lazy_root(acc, lambda: _render(state))
        return "".join(d["content"] for d in deltas if isinstance(d.get("content"), str))

    def extract(self, message: object) -> list[ToolCall]:
        return _glue.chat_calls(message, _WHO)

    def content_text(self, message: object) -> str:
        content = message.get("content") if isinstance(message, dict) else None
        return content if isinstance(content, str) else ""

    def forming_name(self, message: object) -> str | None:
        entries = message.get("tool_calls") if isinstance(message, dict) else None
        if not isinstance(entries, list) or not entries or not isinstance(entries[0], dict):
            return None
        function = entries[0].get("function")
        name = function.get("name") if isinstance(function, dict) else None
        return name if isinstance(name, str) and name else None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        if not isinstance(message, dict):
            raise ValueError(f"{_WHO}: the message is a dict, got {type(message).__name__}")
        return _glue.continuation(_WHO, message, records, self.extract(message))


def _render(state: dict) -> Any:
    if not any(c.get("choices") for c in state["chunks"]):
        return {}
    try:
        response = litellm.stream_chunk_builder(list(state["chunks"]))
    except Exception as exc:  # litellm refuses these chunks; a read must not raise
        return {"mcs_error": f"litellm.stream_chunk_builder raised {type(exc).__name__}: {exc}"}
    if response is None or not response.choices:
        return {}
    message = {**{k: None for k in state["keys"]}, **response.choices[0].message.model_dump()}
    return _glue.wire_keys_only(message, state["keys"], state["call_keys"])
