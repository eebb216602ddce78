"""The reference strategies, each with one deviation docs/spec.md allows: correct answers of
another choice than the reference's, which the default gate must not fail.

Each is the answer a library that follows the official SDK gives, or one the authoring guide
allows. ``tests/zoo/test_allowed.py`` runs the suite on each and requires no failure, and the
difference reported as such.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import replace

from mcs_conformance import MalformedChunk
from mcs_conformance.strategies import AnthropicMessagesStrategy, OpenAIChatStrategy

from .broken import ChatConcatenatesNames, _ChatSteps


class ChatRefusesOtherRoles(OpenAIChatStrategy):
    """The reading methods raise ValueError for a message whose role is not "assistant"
    (docs/authoring.md: answer with your type, or raise ValueError naming the problem)."""

    def _check(self, message: object) -> None:
        if isinstance(message, dict) and message.get("role") not in (None, "assistant"):
            raise ValueError(f"{self.name}: a message of role {message.get('role')!r} is no assistant message")

    def extract(self, message):
        self._check(message)
        return super().extract(message)

    def content_text(self, message):
        self._check(message)
        return super().content_text(message)

    def forming_name(self, message):
        self._check(message)
        return super().forming_name(message)


class ChatKeepsEmptyIds(OpenAIChatStrategy):
    """A call whose id is "" keeps it as "" (the SDK's model does; the reference reads no id)."""

    def extract(self, message):
        calls = super().extract(message)
        entries = message.get("tool_calls") if isinstance(message, dict) else None
        if not isinstance(entries, list):
            return calls
        return [replace(c, id="") if c.id is None and isinstance(e, dict) and e.get("id") == "" else c
                for c, e in zip(calls, entries)]


class ChatMakesUpIds(OpenAIChatStrategy):
    """A call still without an id when the completion finishes gets one made up, a new one on
    every run (the official JavaScript SDK's ``call_<uuid>``: openai@7.59.0
    ``ChatCompletionStream.finalizeChatCompletion``)."""

    def accumulate(self, acc, chunk):
        delta = super().accumulate(acc, chunk)
        if self.is_done(chunk) and isinstance(acc.root, dict):
            for entry in acc.root.get("tool_calls") or []:
                if isinstance(entry, dict) and not entry.get("id"):
                    entry["id"] = f"call_{uuid.uuid4().hex}"
        return delta


class ChatEmptyToolCallsAreNull(_ChatSteps):
    """A delta's ``tool_calls: []`` with no call after it leaves ``tool_calls: null`` (the
    SDK's final completion), still claimed by openai-chat (the key is there)."""

    def _fold_tool_calls(self, acc, message, value, fragments):
        if value == [] and not message.get("tool_calls"):
            message["tool_calls"] = None
            return
        super()._fold_tool_calls(acc, message, value, fragments)


class ChatClaimsObjectArguments(OpenAIChatStrategy):
    """An assistant message whose calls carry object arguments (Ollama's shape) is claimed:
    ADR-0001 makes the ``tool_calls`` key authoritative; its calls come back with errors."""

    def recognizes(self, shape):
        if super().recognizes(shape):
            return True
        return (isinstance(shape, dict) and shape.get("role") == "assistant" and isinstance(shape.get("tool_calls"), list)
                and not {"choices", "object", "type", "delta"} & set(shape))


class ChatAcceptsChunksTheSdkAccepts(OpenAIChatStrategy):
    """A chunk whose wrongly typed field builds no call (role, refusal, content parts,
    finish_reason) is left out instead of refused: the SDK folds such chunks."""

    def accumulate(self, acc, chunk):
        try:
            return super().accumulate(acc, chunk)
        except MalformedChunk as exc:
            if any(field in str(exc) for field in (".role", ".refusal", ".content", "finish_reason")):
                return ""
            raise


class AnthropicRefusesRestartWithMalformedChunk(AnthropicMessagesStrategy):
    """A second message_start is refused with MalformedChunk instead of StreamError."""

    def accumulate(self, acc, chunk):
        if isinstance(chunk, dict) and chunk.get("type") == "message_start" and acc.state:
            raise MalformedChunk(f"{self.name}: a second message_start: the stream restarted")
        return super().accumulate(acc, chunk)


class AnthropicRefusesSurrogateHalves(AnthropicMessagesStrategy):
    """A delta holding half of a surrogate pair is refused with MalformedChunk, as the SDK's
    UTF-8 encoding of it raises (anthropic 2.15.0 ``BetaMessageStream``: UnicodeEncodeError);
    a delta holding the whole pair, as a merge of the two makes it, is read."""

    _LONE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")

    def accumulate(self, acc, chunk):
        delta = chunk.get("delta") if isinstance(chunk, dict) else None
        pieces = [v for v in delta.values() if isinstance(v, str)] if isinstance(delta, dict) else []
        if any(self._LONE.search(p) for p in pieces):
            raise MalformedChunk(f"{self.name}: a delta holds half of a surrogate pair")
        return super().accumulate(acc, chunk)


class AnthropicFailsEverySharedId(AnthropicMessagesStrategy):
    """Every ``tool_use`` block whose id another block of the message shares is an error call,
    the first one included, and none of them is replayed: the API refuses the replay of two
    blocks with one id either way (docs/spec.md C4: "an id used twice in the message")."""

    @staticmethod
    def _shared(message: object) -> set[str]:
        content = message.get("content") if isinstance(message, dict) else None
        ids = [b.get("id") for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] \
            if isinstance(content, list) else []
        return {i for i in ids if isinstance(i, str) and ids.count(i) > 1}

    def extract(self, message):
        calls = super().extract(message)
        shared = self._shared(message)
        return [replace(c, error=f"tool_use id {c.id!r} is shared by several blocks") if c.id in shared and not c.error
                else c for c in calls]

    def result_messages(self, message, records):
        shared = self._shared(message)
        if shared and isinstance(message, dict):
            message = {**message, "content": [b for b in message["content"]
                                              if not (isinstance(b, dict) and b.get("type") == "tool_use"
                                                      and b.get("id") in shared)]}
        return super().result_messages(message, records)


__all__ = [
    "AnthropicFailsEverySharedId",
    "AnthropicRefusesRestartWithMalformedChunk",
    "AnthropicRefusesSurrogateHalves",
    "ChatAcceptsChunksTheSdkAccepts",
    "ChatClaimsObjectArguments",
    "ChatConcatenatesNames",
    "ChatEmptyToolCallsAreNull",
    "ChatKeepsEmptyIds",
    "ChatMakesUpIds",
    "ChatRefusesOtherRoles",
]
