"""OpenAI Chat Completions: reassembles ``chat.completion.chunk`` dicts into ``choices[0].message``.

The native message is the assistant message a ``stream=false`` call returns, in wire form:
the keys choice 0's deltas carried (``role``, ``content``, ``refusal``, ``tool_calls`` and
any provider extra such as ``reasoning_content``), folded the way the official SDK folds
them (strings concatenated, objects merged, lists extended, a ``null`` never overwriting a
value). ``tool_calls`` entries are ``{id, type, function: {name, arguments}}`` without the
wire's ``index``. Choices other than index 0 are ignored; ``choices: []`` chunks (usage,
Azure ``prompt_filter_results``) and ``"[DONE]"`` change nothing.

Tool-call fragments are keyed robustly, because OpenAI-compatible servers differ:

* by ``index`` (an int, or a string of digits such as ``"0"``); indices need not start at 0;
* a fragment at a known index whose non-empty ``id`` differs from that call's id starts a
  new call (servers that send every call at index 0); the same id repeated on every
  fragment is the same call; ``id: ""`` counts as no id;
* a fragment without ``index`` continues the call with its id, else the call that took the
  previous fragment, else starts one; a fragment with an unknown id and no index starts a
  new call unless the previous call has no id yet (the id then arrives late);
* a name repeated whole on every fragment is kept once; names and ids may arrive after
  the arguments; the arguments in the fragment that opens a call are kept.

The message is the SDK's, with no key of this library's: nothing in a chat message says
that its stream has not finished (``finish_reason`` sits on the choice), so that fact is
the buffer's ``done``, and the extraction axis (``extract_calls(..., done=buf.done)``)
marks every call of an unfinished stream. The completion signal is the chunk whose choice
0 carries a ``finish_reason`` other than ``length`` or ``content_filter``: those report an
output cut short (the SDK's ``get_final_completion`` refuses to build a completion from
them when it has tools to parse), so a stream they end is not done and none of its calls
runs. ``"[DONE]"`` settles nothing.

Decisions beyond the wire (where the SDK would differ):

* ``role`` and a call's ``id`` and ``type`` are set once, never concatenated (the SDK
  would turn an id repeated on every fragment into ``"call_1call_1"``).
* Numbers in provider extras are added, as the SDK adds them; booleans and values of
  mismatched types keep the first value.
* A delta's ``tool_calls: []`` stays ``[]`` (the SDK's final completion turns it into
  ``null``). A choice without ``index`` counts as choice 0.
* A chunk with a truthy ``error`` member is a provider error: it raises ``StreamError``.
* A call without an id (absent, or ``""`` throughout) is replayed by ``result_messages``
  under an id made up for the continuation, ``call_mcs_<n>``: the API needs one.
* ``extract`` joins UTF-16 surrogate pairs that reached the arguments as two separate
  characters (a pair split across two chunks by a server) before parsing them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..accumulator import Accumulator, copy_tree
from ..errors import MalformedChunk, StreamError
from ..protocol import ToolCall, ToolCallRecord, require_records
from ..wire import describe, reject_json_constant, to_wire

__all__ = ["OpenAIChatStrategy"]

_NAME = "openai-chat"
_CHUNK_OBJECT = "chat.completion.chunk"
_DONE = "[DONE]"
_TEXT_KEYS = ("role", "content", "refusal")
_REPLACED_KEYS = ("index", "type")  # set, never concatenated (as the SDK does)
_CUT = frozenset({"length", "content_filter"})
_SURROGATE = re.compile("[\ud800-\udfff]")


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


def _same_idless(mine: ToolCall, theirs: ToolCall) -> bool:
    """The same call when neither carries an id (None, or "")."""
    return not mine.id and not theirs.id and (mine.name, mine.arguments, mine.raw_arguments, mine.error) == (
        theirs.name, theirs.arguments, theirs.raw_arguments, theirs.error)


# -- recognition helpers ----------------------------------------------------------------------
def _is_chunk(shape: Any) -> bool:
    """A chunk by its object, or (compatible servers label chunks loosely, Azure's lead chunk
    has object "") by its choices: a list of deltas, beside an id, a model or prompt filters.
    A whole chat.completion has messages in its choices, never deltas."""
    if not isinstance(shape, dict):
        return False
    if shape.get("object") == _CHUNK_OBJECT:
        return True
    choices = shape.get("choices")
    return (
        isinstance(choices, list)
        and all(isinstance(c, dict) and "delta" in c for c in choices)
        and any(k in shape for k in ("id", "model", "prompt_filter_results"))
    )


def _is_message(shape: Any) -> bool:
    if not isinstance(shape, dict) or "tool_calls" not in shape:
        return False
    if shape.get("role") not in (None, "assistant"):
        return False
    if any(k in shape for k in ("choices", "object", "type", "delta")):
        return False
    entries = shape["tool_calls"]
    # arguments as a JSON object rather than a string: another format (Ollama) claims it
    return not (isinstance(entries, list) and any(
        isinstance(e, dict) and isinstance(e.get("function"), dict)
        and isinstance(e["function"].get("arguments"), (dict, list))
        for e in entries
    ))


# -- validation: everything is checked before anything is folded --------------------------------
def _as_index(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise MalformedChunk(f"{_NAME}: {where} is {value!r}, not an integer index")


def _wrong(value: Any, where: str, what: str) -> MalformedChunk:
    """The error for a field of the wrong type (built only when there is one)."""
    return MalformedChunk(f"{_NAME}: {where} is {type(value).__name__} {value!r:.60}, not {what}")


# The checks below are written out rather than looped through helpers: they run on every
# chunk, and the location of a bad field is formatted only when the error is raised.
def _choice0(chunk: dict) -> list[tuple[dict, list]]:
    """Choice 0's non-empty deltas, validated, each with its prepared tool-call fragments."""
    choices = chunk.get("choices")
    if choices is None:
        return []
    if not isinstance(choices, list):
        raise _wrong(choices, "choices", "a list")
    out = []
    for i, choice in enumerate(choices):
        if not isinstance(choice, dict):
            raise MalformedChunk(f"{_NAME}: choices[{i}] is {describe(choice)}, not an object")
        index = choice.get("index")
        if index is not None:
            if type(index) is not int:
                index = _as_index(index, f"choices[{i}].index")
            if index != 0:
                continue
        delta = choice.get("delta")
        if delta is not None and not isinstance(delta, dict):
            raise _wrong(delta, f"choices[{i}].delta", "an object")
        reason = choice.get("finish_reason")
        if reason is not None and not isinstance(reason, str):
            raise _wrong(reason, f"choices[{i}].finish_reason", "a string or null")
        if delta:
            out.append((delta, _fragments(delta, "choices[0].delta" if i == 0 else f"choices[{i}].delta")))
    return out


