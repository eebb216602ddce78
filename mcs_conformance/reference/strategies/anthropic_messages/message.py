"""Anthropic Messages content blocks: the text a message's blocks hold, and the blocks a
continuation cannot answer.
"""

from __future__ import annotations

from collections.abc import Container


def _unanswerable(block: dict, taken: Container[str]) -> str | None:
    """Why no result could be sent back for a ``tool_use`` block, or None: it has no name, no
    id, or an id already ``taken`` by an earlier block. Such a block is never an executable
    call (extract) and is never replayed (result_messages), since the API refuses it."""
    name, call_id = block.get("name"), block.get("id")
    if not isinstance(name, str) or not name:
        return "tool_use block has no name"
    if not isinstance(call_id, str) or not call_id:
        return "tool_use block has no id, so its result cannot be sent back"
    if call_id in taken:
        return f"tool_use id {call_id!r} repeats an earlier block's, so its result cannot be told apart"
    return None


def _text_of(content: list) -> str:
    """The text of the ``text`` blocks in a content list, in order."""
    return "".join(
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )
