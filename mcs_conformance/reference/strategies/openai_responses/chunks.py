"""OpenAI Responses events: one handler per ``response.*`` event type (:data:`_HANDLERS`), which
seed, build and replace the ``response`` object; items are keyed by ``output_index`` first,
by ``item_id`` when the index points nowhere (the keying and the decisions are described in
the package docstring).
"""

from __future__ import annotations

from typing import Any
import bisect

from ...accumulator import Accumulator, copy_tree
from ...errors import MalformedChunk
from ...wire import describe
from .message import _CALL_TYPES, _NAME, _part_texts, _texts


_LIFECYCLE = frozenset({"response.created", "response.queued", "response.in_progress"})
_FINAL = frozenset({"response.completed", "response.incomplete"})

# item-level growing fields: delta event -> (done event, field, item type it belongs to)
_ITEM_FIELDS = {
    "response.function_call_arguments.delta": (
        "response.function_call_arguments.done", "arguments", "function_call"),
    "response.custom_tool_call_input.delta": (
        "response.custom_tool_call_input.done", "input", "custom_tool_call"),
    "response.mcp_call_arguments.delta": ("response.mcp_call_arguments.done", "arguments", "mcp_call"),
    "response.code_interpreter_call_code.delta": (
        "response.code_interpreter_call_code.done", "code", "code_interpreter_call"),
}
_ITEM_DONE = {done: (field, kind) for done, field, kind in _ITEM_FIELDS.values()}

# part-level growing fields: delta event -> (done event, list key, index key, field)
_PART_FIELDS = {
    "response.output_text.delta": ("response.output_text.done", "content", "content_index", "text"),
    "response.refusal.delta": ("response.refusal.done", "content", "content_index", "refusal"),
    "response.reasoning_text.delta": ("response.reasoning_text.done", "content", "content_index", "text"),
    "response.reasoning_summary_text.delta": (
        "response.reasoning_summary_text.done", "summary", "summary_index", "text"),
}
_PART_DONE = {done: (lst, idx, field) for done, lst, idx, field in _PART_FIELDS.values()}
_PART_ADDED = {
    "response.content_part.added": ("content", "content_index", False),
    "response.content_part.done": ("content", "content_index", True),
    "response.reasoning_summary_part.added": ("summary", "summary_index", False),
    "response.reasoning_summary_part.done": ("summary", "summary_index", True),
}


# ---------------------------------------------------------------------------- lifecycle
def _response_of(chunk: dict, kind: str) -> dict:
    response = chunk.get("response")
    if not isinstance(response, dict):
        raise MalformedChunk(f"{_NAME}: {kind} without a 'response' object: {describe(chunk)}")
    output = response.get("output")
    if output is not None and not isinstance(output, list):
        raise MalformedChunk(f"{_NAME}: {kind} response.output is not a list: {describe(output)}")
    return response


def _lifecycle(acc: Accumulator, chunk: dict, kind: str) -> str:
    """response.created starts a response; queued / in_progress refresh it (or start one)."""
    if kind == "response.created" or acc.state.get("live") is None:
        return _start(acc, chunk, kind)
    return _update(acc, chunk, kind)


def _start(acc: Accumulator, chunk: dict, kind: str) -> str:
    """A new response: the event's response is the message; the item index starts afresh."""
    root = copy_tree(_response_of(chunk, kind))
    if not isinstance(root.get("output"), list):
        root["output"] = []
    acc.root = root
    acc.state.clear()
    acc.state.update(
        live=root,
        items={i: item for i, item in enumerate(root["output"]) if isinstance(item, dict)},
        order=list(range(len(root["output"]))),
        by_id={item["id"]: i for i, item in enumerate(root["output"])
               if isinstance(item, dict) and isinstance(item.get("id"), str)},
        parts={},
        grown={},
        done=set(),
        final=False,
    )
    return "".join(_texts(root["output"]))  # output text a created response already holds


