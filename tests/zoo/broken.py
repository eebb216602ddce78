"""Deliberately broken strategies: each is a reference strategy with ONE realistic bug.

Every class names its bug and cites the bug class it reproduces (a row of
``BUG-CLASSES.md`` and the public evidence given there) or the invariant it breaks. The
bugs are written the way they ship in real clients: a step of the reassembly,
extraction or replay done the naive way. ``test_zoo.py`` runs the conformance suite on
each one and asserts that the suite fails it with the expected invariant id.

The reference strategies fold a chunk in one method; to replace a single step, the
``_ChatSteps`` and ``_AnthropicSteps`` bases below open their folding up into methods
that call the reference helpers, so a broken subclass overrides exactly one step and
inherits everything else unchanged.
"""

from __future__ import annotations

import itertools
import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import jiter

from mcs_conformance.reference.accumulator import Accumulator, copy_tree
from mcs_conformance.reference.errors import MalformedChunk, StreamError
from mcs_conformance.reference.protocol import ToolCall, ToolCallRecord
from mcs_conformance.reference.wire import describe
from mcs_conformance.strategies import (
    AnthropicMessagesStrategy,
    OpenAIChatStrategy,
    OpenAIResponsesStrategy,
    TextStrategy,
)
from mcs_conformance.reference.strategies.anthropic_messages import chunks as anthropic_ref
from mcs_conformance.reference.strategies.openai_chat import chunks as chat_ref
from mcs_conformance.reference.strategies.openai_responses import chunks as responses_ref
from mcs_conformance.reference.strategies.openai_responses import message as responses_message

# ============================================================================ OpenAI Chat


class _ChatSteps(OpenAIChatStrategy):
    """The reference OpenAI Chat strategy with each folding step a method (no bug here)."""

    shown_keys: tuple[str, ...] = ("content",)  # delta keys whose text is display text

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """The reference ``accumulate``, calling the step methods below."""
        if "calls" not in acc.state:
            acc.root = {}
            acc.state.update(calls=[], by_index={}, by_id={}, last=None)
        if isinstance(chunk, str) and chunk.strip() == "[DONE]":
            return ""
        if not isinstance(chunk, dict):
            raise MalformedChunk(f"{self.name}: a chunk must be a JSON object or \"[DONE]\", got {describe(chunk)}")
        if chunk.get("error"):
            raise StreamError(f"{self.name}: the provider reported an error in the stream", payload=chunk)
        work = self._choices(chunk)
        out: list[str] = []
        if work:
            message = acc.root
            for delta, fragments in work:
                for key, value in delta.items():
                    if key == "tool_calls":
                        self._fold_tool_calls(acc, message, value, fragments)
                    elif key == "role":
                        if value is not None and message.get("role") is None:
                            message["role"] = value
                        elif key not in message:
                            message[key] = None
                    else:
                        self._fold_field(acc, message, key, value)
                        if key in self.shown_keys and value:
                            out.append(value)
        return "".join(out)

    def _choices(self, chunk: dict) -> list[tuple[dict, list]]:
        return chat_ref._choice0(chunk)

    def _fold_field(self, acc: Accumulator, message: dict, key: str, value: Any) -> None:
        chat_ref._merge(acc, message, key, value)

    def _fold_tool_calls(self, acc: Accumulator, message: dict, value: Any, fragments: list) -> None:
        if value is None:
            message.setdefault("tool_calls", None)
            return
        entries = message.get("tool_calls")
        if not isinstance(entries, list):
            entries = message["tool_calls"] = []
        state = acc.state
        for index, call_id, fragment in fragments:
            call = self._route(state, entries, index, call_id, fragment)
            state["last"] = call
            self._fold_fragment(acc, state, call, call_id, fragment)

    def _route(self, state: dict, entries: list, index: int | None, call_id: str | None, fragment: dict) -> dict:
        return chat_ref._route(state, entries, index, call_id)

    def _fold_fragment(self, acc: Accumulator, state: dict, call: dict, call_id: str | None, fragment: dict) -> None:
        entry = call["entry"]
        for key, value in fragment.items():
            if key == "index" and self._drops_index():
                continue
            if key == "id":
                if call_id is not None and call["id"] is None:
                    call["id"] = entry["id"] = call_id
                    state["by_id"].setdefault(call_id, call)
                elif entry.get("id") is None and value is not None:
                    entry["id"] = value
                else:
                    entry.setdefault("id", None)
            elif key == "function":
                if value is None:
                    entry.setdefault("function", None)
                    continue
                function = entry.get("function")
                if not isinstance(function, dict):
                    function = entry["function"] = {}
                for fkey, fvalue in value.items():
                    if fkey == "name" and isinstance(fvalue, str):
                        self._fold_name(acc, function, fvalue)
                    elif fkey == "arguments" and isinstance(fvalue, str):
                        self._fold_arguments(acc, function, fvalue)
                    else:
                        chat_ref._merge(acc, function, fkey, fvalue)
            else:
                chat_ref._merge(acc, entry, key, value)

    def _drops_index(self) -> bool:
        return True

    def _fold_name(self, acc: Accumulator, function: dict, piece: str) -> None:
        chat_ref._fold_name(acc, function, piece)

    def _fold_arguments(self, acc: Accumulator, function: dict, piece: str) -> None:
        chat_ref._grow(acc, function, "arguments", piece)


class ChatAppendsToLatestCall(_ChatSteps):
    """A fragment without an id continues the most recent call, whatever its index.

    BUG-CLASSES 1 (interleaved parallel deltas appended to the most recent call):
    QwenLM/Qwen-Agent PR#943; microsoft/agent-framework PR#8337.
    """

    def _route(self, state, entries, index, call_id, fragment):
        if call_id is not None:
            if call_id in state["by_id"]:
                return state["by_id"][call_id]
            return chat_ref._new_call(state, entries)
        return state["last"] if state["last"] is not None else chat_ref._new_call(state, entries)


class ChatKeysCallsByIndexOnly(_ChatSteps):
    """Calls are keyed by ``index`` alone: a new id at a known index is folded into the old call.

    BUG-CLASSES 2 (same index, different ids merged, ``get_weatherget_time``):
    BerriAI/litellm#7621, #10034; langchain-ai/langchain PR#35281. Fragments without an
    index all land under the key ``None`` (the merging half of BUG-CLASSES 3).
    """

    def _route(self, state, entries, index, call_id, fragment):
        call = state["by_index"].get(index)
        if call is None:
            call = state["by_index"][index] = chat_ref._new_call(state, entries)
        return call


