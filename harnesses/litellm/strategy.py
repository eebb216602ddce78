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
  delta ``content``), ``forming_name`` and the continuation: ``_glue.ChatAdapter``.
"""

from __future__ import annotations

import copy
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from typing import Any  # noqa: E402

import litellm  # noqa: E402
from litellm.types.utils import ModelResponseStream  # noqa: E402

from mcs_conformance import Accumulator, ToolCall  # noqa: E402

from .. import _glue  # noqa: E402

litellm.suppress_debug_info = True

__all__ = ["LiteLLMStrategy"]

_WHO = "litellm stream_chunk_builder"


class LiteLLMStrategy(_glue.ChatAdapter):
    who = _WHO

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "chunks" not in state:
            state.update(chunks=[], keys=set(), call_keys=set())
        if not _glue.chat_chunk(chunk, _WHO):
            return ""
        deltas = _glue.choice0_deltas(chunk)
        _glue.note_keys(deltas, state["keys"], state["call_keys"])
        state["chunks"].append(ModelResponseStream(**copy.deepcopy(chunk)))
        _glue.lazy_root(acc, lambda: _render(state))
        return "".join(d["content"] for d in deltas if isinstance(d.get("content"), str))

    def extract(self, message: object) -> list[ToolCall]:
        return _glue.chat_calls(message, _WHO)


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
