"""OpenAI Chat Completions chunks: recognizing a ``chat.completion.chunk``, reading choice 0's
delta and its tool-call fragments, and folding them into the message the way the SDK folds
them (the keying of fragments is described in the package docstring).
"""

from __future__ import annotations

from typing import Any

from ...accumulator import Accumulator, copy_tree
from ...errors import MalformedChunk
from ...wire import describe
from .message import _NAME


_CHUNK_OBJECT = "chat.completion.chunk"

_TEXT_KEYS = ("role", "content", "refusal")
_REPLACED_KEYS = ("index", "type")  # set, never concatenated (as the SDK does)


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