class ChatKeysCallsByIndexLastName(ChatKeysCallsByIndexOnly):
    """Calls are keyed by ``index`` alone and a fragment's name replaces the one so far, as the
    official JavaScript SDK does (lib/ChatCompletionStream.js ``functionSnapshot.name =
    functionName``): two calls sent at one index become one under the later name, and the
    shown name jumps from the first to the second. BUG-CLASSES 2 (BerriAI/litellm#7621)."""

    def _fold_name(self, acc, function, piece):
        if piece:
            acc.seal(function, "name", piece)
        else:
            function.setdefault("name", piece)


class ChatMakesUpEveryId(_ChatSteps):
    """When the completion finishes, every call gets an id made up for this run, a real one
    too: the tool results answer ids the provider never sent, and two runs of one stream give
    two messages. Breaks PARITY-001 and SPLIT-001, which accept a made-up id only where the
    wire sends a call without one."""

    def accumulate(self, acc, chunk):
        delta = super().accumulate(acc, chunk)
        if self.is_done(chunk) and isinstance(acc.root, dict):
            for entry in acc.root.get("tool_calls") or []:
                if isinstance(entry, dict):
                    entry["id"] = f"call_{uuid.uuid4().hex}"
        return delta


class ChatMakesUpIdsAtDoneSentinel(_ChatSteps):
    """A call still without an id gets one made up only at ``[DONE]``, after the finish that
    makes it executable (the official JavaScript SDK's ``finalizeChatCompletion``): a driver
    that runs the call at the finish answers ``""``, and the message it sends back holds the
    made-up id. Breaks PREFIX-001: a made-up id is the call's own, but one id per stream."""

    def accumulate(self, acc, chunk):
        delta = super().accumulate(acc, chunk)
        if isinstance(chunk, str) and chunk.strip() == "[DONE]" and isinstance(acc.root, dict):
            for entry in acc.root.get("tool_calls") or []:
                if isinstance(entry, dict) and not entry.get("id"):
                    entry["id"] = f"call_{uuid.uuid4().hex}"
        return delta


class ChatRequiresIndex(_ChatSteps):
    """Every fragment is looked up by ``fragment["index"]``: a fragment without one crashes.

    BUG-CLASSES 3 (missing ``index`` crashes or merges under ``None``): ollama/ollama#7881;
    openai/openai-python PR#3246.
    """

    def _route(self, state, entries, index, call_id, fragment):
        position = fragment["index"]
        call = state["by_index"].get(position)
        if call is None:
            call = state["by_index"][position] = chat_ref._new_call(state, entries)
        return call


class ChatIndexIsListPosition(_ChatSteps):
    """``index`` is used as the position in the message's ``tool_calls`` list.

    A first call at index 1 leaves a phantom empty call at position 0. BUG-CLASSES 4
    (index space mismatch, phantom empty call): pipecat-ai/pipecat PR#5342; langchain#38456.
    """

    def _route(self, state, entries, index, call_id, fragment):
        while len(state["calls"]) <= index:
            chat_ref._new_call(state, entries)
        return state["calls"][index]


class ChatConcatenatesNames(_ChatSteps):
    """Every ``function.name`` fragment is appended, like the arguments.

    Servers that repeat the whole name on every fragment give ``get_weatherget_weather``.
    BUG-CLASSES 5 (full name repeated in every delta, concatenated): ggml-org/llama.cpp#13774.
    """

    def _fold_name(self, acc, function, piece):
        chat_ref._grow(acc, function, "name", piece)


class ChatLateIdOpensNewCall(_ChatSteps):
    """A fragment whose id differs from the call at its index starts a new call, even when
    that call has no id yet, so an id (and name) arriving after the arguments splits the call.

    BUG-CLASSES 6 (name or id arriving after the arguments): vercel/ai PR#14760.
    """

    def _route(self, state, entries, index, call_id, fragment):
        call = state["by_index"].get(index)
        if call is not None and (call_id is None or call["id"] == call_id):
            return call
        call = state["by_index"][index] = chat_ref._new_call(state, entries)
        return call


class ChatIgnoresArgumentsInOpeningDelta(_ChatSteps):
    """The fragment that opens a call (it carries the id) only sets id and name; its
    ``arguments`` are skipped, on the assumption that they always follow in later fragments.

    BUG-CLASSES 7 (arguments in the delta that carries id and name ignored): vercel/ai
    PR#2881; 64bit/async-openai PR#329. Shows on Groq-style whole calls in one delta.
    """

    def _fold_fragment(self, acc, state, call, call_id, fragment):
        function = fragment.get("function")
        if fragment.get("id") and isinstance(function, dict) and function.get("arguments"):
            fragment = {**fragment, "function": {**function, "arguments": ""}}  # opening: name only
        super()._fold_fragment(acc, state, call, call_id, fragment)


class ChatRepeatedIdOpensNewCall(_ChatSteps):
    """A fragment that carries an id always opens a new call.

    Servers that repeat the call id on every fragment of one call get one call per
    fragment. BUG-CLASSES 8 (repeated id = new call): BerriAI/litellm#20480;
    langchain-ai/langchain PR#35414.
    """

    def _route(self, state, entries, index, call_id, fragment):
        if call_id is not None:
            call = chat_ref._new_call(state, entries)
            if index is not None:
                state["by_index"][index] = call
            return call
        return super()._route(state, entries, index, call_id, fragment)


class ChatContentMeansNoCalls(OpenAIChatStrategy):
    """A message with content text is taken as a text answer: its tool calls are not read.

    BUG-CLASSES 10 (text before a tool call makes the call vanish): BerriAI/litellm#2716.
    """

    def extract(self, message):
        if self.content_text(message).strip():
            return []
        return super().extract(message)


class ChatReadsFirstChoice(_ChatSteps):
    """``chunk["choices"][0]`` is taken as choice 0: a usage-only ``choices: []`` chunk
    crashes, and another choice's delta (n > 1) is merged into the message.

    BUG-CLASSES 12 (usage-only final chunk crashes on ``choices[0]``): Portkey-AI/gateway
    PR#1629; BerriAI/litellm#38926.
    """

    def _choices(self, chunk):
        choice = chunk["choices"][0]
        delta = choice.get("delta") or {}
        return [(delta, chat_ref._fragments(delta, "choices[0].delta"))] if delta else []