def _update(acc: Accumulator, chunk: dict, kind: str) -> str:
    """A later lifecycle event: refresh the top-level fields, keep the output built so far.

    The fields come out in the event's order after ``output``. A field whose value is the
    same JSON as before (same types, same key order: equal ``repr``) keeps the copy the
    message already holds; any other is copied from the event.
    """
    response = _response_of(chunk, kind)
    _check_open(acc, kind)
    root = acc.root
    before = {k: v for k, v in root.items() if k != "output"}
    for key in before:
        del root[key]
    for key, value in response.items():
        if key == "output":
            continue
        if isinstance(value, (dict, list)):
            held = before.get(key)
            if type(held) is not type(value) or held != value or repr(held) != repr(value):
                held = copy_tree(value)
            root[key] = held
        else:
            root[key] = value  # a leaf: copy_tree would return it as it is
    return ""


def _finish(acc: Accumulator, chunk: dict, kind: str) -> str:
    """The final snapshot replaces the message; return the text the deltas had not shown."""
    response = _response_of(chunk, kind)
    state = acc.state
    if state.get("live") is None:
        shown = ""
        final = copy_tree(response)
        if not isinstance(final.get("output"), list):
            final["output"] = []
    else:
        shown = "".join(_texts(state["live"]["output"], acc))
        final = copy_tree(response)
        if final.get("output") is None:
            # a snapshot without output: the items the stream finished stand for it
            built = acc.message["output"]
            final["output"] = [
                copy_tree(built[pos]) for pos, index in enumerate(state["order"]) if index in state["done"]
            ]
    acc.root = final
    # every item of the final snapshot is finished: a later completion without output keeps them
    finished = list(range(len(final["output"])))
    state.update(live=final, items={}, order=finished, by_id={}, parts={}, grown={}, done=set(finished), final=True)
    return _tail(shown, "".join(_texts(final["output"])))


def _check_open(acc: Accumulator, kind: str) -> dict:
    state = acc.state
    if state.get("live") is None:
        raise MalformedChunk(f"{_NAME}: {kind} before response.created")
    if state.get("final"):
        raise MalformedChunk(f"{_NAME}: {kind} after the response was completed")
    return state


# ---------------------------------------------------------------------------- items
def _find(acc: Accumulator, chunk: dict, kind: str) -> tuple[int, dict]:
    """The item an event addresses: by output_index, else by item_id."""
    state = _check_open(acc, kind)
    index = chunk.get("output_index")
    if _is_index(index) and index in state["items"]:
        return index, state["items"][index]
    item_id = chunk.get("item_id")
    if isinstance(item_id, str) and item_id in state["by_id"] and state["by_id"][item_id] in state["items"]:
        found = state["by_id"][item_id]
        return found, state["items"][found]
    raise MalformedChunk(
        f"{_NAME}: {kind} addresses output_index {index!r} / item_id {item_id!r}, "
        f"which point to no output item (known indexes: {sorted(state['items'])})"
    )


def _new_item(chunk: dict, kind: str) -> tuple[int | None, dict]:
    item = chunk.get("item")
    if not isinstance(item, dict):
        raise MalformedChunk(f"{_NAME}: {kind} without an 'item' object: {describe(chunk)}")
    index = chunk.get("output_index")
    if index is not None and not _is_index(index):
        raise MalformedChunk(f"{_NAME}: {kind} output_index is not a non-negative int: {index!r}")
    return index, copy_tree(item)


def _item_added(acc: Accumulator, chunk: dict, kind: str) -> str:
    state = _check_open(acc, kind)
    index, item = _new_item(chunk, kind)
    return _insert(acc, state, index, item, kind, finished=False)


def _insert(acc: Accumulator, state: dict, index: int | None, item: dict, kind: str, finished: bool) -> str:
    if index is None:
        index = max(state["order"], default=-1) + 1
    if index in state["items"]:
        raise MalformedChunk(f"{_NAME}: {kind} for output_index {index}, which already holds an item")
    if not finished and item.get("type") in _CALL_TYPES and "status" not in item:
        item["status"] = "in_progress"  # unfinished until output_item.done (module docstring)
    root = acc.root
    pos = bisect.bisect(state["order"], index)
    state["order"].insert(pos, index)
    root["output"].insert(pos, item)
    _register(state, index, item)
    if finished:
        state["done"].add(index)
    return "".join(_texts([item]))


