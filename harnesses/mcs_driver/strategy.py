"""mcs-driver-core's JSON text codec as a ``text-json`` strategy.

mcs-driver-core does the work, as ``BaseDriver.process_llm_response`` (the driver
contract's entry point: "processes the LLM output ..., searches for a structured call,
executes it if found") finds a call: the driver's default extraction chain
(``DirectDictExtractionStrategy``, ``OpenAIExtractionStrategy``, then the
``TextExtractionStrategy`` fallback over ``PromptStrategy.default()``, the
``JsonPromptStrategy`` with the bundled ``default_json.toml``: its healing rules, then
``re.search(r"\\{.*\\}", text, re.S)`` and ``json.loads``, the ``tool`` / ``name``
aliases), which returns one ``(tool_name, arguments)`` or ``None``: one call per response,
as the driver contract has it (docs/Specification/3_Minimal Driver Contract: a
``DriverResponse`` per call, with one ``tool_call_result``). A text message (every
text-json case) reaches the codec alone: no structured strategy claims a ``str``. The
continuation is what ``process_llm_response`` returns in ``DriverResponse.messages``
after executing the call.

Glue choices (everything the adapter decides itself):

* Recognition: a ``str``, or a dict whose ``content`` is a string and that has none of the
  envelope keys of native formats (``tool_calls``, ``function_call``, ``type``, ``object``,
  ``choices``, ``output``): the shapes ``TextExtractionStrategy.extract`` reads. The driver
  itself never claims (it is the fallback), so some rule had to be written.
* Reassembly: the driver has no stream accumulator (``ToolCallSignaling`` is an abstract
  mixin), so ``str`` chunks are concatenated (``Accumulator.append``); anything else is a
  ``MalformedChunk``; ``is_done`` is always false (a text stream ends with its transport).
* ``extract``: the chain ``BaseDriver`` builds by default, run by the claim protocol its
  ``_extract`` docstring documents (the first strategy that ``claims`` the response owns it,
  even when it finds nothing; else the text fallback), on the message as given (``str``, or
  a dict whose ``content`` the text strategy reads): ``BaseDriver._extract`` itself is
  private. ``None`` is no call; ``(name, arguments)`` is one call without an id. The
  codec has no notion of a broken call; arguments that are not a JSON object (the codec
  passes any JSON value through) make the call carry ``error`` rather than be executable.
  Exceptions the codec raises are not caught.
* ``forming_name``: ``None`` always. The driver reports no name of a forming call: its
  streaming interface, the opt-in ``ToolCallSignaling`` mixin (which ``BaseDriver`` does not
  implement), answers only whether text might be the start of a call
  (``might_be_tool_call``) and whether it holds a complete one (``is_complete_tool_call``).
* The glue check (``glue_view``, ``harnesses/glue_check.py``): ``BaseDriver._extract`` (the
  chain ``process_llm_response`` runs) on the text or message beside the adapter's
  ``extract`` / ``content_text``; arguments that are no object are compared as their JSON
  text (``raw_arguments``). The differences the adapter knows of are ``GLUE_LISTED``.
* ``result_messages``: a one-tool ``BaseDriver`` subclass whose ``list_tools`` offers the
  recorded call's name and whose ``execute_tool`` returns the record's result runs
  ``process_llm_response`` on the message (as given) and returns its ``messages``. The
  driver executes one call per response: a record whose call is not the one ``extract``
  finds, or a second record, is refused with ``ValueError``; with no record the
  continuation is empty.
"""

from __future__ import annotations

import json
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

from mcs_conformance import Accumulator, MalformedChunk, ToolCall, ToolCallRecord, require_records

__all__ = ["GLUE_LISTED", "MCSDriverTextStrategy", "glue_view"]

GLUE_LISTED: dict[str, str] = {
    "refused:text-json/syn-chunk-not-text": "the driver reads no stream: the adapter concatenates str chunks and "
        "refuses any other chunk with MalformedChunk; the driver is handed the text of the str chunks",
}

_WHO = "mcs-driver-core"
_ENVELOPE = frozenset({"tool_calls", "function_call", "type", "object", "choices", "output"})