class ChatSettlesOnlyOnToolCalls(_ChatSteps):
    """A stream that sent tool calls counts as finished only on ``finish_reason:
    "tool_calls"``; with any other reason (``"stop"``, as several servers send) it never
    completes, so its calls never execute.

    BUG-CLASSES 15 (only ``"tool_calls"`` trusted): BerriAI/litellm#12862; vllm PR#9209.
    """

    def is_done(self, chunk):
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        finish = choices[0].get("finish_reason") if choices and isinstance(choices[0], dict) else None
        return finish == "tool_calls" or (super().is_done(chunk) and finish != "stop")


class ChatParsesPartialArguments(OpenAIChatStrategy):
    """Arguments that do not parse are read with a partial JSON parse, so cut arguments
    (``{"city": "Par``) come back healed into an executable call.

    BUG-CLASSES 19 (premature or lenient finalization): vercel/ai PR#13137.
    """

    def extract(self, message):
        out = []
        for call in super().extract(message):
            if call.error is None:
                out.append(call)
                continue
            raw = call.raw_arguments or ""
            try:
                arguments = jiter.from_json(raw.encode(), partial_mode="trailing-strings") if raw.strip() else {}
            except ValueError:
                out.append(call)
                continue
            out.append(replace(call, arguments=arguments if isinstance(arguments, dict) else {}, error=None))
        return out


class ChatConcatenatesContent(_ChatSteps):
    """Content text grows with ``message["content"] += piece``: each chunk copies the whole
    text so far, so feeding is quadratic in the stream's length.

    DESIGN (Feeding is linear); the quadratic-accumulation class of BUG-CLASSES "Also seen"
    (eclipse-theia/theia PR#17975).
    """

    def _fold_field(self, acc, message, key, value):
        if key == "content" and isinstance(value, str) and isinstance(message.get("content"), str):
            message["content"] += value
            return
        super()._fold_field(acc, message, key, value)


class ChatRescansContent(_ChatSteps):
    """After every content delta the whole text so far is searched again for a tool call leaked
    into it (a pattern that opens with a character class, so every character is tried): each
    chunk costs the length of the text before it, and feeding is quadratic in the stream's length.

    DESIGN (Feeding is linear); the quadratic-accumulation class of BUG-CLASSES "Also seen"
    (eclipse-theia/theia PR#17975), in the form of a parser that rescans its buffer per chunk.
    """

    _LEAKED = re.compile(r'[{\[]\s*"(?:name|tool_calls)"\s*:')

    def _fold_field(self, acc, message, key, value):
        super()._fold_field(acc, message, key, value)
        if key == "content" and isinstance(value, str):
            pieces = acc.state.setdefault("content_pieces", [])
            pieces.append(value)
            acc.state["leaked"] = self._LEAKED.search("".join(pieces)) is not None


class ChatDropsRepeatedDelta(_ChatSteps):
    """A content or arguments fragment equal to the one just before it is taken for a
    retransmission and skipped, so text with a doubled character loses one whenever a
    server or proxy cuts it between the two. (BUG-CLASSES: "two identical consecutive
    deltas" are correct and must not be flagged.) Shows only under re-chunking."""

    def _fold_field(self, acc, message, key, value):
        if key == "content" and self._repeats(acc, value):
            return
        super()._fold_field(acc, message, key, value)

    def _fold_arguments(self, acc, function, piece):
        if not self._repeats(acc, piece):
            super()._fold_arguments(acc, function, piece)

    def _repeats(self, acc, piece):
        previous = acc.state.get("previous_piece")
        acc.state["previous_piece"] = piece
        return bool(piece) and piece == previous


class ChatRecognizesWithoutGuard(OpenAIChatStrategy):
    """``recognizes`` takes a fast path with ``shape.get(...)`` before checking the type,
    so it raises AttributeError on anything that is not a dict. Breaks RECOG-001."""

    def recognizes(self, shape):
        if shape.get("object") == chat_ref._CHUNK_OBJECT:
            return True
        return super().recognizes(shape)


class ChatRequiresChunkObject(OpenAIChatStrategy):
    """Only chunks with ``object: "chat.completion.chunk"`` are claimed, so Azure's leading
    prompt-filter chunk (``object: ""``) leaves the stream unresolved. Breaks RECOG-002."""

    def recognizes(self, shape):
        if isinstance(shape, dict) and "choices" in shape:
            return shape.get("object") == chat_ref._CHUNK_OBJECT
        return super().recognizes(shape)


class ChatRecognizesChunksOnly(OpenAIChatStrategy):
    """Claims stream chunks but never an assembled message, so the driver's extraction axis
    (which resolves on the message) never reaches it. Breaks RECOG-003."""

    def recognizes(self, shape):
        return isinstance(shape, dict) and chat_ref._is_chunk(shape)


class ChatIgnoresNullToolCalls(OpenAIChatStrategy):
    """Claims an assembled message only when ``tool_calls`` is a non-empty list, so a message
    with ``tool_calls: null`` (whose content is call-looking JSON) is left to the rest of the
    chain: the false-positive guard no longer rests on OpenAI Chat claiming it, and a text
    strategy that does not refuse envelopes runs the JSON. Breaks CHAIN-001 (llama.cpp#18183)."""

    def recognizes(self, shape):
        if isinstance(shape, dict) and "tool_calls" in shape and "choices" not in shape:
            return isinstance(shape["tool_calls"], list) and bool(shape["tool_calls"]) and super().recognizes(shape)
        return super().recognizes(shape)


class ChatStripsIndexInPlace(_ChatSteps):
    """Each tool-call fragment's ``index`` is popped from the chunk itself before folding
    ("it is not part of the message"), mutating the caller's chunk. Breaks PURE-001."""

    def _fold_fragment(self, acc, state, call, call_id, fragment):
        fragment.pop("index", None)
        super()._fold_fragment(acc, state, call, call_id, fragment)


class ChatRunsEachCallOnce(OpenAIChatStrategy):
    """``extract`` remembers the ids it returned and leaves them out next time, so that no
    call "runs twice": the same message gives different calls. Breaks PURE-002."""

    def __init__(self) -> None:
        self._returned: set[str] = set()

    def extract(self, message):
        calls = [c for c in super().extract(message) if c.id is None or c.id not in self._returned]
        self._returned.update(c.id for c in calls if c.id is not None and c.error is None)
        return calls