def _fragments(delta: dict, where: str) -> list[tuple[int | None, str | None, dict]]:
    """The delta's tool-call fragments, validated: (index, id or None, fragment) each."""
    for key in _TEXT_KEYS:
        value = delta.get(key)
        if value is not None and not isinstance(value, str):
            raise _wrong(value, f"{where}.{key}", "a string or null")
    tool_calls = delta.get("tool_calls")
    if tool_calls is None:
        return []
    if not isinstance(tool_calls, list):
        raise _wrong(tool_calls, f"{where}.tool_calls", "a list or null")
    out = []
    for n, fragment in enumerate(tool_calls):
        if not isinstance(fragment, dict):
            raise MalformedChunk(f"{_NAME}: {_at(where, n)} is {describe(fragment)}, not an object")
        index = fragment.get("index")
        if index is not None and type(index) is not int:
            index = _as_index(index, f"{_at(where, n)}.index")
        call_id = fragment.get("id")
        if call_id is not None and not isinstance(call_id, str):
            raise _wrong(call_id, f"{_at(where, n)}.id", "a string or null")
        kind = fragment.get("type")
        if kind is not None and not isinstance(kind, str):
            raise _wrong(kind, f"{_at(where, n)}.type", "a string or null")
        function = fragment.get("function")
        if function is not None:
            if not isinstance(function, dict):
                raise _wrong(function, f"{_at(where, n)}.function", "an object or null")
            for key in ("name", "arguments"):
                value = function.get(key)
                if value is not None and not isinstance(value, str):
                    raise _wrong(value, f"{_at(where, n)}.function.{key}", "a string or null")
        out.append((index, call_id or None, fragment))
    return out


def _at(where: str, n: int) -> str:
    """Where tool-call fragment ``n`` of the delta at ``where`` sits, for an error message."""
    return f"{where}.tool_calls[{n}]"


# -- folding ------------------------------------------------------------------------------------
def _grow(acc: Accumulator, container: dict, key: str, piece: str) -> None:
    """Set or extend the string at container[key] (through the accumulator: linear)."""
    if container.get(key) is None:
        container[key] = piece
    elif piece:
        acc.append(container, key, piece)


def _merge(acc: Accumulator, container: dict, key: Any, value: Any) -> None:
    """Fold ``value`` into ``container[key]`` the way the SDK's delta accumulation does."""
    if value is None:
        container.setdefault(key, None)
        return
    current = container.get(key)
    if current is None or key in _REPLACED_KEYS:
        container[key] = copy_tree(value)
    elif isinstance(current, str) and isinstance(value, str):
        if value:
            acc.append(container, key, value)
    elif isinstance(current, dict) and isinstance(value, dict):
        for k, v in value.items():
            _merge(acc, current, k, v)
    elif isinstance(current, list) and isinstance(value, list):
        _extend(acc, current, value)
    elif _is_number(current) and _is_number(value):
        container[key] = current + value