def _item_done(acc: Accumulator, chunk: dict, kind: str) -> str:
    state = _check_open(acc, kind)
    index, item = _new_item(chunk, kind)
    if index is None or index not in state["items"]:
        item_id = chunk.get("item_id", item.get("id"))
        if isinstance(item_id, str) and item_id in state["by_id"]:
            index = state["by_id"][item_id]
    if index is None or index not in state["items"]:
        return _insert(acc, state, index, item, kind, finished=True)
    old = state["items"][index]
    shown = "".join(_texts([old], acc))
    _forget(acc, index)
    root = acc.root
    output = root["output"]
    pos = next(i for i, x in enumerate(output) if x is old)
    output[pos] = item
    _register(state, index, item)
    state["done"].add(index)
    return _tail(shown, "".join(_texts([item])))


def _register(state: dict, index: int, item: dict) -> None:
    state["items"][index] = item
    if isinstance(item.get("id"), str):
        state["by_id"][item["id"]] = index


def _forget(acc: Accumulator, index: int) -> None:
    """Seal the growing strings of an item about to be replaced and drop its part index."""
    for container, key in acc.state["grown"].pop(index, {}).values():
        acc.seal(container, key)
    acc.state["parts"] = {k: v for k, v in acc.state["parts"].items() if k[0] != index}


def _grow(acc: Accumulator, index: int, container: dict, key: str, piece: str) -> None:
    grown = acc.state["grown"].setdefault(index, {})
    if (id(container), key) not in grown:
        grown[id(container), key] = (container, key)
    acc.append(container, key, piece)


def _item_delta(acc: Accumulator, chunk: dict, kind: str) -> str:
    _, key, item_type = _ITEM_FIELDS[kind]
    index, item = _find(acc, chunk, kind)
    _expect_type(item, item_type, kind)
    _grow(acc, index, item, key, _delta(chunk, kind))
    return ""


def _item_done_field(acc: Accumulator, chunk: dict, kind: str) -> str:
    key, item_type = _ITEM_DONE[kind]
    index, item = _find(acc, chunk, kind)
    _expect_type(item, item_type, kind)
    value = chunk.get(key)
    if not isinstance(value, str):
        raise MalformedChunk(f"{_NAME}: {kind} '{key}' is not a string: {describe(value)}")
    acc.seal(item, key, value)
    return ""


# ---------------------------------------------------------------------------- parts
def _part_list(item: dict, lst: str, kind: str) -> list:
    parts = item.get(lst)
    if parts is None:
        parts = item[lst] = []
    if not isinstance(parts, list):
        raise MalformedChunk(f"{_NAME}: {kind}: the item's '{lst}' is not a list: {describe(parts)}")
    return parts


def _find_part(
    acc: Accumulator, chunk: dict, kind: str, lst: str, idx_key: str, item_type: str | None = None
) -> tuple[int, dict, dict]:
    index, item = _find(acc, chunk, kind)
    if item_type is not None:
        _expect_type(item, item_type, kind)
    at = chunk.get(idx_key)
    if not _is_index(at):
        raise MalformedChunk(f"{_NAME}: {kind} {idx_key} is not a non-negative int: {at!r}")
    part = acc.state["parts"].get((index, lst, at))
    if part is None:
        parts = item.get(lst)
        if isinstance(parts, list) and at < len(parts) and isinstance(parts[at], dict):
            part = parts[at]
    if part is None:
        raise MalformedChunk(f"{_NAME}: {kind} {idx_key} {at} points to no part of output item {index}")
    return index, item, part


def _part_added(acc: Accumulator, chunk: dict, kind: str) -> str:
    lst, idx_key, done = _PART_ADDED[kind]
    index, item = _find(acc, chunk, kind)
    at = chunk.get(idx_key)
    if not _is_index(at):
        raise MalformedChunk(f"{_NAME}: {kind} {idx_key} is not a non-negative int: {at!r}")
    new = chunk.get("part")
    if not isinstance(new, dict):
        raise MalformedChunk(f"{_NAME}: {kind} without a 'part' object: {describe(chunk)}")
    new = copy_tree(new)
    _changed(acc)
    parts = _part_list(item, lst, kind)
    old = acc.state["parts"].get((index, lst, at))
    if old is None and done and at < len(parts) and isinstance(parts[at], dict):
        old = parts[at]
    counts = item.get("type") == "message" and lst == "content"
    shown = "".join(_part_texts([old], acc)) if counts and old is not None else ""
    if old is not None:
        for key in list(old):
            acc.seal(old, key)
        parts[next(i for i, x in enumerate(parts) if x is old)] = new
    else:
        parts.append(new)
    acc.state["parts"][(index, lst, at)] = new
    return _tail(shown, "".join(_part_texts([new]))) if counts else ""


