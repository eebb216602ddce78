# requires: litellm==1.110.2 openai==3.57.0
# run: python litellm_name_split_keeps_tail.py
"""litellm keeps only the last name fragment of a tool call; the openai SDK concatenates.

Two streams. In the first, one call's name arrives as ``"get_"`` then ``"weather"``: the
openai SDK's ``client.chat.completions.stream`` (as the Chat Completions stream format does
for every string field) gives ``get_weather``; ``litellm.stream_chunk_builder`` over the
chunks of ``litellm.completion(..., stream=True)`` gives ``weather``. In the second, two
calls reuse index 0 with new ids (``get_weather``, then ``get_time``): the SDK concatenates
(``get_weatherget_time``); litellm returns one call named ``get_time`` that holds both
calls' arguments (``{"city": "Paris"}{"zone": "CET"}``).

Exits 1 while litellm's names differ from the SDK's.
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


NAME_SPLIT = [  # corpus case openai-chat/syn-name-split-across-fragments
    {'id': 'chatcmpl-mcs-split-name', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None, 'tool_calls': [{'index': 0, 'id': 'call_mcs_split_name', 'type': 'function', 'function': {'name': 'get_', 'arguments': ''}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-split-name', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'name': 'weather'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-split-name', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': '{"ci'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-split-name', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': 'ty": "Be'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-split-name', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': 'rlin"}'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-split-name', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'tool_calls'}]},
    '[DONE]',
]
SAME_INDEX = [  # corpus case openai-chat/syn-same-index-new-ids
    {'id': 'chatcmpl-zoo', 'object': 'chat.completion.chunk', 'created': 1732900000, 'model': 'gpt-4o-2024-08-06', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-zoo', 'object': 'chat.completion.chunk', 'created': 1732900000, 'model': 'gpt-4o-2024-08-06', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'id': 'call_zoo_w', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': '{"city": "Paris"}'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-zoo', 'object': 'chat.completion.chunk', 'created': 1732900000, 'model': 'gpt-4o-2024-08-06', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'id': 'call_zoo_t', 'type': 'function', 'function': {'name': 'get_time', 'arguments': '{"zone": "CET"}'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-zoo', 'object': 'chat.completion.chunk', 'created': 1732900000, 'model': 'gpt-4o-2024-08-06', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'tool_calls'}]},
    '[DONE]',
]

same = True
for label, chunks in (("name in two pieces", NAME_SPLIT), ("two calls at index 0", SAME_INDEX)):
    ours = [(c["function"]["name"], c["function"]["arguments"]) for c in litellm_message(chunks).get("tool_calls") or []]
    sdk = [(c["function"]["name"], c["function"]["arguments"]) for c in sdk_message(chunks).get("tool_calls") or []]
    print(label)
    show("  litellm (name, arguments)", ours)
    show("  openai SDK (name, arguments)", sdk)
    same &= [n for n, _ in ours] == [n for n, _ in sdk]
print(f"litellm names equal the SDK's: {same}")
raise SystemExit(0 if same else 1)