class _ReplayDriver(BaseDriver):
    """A driver with one tool whose result is the record's."""

    def __init__(self, record: ToolCallRecord) -> None:
        super().__init__()
        self._record = record

    def list_tools(self) -> list[Tool]:
        return [Tool(name=self._record.call.name, description="the recorded call")]

    def execute_tool(self, tool_name: str, arguments: dict[str, Any]) -> Any:
        return self._record.result


class MCSDriverTextStrategy:
    name = "text-json"
    leaks_into_text = False

    def __init__(self) -> None:
        self._claimers = (DirectDictExtractionStrategy(), OpenAIExtractionStrategy())
        self._text = TextExtractionStrategy(PromptStrategy.default())

    def recognizes(self, shape: object) -> bool:
        try:
            if isinstance(shape, str):
                return True
            return (isinstance(shape, dict) and isinstance(shape.get("content"), str)
                    and not any(k in shape for k in _ENVELOPE))
        except Exception:
            return False

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        if not isinstance(chunk, str):
            raise MalformedChunk(f"{_WHO}: a text stream carries str chunks, got {type(chunk).__name__}")
        acc.append(None, None, chunk)
        return chunk

    def is_done(self, chunk: object) -> bool:
        return False

    def content_text(self, message: object) -> str:
        if isinstance(message, str):
            return message
        if message is None:
            return ""
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            return message["content"]
        raise ValueError(f"{_WHO}: cannot read text from {type(message).__name__}")

    def _found(self, message: object) -> Any:
        """``(tool_name, arguments)`` or ``None``, as ``BaseDriver._extract`` finds it."""
        for strategy in self._claimers:
            if strategy.claims(message):
                return strategy.extract(message)
        return self._text.extract(message)

    def extract(self, message: object) -> list[ToolCall]:
        self.content_text(message)  # anything but a str, a dict with text content or None is refused
        found = self._found(message) if message is not None else None
        if found is None:
            return []
        name, arguments = found
        if not isinstance(arguments, dict):
            return [ToolCall(name=str(name), raw_arguments=json.dumps(arguments),
                             error=f"arguments are a JSON {type(arguments).__name__}, not an object")]
        return [ToolCall(name=str(name), arguments=arguments)]

    def forming_name(self, message: object) -> str | None:
        return None  # the driver has no reading of a forming call's name

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        self.content_text(message)
        records = require_records(records, _WHO)
        if not records:
            return []
        calls = self.extract(message)
        if len(records) > 1 or not calls or records[0].call != calls[0]:
            raise ValueError(f"{_WHO}: the driver answers the one call it finds in the message "
                             f"({calls[0].name if calls else 'none'!r}); got {len(records)} record(s) "
                             f"for {[r.call.name for r in records]}")
        return list(_ReplayDriver(records[0]).process_llm_response(message).messages)


class _Probe(BaseDriver):
    """A driver with no tools: only its ``_extract`` is asked."""

    def list_tools(self) -> list[Tool]:
        return []

    def execute_tool(self, tool_name: str, arguments: dict[str, Any]) -> Any:
        raise AssertionError("never executed")


def glue_view(case: Any) -> dict | None:
    """The call the driver's own chain finds (``BaseDriver._extract``, what
    ``process_llm_response`` executes) beside the adapter's ``extract``."""
    from ..glue_check import adapter_view, call, refusal, view

    if case.is_stream:
        text = "".join(c for c in case.chunks if isinstance(c, str))
        adapter = adapter_view(MCSDriverTextStrategy(), case)
    else:
        text = case.message
        strategy = MCSDriverTextStrategy()
        try:
            adapter = view(text=strategy.content_text(text),
                           calls=[call(c.id, c.name, c.raw_arguments if c.raw_arguments is not None else c.arguments)
                                  for c in strategy.extract(text)])
        except Exception as exc:
            adapter = view(refused=refusal(exc))
    try:
        found = _Probe()._extract(text)
    except Exception as exc:
        library = view(refused=refusal(exc))
    else:
        shown = text if isinstance(text, str) else (text.get("content") if isinstance(text, dict) else None)
        calls = [] if found is None else [
            call(None, str(found[0]), found[1] if isinstance(found[1], dict) else json.dumps(found[1]))]
        library = view(text=shown, calls=calls)
    return {"library": library, "adapter": adapter}