class ChatWithoutFormingName:
    """A strategy written before ``forming_name`` joined the protocol: it delegates the other
    members to the reference and has no ``forming_name``. The plugin refuses it up front
    with one usage error naming the missing member (tests/suite/test_plugin.py)."""

    name = "openai-chat"
    leaks_into_text = False

    def __init__(self) -> None:
        self._inner = OpenAIChatStrategy()

    def recognizes(self, shape: object) -> bool:
        """Delegated."""
        return self._inner.recognizes(shape)

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Delegated."""
        return self._inner.accumulate(acc, chunk)

    def is_done(self, chunk: object) -> bool:
        """Delegated."""
        return self._inner.is_done(chunk)

    def extract(self, message: object) -> list[ToolCall]:
        """Delegated."""
        return self._inner.extract(message)

    def content_text(self, message: object) -> str:
        """Delegated."""
        return self._inner.content_text(message)

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """Delegated."""
        return self._inner.result_messages(message, records)


class ChatFormingNameTakesNoMessage(ChatWithoutFormingName):
    """``forming_name`` reads the strategy's own last message instead of taking one, so the
    driver's ``forming_name(message)`` cannot call it. Breaks STRUCT-001."""

    def forming_name(self) -> str | None:
        return None


class ChatDoneIsFinishReason(OpenAIChatStrategy):
    """``is_done`` returns choice 0's ``finish_reason`` itself (a str or None), truthy on the
    last chunk but not a bool. Breaks STRUCT-002."""

    def is_done(self, chunk):
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        return bool(choices) and choices[0].get("finish_reason")


class ChatDoneOnFinishKey(OpenAIChatStrategy):
    """``is_done`` checks that choice 0 has a ``finish_reason`` key, not that it is set: every
    chunk has the key (``null`` until the end), so the stream is done on its first chunk.
    Breaks DONE-001, and PREFIX-001: a driver that trusts ``done`` runs a half-streamed call
    (BUG-CLASSES 19, premature finalization: vercel/ai PR#13137)."""

    def is_done(self, chunk):
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        return bool(choices) and isinstance(choices[0], dict) and "finish_reason" in choices[0]


class ChatDoneOnCutFinish(OpenAIChatStrategy):
    """``is_done`` fires on any ``finish_reason``, ``length`` and ``content_filter`` too: a turn
    cut by max_tokens looks finished, and a driver that trusts ``done`` runs its calls. Breaks
    PREFIX-003 (BUG-CLASSES 19, truncated stream yields a call: vercel/ai PR#13137)."""

    def is_done(self, chunk):
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        return bool(choices) and isinstance(choices[0], dict) and isinstance(choices[0].get("finish_reason"), str)


class ChatShowsRefusal(_ChatSteps):
    """Refusal text is returned as display text although ``content_text`` does not hold it.
    Breaks DISPLAY-001."""

    shown_keys = ("content", "refusal")


