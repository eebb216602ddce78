"""pydantic-ai's ``OpenAIResponsesModel`` reads Responses events that address nothing the
response holds without an error, where the openai SDK's ``client.responses.stream`` refuses them.

Two streams: a text delta for a content part no ``content_part.added`` announced, and a
function call's arguments delta for an output index where no item was added (the shapes of
the suite's cases openai-responses/syn-malformed-text-delta-part-missing and
syn-malformed-arguments-delta-for-no-item). pydantic-ai's stream handler checks neither that
an event's item nor its part exists; the openai SDK raises on both. No provider is known to
send these events.

    pip install pydantic-ai-slim[openai]==2.68.0 openai==3.57.0
    python pydantic_ai_responses_malformed_events_read.py

Exits 1 while pydantic-ai reads a stream the SDK refuses.
"""
# requires: pydantic-ai-slim==2.68.0, openai==3.57.0

import asyncio
import json
import warnings

import httpx2
import openai
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request_stream
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

RESPONSE = {"id": "resp_mcs_bad", "object": "response", "created_at": 1741290958, "model": "gpt-4.1-2025-04-14"}
MESSAGE = {"id": "msg_mcs_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}
PART = {"type": "output_text", "annotations": [], "logprobs": []}
DONE_MESSAGE = {**MESSAGE, "status": "completed", "content": [{**PART, "text": "Hello"}]}
START = [
    {"type": "response.created", "response": {**RESPONSE, "status": "in_progress", "output": []}},
    {"type": "response.output_item.added", "output_index": 0, "item": MESSAGE},
]
END = [
    {"type": "response.output_item.done", "output_index": 0, "item": DONE_MESSAGE},
    {"type": "response.completed", "response": {**RESPONSE, "status": "completed", "output": [DONE_MESSAGE]}},
]
STREAMS = {
    # a text delta for content index 0, whose part no content_part.added announced
    "text delta for a part never added": START + [
        {"type": "response.output_text.delta", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "delta": "Hello"},
    ] + END,
    # a function call's arguments delta for output index 1, where no item was added
    "arguments delta for no item": START + [
        {"type": "response.content_part.added", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "part": {**PART, "text": ""}},
        {"type": "response.output_text.delta", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "delta": "Hello"},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_mcs_none", "output_index": 1, "delta": "{\"city\": \"Paris\"}"},
        {"type": "response.content_part.done", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "part": {**PART, "text": "Hello"}},
    ] + END,
}


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
    """The openai SDK: client.responses.stream read to its end."""
    try:
        async with client(data).responses.stream(model="gpt-4.1", input="hi") as stream:
            async for _event in stream:
                pass
    except Exception as exc:  # noqa: BLE001 - the SDK's refusal is the answer shown
        return f"raises {type(exc).__name__}: {exc}"
    return "reads it"


async def pydantic_ai(data: bytes) -> str:
    """model_request_stream over the events; the streamed ModelResponse's parts."""
    model = OpenAIResponsesModel("gpt-4.1", provider=OpenAIProvider(openai_client=client(data)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            async with model_request_stream(model, [ModelRequest.user_text_prompt("hi")]) as stream:
                async for _event in stream:
                    pass
                response = stream.get()
    except Exception as exc:  # noqa: BLE001
        return f"raises {type(exc).__name__}: {exc}"
    return f"reads it: parts {[(type(p).__name__, getattr(p, 'content', None) or getattr(p, 'args', None)) for p in response.parts]}"


read = 0
for name, events in STREAMS.items():
    data = body(events)
    refused, answer = asyncio.run(sdk(data)), asyncio.run(pydantic_ai(data))
    print(f"{name}:\n  openai SDK:  {refused}\n  pydantic-ai: {answer}")
    read += refused.startswith("raises") and answer.startswith("reads")
print(f"streams pydantic-ai reads that the SDK refuses: {read} of {len(STREAMS)}")
raise SystemExit(1 if read else 0)
