# requires: litellm==1.110.2 openai==3.57.0
# run: python litellm_empty_id_dropped.py
"""litellm drops a streamed tool call whose ``id`` or name is the empty string.

``stream_chunk_builder`` emits a call only when it has a non-empty id and a non-empty name.
Two streams from OpenAI-compatible servers: two complete calls streamed with ``"id": ""``
(``get_weather``, ``get_time``), and one call with ``"name": ""``. The openai SDK's
``client.chat.completions.stream`` keeps every call (``id: ""``, ``name: ""``); the builder,
over the chunks of ``litellm.completion(..., stream=True)``, returns ``tool_calls: []``: the
calls vanish without an error.

Exits 1 while litellm returns fewer calls than the SDK.
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


EMPTY_ID = [  # corpus case openai-chat/syn-call-id-empty-throughout
    {'id': 'chatcmpl-mcs-empty-id-throughout', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'qwen2.5-7b-instruct', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None, 'tool_calls': [{'index': 0, 'id': '', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': ''}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-empty-id-throughout', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'qwen2.5-7b-instruct', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'id': '', 'function': {'arguments': '{"city": '}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-empty-id-throughout', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'qwen2.5-7b-instruct', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'id': '', 'function': {'arguments': '"Oslo"}'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-empty-id-throughout', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'qwen2.5-7b-instruct', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 1, 'id': '', 'type': 'function', 'function': {'name': 'get_time', 'arguments': '{"tz": "CET"}'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-empty-id-throughout', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'qwen2.5-7b-instruct', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'tool_calls'}]},
    '[DONE]',
]
EMPTY_NAME = [  # corpus case openai-chat/syn-call-name-empty
    {'id': 'chatcmpl-mcs-empty-name', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None, 'tool_calls': [{'index': 0, 'id': 'call_mcs_empty_name', 'type': 'function', 'function': {'name': '', 'arguments': ''}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-empty-name', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': '{"city": "Quito"}'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-empty-name', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'tool_calls'}]},
    '[DONE]',
]

kept = True
for label, chunks in (("calls with id \"\"", EMPTY_ID), ("a call with name \"\"", EMPTY_NAME)):
    ours = [(c.get("id"), c["function"]["name"]) for c in litellm_message(chunks).get("tool_calls") or []]
    sdk = [(c.get("id"), c["function"]["name"]) for c in sdk_message(chunks).get("tool_calls") or []]
    print(label)
    show("  litellm (id, name)", ours)
    show("  openai SDK (id, name)", sdk)
    kept &= len(ours) == len(sdk)
print(f"litellm keeps every call: {kept}")
raise SystemExit(0 if kept else 1)
