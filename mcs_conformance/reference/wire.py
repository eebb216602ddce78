"""Format-free helpers: turning SDK objects into wire dicts, describing a shape briefly,
refusing the non-JSON constants Python's json reads."""

from __future__ import annotations

from typing import Any

__all__ = ["describe", "reject_json_constant", "to_wire"]


def to_wire(chunk: Any) -> Any:
    """A chunk as it was on the wire: SDK pydantic models are dumped wire-faithfully."""
    kind = type(chunk)
    if kind is dict or kind is str or kind is list:  # already wire data: the common case
        return chunk
    dump = getattr(chunk, "model_dump", None)
    if callable(dump) and not isinstance(chunk, type):
        return dump(mode="json", exclude_unset=True, by_alias=True)
    return chunk


def describe(shape: Any, limit: int = 120) -> str:
    """A one-line description of a chunk or message, for error messages."""
    if isinstance(shape, dict):
        keys = ", ".join(repr(k) for k in list(shape)[:8])
        more = ", ..." if len(shape) > 8 else ""
        hints = [f"{k}={shape[k]!r}" for k in ("type", "object") if isinstance(shape.get(k), str)]
        hint = f" ({', '.join(hints)})" if hints else ""
        text = f"dict with keys [{keys}{more}]{hint}"
    elif isinstance(shape, str):
        text = f"str {shape[:60]!r}{'...' if len(shape) > 60 else ''}"
    else:
        text = f"{type(shape).__name__} {shape!r}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def reject_json_constant(token: str) -> Any:
    """``parse_constant`` hook for Python's json: NaN and Infinity are not JSON, so refuse them."""
    raise ValueError(f"{token} is not valid JSON")
