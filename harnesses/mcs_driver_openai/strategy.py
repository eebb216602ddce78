"""mcs-driver-core's native OpenAI extraction as an ``openai-chat`` strategy.

mcs-driver-core finds the call: ``BaseDriver.process_llm_response`` (the driver contract's
entry point: "Parse the LLM output for a structured call. If found, execute it.") takes
"a structured native tool-call object (``dict``) for LLMs that emit tool calls as
structured data", and its default extraction chain (``DirectDictExtractionStrategy``,
``OpenAIExtractionStrategy``, then the ``TextExtractionStrategy`` fallback) hands a dict
with a ``tool_calls`` key to ``OpenAIExtractionStrategy`` ("Claims any dict that carries a
``"tool_calls"`` key"), which reads ``tool_calls[0].function``: one ``(tool_name,
arguments)`` per response, its ``arguments`` string read with ``json.loads``. The driver
has no stream accumulator; what a streaming client hands it is the assembled
``choices[0].message`` (``TextExtractionStrategy``'s docstring: "clients [...] pass a full
LLM message dict (e.g. ``choices[0].message``)"), so the message is the official openai
SDK's: ``ChatCompletionStreamState`` over ``chat.completions.create(stream=True)``, fed the
recorded wire bytes, exactly as the ``openai-sdk-chat`` harness runs it (its adapter,
``harnesses.sdk.chat.OpenAIChatSDKStrategy``, is the base class here, used as is).

Glue choices (everything the adapter decides itself):

* Reassembly, recognition, ``is_done``, ``content_text`` and the display text: the
  ``openai-sdk-chat`` adapter's (its header lists its own choices). The driver reads
  the message the SDK builds; nothing of the stream is the driver's.
* ``extract``: the claim protocol ``BaseDriver._extract`` documents ("the first strategy
  that *claims* a response owns it exclusively (even when ``extract`` returns ``None``)";
  ``TextExtractionStrategy`` "never claims and serves as the final fallback"), run over the
  public strategy classes of the driver's default chain in its order, since ``_extract`` is
  private; its preferred-extractor cache is left out ("the system produces the same result
  without it"). ``None`` is no call; ``(name, arguments)`` is one call, with no id (the
  driver keeps none: its ``DriverResponse`` carries no call id). Arguments that are no
  JSON object (``OpenAIExtractionStrategy`` passes a parsed array through) make the call
  carry ``error``, since no tool takes them; any dict the driver gives is executable, as
  ``process_llm_response`` executes it. Exceptions are not caught.
* ``forming_name``: the driver has none, so it is ``None`` at every read; NAME-001 and
  NAME-002 are left out of the run (``harnesses.toml``).
* ``result_messages``: a one-tool ``BaseDriver`` subclass whose ``list_tools`` offers the
  recorded call's name and whose ``execute_tool`` returns the record's result runs
  ``process_llm_response`` on the message as given and returns its ``messages``; a record
  whose call is not the one ``extract`` finds, or a second record, is refused with
  ``ValueError`` naming the records' calls and ids (the driver executes one call per
  response); no record: no messages.
* ``glue_view``: "library" is the driver chain's ``(tool_name, arguments)`` on the SDK's
  ``choices[0].message`` (the SDK's own snapshot over the whole body), that message's
  ``content`` and ``finish_reason``, and what the SDK raised; "adapter" is ``extract`` and
  ``content_text`` on the buffer's message (its ``stop`` is ``None``: a message holds no
  finish reason), and what the buffer raised. A message case (no chunks) has no view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcs.driver.core import (
    BaseDriver,
    DirectDictExtractionStrategy,
    OpenAIExtractionStrategy,
    PromptStrategy,
    TextExtractionStrategy,
    Tool,
)

from mcs_conformance import LLMStreamBuffer, ToolCall, ToolCallRecord, require_records

from .. import _glue
from ..sdk.chat import OpenAIChatSDKStrategy

__all__ = ["GLUE_LISTED", "MCSDriverOpenAIStrategy", "glue_view"]

_WHO = "mcs-driver-core (OpenAIExtractionStrategy)"

GLUE_LISTED: dict[str, str] = {
    "refused.type": "the buffer reports an exception of the SDK's as MalformedChunk (StreamError for an error chunk), "
                    "its text naming the SDK's",
    "stop": "the message is choice 0's message, which holds no finish reason; the stream's end is the buffer's done",
    "calls.count:openai-chat/syn-text-json-in-content": "the buffer's message holds the keys the wire sent; the SDK's "
        "model dump adds `tool_calls: None`, on which the driver's native claimer takes the message and finds no call, "
        "where on the wire's keys its text codec finds the JSON call in the content (the ADR's `tool_calls: null` guard; "
        "not yet a finding)",
}


class _ReplayDriver(BaseDriver):
    """A driver with one tool whose result is the record's."""

    def __init__(self, record: ToolCallRecord) -> None:
        super().__init__()
        self._record = record

    def list_tools(self) -> list[Tool]:
        return [Tool(name=self._record.call.name, description="the recorded call")]

    def execute_tool(self, tool_name: str, arguments: dict[str, Any]) -> Any:
        return self._record.result


