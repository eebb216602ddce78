# requires: litellm==1.110.2 openai==3.57.0
# run: python litellm_stream_false_made_up_id.py
"""``litellm.completion(stream=False)`` gives a tool call that came without an ``id`` a random
one.

A ``stream=false`` answer with two calls, the second without ``id``. The openai SDK's
``client.chat.completions.create`` leaves it without one. litellm's
``ChatCompletionMessageToolCall`` sets ``id = str(uuid.uuid4())`` when none is given, so the
call gets a made-up id, another one each time the same answer is parsed.

Exits 1 while litellm's id for that call differs from the SDK's.
"""

import json
import logging
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's bundled model list: no fetch at import

import httpx2  # noqa: E402  (the HTTP library of the openai SDK)
import litellm  # noqa: E402
import openai  # noqa: E402

litellm.suppress_debug_info = True
logging.getLogger("LiteLLM").disabled = True  # litellm's own log of what it raises
MESSAGES = [{"role": "user", "content": "hi"}]


def client(message):
    """An openai client whose every request is answered with a chat.completion holding ``message``."""
    body = json.dumps({"id": "chatcmpl-mcs", "object": "chat.completion", "created": 1760000000, "model": "gpt-4o",
                       "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls"}]})

    def handler(request):
        return httpx2.Response(200, headers={"content-type": "application/json"}, content=body.encode())

    return openai.OpenAI(api_key="placeholder", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def litellm_calls(message):
    """litellm's documented path: completion(stream=False), then choices[0].message.tool_calls."""
    response = litellm.completion(model="openai/gpt-4o", messages=MESSAGES, client=client(message))
    return [(c.id, c.function.name, c.function.arguments) for c in response.choices[0].message.tool_calls or []]


def sdk_calls(message):
    """The openai SDK's client.chat.completions.create(...) on the same body."""
    response = client(message).chat.completions.create(model="gpt-4o", messages=MESSAGES)
    entries = response.choices[0].message.to_dict().get("tool_calls") or []
    return [(c.get("id"), c["function"]["name"], c["function"]["arguments"]) if isinstance(c, dict) else c
            for c in entries]


def show(label, value):
    print(f"{label:<36} {json.dumps(value, ensure_ascii=False, default=str)}")


NO_ID = {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_mcs_1', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': '{"city": "Oslo"}'}}, {'type': 'function', 'function': {'name': 'get_time', 'arguments': '{"tz": "CET"}'}}]}  # corpus case openai-chat/msg-made-up-id-clash

sdk = sdk_calls(NO_ID)
first, second = litellm_calls(NO_ID), litellm_calls(NO_ID)
show("openai SDK (id, name, arguments)", sdk)
show("litellm, first parse", first)
show("litellm, second parse", second)
made_up = [c[0] for c in first] != [c[0] for c in sdk]
print(f"litellm makes up an id: {made_up}; the same on a second parse: {first == second}")
raise SystemExit(1 if made_up else 0)