class ChatFormingNameOfLatestCall(OpenAIChatStrategy):
    """``forming_name`` reads the name of the latest call (``tool_calls[-1]``), so with
    parallel calls the shown name jumps to the second call's. Breaks NAME-001."""

    def forming_name(self, message):
        entries = message.get("tool_calls") if isinstance(message, dict) else None
        if not isinstance(entries, list) or not entries:
            return None
        function = entries[-1].get("function") if isinstance(entries[-1], dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        return name if isinstance(name, str) and name else None


class ChatFormingNameSanitized(OpenAIChatStrategy):
    """``forming_name`` makes the name safe to show: every character outside
    ``[A-Za-z0-9_-]`` becomes ``_``. Every recorded name is such an identifier, so the case
    streams never show it; a synthesized call named with a dot or a non-ASCII letter gets a
    shown name that is no prefix of its own. Breaks NAME-002."""

    def forming_name(self, message):
        name = super().forming_name(message)
        return re.sub(r"[^A-Za-z0-9_-]", "_", name) if name is not None else None


class ChatToolResultsWithoutCallId(OpenAIChatStrategy):
    """Tool results are sent as ``{"role": "tool", "name": ..., "content": ...}`` (the shape
    of the older function-calling API), without ``tool_call_id``. Breaks HISTORY-001."""

    def result_messages(self, message, records):
        assistant = super().result_messages(message, [])[0]
        return [assistant] + [{"role": "tool", "name": r.call.name, "content": r.result} for r in records]


class ChatAnswersByName(OpenAIChatStrategy):
    """Each tool result's ``tool_call_id`` is the tool's name (as in APIs whose calls carry
    no id), so two calls of one tool cannot be told apart. Breaks HISTORY-002."""

    def result_messages(self, message, records):
        assistant = super().result_messages(message, [])[0]
        return [assistant] + [{"role": "tool", "tool_call_id": r.call.name, "content": r.result} for r in records]


class ChatReplaysArgumentsAsEmpty(OpenAIChatStrategy):
    """The replayed assistant turn sends ``"arguments": "{}"`` for every call (the arguments
    were "already used"), so the model continues from calls it never made. Breaks
    HISTORY-005."""

    def result_messages(self, message, records):
        history = super().result_messages(message, records)
        for entry in history[0].get("tool_calls", []):
            entry["function"]["arguments"] = "{}"
        return history


class ChatAnswersAnyCallId(OpenAIChatStrategy):
    """Answers every record with a ``tool`` message, whether or not the assistant turn holds
    its call id (no check that the results belong to this message). Breaks HISTORY-006."""

    def result_messages(self, message, records):
        assistant = super().result_messages(message, [])
        return assistant + [{"role": "tool", "tool_call_id": r.call.id, "content": r.result} for r in records]


class ChatReadsAnyObject(OpenAIChatStrategy):
    """Reads ``tool_calls`` from whatever it is given, without checking that it is a message:
    ``extract(None)`` dies with AttributeError deep inside. Breaks STRUCT-003."""

    def extract(self, message):
        if message.get("tool_calls") is None:
            return []
        return super().extract(message)


class ChatRefusesWithoutReason(OpenAIChatStrategy):
    """Refuses a non-message with a bare ``ValueError()``: the right type, but the driver's log
    says nothing. Breaks GOLDEN-002 (the reviewed error text changed)."""

    def extract(self, message):
        if not isinstance(message, dict):
            raise ValueError()
        return super().extract(message)


class ChatReplaysWithoutText(OpenAIChatStrategy):
    """The replayed assistant turn drops the message's text when it has tool calls (only the
    calls are "needed"), so the model loses what it told the user. Breaks HISTORY-005."""

    def result_messages(self, message, records):
        history = super().result_messages(message, records)
        history[0].pop("content", None)
        return history


class ChatTrustsMessageForArguments(_ChatSteps):
    """The arguments so far are looked up in the message dict, where the accumulator only
    writes them when ``as_dict()`` is read: a client that renders the message after every
    chunk makes each later piece replace the text instead of extending it. Breaks PURE-001."""

    def _fold_arguments(self, acc, function, piece):
        if function.get("arguments") is not None:
            function["arguments"] = piece
        else:
            acc.append(function, "arguments", piece)


class ChatKeepsIndex(_ChatSteps):
    """The wire's ``index`` is kept in every ``tool_calls`` entry, so ``as_dict()`` differs
    from the stream=false message (whose calls have no index). Breaks PARITY-001 and
    GOLDEN-001."""

    def _drops_index(self) -> bool:
        return False


class ChatMergesEveryChoice(_ChatSteps):
    """The deltas of every choice are folded into the message, not only choice 0's: with
    n > 1 the choices' texts are interleaved. Breaks PARITY on an n > 1 stream, and differs
    on the another-choice noise item (reference level) (openai/openai-python PR#3709)."""

    def _choices(self, chunk):
        work = []
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            if delta:
                work.append((delta, chat_ref._fragments(delta, "delta")))
        return work


# ============================================================================ Anthropic


_ANTHROPIC_STEPS = {
    "content_block_start": "_block_start",
    "content_block_delta": "_block_delta",
    "content_block_stop": "_block_stop",
    "message_delta": "_message_delta",
    "message_stop": "_message_stop",
}


class _AnthropicSteps(AnthropicMessagesStrategy):
    """The reference Anthropic strategy, dispatching each event to a method (no bug here)."""

    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """The reference ``accumulate``, calling the step methods."""
        if not isinstance(chunk, dict):
            if chunk == "[DONE]":
                return ""
            raise MalformedChunk(f"anthropic-messages: an event must be a JSON object: {describe(chunk)}")
        kind = chunk.get("type")
        if not isinstance(kind, str):
            raise MalformedChunk(f"anthropic-messages: event without a string type: {describe(chunk)}")
        if kind == "error":
            return self._error(acc, chunk)
        if kind == "message_start":
            return self._start(acc, chunk)
        step = _ANTHROPIC_STEPS.get(kind)
        if step is None:
            return self._other(acc, chunk)
        if not acc.state.get("started"):
            raise MalformedChunk(f"anthropic-messages: {kind} before message_start")
        if acc.state.get("stopped"):
            raise MalformedChunk(f"anthropic-messages: {kind} after message_stop")
        return getattr(self, step)(acc, chunk)

    def _error(self, acc: Accumulator, event: dict) -> str:
        raise StreamError("anthropic-messages: the stream reported an error", payload=event)

    def _other(self, acc: Accumulator, event: dict) -> str:
        return ""  # ping, unknown event types

    def _delta_of(self, event: dict) -> dict:
        delta = event.get("delta")
        return delta if isinstance(delta, dict) else {}


class AnthropicAppendsToLatestBlock(_AnthropicSteps):
    """Every delta goes to the most recently started block, whatever its ``index``.

    BUG-CLASSES 1 (interleaved parallel deltas appended to the most recent call), in its
    Anthropic form: QwenLM/Qwen-Agent PR#943.
    """

    def _block_delta(self, acc, event):
        blocks = acc.state["blocks"]
        if blocks:
            event = {**event, "index": next(reversed(blocks))}
        return super()._block_delta(acc, event)


class AnthropicRejectsUnknownEvents(_AnthropicSteps):
    """Events are dispatched through a table of the handled types; anything else (``ping``,
    a new event type) is a protocol error.

    BUG-CLASSES 13 (ping or unknown event type breaks parsing): vercel/ai#383.
    """

    def _other(self, acc, event):
        raise MalformedChunk(f"anthropic-messages: unexpected event type {event.get('type')!r}")


class AnthropicSwallowsErrorEvent(_AnthropicSteps):
    """An ``error`` event is skipped like an unknown event, so a truncated turn looks complete.

    BUG-CLASSES 14 (mid-stream error event swallowed): several agent frameworks.
    """

    def _error(self, acc, event):
        return ""


class AnthropicEmptyInputIsEmptyString(_AnthropicSteps):
    """A tool input whose only ``partial_json`` is ``""`` stays ``""`` instead of ``{}``.

    BUG-CLASSES 16 (call without arguments yields ``""``): langchain#23911;
    anthropics/anthropic-sdk-go PR#189.
    """

    def _close(self, acc, index):
        st = acc.state
        if index not in st["open"]:
            return
        st["open"].discard(index)
        block = st["blocks"][index]
        text = acc.text(block, "input")
        if text is not None:
            acc.seal(block, "input", anthropic_ref._final_input(text) if text else text)


class AnthropicSeedsInputWithStartBlock(_AnthropicSteps):
    """The input buffer starts with the ``content_block_start`` input serialized (``{}``), and
    the ``partial_json`` pieces are appended to it: ``{}{"city": ...}`` never parses.

    BUG-CLASSES 17 (buffer seeded with the start block's ``{}``): vllm PR#34887.
    """

    def _block_delta(self, acc, event):
        delta = self._delta_of(event)
        block = acc.state["blocks"].get(event.get("index"))
        seeded = acc.state.setdefault("seeded", set())
        if delta.get("type") == "input_json_delta" and block is not None and event["index"] not in seeded:
            seeded.add(event["index"])
            acc.append(block, "input", json.dumps(block.get("input", {})))
        return super()._block_delta(acc, event)


class AnthropicParsesEachFragment(_AnthropicSteps):
    """Each ``partial_json`` piece is parsed on its own and kept only when it parses, so the
    input of a streamed call stays the start block's ``{}``.

    BUG-CLASSES 18 (each fragment parsed on its own): public agent examples.
    """

    def _block_delta(self, acc, event):
        delta = self._delta_of(event)
        block = acc.state["blocks"].get(event.get("index"))
        if delta.get("type") == "input_json_delta" and block is not None:
            try:
                value = json.loads(delta.get("partial_json") or "")
            except ValueError:
                return ""
            acc.root  # noqa: B018 -- marks the message changed
            block["input"] = value
            return ""
        return super()._block_delta(acc, event)


class AnthropicExtractsUnfinishedCalls(AnthropicMessagesStrategy):
    """``extract`` trusts any ``tool_use`` block whose input is an object, without looking at
    ``stop_reason``: a call cut by ``max_tokens``, or read mid-stream from the live partial
    parse, comes back executable.

    BUG-CLASSES 19 (premature or lenient finalization): vercel/ai PR#13137.
    """

    def extract(self, message):
        calls = []
        for block in message.get("content") or () if isinstance(message, dict) else ():
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            data = block.get("input")
            calls.append(ToolCall(
                name=block.get("name") or "",
                arguments=copy_tree(data) if isinstance(data, dict) else {},
                id=block.get("id"),
                error=None if isinstance(data, dict) else "tool input is not a JSON object",
            ))
        return calls


class AnthropicIgnoresSignatureDelta(_AnthropicSteps):
    """``signature_delta`` is not among the delta types it folds, so thinking blocks keep the
    empty signature of their start event and cannot be replayed.

    BUG-CLASSES 21 (thinking signature lost): BerriAI/litellm PR#38809.
    """

    def _block_delta(self, acc, event):
        if self._delta_of(event).get("type") == "signature_delta":
            return ""
        return super()._block_delta(acc, event)


class AnthropicAssignsSignature(_AnthropicSteps):
    """``signature_delta`` sets the thinking block's signature instead of adding to it (as the
    SDK's accumulator does): a signature sent in pieces keeps only its last piece, and a
    trailing empty piece wipes it.

    BUG-CLASSES 21 (thinking signature lost): BerriAI/litellm PR#38809.
    """

    def _block_delta(self, acc, event):
        delta = self._delta_of(event)
        block = acc.state["blocks"].get(event.get("index"))
        if delta.get("type") == "signature_delta" and block is not None and block.get("type") == "thinking":
            acc.root  # noqa: B018 -- marks the message changed
            block["signature"] = delta.get("signature")
            return ""
        return super()._block_delta(acc, event)


class AnthropicDropsThinkingFromHistory(AnthropicMessagesStrategy):
    """The replayed assistant turn leaves out thinking blocks ("internal, not conversation").

    BUG-CLASSES 21 (thinking blocks dropped): run-llama/llama_index PR#18834.
    """

    def result_messages(self, message, records):
        out = super().result_messages(message, records)
        out[0]["content"] = [b for b in out[0]["content"] if b.get("type") not in ("thinking", "redacted_thinking")]
        return out


class AnthropicRunsFinishedCallsOfCutTurn(AnthropicMessagesStrategy):
    """With ``max_tokens``, only the last block (when it is a ``tool_use``) is taken as cut: the
    finished calls before it stay executable, though the turn the model meant did not end.
    The SDK leaves this to the client, so PREFIX-003 reports it at the reference level
    (BUG-CLASSES 19, truncated stream yields a call: vercel/ai PR#13137)."""

    def extract(self, message):
        from dataclasses import replace

        return [replace(c, error=None) if c.error and c.error.startswith("the turn was cut") else c
                for c in super().extract(message)]


class AnthropicDoneOnMessageDelta(AnthropicMessagesStrategy):
    """``is_done`` fires on ``message_delta`` (which carries the stop reason), one event before
    ``message_stop``. Breaks DONE-001."""

    def is_done(self, chunk):
        return isinstance(chunk, dict) and chunk.get("type") in ("message_delta", "message_stop")


class AnthropicShowsThinking(_AnthropicSteps):
    """Thinking deltas are returned as display text, though ``content_text`` holds only the
    text blocks. Breaks DISPLAY-001."""

    def _block_delta(self, acc, event):
        shown = super()._block_delta(acc, event)
        delta = self._delta_of(event)
        if delta.get("type") == "thinking_delta":
            return delta.get("thinking") or ""
        return shown


class AnthropicDeclaresNoLeaks(AnthropicMessagesStrategy):
    """Declares ``leaks_into_text = False``: a call the model wrote as JSON text is never
    handed to the backup, so it is neither run nor answered. Breaks HISTORY-004 (and
    CHAIN-001)."""

    leaks_into_text = False


class AnthropicOneUserMessagePerResult(AnthropicMessagesStrategy):
    """Each tool result goes into a user message of its own instead of one user message with
    every ``tool_result``. (pydantic/pydantic-ai PR#653, BUG-CLASSES "Also seen".)"""

    def result_messages(self, message, records):
        out = super().result_messages(message, records)
        if len(out) < 2:
            return out
        return [out[0]] + [{"role": "user", "content": [block]} for block in out[1]["content"]]


class AnthropicTrimsStringArguments(AnthropicMessagesStrategy):
    """``extract`` trims the white space off the ends of every string argument (a clean-up
    step that turns a value of ``"  "`` or a code snippet's final newline into something
    the model never sent). No recorded call holds such a string, so only synthesized calls
    show it. Breaks ROUNDTRIP-002."""

    def extract(self, message):
        return [replace(c, arguments=_trimmed(c.arguments)) if c.error is None else c
                for c in super().extract(message)]


def _trimmed(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        return {k: _trimmed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_trimmed(v) for v in value]
    return value


class AnthropicReparsesInputEachDelta(_AnthropicSteps):
    """After every ``input_json_delta`` the whole input text so far is joined and parsed
    again (a live preview), so a long tool input costs quadratic time.

    The quadratic re-parsing class of BUG-CLASSES "Also seen" (eclipse-theia/theia PR#17975).
    """

    def _block_delta(self, acc, event):
        shown = super()._block_delta(acc, event)
        if self._delta_of(event).get("type") == "input_json_delta":
            block = acc.state["blocks"][event["index"]]
            text = acc.text(block, "input") or ""
            try:
                acc.state.setdefault("preview", {})[event["index"]] = jiter.from_json(
                    text.encode("utf-8", "surrogatepass"), partial_mode="trailing-strings")
            except ValueError:
                pass
        return shown


# ============================================================================ OpenAI Responses


def _deep_merge(target: dict, source: dict) -> None:
    """Fold ``source`` into ``target``: lists extended, objects merged, other values replaced."""
    for key, value in source.items():
        current = target.get(key)
        if isinstance(current, list) and isinstance(value, list):
            current.extend(copy_tree(value))
        elif isinstance(current, dict) and isinstance(value, dict):
            _deep_merge(current, value)
        else:
            target[key] = copy_tree(value)


class ResponsesMergesFinalSnapshot(OpenAIResponsesStrategy):
    """The ``response.completed`` snapshot is merged into the message built from the deltas
    (lists extended) instead of replacing it: every output item appears twice.

    BUG-CLASSES 9 (terminal full snapshot appended on top of the deltas): BerriAI/litellm#20480.
    """

    def accumulate(self, acc, chunk):
        final = isinstance(chunk, dict) and chunk.get("type") in ("response.completed", "response.incomplete")
        if not final or acc.state.get("live") is None or acc.state.get("final"):
            return super().accumulate(acc, chunk)
        built = copy_tree(acc.message)
        shown = super().accumulate(acc, chunk)
        _deep_merge(built, acc.message)
        acc.root = built
        acc.state["live"] = built
        return shown


class ResponsesSwallowsErrors(OpenAIResponsesStrategy):
    """An ``error`` event is skipped and ``response.failed`` is folded like a completed
    response, so a failed turn looks finished.

    BUG-CLASSES 14 (mid-stream error event swallowed): several agent frameworks.
    """

    def accumulate(self, acc, chunk):
        kind = chunk.get("type") if isinstance(chunk, dict) else None
        if kind == "error":
            return ""
        if kind == "response.failed":
            return responses_ref._finish(acc, chunk, kind)
        return super().accumulate(acc, chunk)


class ResponsesDropsReasoningFromHistory(OpenAIResponsesStrategy):
    """The replayed output leaves out ``reasoning`` items ("not needed by the next turn").

    BUG-CLASSES 22 (reasoning state not replayed): vercel/ai#7099; mastra-ai/mastra#8738.
    """

    def result_messages(self, message, records):
        return [item for item in super().result_messages(message, records) if item.get("type") != "reasoning"]


class ResponsesUsesItemIdAsCallId(OpenAIResponsesStrategy):
    """Calls are identified by the output item's ``id`` (``fc_...``) instead of ``call_id``.

    BUG-CLASSES 23 (``fc_`` id used as ``call_id``): sgl-project/sglang PR#13056;
    langchain-ai/langchainjs PR#9868.
    """

    def extract(self, message):
        items = [i for i in responses_message._output(message)
                 if isinstance(i, dict) and i.get("type") in responses_message._CALL_TYPES]
        return [replace(responses_message._call(item), id=item.get("id")) for item in items]


class ResponsesKeysByItemId(OpenAIResponsesStrategy):
    """Item events are routed by ``item_id`` (``by_id[item_id]``), not by ``output_index``:
    a gateway that sends a new item id on every event breaks the stream.

    BUG-CLASSES 23 (deltas keyed by ``item_id`` vs ``output_index``): sgl-project/sglang
    PR#13056.
    """

    def accumulate(self, acc, chunk):
        st = acc.state
        if (isinstance(chunk, dict) and "item_id" in chunk and "output_index" in chunk
                and st.get("live") is not None and not st.get("final")):
            chunk = {**chunk, "output_index": st["by_id"][chunk["item_id"]]}
        return super().accumulate(acc, chunk)


class ResponsesAppendsToLatestItem(OpenAIResponsesStrategy):
    """Every event of an item already added goes to the item added last, whatever its
    ``output_index``: fragments are joined by where they arrive, which holds while the
    provider finishes one item before it adds the next.

    BUG-CLASSES 1 (interleaved parallel deltas appended to the most recent call), in its
    Responses form: Wei-Shaw/sub2api PR #4302 (a converter that tracked one current item).
    """

    def accumulate(self, acc, chunk):
        st = acc.state
        if (isinstance(chunk, dict) and "output_index" in chunk and chunk.get("type") != "response.output_item.added"
                and st.get("live") is not None and not st.get("final") and st.get("order")):
            chunk = {**chunk, "output_index": max(st["order"])}
        return super().accumulate(acc, chunk)


class ResponsesAnswersWithItemId(OpenAIResponsesStrategy):
    """``function_call_output`` items answer the call item's ``id`` (``fc_...``) rather than
    its ``call_id``. BUG-CLASSES 23 in the history: langchain-ai/langchainjs PR#9868."""

    def result_messages(self, message, records):
        out = super().result_messages(message, records)
        item_ids = {i.get("call_id"): i.get("id") for i in responses_message._output(message) if isinstance(i, dict)}
        for item in out:
            if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                item["call_id"] = item_ids.get(item["call_id"]) or item["call_id"]
        return out


# ============================================================================ text-json


_TAGS = re.compile(r"</?tool_call>")
_TAGGED = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_CALL_START = re.compile(r'\{\s*"(?:tool|name)"')


class TextClaimsEnvelopes(TextStrategy):
    """Claims every str and every dict with a ``content`` key: chat messages with tool calls
    and Anthropic messages too, so the text strategy shadows the natives. Breaks RECOG-004."""

    def recognizes(self, shape):
        return isinstance(shape, str) or (isinstance(shape, dict) and "content" in shape)


class TextClaimsContentDicts(TextStrategy):
    """Claims every dict whose ``content`` is a str, forgetting the envelope keys: a chat
    message with ``tool_calls: null`` is claimed by whichever strategy the chain asks first,
    and once promotion puts the text strategy in front, its call-looking content runs.
    Breaks CHAIN-002 (llama.cpp#18183 false positives)."""

    def recognizes(self, shape):
        return isinstance(shape, str) or (isinstance(shape, dict) and isinstance(shape.get("content"), str))


class TextIgnoresContentMessages(TextStrategy):
    """Claims bare strings only: a content-only chat message (what an OpenAI-compatible server
    without a tool parser returns) is claimed by no strategy of a text-mode chain, and the
    calls in its text are lost. Breaks EXTRACT-002."""

    def recognizes(self, shape):
        return isinstance(shape, str)


class TextFindsOnlyLeadingCall(TextStrategy):
    """A reply that starts with prose is taken as a text answer: calls after text vanish.

    BUG-CLASSES 10 (text before a tool call makes the call vanish): BerriAI/litellm#2716.
    """

    def extract(self, message):
        if not self.content_text(message).lstrip().startswith(("{", "[", "```", "<tool_call>")):
            return []
        return super().extract(message)


class TextDropsTextAfterCall(TextStrategy):
    """The content text ends with the last call: what the model writes after it is dropped.

    BUG-CLASSES 11 (text after a tool call lost): vllm-project/vllm#56263;
    pydantic/pydantic-ai#8208.
    """

    def content_text(self, message):
        text = super().content_text(message)
        end = text.rfind("}")
        if end < 0 or not self.codec.find(text):
            return text
        return text[: end + 1]


class TextUnescapesEachChunk(TextStrategy):
    """``\\uXXXX`` escapes in each chunk are turned into characters as the chunk arrives: a
    surrogate pair's halves become two lone surrogates, and an escape cut by a chunk
    boundary is left as it is, so the message depends on where the chunks were cut.

    BUG-CLASSES 20 (escape sequences split across chunks corrupt): ggml-org/llama.cpp
    PR#16526; anthropics/anthropic-sdk-python#1265.
    """

    def accumulate(self, acc, chunk):
        if isinstance(chunk, str):
            chunk = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), chunk)
        return super().accumulate(acc, chunk)


