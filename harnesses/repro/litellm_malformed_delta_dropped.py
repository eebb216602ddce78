# requires: litellm==1.110.2 openai==3.57.0
# run: python litellm_malformed_delta_dropped.py
"""litellm replaces a delta it cannot validate with an empty one, silently.

A tool call's second fragment carries ``"id": 12345`` (a number; no provider is known to send
it) beside the call's whole arguments. litellm's stream wrapper fails to build its ``Delta``,
logs the error and yields an empty delta in its place, so ``stream_chunk_builder`` returns
the call with ``arguments: "{}"``: a complete call without arguments, ready to run. The
openai SDK's ``client.chat.completions.stream`` keeps the arguments. Where such a fragment is
cut into pieces, only the piece holding the bad key is lost: the answer depends on how the
chunks were cut.

Exits 1 while litellm's arguments differ from the SDK's.
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


ID_NUMBER = [  # corpus case openai-chat/syn-malformed-fragment-id-number
    {'id': 'chatcmpl-mcs-fragment-id-number', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None, 'tool_calls': [{'index': 0, 'id': 'call_mcs_malformed', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': ''}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-fragment-id-number', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': '{"city": "Paris"}'}, 'id': 12345}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-fragment-id-number', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'tool_calls'}]},
    '[DONE]',
]

ours = [c["function"]["arguments"] for c in litellm_message(ID_NUMBER).get("tool_calls") or []]
sdk = [c["function"]["arguments"] for c in sdk_message(ID_NUMBER).get("tool_calls") or []]
show("litellm arguments", ours)
show("openai SDK arguments", sdk)
print(f"litellm keeps the arguments: {ours == sdk}")
raise SystemExit(0 if ours == sdk else 1)
