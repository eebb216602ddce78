# requires: litellm==1.110.2 openai==3.57.0
# run: python litellm_index_less_merged.py
"""litellm merges tool calls streamed without ``index`` into one call.

An OpenAI-compatible server streams ``get_weather({"city": "Rome"})`` then
``get_time({"zone": "CET"})`` with no ``index`` on the fragments (the second call's id comes
late). The openai SDK's ``client.chat.completions.stream`` refuses the stream (it cannot
place a fragment without index). ``litellm.stream_chunk_builder`` over the chunks of
``litellm.completion(..., stream=True)`` returns one call named ``get_time`` whose arguments
are ``{"city": "Rome"}{"zone": "CET"}``: both calls are lost without an error.

Exits 1 while litellm returns a single merged call for the two.
"""

import json
import logging
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's bundled model list: no fetch at import

import httpx2  # noqa: E402  (the HTTP library of the openai SDK)
import litellm  # noqa: E402
import openai  # noqa: E402

litellm.suppress_debug_info = True
logging.getLogger("LiteLLM").disabled = True  # litellm's own log of what it swallows or raises
MESSAGES = [{"role": "user", "content": "hi"}]


def client(chunks):
    """An openai client whose every request is answered with ``chunks`` as the SSE body."""
    body = "".join(f"data: {c if isinstance(c, str) else json.dumps(c)}\n\n" for c in chunks).encode()

    def handler(request):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return openai.OpenAI(api_key="placeholder", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def litellm_message(chunks):
    """litellm's documented path: completion(stream=True), collect the chunks, stream_chunk_builder."""
    stream = litellm.completion(model="openai/gpt-4o", messages=MESSAGES, stream=True, client=client(chunks))
    collected = [chunk for chunk in stream]
    return litellm.stream_chunk_builder(collected, messages=MESSAGES).choices[0].message.model_dump()


def sdk_message(chunks):
    """The openai SDK's client.chat.completions.stream(...) over the same bytes."""
    with client(chunks).chat.completions.stream(model="gpt-4o", messages=MESSAGES) as stream:
        for _event in stream:
            pass
        return stream.current_completion_snapshot.choices[0].message.to_dict()


def show(label, value):
    print(f"{label:<36} {json.dumps(value, ensure_ascii=False, default=str)}")


NO_INDEX = [  # corpus case openai-chat/syn-no-index-late-id
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'type': 'function', 'function': {'name': 'get_weather', 'arguments': ''}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'id': 'call_mcs_late_a', 'function': {'arguments': '{"city": "Rome"}'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'id': 'call_mcs_late_b', 'type': 'function', 'function': {'name': 'get_time', 'arguments': '{"zone": '}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'function': {'arguments': '"CET"}'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-syn', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'tool_calls'}]},
    '[DONE]',
]

ours = [(c.get("id"), c["function"]["name"], c["function"]["arguments"])
        for c in litellm_message(NO_INDEX).get("tool_calls") or []]
try:
    sdk = sdk_message(NO_INDEX).get("tool_calls")
except Exception as exc:  # noqa: BLE001 -- the SDK refuses this stream
    sdk = f"raises {type(exc).__name__}: {exc}"
show("litellm (id, name, arguments)", ours)
show("openai SDK", sdk)
merged = len(ours) == 1
print(f"litellm returns one call for two: {merged}")
raise SystemExit(1 if merged else 0)
