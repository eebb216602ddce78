"""pydantic-ai's streamed ``OpenAIChatModel`` reads chunks of the wrong type without an error,
where the openai SDK's own accumulator raises on each.

Five short Chat Completions streams, each with one chunk of a wrong type: a choice whose
``index`` is the word ``"zero"``; a tool-call fragment whose ``index`` is ``"first"`` or
``0.5``; a second ``choices`` entry (no ``index``) whose ``content`` is the number 5; one whose
``delta`` is a string. On the same SSE bytes, ``client.chat.completions.create(stream=True)``
folded by the SDK's ``ChatCompletionStreamState`` raises (``TypeError``), while
``pydantic_ai.direct.model_request_stream`` runs to its end without an error and returns a
response (it reads ``choices[0]`` whatever its index and files a fragment under whatever its
``index`` holds). The chunks are synthetic (no provider is known to send them).

    pip install pydantic-ai-slim[openai]==2.68.0 openai==3.57.0
    python pydantic_ai_malformed_chunks_read.py

Exits 1 while pydantic-ai reads a stream the SDK refuses without an error (0 once it raises).
"""
# requires: pydantic-ai-slim==2.68.0, openai==3.57.0

import asyncio
import json

import httpx2
import openai
from openai.lib.streaming.chat import ChatCompletionStreamState
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request_stream
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

FIRST = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1760000000, "model": "gpt-4o",
         "choices": [{"index": 0, "delta": {"role": "assistant", "content": None, "tool_calls": [
             {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]},
             "finish_reason": None}]}
LAST = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1760000000, "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


def middle(choices: list) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1760000000, "model": "gpt-4o",
            "choices": choices}


def fragment(index) -> dict:
    return middle([{"index": 0, "delta": {"tool_calls": [{"index": index, "function": {"arguments": "{\"city\": \"Paris\"}"}}]},
                    "finish_reason": None}])


STREAMS = {
    "choice index \"zero\"": [FIRST, middle([{"index": "zero", "delta": {"content": "Paris"}, "finish_reason": None}]), LAST],
    "fragment index \"first\"": [FIRST, fragment("first"), LAST],
    "fragment index 0.5": [FIRST, fragment(0.5), LAST],
    "second entry, content 5": [FIRST, middle([{"index": 0, "delta": {"content": "Par"}, "finish_reason": None},
                                               {"delta": {"content": 5}, "finish_reason": None}]), LAST],
    "second entry, delta a string": [FIRST, middle([{"index": 0, "delta": {"content": "Par"}, "finish_reason": None},
                                                    {"delta": "is", "finish_reason": None}]), LAST],
}


def sse(chunks: list) -> bytes:
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def sdk(chunks: list) -> str:
    body = sse(chunks)
    http = httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)))
    client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http)
    state = ChatCompletionStreamState()
    try:
        for c in client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True):
            state.handle_chunk(c)
    except Exception as exc:  # noqa: BLE001 -- the SDK's answer
        return f"raises {type(exc).__name__}"
    return "reads it"


async def pydantic_ai(chunks: list) -> str:
    body = sse(chunks)

    async def handler(request):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = openai.AsyncOpenAI(api_key="placeholder", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
    try:
        async with model_request_stream(model, [ModelRequest.user_text_prompt("hi")]) as stream:
            async for _event in stream:
                pass
            response = stream.get()
    except Exception as exc:  # noqa: BLE001 -- the answer once fixed
        return f"raises {type(exc).__name__}"
    parts = [type(p).__name__ for p in response.parts]
    return f"reads it without an error (parts {parts})"


accepted = 0
for label, chunks in STREAMS.items():
    theirs, ours = sdk(chunks), asyncio.run(pydantic_ai(chunks))
    print(f"{label}: openai SDK {theirs}; pydantic-ai {ours}")
    accepted += theirs.startswith("raises") and not ours.startswith("raises")
print(f"streams the SDK refuses that pydantic-ai reads without an error: {accepted} of {len(STREAMS)}")
raise SystemExit(1 if accepted else 0)
