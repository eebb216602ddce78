"""Reading raw captures: SSE text as served, or JSONL of payloads. Transport only, no format."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

__all__ = ["parse_payloads", "parse_sse", "read_capture", "split_at"]

_BLOCK = re.compile(r"\r?\n\r?\n")


def parse_sse(text: str) -> list[Any]:
    """The data payloads of an SSE body, JSON-decoded; ``[DONE]`` stays the string ``"[DONE]"``."""
    out: list[Any] = []
    for block in _BLOCK.split(text):
        data = []
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value[1:] if value.startswith(" ") else value)
        if data:
            payload = "\n".join(data).strip()
            out.append(payload if payload == "[DONE]" else json.loads(payload))
    return out


def read_capture(path: str | Path) -> list[Any]:
    """Payloads of a capture file: SSE when it has ``data:`` lines, else JSONL (one per line)."""
    return parse_payloads(Path(path).read_text(encoding="utf-8"), str(path))


def parse_payloads(text: str, origin: str = "<text>") -> list[Any]:
    """Payloads of a stream body: SSE when it has ``data:`` lines, else JSONL (one per line).

    ``origin`` names the source in the error a line that is not JSON raises.
    """
    if re.search(r"^data:", text, re.MULTILINE):
        return parse_sse(text)
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            out.append(line if line == "[DONE]" else json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{origin}:{n}: not a JSON payload ({exc.msg})") from None
    return out


def split_at(payloads: list[Any], starts: set[str]) -> list[list[Any]]:
    """Split a multi-message capture before every payload whose ``type`` is in ``starts``."""
    parts: list[list[Any]] = []
    for p in payloads:
        if isinstance(p, dict) and p.get("type") in starts and parts and parts[-1]:
            parts.append([])
        if not parts:
            parts.append([])
        parts[-1].append(p)
    return [p for p in parts if p]