def _extend(acc: Accumulator, current: list, items: list) -> None:
    """Extend a list; entries that carry an ``index`` merge into the entry with that index."""
    for item in items:
        if isinstance(item, dict) and item.get("index") is not None:
            target = next((e for e in current if isinstance(e, dict) and e.get("index") == item["index"]), None)
            if target is not None:
                for k, v in item.items():
                    _merge(acc, target, k, v)
                continue
        current.append(copy_tree(item))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fold_tool_calls(acc: Accumulator, message: dict, value: Any, fragments: list) -> None:
    if value is None:
        message.setdefault("tool_calls", None)
        return
    entries = message.get("tool_calls")
    if not isinstance(entries, list):
        entries = message["tool_calls"] = []
    state = acc.state
    for index, call_id, fragment in fragments:
        call = _route(state, entries, index, call_id)
        state["last"] = call
        _fold_fragment(acc, state, call, call_id, fragment)


def _route(state: dict, entries: list, index: int | None, call_id: str | None) -> dict:
    """The call a fragment belongs to (see the module docstring for the rules)."""
    by_index, by_id = state["by_index"], state["by_id"]
    if index is not None:
        call = by_index.get(index)
        if call is not None and (call_id is None or call["id"] in (None, call_id)):
            return call
        call = by_id.get(call_id) if call_id is not None else None
        if call is None:
            call = _new_call(state, entries)
            by_index[index] = call
        else:
            by_index.setdefault(index, call)
        return call
    last = state["last"]
    if call_id is not None:
        if call_id in by_id:
            return by_id[call_id]
        if last is not None and last["id"] is None:
            return last
        return _new_call(state, entries)
    return last if last is not None else _new_call(state, entries)


def _new_call(state: dict, entries: list) -> dict:
    entry: dict = {}
    entries.append(entry)
    call = {"entry": entry, "id": None}
    state["calls"].append(call)
    return call


def _fold_fragment(acc: Accumulator, state: dict, call: dict, call_id: str | None, fragment: dict) -> None:
    entry = call["entry"]
    for key, value in fragment.items():
        if key == "index":
            continue
        if key == "id":
            if call_id is not None and call["id"] is None:
                call["id"] = entry["id"] = call_id
                state["by_id"].setdefault(call_id, call)
            elif entry.get("id") is None and value is not None:
                entry["id"] = value  # "" until a real id arrives
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
                    _fold_name(acc, function, fvalue)
                elif fkey == "arguments" and isinstance(fvalue, str):
                    _grow(acc, function, "arguments", fvalue)
                else:
                    _merge(acc, function, fkey, fvalue)
        else:
            _merge(acc, entry, key, value)


def _fold_name(acc: Accumulator, function: dict, piece: str) -> None:
    """Grow a call's name, ignoring a fragment that repeats the whole name so far."""
    current = acc.text(function, "name")
    if current is None:
        current = function.get("name")
    if piece and piece != current:
        _grow(acc, function, "name", piece)
    else:
        function.setdefault("name", piece)


# -- extraction helpers -------------------------------------------------------------------------
def _message(message: object, what: str) -> dict:
    message = to_wire(message)
    if not isinstance(message, dict):
        raise ValueError(f"{_NAME}.{what} expects an assistant message dict, got {describe(message)}")
    return message


def _to_call(n: int, entry: Any) -> ToolCall:
    if not isinstance(entry, dict):
        return ToolCall(name="", error=f"tool_calls[{n}] is {type(entry).__name__}, not an object")
    call_id = entry.get("id") if isinstance(entry.get("id"), str) and entry.get("id") else None
    function = entry.get("function")
    if not isinstance(function, dict):
        kind = entry.get("type")
        return ToolCall(name="", id=call_id,
                        error=f"tool_calls[{n}] has no function object (type {kind!r})")
    name = function.get("name")
    name = name if isinstance(name, str) else ""
    raw = function.get("arguments")
    if raw is not None and not isinstance(raw, str):
        return ToolCall(name=name, id=call_id,
                        error=f"tool_calls[{n}].function.arguments is {type(raw).__name__}, not a JSON string")
    arguments, error = _parse_arguments(raw)
    if error is None and not name:
        error = f"tool_calls[{n}] has no function name"
    return ToolCall(name=name, arguments=arguments, id=call_id, raw_arguments=raw, error=error)


def _parse_arguments(raw: str | None) -> tuple[dict, str | None]:
    """The arguments object, or {} and the reason they cannot be used."""
    if raw is None or not raw.strip():
        return {}, None
    text = raw
    if _SURROGATE.search(text):
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    try:
        value = json.loads(text, parse_constant=reject_json_constant)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON ({exc.msg} at character {exc.pos})"
    except ValueError as exc:
        return {}, f"arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return {}, f"arguments are a JSON {type(value).__name__}, not an object"
    return value, None


def _drop_none(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}


def _error_text(error: Any) -> str:
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return repr(error)[:200]