class TextStripsTagsPerChunk(TextStrategy):
    """``<tool_call>`` / ``</tool_call>`` tags are removed from each chunk as it arrives; a
    tag cut across two chunks (``<tool`` + ``_call>``) stays in the text.

    BUG-CLASSES 24 (Hermes tag split across chunks): vllm PR#38168; vllm#11392.
    """

    def accumulate(self, acc, chunk):
        if isinstance(chunk, str):
            chunk = _TAGS.sub("", chunk)
        return super().accumulate(acc, chunk)


class TextEndsCallAtFirstClosingTag(TextStrategy):
    """Calls inside ``<tool_call>`` tags are cut out with a non-greedy regex: a literal
    ``</tool_call>`` inside an argument string ends the call early.

    BUG-CLASSES 25 (a literal closing tag inside an argument ends the call): vllm#45167.
    """

    def extract(self, message):
        text = self.content_text(message)
        blocks = _TAGGED.findall(text)
        if not blocks:
            return super().extract(message)
        return [call for block in blocks for call in self.codec.find(block)]


def _closers(text: str) -> str:
    """What closes the JSON value cut off at the end of ``text`` (strings, objects, arrays)."""
    stack: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and stack:
            stack.pop()
    return ('"' if in_string else "") + "".join(reversed(stack))


