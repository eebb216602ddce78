"""The recorded wire bytes served to a library's own HTTP client: what every harness shares.

A harness runs the library through its documented public path (its client, its streaming
call, its accumulation helper); the only thing replaced is the network. These helpers turn
the chunks the suite feeds into the bytes the provider sent, and serve them through an
injected httpx(-style) transport:

* ``sse_body(chunks, fmt)``: the SSE body. OpenAI Chat Completions sends ``data: <json>``
  events and ends with ``data: [DONE]``; the Responses API and Anthropic's Messages API name
  each event (``event: <type>``) after the event's own ``type``. A chunk holding a lone
  surrogate is written with JSON escapes (``\\ud83c``), as a provider writes one, never as raw bytes. A ``"[DONE]"`` string among
  the chunks is written as sent; nothing is added at the end that the chunks do not hold.
* ``json_body(obj)``: a ``stream=false`` response body.
* ``transport(body, http=...)`` / ``async_transport(...)``: a mock transport of the given
  httpx-style module (httpx2 for today's openai and anthropic SDKs, httpx for libraries built
  on it) that answers every request with ``body`` (status 200, the content type of the body).
* ``http_module(name)``: ``httpx2`` or ``httpx``, whichever the library's client takes.

Nothing here parses or accumulates a stream.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from types import ModuleType
from typing import Any

__all__ = ["async_transport", "http_module", "json_body", "sse_body", "transport"]

_NAMED = ("openai-responses", "anthropic-messages")


def sse_body(chunks: Iterable[Any], fmt: str = "openai-chat") -> bytes:
    """The SSE bytes of ``chunks`` (wire dicts, or the ``"[DONE]"`` sentinel) for format ``fmt``."""
    out = []
    for chunk in chunks:
        if isinstance(chunk, str):
            out.append(f"data: {chunk}\n\n")
            continue
        data = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: a provider sends it as a JSON escape
            data = json.dumps(chunk, separators=(",", ":"))
        name = chunk.get("type") if fmt in _NAMED and isinstance(chunk, dict) else None
        out.append((f"event: {name}\n" if isinstance(name, str) else "") + f"data: {data}\n\n")
    return "".join(out).encode("utf-8")


def json_body(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass")


def http_module(name: str = "httpx2") -> ModuleType:
    import importlib

    return importlib.import_module(name)


def _content_type(body: bytes) -> str:
    return "text/event-stream" if body.startswith((b"data:", b"event:")) or not body else "application/json"


def transport(body: bytes, http: ModuleType | None = None) -> Any:
    """A sync mock transport that answers every request with ``body``."""
    http = http or http_module()

    def handler(request: Any) -> Any:
        return http.Response(200, headers={"content-type": _content_type(body)}, content=body)

    return http.MockTransport(handler)


def async_transport(body: bytes, http: ModuleType | None = None) -> Any:
    """An async mock transport that answers every request with ``body``."""
    http = http or http_module()

    async def handler(request: Any) -> Any:
        return http.Response(200, headers={"content-type": _content_type(body)}, content=body)

    return http.MockTransport(handler)
