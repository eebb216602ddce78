"""The openai SDK's ``ChatCompletionStreamState`` as an ``openai-chat`` strategy.

The SDK does the accumulating: every chunk goes to ``ChatCompletionStreamState.handle_chunk``
as the SDK's own ``ChatCompletionChunk`` model (``construct_type``, as the SDK builds it from
the wire). The message is choice 0 of ``current_completion_snapshot``.

Glue choices (everything the adapter decides itself):

* The message is choice 0's ``message`` of the SDK snapshot, ``to_dict()``, with the keys the
  SDK adds that were never on the wire removed (``_glue.wire_keys_only``, the same rule the
  suite's SDK oracle applies). Its values are the SDK's, untouched.
* The message is converted at read time only (``_glue.lazy_root``).
* Unfinished streams: ``get_final_completion`` is documented for finished streams only,
  and raises ``LengthFinishReasonError`` / ``ContentFilterFinishReasonError`` for a
  ``length`` / ``content_filter`` finish; ``is_done`` (``_glue.chat_is_done``) is false until
  another finish arrives, and the buffer's ``done`` tells the suite's extraction axis.
* ``extract``: the message read as the SDK's ``ChatCompletionMessage`` model; arguments
  parsed by ``_glue.parse_arguments`` (without ``input_tools`` the SDK parses nothing
  itself); a call without a function name is a call with ``error``. Ids are kept as the
  SDK holds them (``""`` too).
* Display text: the ``content`` of choice 0's delta in each chunk.
* Recognition, ``is_done``, error chunks and the continuation: ``_glue.ChatAdapter`` and
  ``_glue.chat_chunk`` (see there).
* ``forming_name``: the first tool call's ``function.name`` in the message, if any.
"""

from __future__ import annotations

from typing import Any

from openai._models import construct_type
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk, ChatCompletionMessage

from mcs_conformance import Accumulator, ToolCall

from .. import _glue

__all__ = ["OpenAIChatSDKStrategy"]

_WHO = "openai ChatCompletionStreamState"


class OpenAIChatSDKStrategy(_glue.ChatAdapter):
    who = _WHO

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        if "sdk" not in acc.state:
            acc.state.update(sdk=ChatCompletionStreamState(), keys=set(), call_keys=set())
        if not _glue.chat_chunk(chunk, _WHO):
            return ""
        state = acc.state
        state["sdk"].handle_chunk(construct_type(type_=ChatCompletionChunk, value=chunk))
        deltas = _glue.choice0_deltas(chunk)
        _glue.note_keys(deltas, state["keys"], state["call_keys"])
        _glue.lazy_root(acc, lambda: _render(state))
        return "".join(d["content"] for d in deltas if isinstance(d.get("content"), str))

    def extract(self, message: object) -> list[ToolCall]:
        model = _model(message, "extract")
        out = []
        for tc in model.tool_calls or []:
            function = getattr(tc, "function", None)
            name = getattr(function, "name", None) or ""
            raw = getattr(function, "arguments", None)
            arguments, error = _glue.parse_arguments(raw)
            if error is None and not name:
                error = "the tool call has no function name"
            out.append(ToolCall(name=name if isinstance(name, str) else "", arguments=arguments,
                                id=getattr(tc, "id", None), raw_arguments=raw if isinstance(raw, str) else None,
                                error=error))
        return out

    def content_text(self, message: object) -> str:
        content = _model(message, "content_text").content
        return content if isinstance(content, str) else ""


def _render(state: dict) -> Any:
    try:
        snapshot = state["sdk"].current_completion_snapshot
    except AssertionError:  # nothing but "[DONE]" so far
        return None
    choices = snapshot.to_dict().get("choices") or []
    choice = next((c for c in choices if c.get("index") == 0), None)
    if choice is None:
        return {}
    return _glue.wire_keys_only(choice.get("message") or {}, state["keys"], state["call_keys"])


def _model(message: object, what: str) -> ChatCompletionMessage:
    if not isinstance(message, dict):
        raise ValueError(f"{_WHO}.{what}: expects an assistant message dict, got {type(message).__name__}")
    return construct_type(type_=ChatCompletionMessage, value=message)