class TextHealsCutOffCalls(TextStrategy):
    """A call cut off at the end of the text is "repaired" by closing its open strings and
    brackets, then run: a prefix of the model's output executes a call it never finished.

    BUG-CLASSES 19 (lenient finalization: a valid-JSON prefix executed): vercel/ai PR#13137.
    """

    def extract(self, message):
        text = self.content_text(message)
        calls = self.codec.find(text)
        if calls and calls[-1].error is not None and "cut off" in calls[-1].error:
            starts = [m.start() for m in _CALL_START.finditer(text)]
            if starts:
                healed = self.codec.find(text + _closers(text[starts[-1]:]))
                if len(healed) == len(calls):
                    return healed
        return calls


class TextRendersWithoutEmptyArguments(TextStrategy):
    """``render`` writes ``{"name": ..., "arguments": ...}`` and leaves ``arguments`` out when
    they are empty; with the ``name`` spelling the arguments key is required, so such a call
    is not read back. Breaks ROUNDTRIP-001."""

    def render(self, calls):
        lines = []
        for call in calls:
            obj: dict[str, Any] = {"name": call.name}
            if call.id is not None:
                obj["id"] = call.id
            if call.arguments:
                obj["arguments"] = call.arguments
            lines.append(json.dumps(obj, ensure_ascii=False))
        return "\n".join(lines)


