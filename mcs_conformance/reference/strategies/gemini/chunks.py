"""Gemini payload checks and the folding of Vertex AI's streamed call arguments
(``functionCall.partialArgs``) into a call's ``args`` object."""

from __future__ import annotations

import re
from typing import Any

from ...accumulator import Accumulator
from ...errors import MalformedChunk
from ...wire import describe

_SEGMENT = re.compile(r"""\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]""")
_VALUE_KEYS = ("stringValue", "numberValue", "boolValue", "nullValue")


def bad(problem: str, chunk: object) -> MalformedChunk:
    """The error for a payload that cannot be folded, naming the problem and the payload."""
    return MalformedChunk(f"gemini: {problem}: {describe(chunk)}")


def json_path(path: object, chunk: object) -> tuple[str | int, ...]:
    """The steps of a ``partialArgs[].jsonPath`` (``$.a.b[0]``, ``$['a b']``): object keys
    and list positions. A path that is no such string is a malformed payload."""
    if not isinstance(path, str) or not path.startswith("$"):
        raise bad(f"partialArgs jsonPath {path!r} is not a JSONPath from $", chunk)
    steps: list[str | int] = []
    at = 1
    while at < len(path):
        found = _SEGMENT.match(path, at)
        if found is None:
            raise bad(f"partialArgs jsonPath {path!r} cannot be read at character {at}", chunk)
        name, index, single, double = found.groups()
        steps.append(int(index) if index is not None else name if name is not None else
                     (single if single is not None else double))
        at = found.end()
    if not steps:
        raise bad(f"partialArgs jsonPath {path!r} names no argument", chunk)
    return tuple(steps)


def _slot(args: dict, steps: tuple[str | int, ...], chunk: object) -> tuple[Any, str | int]:
    """The container and key that ``steps`` name inside ``args``, made as needed (an object for
    a name, a list for a position; a list is padded with null up to a position)."""
    node: Any = args
    for step, following in zip(steps, steps[1:]):
        node = _child(node, step, [] if isinstance(following, int) else {}, chunk)
    last = steps[-1]
    if isinstance(last, int):
        if not isinstance(node, list):
            raise bad(f"partialArgs position [{last}] inside a value that is no list", chunk)
        node.extend([None] * (last + 1 - len(node)))
    elif not isinstance(node, dict):
        raise bad(f"partialArgs key {last!r} inside a value that is no object", chunk)
    return node, last


def _child(node: Any, step: str | int, empty: Any, chunk: object) -> Any:
    if isinstance(step, int):
        if not isinstance(node, list):
            raise bad(f"partialArgs position [{step}] inside a value that is no list", chunk)
        node.extend([None] * (step + 1 - len(node)))
        if not isinstance(node[step], (dict, list)):
            node[step] = empty
        return node[step]
    if not isinstance(node, dict):
        raise bad(f"partialArgs key {step!r} inside a value that is no object", chunk)
    if not isinstance(node.get(step), (dict, list)):
        node[step] = empty
    return node[step]


def check_partial_args(items: object, chunk: object) -> list[tuple[tuple[str | int, ...], dict]]:
    """The ``partialArgs`` items with their parsed paths; refuses a list that is not one."""
    if not isinstance(items, list):
        raise bad("functionCall.partialArgs is not a list", chunk)
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise bad(f"functionCall.partialArgs[{i}] is not an object", chunk)
        value = item.get("stringValue")
        if value is not None and not isinstance(value, str):
            raise bad(f"functionCall.partialArgs[{i}].stringValue is not a string", chunk)
        number = item.get("numberValue")
        if number is not None and (isinstance(number, bool) or not isinstance(number, (int, float))):
            raise bad(f"functionCall.partialArgs[{i}].numberValue is not a number", chunk)
        flag = item.get("boolValue")
        if flag is not None and not isinstance(flag, bool):
            raise bad(f"functionCall.partialArgs[{i}].boolValue is not a boolean", chunk)
        out.append((json_path(item.get("jsonPath"), chunk), item))
    return out


def fold_partial_args(acc: Accumulator, call: dict, items: list[tuple[tuple, dict]], state: dict,
                      chunk: object) -> None:
    """Write each streamed value into ``call["args"]``: a ``stringValue`` grows the string at its
    path when the previous value sent at that path said ``willContinue``; any other value
    replaces what the path held. ``state["open_string"]`` is the path of a string that goes on."""
    args = call.setdefault("args", {})
    if not isinstance(args, dict):
        raise bad("a streamed argument for a call whose args is no object", chunk)
    for steps, item in items:
        present = [k for k in _VALUE_KEYS if k in item and (item[k] is not None or k == "nullValue")]
        if not present:  # a path without a value (vercel/ai's accumulator skips it too)
            state["open_string"] = steps if item.get("willContinue") is True and state.get("open_string") == steps \
                else None
            continue
        container, key = _slot(args, steps, chunk)
        kind = present[0]
        if kind == "stringValue" and state.get("open_string") == steps and isinstance(container[key], str):
            acc.append(container, key, item["stringValue"])
        else:
            acc.seal(container, key)  # a value sent anew replaces any text grown there before
            container[key] = None if kind == "nullValue" else item[kind]
        state["open_string"] = steps if kind == "stringValue" and item.get("willContinue") is True else None
