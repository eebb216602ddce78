"""pydantic-ai's streamed ``ModelResponse`` loses a streamed ``audio`` answer and the extra keys
of a tool call's fragments, even with ``openai_include_unmapped_response_data`` on, the
setting documented to keep "Chat Completions response data Pydantic AI doesn't map".

Two streams: an audio answer (``delta.audio`` with its id, transcript, base64 data and
expiry) and a tool call whose fragments carry extras (``x_trace`` on the fragment,
``x_hint`` inside ``function``). The openai SDK's ``client.chat.completions.stream`` keeps
``message.audio`` (with its transcript) and the call's extras. pydantic-ai's
``model_request_stream`` holds neither in any part or in ``provider_details``, with the
setting off (the default) or on: ``audio`` is a field the SDK's delta declares, so it is no
unmapped extra, and the unmapped data covers the response, the choice and the delta, not a
tool call's fragments (only Gemini's ``extra_content`` is kept there).

    pip install pydantic-ai-slim[openai]==2.68.0 openai==3.57.0
    python pydantic_ai_drops_audio_and_call_extras.py

Exits 1 while a value the SDK keeps is nowhere in pydantic-ai's response (0 once it is).
"""
# requires: pydantic-ai-slim==2.68.0, openai==3.57.0

import asyncio
import json

import httpx2
import openai
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request_stream
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

AUDIO = [
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None, 'refusal': None, 'audio': {'id': 'audio_mcs_1', 'transcript': 'Sunny'}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'audio': {'transcript': ' in Paris'}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'audio': {'data': 'UklGRiQAAABXQVZF'}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'audio': {'transcript': ', 24 degrees.'}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'audio': {'data': 'Zm10IBAAAAABAAEA'}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {'audio': {'expires_at': 1760003600}}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-audio-preview-2024-12-17', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'stop'}]},
    '[DONE]'
]
CALL_EXTRAS = [
    {'id': 'chatcmpl-mcs-fragment-extras', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None, 'tool_calls': [{'index': 0, 'id': 'call_mcs_fragment_extras', 'type': 'function', 'x_trace': 't-', 'function': {'name': 'get_weather', 'arguments': '', 'x_hint': 'par', 'type': 'json'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-fragment-extras', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'x_trace': '123', 'function': {'arguments': '{"city":', 'x_hint': 'tial', 'type': 'json'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-fragment-extras', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': ' "Oslo"}', 'type': 'json'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-fragment-extras', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'tool_calls'}]},
    '[DONE]'
]


def client(chunks) -> openai.AsyncOpenAI:
    body = "".join(f"data: {c if isinstance(c, str) else json.dumps(c)}\n\n" for c in chunks).encode()

    async def handler(request):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return openai.AsyncOpenAI(api_key="placeholder", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))


async def pydantic_ai(chunks, settings=None):
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client(chunks)))
    async with model_request_stream(model, [ModelRequest.user_text_prompt("hi")], model_settings=settings) as stream:
        async for _event in stream:
            pass
        return stream.get()


async def openai_sdk(chunks) -> dict:
    async with client(chunks).chat.completions.stream(model="gpt-4o", messages=[{"role": "user", "content": "hi"}]) as stream:
        async for _event in stream:
            pass
        return stream.current_completion_snapshot.choices[0].message.to_dict()


def everything(response) -> str:
    """All pydantic-ai holds of the answer: its parts and provider_details, as text."""
    return json.dumps([repr(p) for p in response.parts] + [response.provider_details], default=str)


missing = False
for name, chunks in (("audio answer", AUDIO), ("tool-call fragment extras", CALL_EXTRAS)):
    sdk = asyncio.run(openai_sdk(chunks))
    if name == "audio answer":
        wanted = sdk["audio"]["id"]  # sent whole in one delta
        shown = {"audio": sdk["audio"]}
    else:
        wanted = "x_trace"  # the extra's key, under any shape
        shown = {"x_trace": sdk["tool_calls"][0]["x_trace"], "function.x_hint": sdk["tool_calls"][0]["function"].get("x_hint")}
    print(name)
    print(f"  openai SDK: {json.dumps(shown)[:160]}")
    for label, settings in (("default", None), ("openai_include_unmapped_response_data=True",
                                                {"openai_include_unmapped_response_data": True})):
        response = asyncio.run(pydantic_ai(chunks, settings))
        found = wanted in everything(response)
        print(f"  pydantic-ai ({label}): parts {response.parts}, provider_details {response.provider_details}")
        print(f"  pydantic-ai ({label}) holds {wanted!r}: {found}")
        missing |= not found
raise SystemExit(1 if missing else 0)
