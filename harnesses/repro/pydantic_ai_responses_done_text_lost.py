"""pydantic-ai's ``OpenAIResponsesModel`` keeps only the text of ``response.output_text.delta``
events of a stream: text a message's ``output_text.done``, ``content_part.done``,
``output_item.done`` or the ``response.completed`` output carries beyond the deltas never
reaches the streamed ``ModelResponse``.

The events are the shape of OpenAI's recorded openai-phase-1 stream (gpt-5.3-codex, in
vercel/ai's fixtures), whose deltas hold a part of the text its ``output_text.done`` events
carry: here the deltas hold ``Got it`` and every done event the whole sentence. The openai
SDK's ``client.responses.stream`` on the same bytes and pydantic-ai's own ``model_request``
over the completed response give the whole sentence.

    pip install pydantic-ai-slim[openai]==2.68.0 openai==3.57.0
    python pydantic_ai_responses_done_text_lost.py

Exits 1 while the streamed response's text lacks what only the done events carry.
"""
# requires: pydantic-ai-slim==2.68.0, openai==3.57.0

import asyncio
import json

import httpx2
import openai
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request, model_request_stream
from pydantic_ai.messages import TextPart
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

TEXT = "Got it. I will check the weather in Paris now."
RESPONSE = {"id": "resp_mcs_done_text", "object": "response", "created_at": 1772062745, "model": "gpt-5.3-codex"}
ITEM = {"id": "msg_mcs_1", "type": "message", "role": "assistant"}
PART = {"type": "output_text", "annotations": [], "logprobs": []}
DONE_ITEM = {**ITEM, "status": "completed", "content": [{**PART, "text": TEXT}]}
COMPLETED = {**RESPONSE, "status": "completed", "output": [DONE_ITEM]}

EVENTS = [
    {"type": "response.created", "response": {**RESPONSE, "status": "in_progress", "output": []}},
    {"type": "response.output_item.added", "output_index": 0, "item": {**ITEM, "status": "in_progress", "content": []}},
    {"type": "response.content_part.added", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "part": {**PART, "text": ""}},
    {"type": "response.output_text.delta", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "delta": "Got"},
    {"type": "response.output_text.delta", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "delta": " it"},
    {"type": "response.output_text.done", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "text": TEXT},
    {"type": "response.content_part.done", "item_id": "msg_mcs_1", "output_index": 0, "content_index": 0, "part": {**PART, "text": TEXT}},
    {"type": "response.output_item.done", "output_index": 0, "item": DONE_ITEM},
    {"type": "response.completed", "response": COMPLETED},
]
for number, event in enumerate(EVENTS):
    event["sequence_number"] = number
STREAM = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in EVENTS).encode()




def client(body: bytes, kind: str) -> openai.AsyncOpenAI:
    """An openai client whose transport answers every request with ``body``: nothing is sent."""
    async def handler(request):
        return httpx2.Response(200, headers={"content-type": kind}, content=body)
    return openai.AsyncOpenAI(api_key="placeholder", max_retries=0,
                              http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))


async def sdk_text() -> str:
    """The openai SDK on the same bytes: client.responses.stream's final response."""
    async with client(STREAM, "text/event-stream").responses.stream(model="gpt-5.3-codex", input="hi") as stream:
        async for _event in stream:
            pass
        return (await stream.get_final_response()).output_text


async def pydantic_ai(stream: bool) -> str:
    """model_request_stream over the events, or model_request over the completed response."""
    body, kind = (STREAM, "text/event-stream") if stream else (json.dumps(COMPLETED).encode(), "application/json")
    model = OpenAIResponsesModel("gpt-5.3-codex", provider=OpenAIProvider(openai_client=client(body, kind)))
    messages = [ModelRequest.user_text_prompt("hi")]
    if stream:
        async with model_request_stream(model, messages) as events:
            async for _event in events:
                pass
            response = events.get()
    else:
        response = await model_request(model, messages)
    return "".join(p.content for p in response.parts if isinstance(p, TextPart))


sdk, streamed, whole = asyncio.run(sdk_text()), asyncio.run(pydantic_ai(True)), asyncio.run(pydantic_ai(False))
print(f"{'openai SDK output_text':<32} {sdk!r}")
print(f"{'pydantic-ai model_request text':<32} {whole!r}")
print(f"{'pydantic-ai stream text':<32} {streamed!r}")
print("the streamed response keeps the done text:", streamed == sdk)
raise SystemExit(0 if streamed == sdk else 1)
