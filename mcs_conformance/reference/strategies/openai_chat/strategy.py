"""OpenAI Chat Completions, the strategy: the protocol methods, which read chunks through
:mod:`.chunks` and the assembled message through :mod:`.message`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...accumulator import Accumulator
from ...errors import MalformedChunk, StreamError
from ...protocol import ToolCall, ToolCallRecord, require_records
from ...wire import describe, to_wire
from .chunks import _as_index, _choice0, _fold_tool_calls, _is_chunk, _merge
from .message import _drop_none, _error_text, _is_message, _message, _NAME, _same_idless, _to_call


_DONE = "[DONE]"

_CUT = frozenset({"length", "content_filter"})


class OpenAIChatStrategy:
    """The OpenAI Chat Completions format: chunks in, ``choices[0].message`` out."""

    name = _NAME
    leaks_into_text = False

    # -- recognition ------------------------------------------------------------------------
    def recognizes(self, shape: object) -> bool:
        """A chat.completion.chunk (Azure's object-less lead chunk too), or an assistant
        message that has a ``tool_calls`` key (any value: the key is authoritative)."""
        try:
            shape = to_wire(shape)
            return _is_chunk(shape) or _is_message(shape)
        except Exception:
            return False

    # -- reassembly -------------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Fold choice 0's delta into the message; return its ``content`` text."""
        if "calls" not in acc.state:
            acc.root = {}
            acc.state.update(calls=[], by_index={}, by_id={}, last=None)
        if isinstance(chunk, str) and chunk.strip() == _DONE:
            return ""
        if not isinstance(chunk, dict):
            raise MalformedChunk(f"{_NAME}: a chunk must be a JSON object or \"[DONE]\", got {describe(chunk)}")
        if chunk.get("error"):
            raise StreamError(f"{_NAME}: the provider reported an error in the stream: "
                              f"{_error_text(chunk['error'])}", payload=chunk)
        work = _choice0(chunk)
        out: list[str] = []
        if work:
            message = acc.root
            for delta, fragments in work:
                for key, value in delta.items():
                    if key == "tool_calls":
                        _fold_tool_calls(acc, message, value, fragments)
                    elif key == "role":
                        if value is not None and message.get("role") is None:
                            message["role"] = value
                        elif key not in message:
                            message[key] = None
                    else:
                        _merge(acc, message, key, value)
                        if key == "content" and value:
                            out.append(value)
        return "".join(out)

    def is_done(self, chunk: object) -> bool:
        """True on the chunk whose choice 0 carries a finish_reason that does not report a cut
        output (``length``, ``content_filter``)."""
        try:
            chunk = to_wire(chunk)
            choices = chunk.get("choices") if isinstance(chunk, dict) else None
            if not isinstance(choices, list):
                return False
            for choice in choices:
                if not isinstance(choice, dict):
                    continue
                index = choice.get("index")
                if index is not None and type(index) is not int:
                    index = _as_index(index, "choices[].index")  # unreadable: raises, not done
                finish = choice.get("finish_reason")
                if (index is None or index == 0) and finish is not None:
                    return finish not in _CUT
            return False
        except Exception:
            return False

    # -- reading the message ----------------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        """One ToolCall per ``tool_calls`` entry, in order; malformed ones carry ``error``."""
        message = _message(message, "extract")
        entries = message.get("tool_calls")
        if entries is None:
            return []
        if not isinstance(entries, list):
            return [ToolCall(name="", error=f"tool_calls is {type(entries).__name__}, not a list")]
        return [_to_call(n, entry) for n, entry in enumerate(entries)]

    def content_text(self, message: object) -> str:
        """The message's ``content`` text ("" when it is null or absent)."""
        message = to_wire(message)
        if not isinstance(message, dict):
            return ""
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):  # request-shape content parts
            return "".join(
                p["text"] for p in content
                if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
            )
        return ""

    def forming_name(self, message: object) -> str | None:
        """The first call's name as far as it has arrived, or None."""
        message = to_wire(message)
        if not isinstance(message, dict):
            return None
        entries = message.get("tool_calls")
        if not isinstance(entries, list) or not entries or not isinstance(entries[0], dict):
            return None
        function = entries[0].get("function")
        name = function.get("name") if isinstance(function, dict) else None
        return name if isinstance(name, str) and name else None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The assistant turn in request shape, then one ``tool`` message per record.

        Entries without a function name are left out of the replayed turn: they were never
        executable, and the API rejects a call whose name is empty. The API also needs an id
        on every call and tool result: a call that came without one (absent, or ``""`` as
        some compatible servers send) is replayed as ``call_mcs_<n>`` (n: its position in
        ``tool_calls``), and a record of that call, found by equality with what ``extract``
        returns, answers that id.
        """
        message = _message(message, "result_messages")
        records = require_records(records, _NAME)
        entries = message.get("tool_calls")
        entries = entries if isinstance(entries, list) else []
        taken = {e.get("id") for e in entries if isinstance(e, dict)}
        calls: list[dict] = []
        made: dict[int, str] = {}  # position in tool_calls -> the id made up for the replay
        for n, entry in enumerate(entries):
            function = entry.get("function") if isinstance(entry, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            if not isinstance(name, str) or not name:
                continue
            call_id = entry.get("id")
            if not isinstance(call_id, str) or not call_id:
                call_id = f"call_mcs_{n}"
                while call_id in taken:
                    call_id += "_"
                made[n] = call_id
            arguments = function.get("arguments")
            calls.append({
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": arguments if isinstance(arguments, str) else "{}"},
            })
        assistant = _drop_none({
            "role": "assistant",
            "content": self.content_text(message) or None,
            "refusal": message.get("refusal") if isinstance(message.get("refusal"), str) else None,
            "tool_calls": calls or None,
        })
        known = [c["id"] for c in calls]
        extracted = self.extract(message) if made else []
        out = [assistant]
        for k, record in enumerate(records):
            call_id = record.call.id
            if not call_id:  # no id, or "" as the SDK's model keeps it: the call it answers has one made up
                n = next((n for n in made if _same_idless(extracted[n], record.call)), None)
                call_id = made.pop(n) if n is not None else None
            if call_id is None or call_id not in known:
                raise ValueError(
                    f"{_NAME}: record {k} answers call id {record.call.id!r}, which is not a call of the "
                    f"assistant message (its call ids: {known}; a call without an id is answered once)"
                )
            out.append({"role": "tool", "tool_call_id": call_id, "content": record.result})
        return out
