"""pydantic-ai reports a streamed Chat Completions answer that ended before any finish reason
as finished (``finish_reason == "stop"``): its documented default, which the model profile's
``openai_chat_streaming_requires_finish_reason`` turns into an error.

The chunks are the first 18 of a recorded two-call stream (openai/openai-python's
tool-calls-parallel-2 recording), cut while the second call's arguments stream: no
``finish_reason``, no ``[DONE]``, then the connection closes. The openai SDK's
``client.chat.completions.stream`` leaves ``finish_reason`` null on the same bytes;
pydantic-ai's ``model_request_stream`` returns ``finish_reason="stop"`` and the first call,
whose arguments parse, as a call the agent would run. With
``profile=OpenAIModelProfile(openai_chat_streaming_requires_finish_reason=True)`` the same
stream raises ``ModelAPIError``. Documented: pydantic_ai/profiles/openai.py (the flag's
docstring: "This defaults to `False` because OpenAI-compatible APIs do not consistently
guarantee the field.").

    pip install pydantic-ai-slim[openai]==2.68.0 openai==3.57.0
    python pydantic_ai_cut_stream_runs_call.py

Exits 1 while the default reports a finish the stream never sent (0 once it does not).
"""
# requires: pydantic-ai-slim==2.68.0, openai==3.57.0

import asyncio
import json

import httpx2
import openai
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request_stream
from pydantic_ai.exceptions import ModelAPIError
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.profiles.openai import OpenAIModelProfile
from pydantic_ai.providers.openai import OpenAIProvider

CHUNKS = [
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'id': 'call_JMW1whyEaYG438VE1OIflxA2', 'type': 'function', 'function': {'name': 'GetWeatherArgs', 'arguments': ''}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': '{"ci'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': 'ty": '}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': '"Edinb'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': 'urgh'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': '", "c'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': 'ountry'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': '": "'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': 'GB", '}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': '"units'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': '": "'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': 'c"}'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 1, 'id': 'call_DNYTawLBoN8fj3KN6qU9N1Ou', 'type': 'function', 'function': {'name': 'get_stock_price', 'arguments': ''}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 1, 'function': {'arguments': '{"ti'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 1, 'function': {'arguments': 'cker"'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 1, 'function': {'arguments': ': "AAP'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 1, 'function': {'arguments': 'L", '}}]}, 'logprobs': None, 'finish_reason': None}]}
]
BODY = "".join(f"data: {json.dumps(c)}\n\n" for c in CHUNKS).encode()  # no [DONE]: the stream was cut


def client() -> openai.AsyncOpenAI:
    async def handler(request):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=BODY)

    return openai.AsyncOpenAI(api_key="placeholder", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))


async def pydantic_ai(profile=None):
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client()), profile=profile)
    async with model_request_stream(model, [ModelRequest.user_text_prompt("weather and stock?")]) as stream:
        async for _event in stream:
            pass
        return stream.get()


async def openai_sdk():
    async with client().chat.completions.stream(model="gpt-4o", messages=[{"role": "user", "content": "weather and stock?"}]) as stream:
        async for _event in stream:
            pass
        return stream.current_completion_snapshot


response = asyncio.run(pydantic_ai())
calls = [(p.tool_name, p.args_as_dict()) for p in response.parts if isinstance(p, ToolCallPart)]
print(f"pydantic-ai (default) finish_reason: {response.finish_reason!r}")
print(f"pydantic-ai (default) calls: {calls}")
print(f"openai SDK finish_reason: {asyncio.run(openai_sdk()).choices[0].finish_reason!r}")
try:
    flagged = asyncio.run(pydantic_ai(OpenAIModelProfile(openai_chat_streaming_requires_finish_reason=True)))
    print(f"pydantic-ai (openai_chat_streaming_requires_finish_reason=True) finish_reason: {flagged.finish_reason!r}")
except ModelAPIError as exc:
    print(f"pydantic-ai (openai_chat_streaming_requires_finish_reason=True) raises ModelAPIError: {exc}")
raise SystemExit(1 if response.finish_reason is not None else 0)
