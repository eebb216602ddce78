# requires: litellm==1.110.2 openai==3.57.0
# run: python litellm_stream_false_refuses.py
"""``litellm.completion(stream=False)`` refuses a whole answer when one part of its message
is of a shape litellm's ``Message`` type does not take.

Two ``stream=false`` answers: one whose ``content`` is a list of content parts beside a
call (``[{"type": "text", ...}]``), one whose ``tool_calls`` holds an entry that is a bare
string before a valid call. The openai SDK's ``client.chat.completions.create`` returns the
call (for the second, the valid one beside the malformed entry). litellm raises
``InternalServerError`` ("Invalid response object", from a ``ValidationError`` for the
content list, an ``AttributeError`` for the entry): the valid calls are lost with the answer.

Exits 1 while litellm raises on either answer.
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


PARTS = {'role': 'assistant', 'content': [{'type': 'text', 'text': 'Checking.'}, {'type': 'text', 'text': ' One moment.'}], 'tool_calls': [{'id': 'call_mcs_parts', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': '{"city": "Paris"}'}}]}  # corpus case openai-chat/msg-content-parts-with-call
NOT_OBJECT = {'role': 'assistant', 'content': None, 'tool_calls': ['get_weather', {'id': 'call_mcs_ok', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': '{"city": "Paris"}'}}]}  # corpus case openai-chat/msg-malformed-entry-not-object

raised = False
for label, message in (("content as a list of parts", PARTS), ("a tool_calls entry that is a string", NOT_OBJECT)):
    print(label)
    try:
        show("  openai SDK calls", sdk_calls(message))
    except Exception as exc:  # noqa: BLE001
        show("  openai SDK raises", f"{type(exc).__name__}: {exc}")
    try:
        show("  litellm calls", litellm_calls(message))
    except Exception as exc:  # noqa: BLE001 -- the refusal is the finding
        raised = True
        print(f"  litellm.completion raises {type(exc).__name__}: {str(exc).splitlines()[0][:140]}")
print(f"litellm refuses an answer the SDK reads: {raised}")
raise SystemExit(1 if raised else 0)
