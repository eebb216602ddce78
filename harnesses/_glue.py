"""Glue shared by the OpenAI Chat Completions adapters: what none of the libraries offers.

Every adapter that uses a helper from here lists it among its glue choices. Nothing here
accumulates or parses a stream; that is each library's job.

* ``lazy_root``: the library's accumulated state is turned into the wire message only when
  the buffer reads the message (``Accumulator.append`` with a ``finish`` callback on the
  root), so the conversion costs nothing per chunk and the suite's COST checks measure the
  library, not a per-chunk conversion added by the glue.
* ``is_chat_chunk`` / ``is_chat_message``: recognition. A chunk is ``object:
  "chat.completion.chunk"``, or (compatible servers, Azure's lead chunk with ``object: ""``)
  a dict whose ``choices`` are all deltas beside an ``id``, ``model`` or
  ``prompt_filter_results``. A message is an assistant message with a ``tool_calls`` key and
  none of the envelope keys of chunks and other formats.
* ``chat_is_done``: choice 0 (a choice without index, or whose index reads as 0: ``"0"``,
  ``0.0``) carries a ``finish_reason`` that does not report a cut output (``length``,
  ``content_filter``): the completion signal as docs/spec.md states it. None of the
  libraries offers an ``is_done``; whether a stream finished is then the buffer's ``done``,
  which the suite's extraction axis reads (the adapters write no key of their own into the
  message for it).
* ``choice0_deltas``: the ``delta`` objects of choice 0 in a chunk, for the display text.
* ``raise_on_error_chunk``: a chunk with a truthy ``error`` member is a provider error; the
  openai SDK's ``Stream`` raises ``APIError`` for it before any accumulator sees it
  (openai/_streaming.py), so the adapters raise ``StreamError`` at the same point.
* ``continuation``: the assistant turn replayed as the OpenAI docs show (the assistant
  message sent back, then one ``{"role": "tool", "tool_call_id", "content"}`` per result),
  in the request shape the API accepts: ``role``, ``content`` (a string or parts),
  ``refusal`` (a string) and ``tool_calls``; a call without a name is left out (never
  executable), ``arguments`` that are no string are sent as ``"{}"``, a call without a
  usable id (absent, ``""``, not a string) is replayed under a made-up id ``call_<n>`` that
  the record of that call (found by equality with ``extract``'s call at that position)
  answers. A record whose call is not in the message is refused with
  ``ValueError`` (the API answers a result for an unknown id with HTTP 400).
* ``note_keys`` / ``wire_keys_only``: the keys a library's pydantic message adds that were
  never on the wire are removed, by the rule the suite's SDK oracle applies (see there).
* ``ChatAdapter``: what the four adapters share around the library's own work: the name,
  recognition and the completion signal above, ``content_text`` (the ``content`` string,
  or the ``text`` of its ``text`` parts joined when it is a list of parts, as the API's
  content parts and LangChain's ``AIMessage.text`` read) and ``forming_name`` read from the
  message dict (the first call's name once it is a non-empty string), and
  ``result_messages`` by ``continuation``; ``chat_chunk``: the first step of each
  ``accumulate`` (``"[DONE]"`` is skipped, anything but an object refused with
  ``MalformedChunk``, an error chunk raised).
* ``wire_finish``: choice 0's last ``finish_reason`` on the wire, what ``chat_is_done`` reads:
  the adapter's finish reason in the glue check (``harnesses/glue_check.py``), since the
  message it renders holds none.
* ``parse_arguments`` / ``chat_calls``: for libraries that leave parsing arguments to their
  caller, ``json.loads`` as the openai and litellm docs show; empty is ``{}``; no object is
  an error; a call without a name is an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from mcs_conformance import Accumulator, MalformedChunk, StreamError, ToolCall, ToolCallRecord, require_records

__all__ = [
    "ChatAdapter",
    "chat_chunk",
    "chat_calls",
    "chat_is_done",
    "note_keys",
    "parse_arguments",
    "wire_keys_only",
    "choice0_deltas",
    "continuation",
    "is_chat_chunk",
    "is_chat_message",
    "lazy_root",
    "raise_on_error_chunk",
    "wire_finish",
]

_ENVELOPE = ("choices", "object", "type", "delta", "output", "content_block", "message")


def lazy_root(acc: Accumulator, render: Callable[[], Any]) -> None:
    """Make the message ``render()`` at the next read (nothing is converted per chunk)."""
    acc.append(None, None, "", finish=lambda _text: render())


def is_chat_chunk(shape: Any) -> bool:
    if not isinstance(shape, dict):
        return False
    if shape.get("object") == "chat.completion.chunk":
        return True
    choices = shape.get("choices")
    return (
        isinstance(choices, list)
        and all(isinstance(c, dict) and "delta" in c for c in choices)
        and any(k in shape for k in ("id", "model", "prompt_filter_results"))
    )


def is_chat_message(shape: Any) -> bool:
    return (
        isinstance(shape, dict)
        and "tool_calls" in shape
        and shape.get("role") in (None, "assistant")
        and not any(k in shape for k in _ENVELOPE)
    )


def _is_choice0(index: Any) -> bool:
    """Choice 0: no index, or an index that reads as 0 (compatible servers send "0" or 0.0)."""
    if index is None:
        return True
    try:
        return not isinstance(index, bool) and float(index) == 0
    except (TypeError, ValueError):
        return False


def _choice0(chunk: Any) -> list[dict]:
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    if not isinstance(choices, list):
        return []
    return [c for c in choices if isinstance(c, dict) and _is_choice0(c.get("index"))]


_CUT = ("length", "content_filter")


def chat_is_done(chunk: Any) -> bool:
    try:
        return any(c.get("finish_reason") is not None and c.get("finish_reason") not in _CUT
                   for c in _choice0(chunk))
    except Exception:
        return False


def choice0_deltas(chunk: Any) -> list[dict]:
    return [c["delta"] for c in _choice0(chunk) if isinstance(c.get("delta"), dict)]


def raise_on_error_chunk(chunk: Any, who: str) -> None:
    if isinstance(chunk, dict) and chunk.get("error"):
        error = chunk["error"]
        text = error.get("message") if isinstance(error, dict) else None
        raise StreamError(f"{who}: the provider reported an error in the stream: {text or error!r}", payload=chunk)


def continuation(who: str, assistant: dict, records: Sequence[ToolCallRecord],
                 calls: Sequence[ToolCall]) -> list[dict]:
    """The assistant turn in request shape, then one ``tool`` message per record.

    ``calls`` is what the adapter's ``extract`` returns for ``assistant``, position by
    position; it pairs a record of a call without an id with the call it answers.
    """
    records = require_records(records, who)
    turn: dict[str, Any] = {"role": "assistant"}
    content = assistant.get("content")
    if isinstance(content, (str, list)):
        turn["content"] = content
    if isinstance(assistant.get("refusal"), str):
        turn["refusal"] = assistant["refusal"]
    entries = assistant.get("tool_calls")
    replayed, made = [], {}
    taken = {e.get("id") for e in entries or () if isinstance(e, dict)}
    for n, entry in enumerate(entries if isinstance(entries, list) else ()):
        function = entry.get("function") if isinstance(entry, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            continue  # the API refuses a call without a name; it was never executable
        call_id = entry.get("id")
        if not isinstance(call_id, str) or not call_id:
            call_id = f"call_{n}"
            while call_id in taken:
                call_id += "_"
            made[n] = call_id
        arguments = function.get("arguments")
        replayed.append({"id": call_id, "type": "function",
                         "function": {"name": name, "arguments": arguments if isinstance(arguments, str) else "{}"}})
    if replayed:
        turn["tool_calls"] = replayed
    ids = [c["id"] for c in replayed]
    out = [turn]
    for k, record in enumerate(records):
        call_id = record.call.id if isinstance(record.call.id, str) and record.call.id else None
        if call_id is None:  # a call that came without a usable id: the one extract returned
            n = next((n for n in made if n < len(calls) and calls[n] == record.call), None)
            call_id = made.pop(n) if n is not None else None
        if call_id is None or call_id not in ids:
            raise ValueError(f"{who}: record {k} answers call id {record.call.id!r}, which is not a call "
                             f"of the assistant message (its call ids: {ids})")
        out.append({"role": "tool", "tool_call_id": call_id, "content": record.result})
    return out


def parse_arguments(raw: Any) -> tuple[dict, str | None]:
    """A call's ``arguments`` string read with ``json.loads``, as the openai and litellm
    docs show it (Python's json reads ``NaN`` and ``Infinity`` too).

    For the libraries that leave parsing to their caller: an empty or absent string is
    ``{}``; anything that is not a JSON object gives ``({}, reason)``.
    """
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if not isinstance(raw, str):
        return {}, f"arguments are {type(raw).__name__}, not a JSON string"
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return {}, f"arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return {}, f"arguments are a JSON {type(value).__name__}, not an object"
    return value, None


def chat_calls(message: Any, who: str) -> list[ToolCall]:
    """The ``tool_calls`` entries of a message dict, arguments read by ``parse_arguments``.

    For libraries whose message type leaves the arguments a string: a call without a
    function name is a call with ``error``; ``tool_calls`` that is no list gives one call
    with ``error`` (it cannot be read, and must not pass for "no call").
    """
    if not isinstance(message, dict):
        raise ValueError(f"{who}.extract: expects an assistant message dict, got {type(message).__name__}")
    entries = message.get("tool_calls")
    if entries is not None and not isinstance(entries, list):
        return [ToolCall(name="", error=f"tool_calls is {type(entries).__name__}, not a list")]
    out = []
    for n, entry in enumerate(entries or ()):
        function = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(function, dict):
            call_id = entry.get("id") if isinstance(entry, dict) else None
            out.append(ToolCall(name="", id=call_id if isinstance(call_id, str) and call_id else None,
                                error=f"tool_calls[{n}] has no function object"))
            continue
        name, raw = function.get("name"), function.get("arguments")
        arguments, error = parse_arguments(raw)
        if error is None and not (isinstance(name, str) and name):
            error = "the tool call has no function name"
        call_id = entry.get("id")
        out.append(ToolCall(name=name if isinstance(name, str) else "", arguments=arguments,
                            id=call_id if isinstance(call_id, str) else None,
                            raw_arguments=raw if isinstance(raw, str) else None,
                            error=error))
    return out


def note_keys(deltas: list[dict], keys: set, call_keys: set) -> None:
    """Remember which message keys and tool-call keys choice 0's deltas carried."""
    for delta in deltas:
        keys.update(delta)
        for fragment in delta.get("tool_calls") or ():
            if isinstance(fragment, dict):
                call_keys.update(fragment)


def wire_keys_only(message: dict, keys: set, call_keys: set) -> dict:
    """A library's message dict without the keys it adds that were never on the wire.

    Removed: ``parsed``; on each tool call ``index`` (the fragments' routing key, absent
    from a ``stream=false`` message) and ``function.parsed_arguments``; a ``None``-valued
    message or tool-call key that no delta of choice 0 carried (pydantic models fill every
    field in). Values are never changed.
    """
    message.pop("parsed", None)
    for call in message.get("tool_calls") or ():
        if not isinstance(call, dict):
            continue
        call.pop("index", None)
        for key in [k for k, v in call.items() if v is None and k not in call_keys]:
            del call[key]
        if isinstance(call.get("function"), dict):
            call["function"].pop("parsed_arguments", None)
    return {k: v for k, v in message.items() if v is not None or k in keys}


def chat_chunk(chunk: Any, who: str) -> bool:
    """Whether ``chunk`` is one for the library to accumulate: ``"[DONE]"`` is not; anything
    but an object is refused; an error chunk raises ``StreamError``."""
    if isinstance(chunk, str) and chunk.strip() == "[DONE]":
        return False
    if not isinstance(chunk, dict):
        raise MalformedChunk(f"{who}: a chunk is a JSON object or \"[DONE]\", got {type(chunk).__name__}")
    raise_on_error_chunk(chunk, who)
    return True


class ChatAdapter:
    """The members the OpenAI Chat adapters share; a subclass names itself (``who``) and
    writes ``accumulate`` and ``extract``, where the library does its work."""

    name = "openai-chat"
    leaks_into_text = False
    who = "an OpenAI Chat adapter"

    def recognizes(self, shape: object) -> bool:
        try:
            return is_chat_chunk(shape) or is_chat_message(shape)
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        return chat_is_done(chunk)

    def extract(self, message: object) -> list[ToolCall]:
        raise NotImplementedError

    def content_text(self, message: object) -> str:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # content parts: the text of the `text` ones
            return "".join(p["text"] for p in content
                           if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str))
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
            raise ValueError(f"{self.who}: the message is a dict, got {type(message).__name__}")
        return continuation(self.who, message, records, self.extract(message))


def wire_finish(chunks: Sequence[Any]) -> Any:
    """The last ``finish_reason`` choice 0 carried in ``chunks`` (None when none did): the
    completion signal ``chat_is_done`` reads, which the adapters' messages do not hold."""
    found = None
    for chunk in chunks:
        for choice in _choice0(chunk):
            if choice.get("finish_reason") is not None:
                found = choice["finish_reason"]
    return found


def case_chunks(case: Any) -> list | None:
    """A stream case's chunks as plain JSON values, for an adapter's ``glue_view``: the glue
    runner hands a corpus ``Case`` (``.is_stream``, ``.chunks``), a case read from its file is a
    dict; ``None`` for a message case (no stream to feed)."""
    if isinstance(case, dict):
        chunks = case.get("chunks")
    else:
        chunks = case.chunks if getattr(case, "is_stream", False) else None
    if chunks is None or isinstance(chunks, (str, bytes, dict)):
        return None
    return json.loads(json.dumps(list(chunks)))
