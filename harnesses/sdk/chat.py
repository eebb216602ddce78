"""The openai SDK's ``ChatCompletionStreamState`` as an ``openai-chat`` strategy.

The SDK does the reading and the accumulating, on the path its ``ChatCompletionStreamState``
docstring shows: ``client.chat.completions.create(..., stream=True)`` on the SDK's own
``OpenAI`` client, each ``ChatCompletionChunk`` its ``Stream`` yields handed to
``state.handle_chunk``, the message read from ``state.current_completion_snapshot``
("can also access the accumulated ``ChatCompletion`` mid-stream"). The client is fed the
recorded wire bytes (``_wire.sse_body``) through an injected ``httpx2`` transport.

Glue choices (everything the adapter decides itself):

* One request per stream, answered live (``_live``): each chunk's SSE bytes are pushed to
  the response body when the suite feeds the chunk, and the SDK's ``Stream`` is stepped
  until it has read them, so the SDK has handled the chunk when ``accumulate`` returns
  (its ``Stream`` yields one chunk per event). ``"[DONE]"`` is sent as sent; the SDK's
  ``Stream`` stops there, and the chunks after it are not read (as a user's loop never sees
  them). A chunk that is no JSON object (and no ``"[DONE]"``) is refused with
  ``MalformedChunk`` before the SDK sees it (no SSE event carries it as one chunk).
* The SDK's ``APIError`` for an event with an ``error`` member (openai/_streaming.py) is
  raised as ``StreamError`` carrying the chunk, worded by ``_glue.raise_on_error_chunk``;
  any other exception of the SDK's (its ``Stream`` or ``handle_chunk``) is its refusal of
  the chunk (the buffer reports it as ``MalformedChunk``), and the stream is over after it.
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
* Display text: the ``content`` of choice 0's delta in each chunk the SDK read.
* Recognition, ``is_done`` and the continuation: ``_glue.ChatAdapter`` (see there).
* ``forming_name``: the first tool call's ``function.name`` in the message, if any.

The glue check (``glue_view``, ``harnesses/glue_check.py``): the SDK's snapshot for the case's
chunks fed through the same live body (``content``, choice 0's ``tool_calls`` with their
``arguments`` text, ``finish_reason``, or what the SDK raised) beside the adapter's message
read by ``extract`` / ``content_text``. The differences the adapter knows of are
``GLUE_LISTED``.
"""

from __future__ import annotations

from typing import Any

from openai import APIError, OpenAI
from openai._models import construct_type
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionMessage

from mcs_conformance import Accumulator, MalformedChunk, StreamError, ToolCall

from .. import _glue, _wire
from . import _live

__all__ = ["GLUE_LISTED", "OpenAIChatSDKStrategy", "glue_view"]

GLUE_LISTED: dict[str, str] = {
    "text.type": "content that is no string (a list of parts, which the API never streams) is no text to the "
                 "adapter's content_text (\"\"); the SDK's snapshot keeps the list as sent",
    "refused.type:openai-chat/syn-unparsed-sse-line": "a chunk that is a JSON string (an SSE line left unparsed), "
                    "not an object, is refused with MalformedChunk before the SDK sees it: no SSE event carries a "
                    "JSON string as a chunk (the SDK, handed the line's text, raises its own JSON error)",
}

_WHO = "openai ChatCompletionStreamState"
_CLIENT: list[OpenAI] = []


def _client() -> OpenAI:
    if not _CLIENT:
        _CLIENT.append(_live.client(OpenAI, "http://openai.harness.invalid/v1"))
    return _CLIENT[0]


def _open() -> _live.LiveBody:
    """One streamed request on the SDK's client, answered by a live body."""
    body = _live.LiveBody()
    body.events = _client().chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}],
                                                    stream=True, extra_headers=body.headers)
    return body


class OpenAIChatSDKStrategy(_glue.ChatAdapter):
    who = _WHO

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        state = acc.state
        if "sdk" not in state:
            state.update(live=_open(), sdk=ChatCompletionStreamState(), keys=set(), call_keys=set())
        done = isinstance(chunk, str) and chunk.strip() == "[DONE]"
        if not done and not isinstance(chunk, dict):
            raise MalformedChunk(f"{_WHO}: a chunk is a JSON object or \"[DONE]\", got {type(chunk).__name__}")
        live = state["live"]
        try:
            read = live.push(_wire.sse_body([chunk]))
        except APIError as exc:  # the SDK's Stream raises it for an event with an error member
            try:
                _glue.raise_on_error_chunk(chunk, _WHO)
            except StreamError as error:
                raise error from exc
            raise
        for model in read:
            try:
                state["sdk"].handle_chunk(model)
            except Exception as exc:
                live.error = exc
                raise
        if not read:
            return ""
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



def glue_view(case: Any) -> dict | None:
    """The SDK's own snapshot beside the adapter's message for a stream case (None for a
    message case: the adapter reads a message with the SDK's model, nothing to compare)."""
    from ..glue_check import adapter_view, call, refusal, view

    if not case.is_stream:
        return None
    body, sdk, refused = _open(), ChatCompletionStreamState(), None
    try:
        for chunk in case.chunks:
            for model in body.push(_wire.sse_body([chunk])):
                sdk.handle_chunk(model)
    except Exception as exc:  # the SDK's answer: a refusal
        refused = exc
    if refused is not None:
        library = view(refused=refusal(refused))
    else:
        try:
            snapshot = sdk.current_completion_snapshot
        except AssertionError:  # nothing but "[DONE]"
            snapshot = None
        choice = next((c for c in snapshot.choices if c.index == 0), None) if snapshot is not None else None
        if choice is None:
            library = view()
        else:
            library = view(text=choice.message.content,
                           calls=[call(tc.id, tc.function.name, tc.function.arguments)
                                  for tc in choice.message.tool_calls or ()],
                           stop=choice.finish_reason)
    return {"library": library, "adapter": adapter_view(OpenAIChatSDKStrategy(), case, stop=lambda fed, _message: _glue.wire_finish(fed))}
