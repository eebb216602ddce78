"""Call ids a client makes up where the wire sends a call without one.

The official JavaScript SDK gives such a call ``call_<uuid>`` when it finishes the completion
(openai@7.59.0 ``ChatCompletionStream``, ``finalizeChatCompletion``: ``id || call_${uuid4()}``);
the Python SDK keeps ``""``. Both answers are the official SDKs', so a made-up id is an
accepted answer where the case's call has no id, and two runs of one stream may make up two
different ones. Never where the wire has an id: an id is *made up* only at a call the case
expects without one, when no chunk or message of the case holds that string and no other call
of the answer holds it too (or at a call the case does not have, which the comparisons against
the case fail anyway). A real id that is corrupted, dropped or swapped is never one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..corpus_tools.corpus import Case

__all__ = ["made_up_ids", "masked", "settled", "SOURCE"]

SOURCE = ("an id the client made up for a call the wire sends without one, held by no other call "
          "(the official JavaScript SDK: openai@7.59.0 ChatCompletionStream.finalizeChatCompletion gives it "
          "call_<uuid>; the Python SDK keeps \"\")")


def wire_strings(case: Case) -> frozenset[str]:
    """Every string the case's input holds (its chunks, or its message), keys left out."""
    found: set[str] = set()
    stack: list[Any] = [case.chunks if case.is_stream else case.message]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, Mapping):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return frozenset(found)


def made_up_ids(case: Case, calls: Any) -> dict[str, int]:
    """The ids of ``calls`` (the strategy's, as ``calls_view`` dicts) that it made up, each
    with the position of its call: the case expects that call without an id (``None`` or
    ``""``) or has no call there, the id is a non-empty string no input of the case holds, and no other call of
    ``calls`` has it. Empty when the strategy's calls are no list."""
    want = case.expect.get("calls")
    if not isinstance(want, list) or not isinstance(calls, list):
        return {}
    ids = [c.get("id") if isinstance(c, Mapping) else None for c in calls]
    wire = None
    out: dict[str, int] = {}
    for i, got in enumerate(ids):
        w = want[i] if i < len(want) else {}  # a call the case does not have holds none of its ids
        if not (isinstance(w, Mapping) and not w.get("id") and isinstance(got, str) and got and ids.count(got) == 1):
            continue
        wire = wire_strings(case) if wire is None else wire
        if got not in wire:
            out[got] = i
    return out


def settled(got: Any, want: Any, ids: Mapping[str, int]) -> Any:
    """``got`` with each made-up id replaced by what ``want`` holds at the same place, where
    ``want`` holds no id there (``""``, ``None`` or no key); the rest of ``got`` unchanged."""
    if not ids:
        return got
    if isinstance(got, str) and got in ids and (want is None or want == ""):
        return want
    if isinstance(got, Mapping) and isinstance(want, Mapping):
        return {k: settled(v, want.get(k), ids) for k, v in got.items()
                if k in want or not (isinstance(v, str) and v in ids)}
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        return [settled(g, w, ids) for g, w in zip(got, want)]
    return got


def masked(value: Any, ids: Mapping[str, int]) -> Any:
    """``value`` with every string that is a made-up id written as the placeholder of its
    call (``<id made up for call 0>``): two runs that made up different ids compare equal."""
    if not ids:
        return value
    if isinstance(value, str):
        return f"<id made up for call {ids[value]}>" if value in ids else value
    if isinstance(value, Mapping):
        return {k: masked(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v, ids) for v in value]
    return value
