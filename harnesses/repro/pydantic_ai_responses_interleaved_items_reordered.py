"""pydantic-ai's ``OpenAIResponsesModel`` orders the parts of a streamed response by when each
item's first text arrives, not by the item's ``output_index``: when the events of two open
message items interleave, the text of the second item comes first.

One stream: message items 0 and 1 are added, then item 1's first text delta arrives before
item 0's (each delta names its item by ``output_index`` and ``item_id``). pydantic-ai creates a
message's ``TextPart`` at its first delta, so the parts are [item 1, item 0]; the openai SDK's
``client.responses.stream`` files each event under its ``output_index`` and its final response
holds the items in output order. The recorded API streams finish one item before adding the
next; a gateway merging streams need not (the shape of the suite's INTERLEAVE-001 streams).

    pip install pydantic-ai-slim[openai]==2.68.0 openai==3.57.0
    python pydantic_ai_responses_interleaved_items_reordered.py

Exits 1 while pydantic-ai's text order differs from the SDK's.
"""
# requires: pydantic-ai-slim==2.68.0, openai==3.57.0

import asyncio
import json
import sys

import httpx2
import openai
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request_stream
from pydantic_ai.messages import TextPart
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

RESPONSE = {"id": "resp_mcs_interleave", "object": "response", "created_at": 1741290958, "model": "gpt-4.1-2025-04-14"}
PART = {"type": "output_text", "annotations": [], "logprobs": []}


def message(n: int, status: str, text: str | None = None) -> dict:
    """Message item ``n`` (``msg_mcs_<n>``), empty or holding ``text``."""
    content = [] if text is None else [{**PART, "text": text}]
    return {"id": f"msg_mcs_{n}", "type": "message", "role": "assistant", "status": status, "content": content}


def delta(n: int, text: str) -> dict:
    """A text delta for item ``n``'s first part."""
    return {"type": "response.output_text.delta", "item_id": f"msg_mcs_{n}", "output_index": n, "content_index": 0,
            "delta": text}


DONE = [message(0, "completed", "Hello "), message(1, "completed", "world")]
EVENTS = [
    {"type": "response.created", "response": {**RESPONSE, "status": "in_progress", "output": []}},
    {"type": "response.output_item.added", "output_index": 0, "item": message(0, "in_progress")},
    {"type": "response.content_part.added", "item_id": "msg_mcs_0", "output_index": 0, "content_index": 0,
     "part": {**PART, "text": ""}},
    {"type": "response.output_item.added", "output_index": 1, "item": message(1, "in_progress")},
    {"type": "response.content_part.added", "item_id": "msg_mcs_1", "output_index": 1, "content_index": 0,
     "part": {**PART, "text": ""}},
    delta(1, "world"),   # item 1's text arrives first
    delta(0, "Hello "),
    {"type": "response.output_item.done", "output_index": 0, "item": DONE[0]},
    {"type": "response.output_item.done", "output_index": 1, "item": DONE[1]},
    {"type": "response.completed", "response": {**RESPONSE, "status": "completed", "output": DONE}},
]


def body(events: list) -> bytes:
    """The events as the API's server-sent events, numbered."""
    numbered = [{**e, "sequence_number": n} for n, e in enumerate(events)]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in numbered).encode()


def client(data: bytes) -> openai.AsyncOpenAI:
    """An openai client whose transport answers every request with ``data``: nothing is sent."""
    async def handler(request):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=data)
    return openai.AsyncOpenAI(api_key="placeholder", max_retries=0,
                              http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))


async def sdk(data: bytes) -> str:
    """The openai SDK: client.responses.stream read to its end, its final response's text."""
    async with client(data).responses.stream(model="gpt-4.1", input="hi") as stream:
        async for _event in stream:
            pass
        final = await stream.get_final_response()
    return final.output_text


async def pydantic_ai(data: bytes) -> str:
    """pydantic-ai: model_request_stream read to its end, its TextPart contents in part order."""
    model = OpenAIResponsesModel("gpt-4.1", provider=OpenAIProvider(openai_client=client(data)))
    async with model_request_stream(model, [ModelRequest.user_text_prompt("hi")]) as stream:
        async for _event in stream:
            pass
        response = stream.get()
    return "".join(p.content for p in response.parts if isinstance(p, TextPart))


async def main() -> int:
    data = body(EVENTS)
    want, got = await sdk(data), await pydantic_ai(data)
    print(f"openai SDK final response text: {want!r}")
    print(f"pydantic-ai streamed response text: {got!r}")
    if got != want:
        print("pydantic-ai orders the interleaved items by first text, not by output_index")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
