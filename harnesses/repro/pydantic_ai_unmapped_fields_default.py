"""pydantic-ai's streamed ``ModelResponse`` drops the provider fields of a Chat Completions
stream that it does not map (``x_*`` extras, OpenRouter's ``reasoning_details``) unless the
documented setting ``openai_include_unmapped_response_data`` is on; then it keeps them, as
received per chunk, in ``provider_details["unmapped"]``.

Two streams: text deltas carrying ``x_*`` extras of every JSON type, and a reasoning answer
with ``reasoning_details`` entries. The openai SDK's ``client.chat.completions.stream``
keeps both in the message (folded over the deltas). pydantic-ai's ``model_request_stream``
keeps none of them by default, all of them (one entry per chunk, not folded) with
``model_settings={"openai_include_unmapped_response_data": True}``. Documented: the setting's
docstring in pydantic_ai/models/openai/_settings.py ("Defaults to `False`, since most users
don't read it and it grows stored histories.").

    pip install pydantic-ai-slim[openai]==2.68.0 openai==3.57.0
    python pydantic_ai_unmapped_fields_default.py

Exits 1 while the default keeps none of a field the SDK keeps (0 once it does).
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

EXTRAS = [
    {'id': 'chatcmpl-mcs-extras-types', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': '', 'refusal': None, 'x_tokens': 3, 'x_sources': ['https://a.example/1'], 'x_note': 'first', 'x_meta': {'k': 'v'}, 'x_tags': ['t1'], 'x_seq': 1}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-extras-types', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': 'Hel', 'x_tokens': 4, 'x_sources': ['https://b.example/2'], 'x_note': {'k': 1}, 'x_meta': 'text', 'x_tags': 't2', 'x_seq': 'b'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-extras-types', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': 'lo', 'x_tokens': 0.5}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-extras-types', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'stop'}]},
    '[DONE]'
]
REASONING_DETAILS = [
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': '', 'reasoning_content': 'The user', 'reasoning_details': [{'type': 'reasoning.text', 'text': 'The user', 'format': 'unknown', 'index': 0}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': '', 'reasoning_content': ' asks about', 'reasoning_details': [{'type': 'reasoning.text', 'text': ' asks about', 'index': 0}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': '', 'reasoning_content': ' the weather in Paris.', 'reasoning_details': [{'type': 'reasoning.text', 'text': ' the weather in Paris.', 'index': 0}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': '', 'reasoning_content': None, 'reasoning_details': [{'type': 'reasoning.summary', 'summary': 'Weather question:', 'format': 'unknown', 'index': 1}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'reasoning_details': [{'summary': ' Paris.', 'index': 1}, {'type': 'reasoning.encrypted', 'data': 'gAAAAABmcs-encrypted-reasoning-blob', 'format': 'unknown', 'index': 2}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': 'It is sunny', 'reasoning_content': None}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': ' in Paris.'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'stop'}]},
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


dropped = False
for name, chunks, field in (("x_* extras", EXTRAS, "x_note"), ("reasoning_details", REASONING_DETAILS, "reasoning_details")):
    sdk = asyncio.run(openai_sdk(chunks))[field]
    default = asyncio.run(pydantic_ai(chunks))
    kept = asyncio.run(pydantic_ai(chunks, {"openai_include_unmapped_response_data": True}))
    marker = json.dumps(sdk)[:24]
    in_default = field in everything(default)
    print(name)
    print(f"  openai SDK message[{field!r}]: {json.dumps(sdk)[:120]}")
    print(f"  pydantic-ai (default) keeps {field}: {in_default}; provider_details: {default.provider_details}")
    unmapped = (kept.provider_details or {}).get("unmapped", {}).get("chunks", [])
    print(f"  pydantic-ai (openai_include_unmapped_response_data=True) keeps {field}: {field in everything(kept)}; "
          f"unmapped chunks: {json.dumps(unmapped)[:160]}")
    dropped |= not in_default
raise SystemExit(1 if dropped else 0)
