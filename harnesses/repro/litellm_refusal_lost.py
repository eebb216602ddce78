# requires: litellm==1.110.2 openai==3.57.0
# run: python litellm_refusal_lost.py
"""litellm loses a refusal streamed in ``delta.refusal`` pieces.

The recorded gpt-4o refusal (openai-python's fixture, 14 chunks): the first delta has
``content: null, refusal: ""``, the next ones carry the refusal text in ``delta.refusal``.
The openai SDK's ``client.chat.completions.stream`` ends with ``content: null`` and the
refusal text. ``litellm.completion(..., stream=True)`` yields no chunk for the refusal-only
deltas, and ``litellm.stream_chunk_builder`` over what it yielded returns ``content: ""`` and
no refusal: the answer reads as an empty reply. (When the whole refusal arrives in the first
delta, beside ``role``, litellm keeps it: the answer depends on how the provider cut it.)

Exits 1 while litellm's refusal differs from the SDK's (0 once fixed).
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


REFUSAL = [  # corpus case openai-chat/refusal
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None, 'refusal': ''}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'refusal': "I'm"}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'refusal': ' sorry'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'refusal': ','}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'refusal': ' I'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'refusal': " can't"}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'refusal': ' assist'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'refusal': ' with'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'refusal': ' that'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'refusal': ' request'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'refusal': '.'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'stop'}]},
    {'id': 'chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7', 'object': 'chat.completion.chunk', 'created': 1727346172, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [], 'usage': {'prompt_tokens': 79, 'completion_tokens': 11, 'total_tokens': 90, 'completion_tokens_details': {'reasoning_tokens': 0}}},
    '[DONE]',
]

ours, sdk = litellm_message(REFUSAL), sdk_message(REFUSAL)
show("litellm content", ours.get("content"))
show("litellm refusal", ours.get("refusal"))
show("openai SDK content", sdk.get("content"))
show("openai SDK refusal", sdk.get("refusal"))
kept = ours.get("refusal") == sdk.get("refusal")
print(f"litellm keeps the refusal: {kept}")
raise SystemExit(0 if kept else 1)