class ChatFreezesContentView(_ChatSteps):
    """The growing content is shown through a read-time view that keeps the text of its first
    read (a cache never invalidated): a client that renders after every chunk sees the first
    piece, one that reads at the end sees everything. Breaks PURE-003 (and PURE-001)."""

    def _fold_field(self, acc: Accumulator, message: dict, key: str, value: Any) -> None:
        if key == "content" and value and isinstance(value, str) and isinstance(message.get(key), str):
            frozen = acc.state.setdefault("frozen", {})
            acc.append(message, key, value, lambda text: frozen.setdefault(key, text))
        else:
            super()._fold_field(acc, message, key, value)


class ChatTrustsRecords(OpenAIChatStrategy):
    """``result_messages`` reads ``record.call`` off every record before looking at it: a
    driver that passes its own result dicts gets an AttributeError from deep inside. Breaks
    STRUCT-004."""

    def result_messages(self, message, records):
        answered = {record.call.id for record in records}  # noqa: F841 -- the unchecked read is the bug
        return super().result_messages(message, records)


class TextAnswersByName(TextStrategy):
    """``result_messages`` pairs a record with any call of the same name, whatever its
    arguments: the result of another turn's call is answered as if it were this one's.
    Breaks HISTORY-006."""

    def result_messages(self, message, records):
        text = self.content_text(message)
        names = {c.name for c in self.codec.find(text)}
        for record in records:
            if record.call.name not in names:
                raise ValueError(f"no call named {record.call.name!r}")
        return [{"role": "assistant", "content": text}, {"role": "user", "content": self.codec.render_results(records)}]


class TextReadsNoIds(TextStrategy):
    """``extract`` forgets every call's id, though ``render`` writes it into the text: a
    driver then answers calls it cannot pair with their results. Breaks ROUNDTRIP-001."""

    def extract(self, message):
        return [replace(c, id=None) for c in super().extract(message)]


class TextDoneWhenCallCloses(TextStrategy):
    """``is_done`` fires on a chunk that closes a JSON object ("the call is complete"), though
    a text stream only ends when its transport ends. Breaks DONE-002."""

    def is_done(self, chunk):
        return isinstance(chunk, str) and chunk.rstrip().endswith("}")


class TextNumbersCalls(TextStrategy):
    """Calls without an id get ``call_<n>`` from a counter on the instance, so the same text
    gives new ids every time it is read. Breaks PURE-002."""

    def __init__(self) -> None:
        super().__init__()
        self._numbers = itertools.count()

    def extract(self, message):
        return [c if c.id is not None else replace(c, id=f"call_{next(self._numbers)}")
                for c in super().extract(message)]
