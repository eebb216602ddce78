"""Access to recordings/: the recorded provider streams the project is built on (see its README)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcs_conformance.corpus_tools.capture import parse_sse, read_capture

ROOT = Path(__file__).resolve().parents[2] / "recordings"


def path(rel: str) -> Path:
    p = ROOT / rel
    if not p.exists():
        raise FileNotFoundError(f"recording {rel} not found under {ROOT} (listed in recordings/manifest.json?)")
    return p


def payloads(rel: str) -> list[Any]:
    """Payloads of an .sse or .jsonl capture ([DONE] kept as the string "[DONE]")."""
    return read_capture(path(rel))


def cassette(rel: str) -> list[dict]:
    """The interactions of an HTTP cassette: [{request, response: {body}}]."""
    return json.loads(path(rel).read_text(encoding="utf-8"))


def cassette_streams(rel: str) -> list[list[Any]]:
    """The SSE bodies of a cassette's streamed responses, as payload lists."""
    out = []
    for turn in cassette(rel):
        body = turn["response"]["body"]
        if isinstance(body, str) and "data:" in body:
            out.append(parse_sse(body))
    return out


def files(sub: str, *suffixes: str) -> list[str]:
    """Relative paths of the captures in a sub-folder, sorted."""
    base = path(sub)
    return sorted(
        str(p.relative_to(ROOT)) for p in base.rglob("*") if p.is_file() and p.name.endswith(suffixes)
    )