def _part_delta(acc: Accumulator, chunk: dict, kind: str) -> str:
    _, lst, idx_key, key = _PART_FIELDS[kind]
    text = kind == "response.output_text.delta"
    index, item, part = _find_part(acc, chunk, kind, lst, idx_key, "message" if text else None)
    piece = _delta(chunk, kind)
    if text:
        if part.get("type") != "output_text":
            raise MalformedChunk(f"{_NAME}: {kind} targets a {part.get('type')!r} part, not output_text")
        logprobs = chunk.get("logprobs")
        if isinstance(logprobs, list) and logprobs and isinstance(part.get("logprobs"), list):
            _changed(acc)
            part["logprobs"].extend(copy_tree(logprobs))
        _grow(acc, index, part, key, piece)
        return piece
    _grow(acc, index, part, key, piece)
    return ""


def _part_done_field(acc: Accumulator, chunk: dict, kind: str) -> str:
    lst, idx_key, key = _PART_DONE[kind]
    text = kind == "response.output_text.done"
    _, _, part = _find_part(acc, chunk, kind, lst, idx_key, "message" if text else None)
    value = chunk.get(key)
    if not isinstance(value, str):
        raise MalformedChunk(f"{_NAME}: {kind} '{key}' is not a string: {describe(value)}")
    if text and part.get("type") != "output_text":
        raise MalformedChunk(f"{_NAME}: {kind} targets a {part.get('type')!r} part, not output_text")
    shown = "".join(_part_texts([part], acc)) if text else ""
    acc.seal(part, key, value)
    return _tail(shown, value) if text else ""


def _annotation(acc: Accumulator, chunk: dict, kind: str) -> str:
    _, _, part = _find_part(acc, chunk, kind, "content", "content_index")
    note = chunk.get("annotation")
    if not isinstance(note, dict):
        raise MalformedChunk(f"{_NAME}: {kind} without an 'annotation' object: {describe(chunk)}")
    _changed(acc)
    if not isinstance(part.get("annotations"), list):
        part["annotations"] = []
    part["annotations"].append(copy_tree(note))
    return ""


_HANDLERS = {
    **dict.fromkeys(_LIFECYCLE, _lifecycle),
    **dict.fromkeys(_FINAL, _finish),
    **dict.fromkeys(_ITEM_FIELDS, _item_delta),
    **dict.fromkeys(_ITEM_DONE, _item_done_field),
    **dict.fromkeys(_PART_FIELDS, _part_delta),
    **dict.fromkeys(_PART_DONE, _part_done_field),
    **dict.fromkeys(_PART_ADDED, _part_added),
    "response.output_item.added": _item_added,
    "response.output_item.done": _item_done,
    "response.output_text.annotation.added": _annotation,
}


# ---------------------------------------------------------------------------- helpers
def _changed(acc: Accumulator) -> None:
    """Tell the accumulator the message is about to change in place (reading root does)."""
    acc.root  # noqa: B018


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _delta(chunk: dict, kind: str) -> str:
    piece = chunk.get("delta")
    if not isinstance(piece, str):
        raise MalformedChunk(f"{_NAME}: {kind} 'delta' is not a string: {describe(piece)}")
    return piece


def _expect_type(item: dict, item_type: str, kind: str) -> None:
    if item.get("type") != item_type:
        raise MalformedChunk(f"{_NAME}: {kind} targets a {item.get('type')!r} item, not {item_type}")


def _tail(shown: str, full: str) -> str:
    """The part of ``full`` not yet shown, when what was shown is its prefix."""
    return full[len(shown):] if full.startswith(shown) else ""
