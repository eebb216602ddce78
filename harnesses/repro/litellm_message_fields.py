# requires: litellm==1.110.2 openai==3.57.0
# run: python litellm_message_fields.py
"""litellm's rebuilt message differs from the openai SDK's in its fields.

Four streams, ``litellm.stream_chunk_builder`` over the chunks of
``litellm.completion(..., stream=True)`` next to the openai SDK's
``client.chat.completions.stream``: a call cut by the content filter before its first
argument gets ``arguments: "{}"`` (a complete call without arguments, to its reader; the SDK
keeps ``""``); OpenRouter's ``reasoning_details`` is lost (``reasoning_content`` is kept);
provider fields of the message (``x_*`` of every JSON type) and extra keys of a tool call's
fragments (``x_trace``, ``function.x_hint``) are lost. A fifth, recorded from the Mistral API
serving zai-glm-5-2 (vercel/ai's fixture mistral-incremental-tool-call): the ``index`` its
deltas carry is lost and a ``role`` the stream never sent is filled in.

Exits 1 while any of these fields differs from the SDK's.
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


CUT_BY_FILTER = [  # corpus case openai-chat/syn-tool-call-cut-by-content-filter
    {'id': 'chatcmpl-mcs-cut-filter', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': ''}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-cut-filter', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': 'Let me look '}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-cut-filter', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': 'that up.'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-cut-filter', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'id': 'call_mcs_cut_filter', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': ''}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-cut-filter', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'content_filter'}]},
    '[DONE]',
]
REASONING = [  # corpus case openai-chat/syn-reasoning-details-extras
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': '', 'reasoning_content': 'The user', 'reasoning_details': [{'type': 'reasoning.text', 'text': 'The user', 'format': 'unknown', 'index': 0}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': '', 'reasoning_content': ' asks about', 'reasoning_details': [{'type': 'reasoning.text', 'text': ' asks about', 'index': 0}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': '', 'reasoning_content': ' the weather in Paris.', 'reasoning_details': [{'type': 'reasoning.text', 'text': ' the weather in Paris.', 'index': 0}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': '', 'reasoning_content': None, 'reasoning_details': [{'type': 'reasoning.summary', 'summary': 'Weather question:', 'format': 'unknown', 'index': 1}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'reasoning_details': [{'summary': ' Paris.', 'index': 1}, {'type': 'reasoning.encrypted', 'data': 'gAAAAABmcs-encrypted-reasoning-blob', 'format': 'unknown', 'index': 2}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': 'It is sunny', 'reasoning_content': None}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': ' in Paris.'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-reasoning', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'stop'}]},
    '[DONE]',
]
EXTRAS = [  # corpus case openai-chat/syn-extras-of-every-json-type
    {'id': 'chatcmpl-mcs-extras-types', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': '', 'refusal': None, 'x_tokens': 3, 'x_sources': ['https://a.example/1'], 'x_note': 'first', 'x_meta': {'k': 'v'}, 'x_tags': ['t1'], 'x_seq': 1}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-extras-types', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': 'Hel', 'x_tokens': 4, 'x_sources': ['https://b.example/2'], 'x_note': {'k': 1}, 'x_meta': 'text', 'x_tags': 't2', 'x_seq': 'b'}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-extras-types', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'content': 'lo', 'x_tokens': 0.5}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-extras-types', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'stop'}]},
    '[DONE]',
]
CALL_EXTRAS = [  # corpus case openai-chat/syn-tool-call-fragment-extras
    {'id': 'chatcmpl-mcs-fragment-extras', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': None, 'tool_calls': [{'index': 0, 'id': 'call_mcs_fragment_extras', 'type': 'function', 'x_trace': 't-', 'function': {'name': 'get_weather', 'arguments': '', 'x_hint': 'par', 'type': 'json'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-fragment-extras', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'x_trace': '123', 'function': {'arguments': '{"city":', 'x_hint': 'tial', 'type': 'json'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-fragment-extras', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 0, 'function': {'arguments': ' "Oslo"}', 'type': 'json'}}]}, 'logprobs': None, 'finish_reason': None}]},
    {'id': 'chatcmpl-mcs-fragment-extras', 'object': 'chat.completion.chunk', 'created': 1760000000, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_mcs', 'choices': [{'index': 0, 'delta': {}, 'logprobs': None, 'finish_reason': 'tool_calls'}]},
    '[DONE]',
]

MISTRAL_API = [  # corpus case openai-chat/mistral-incremental-tool-call (recorded; vercel/ai, Apache-2.0)
    {'id': '735e434874a24f68a2390b3cab149242', 'object': 'chat.completion.chunk', 'created': 1787234678, 'model': 'zai-glm-5-2', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'id': 'chatcmpl-tool-9f149c74c42f265b', 'type': 'function', 'function': {'name': 'webSearchTool', 'arguments': ''}, 'index': 0}], 'index': 0, 'content': ''}, 'finish_reason': None, 'logprobs': None}]},
    {'id': '735e434874a24f68a2390b3cab149242', 'object': 'chat.completion.chunk', 'created': 1787234678, 'model': 'zai-glm-5-2', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'type': 'function', 'function': {'name': '', 'arguments': '{"query": "current Berlin weather"}'}, 'index': 0}], 'index': 0, 'content': ''}, 'finish_reason': None, 'logprobs': None}]},
    {'id': '735e434874a24f68a2390b3cab149242', 'object': 'chat.completion.chunk', 'created': 1787234678, 'model': 'zai-glm-5-2', 'choices': [{'index': 0, 'delta': {'index': 0, 'content': ''}, 'finish_reason': 'tool_calls', 'logprobs': None}], 'usage': {'prompt_tokens': 171, 'total_tokens': 185, 'completion_tokens': 14, 'prompt_tokens_details': {'cached_tokens': 128}}},
    '[DONE]',
]


def calls(message):
    return [{k: v for k, v in c.items() if k != "index"} | {"function": {k: v for k, v in c["function"].items()
                                                                         if k != "parsed_arguments"}}
            for c in message.get("tool_calls") or []]


same = True
for label, chunks, read in (
        ("call cut by the content filter: tool_calls", CUT_BY_FILTER, calls),
        ("reasoning_details", REASONING, lambda m: m.get("reasoning_details")),
        ("x_* fields", EXTRAS, lambda m: {k: v for k, v in m.items() if k.startswith("x_")}),
        ("tool call fragment extras: tool_calls", CALL_EXTRAS, calls),
        ("Mistral API stream: role, content, index", MISTRAL_API,
         lambda m: {k: m.get(k, "(absent)") for k in ("role", "content", "index")})):
    ours, sdk = read(litellm_message(chunks)), read(sdk_message(chunks))
    print(label)
    show("  litellm", ours)
    show("  openai SDK", sdk)
    same &= ours == sdk
print(f"litellm's fields equal the SDK's: {same}")
raise SystemExit(0 if same else 1)
