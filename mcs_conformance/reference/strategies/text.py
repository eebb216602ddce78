"""The text strategy ("text-json"): tool calls written as JSON in plain text.

The wire is plain ``str`` chunks and the native message is the ``str`` itself. On the
extraction axis it also reads content-only chat messages (``{"role": "assistant",
"content": "..."}`` without a ``tool_calls`` key): the leak path hands it their text.
It never claims a native envelope (OpenAI chunks, messages with ``tool_calls``, Anthropic
events and messages, Responses events and objects). The call syntax itself is the
codec's business (:mod:`.json_codec`); this module only moves text in and out.

The continuation is the assistant text, then one user message holding the results as
JSON lines (see :meth:`JsonCodec.render_results`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..accumulator import Accumulator
from ..errors import MalformedChunk
from ..protocol import ToolCall, ToolCallRecord, require_records
from ..wire import describe
from .json_codec import JsonCodec

__all__ = ["TextStrategy"]

# Keys that mark a dict as a native envelope (or a native message with calls), never a
# content-only message.
_ENVELOPE_KEYS = frozenset({"tool_calls", "function_call", "type", "object", "choices", "output"})


class TextStrategy:
    """Plain text carrying JSON tool calls; the backup for calls leaked into text."""

    name = "text-json"
    leaks_into_text = False

    def __init__(self, codec: JsonCodec | None = None) -> None:
        self.codec = codec if codec is not None else JsonCodec()

    def recognizes(self, shape: object) -> bool:
        """A ``str``, or a content-only chat message (string content, no envelope keys)."""
        try:
            if isinstance(shape, str):
                return True
            return (
                isinstance(shape, dict)
                and isinstance(shape.get("content"), str)
                and not any(key in shape for key in _ENVELOPE_KEYS)
            )
        except Exception:
            return False

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Append a ``str`` chunk to the message (the root string); return it as display text."""
        if not isinstance(chunk, str):
            raise MalformedChunk(f"text-json: a text stream carries str chunks, got {describe(chunk)}")
        acc.append(None, None, chunk)
        return chunk

    def is_done(self, chunk: object) -> bool:
        """Always False: a text stream ends when its transport ends."""
        return False

    def content_text(self, message: object) -> str:
        """The text: the message itself, or a content-only message's ``content`` ("" for None)."""
        if isinstance(message, str):
            return message
        if message is None:
            return ""
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            return message["content"]
        raise ValueError(f"text-json: cannot read text from {describe(message)}")

    def extract(self, message: object) -> list[ToolCall]:
        """Every call the codec finds in the message's text, in order."""
        return self.codec.find(self.content_text(message))

    def forming_name(self, message: object) -> str | None:
        """The first call's name as far as it has arrived in the text, or None."""
        return self.codec.forming_name(self.content_text(message))

    def render(self, calls: Iterable[ToolCall]) -> str:
        """Text that :meth:`extract` reads back as ``calls``."""
        return self.codec.render(calls)

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The assistant text, then one user message with every result in record order.

        Each record's call must be one of the message's calls (by id when it has one,
        else by name and arguments).
        """
        text = self.content_text(message)
        calls = self.codec.find(text)
        records = require_records(records, self.name)
        for record in records:
            if not any(_same_call(record.call, call) for call in calls):
                raise ValueError(
                    f"text-json: the result for {record.call.name!r} (id {record.call.id!r}) "
                    "answers no call in the assistant message"
                )
        return [
            {"role": "assistant", "content": text},
            {"role": "user", "content": self.codec.render_results(records)},
        ]


def _same_call(wanted: ToolCall, found: ToolCall) -> bool:
    if wanted.id is not None:
        return found.id == wanted.id
    return found.name == wanted.name and _equal_json(found.arguments, wanted.arguments)


def _equal_json(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False
