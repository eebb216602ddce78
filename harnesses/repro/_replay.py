"""Shared by the reproductions: a corpus case's chunks, served as the SSE body of a fake
OpenAI endpoint, and the official openai SDK's own accumulator run on the same chunks.

No mcs-conformance code: the case is read as plain JSON from the repository's corpus, and
the fake endpoint is an ``httpx2.MockTransport`` (the HTTP library the openai SDK uses), so
each library runs its real request and streaming code against the recorded bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CASES = Path(__file__).resolve().parents[2] / "mcs_conformance" / "corpus" / "cases"


def case_chunks(case_id: str) -> list[Any]:
    """The chunks of a corpus case (``"[DONE]"`` included), e.g. ``openai-chat/refusal``."""
    return json.loads((CASES / f"{case_id}.json").read_text(encoding="utf-8"))["chunks"]


def sse_body(chunks: list[Any]) -> bytes:
    """The chunks as a server-sent-events body, one ``data:`` line each."""
    lines = []
    for chunk in chunks:
        data = chunk if isinstance(chunk, str) else json.dumps(chunk)
        lines.append(f"data: {data}\n\n")
    if not any(c == "[DONE]" for c in chunks):
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode("utf-8")


def transport(chunks: list[Any]) -> Any:
    """An ``httpx2.MockTransport`` answering every request with the chunks as SSE."""
    import httpx2

    body = sse_body(chunks)

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return httpx2.MockTransport(handler)


def sdk_message(chunks: list[Any]) -> dict:
    """Choice 0's message as the openai SDK's ``ChatCompletionStreamState`` accumulates it
    (what ``client.chat.completions.stream(...).get_final_completion()`` is built from),
    in wire form. Raises what the SDK raises."""
    return _sdk_choice(chunks)["message"]


def sdk_finish(chunks: list[Any]) -> Any:
    """Choice 0's ``finish_reason`` in the openai SDK's accumulated snapshot (None: unfinished)."""
    return _sdk_choice(chunks).get("finish_reason")


def _sdk_choice(chunks: list[Any]) -> dict:
    from openai._models import construct_type
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state = ChatCompletionStreamState()
    for chunk in chunks:
        if isinstance(chunk, dict):
            state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=chunk))
    snapshot = state.current_completion_snapshot.to_dict()
    return next(c for c in snapshot["choices"] if c.get("index") == 0)


def show(label: str, value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False, default=str)
    print(f"{label:<28} {text.encode('utf-8', 'backslashreplace').decode('utf-8')}")
