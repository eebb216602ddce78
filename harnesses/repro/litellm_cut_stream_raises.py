# requires: litellm==1.110.2 openai==3.57.0
# run: python litellm_cut_stream_raises.py
"""litellm's stream raises when it ends before any ``finish_reason``.

The recorded two-call stream of tool-calls-parallel-2, cut while the second call's arguments
stream, then ended with ``data: [DONE]``. The openai SDK's ``client.chat.completions.stream``
returns the calls so far (the first complete, the second cut; no finish reason says so).
Iterating ``litellm.completion(..., stream=True)`` raises at the end: ``MidStreamFallbackError``
around litellm's ``APIConnectionError`` "Stream ended before a finish_reason was received"
(litellm's deliberate end-of-stream check for OpenAI chat streams, ``_should_fail_on_clean_eof``).
The chunks collected before it are the caller's, but the loop ends in an error.

Exits 1 while litellm's stream raises here.
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


CUT = [  # corpus case openai-chat/syn-stream-cut-mid-second-call
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
    {'id': 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63', 'object': 'chat.completion.chunk', 'created': 1727346178, 'model': 'gpt-4o-2024-08-06', 'system_fingerprint': 'fp_5050236cbd', 'choices': [{'index': 0, 'delta': {'tool_calls': [{'index': 1, 'function': {'arguments': 'L", '}}]}, 'logprobs': None, 'finish_reason': None}]},
]

CUT = CUT + ["[DONE]"]
sdk = [(c["function"]["name"], c["function"]["arguments"]) for c in sdk_message(CUT).get("tool_calls") or []]
show("openai SDK (name, arguments)", sdk)
try:
    ours = litellm_message(CUT)
except Exception as exc:  # noqa: BLE001 -- the end-of-stream error is the finding
    text = str(exc).splitlines()[0]
    print(f"litellm's stream raises {type(exc).__name__}: {text[:160]}")
    print(f"it says Stream ended before a finish_reason was received: {'Stream ended before a finish_reason' in text}")
    raise SystemExit(1)
show("litellm (name, arguments)", [(c["function"]["name"], c["function"]["arguments"])
                                   for c in ours.get("tool_calls") or []])
raise SystemExit(0)