_CLAIMERS = (DirectDictExtractionStrategy(), OpenAIExtractionStrategy())
_TEXT = TextExtractionStrategy(PromptStrategy.default())


def _found(message: object) -> Any:
    """``(tool_name, arguments)`` or ``None``, as ``BaseDriver._extract`` finds it."""
    for strategy in _CLAIMERS:
        if strategy.claims(message):
            return strategy.extract(message)
    return _TEXT.extract(message)


class MCSDriverOpenAIStrategy(OpenAIChatSDKStrategy):
    who = _WHO

    def extract(self, message: object) -> list[ToolCall]:
        if not isinstance(message, dict):
            raise ValueError(f"{_WHO}.extract: expects an assistant message dict, got {type(message).__name__}")
        found = _found(message)
        if found is None:
            return []
        name, arguments = found
        if not isinstance(arguments, dict):
            return [ToolCall(name=str(name), error=f"arguments are a JSON {type(arguments).__name__}, not an object")]
        return [ToolCall(name=str(name), arguments=arguments)]

    def forming_name(self, message: object) -> str | None:
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        if not isinstance(message, dict):
            raise ValueError(f"{_WHO}: the message is a dict, got {type(message).__name__}")
        records = require_records(records, _WHO)
        if not records:
            return []
        calls = self.extract(message)
        if len(records) > 1 or not calls or records[0].call != calls[0]:
            raise ValueError(f"{_WHO}: the driver answers the one call it finds in the message "
                             f"({calls[0].name if calls else 'none'!r}); got {len(records)} record(s) "
                             f"for {[r.call.name for r in records]} (call ids {[r.call.id for r in records]})")
        return list(_ReplayDriver(records[0]).process_llm_response(message).messages or [])


def _sdk_message(chunks: list) -> tuple[Any, Any, str | None]:
    """The SDK's own snapshot over the whole body: ``choices[0].message`` as a dict, its
    ``finish_reason``, and what the SDK raised (``None`` when it read the body)."""
    from openai import OpenAI
    from openai.lib.streaming.chat import ChatCompletionStreamState

    from .. import _wire

    http = _wire.http_module("httpx2")
    body = _wire.sse_body([c for c in chunks if isinstance(c, (dict, str))])
    client = OpenAI(api_key="placeholder-never-sent", base_url="http://openai.harness.invalid/v1", max_retries=0,
                    http_client=http.Client(transport=_wire.transport(body, http)))
    state = ChatCompletionStreamState()
    try:
        for chunk in client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}],
                                                    stream=True):
            state.handle_chunk(chunk)
        choice = next((c for c in state.current_completion_snapshot.choices if c.index == 0), None)
    except Exception as exc:  # the SDK refused the stream
        return None, None, f"{type(exc).__name__}: {exc}"
    if choice is None:
        return None, None, None
    return choice.message.to_dict(), choice.finish_reason, None


def _view(text: Any, calls: list[dict], stop: Any, refused: str | None) -> dict:
    return {"text": text if isinstance(text, str) and text else None, "calls": calls,
            "stop": stop if isinstance(stop, str) else None, "refused": refused}


def glue_view(case: Any) -> dict | None:
    """The case's chunks through the SDK's accumulator: the driver's own answer on the SDK's
    ``choices[0].message`` ("library") beside the adapter's ``extract`` / ``content_text`` on
    the buffer's message ("adapter"); ``None`` for a message case (no stream to feed)."""
    chunks = _glue.case_chunks(case)
    if chunks is None:
        return None
    message, stop, raised = _sdk_message(chunks)
    library = _view(None, [], None, raised)
    if isinstance(message, dict):
        found = _found(message)
        calls = [{"id": None, "name": found[0], "arguments": found[1]}] if found is not None else []
        library = _view(message.get("content"), calls, stop, None)
    strategy = MCSDriverOpenAIStrategy()
    buf = LLMStreamBuffer([strategy])
    try:
        for chunk in chunks:
            buf.feed(chunk)
        converted = buf.as_dict()
    except Exception as exc:  # the buffer refused a chunk (the SDK raised on it)
        return {"library": library, "adapter": _view(None, [], None, f"{type(exc).__name__}: {exc}")}
    adapter = _view(None, [], None, None)
    if isinstance(converted, dict):
        calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in strategy.extract(converted)]
        adapter = _view(strategy.content_text(converted), calls, None, None)
    return {"library": library, "adapter": adapter}
