"""litellm's streaming path reads chunks of the wrong type without an error, where the openai
SDK's own accumulator raises on each.

Five short Chat Completions streams, each with one chunk of a wrong type: a choice whose
``index`` is the word ``"zero"``; a tool-call fragment whose ``index`` is ``"first"`` or
``0.5``; a ``tool_calls`` entry that is a string; ``tool_calls`` that is an object, not a list.
On the same SSE bytes, ``client.chat.completions.create(stream=True)`` folded by the SDK's
``ChatCompletionStreamState`` raises (``TypeError``), while the loop over
``litellm.completion(stream=True)`` and ``litellm.stream_chunk_builder`` over its chunks (how
litellm's docs rebuild a streamed message) end without an error. The chunks are synthetic
(no provider is known to send them).

    pip install litellm==1.110.2 openai==3.57.0
    python litellm_malformed_chunks_read.py

Exits 1 while litellm reads a stream the SDK refuses without an error (0 once it raises).
"""
# requires: litellm==1.110.2, openai==3.57.0

import json
import logging
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's bundled model list: no fetch at import

import httpx2  # noqa: E402  (the HTTP library of the openai SDK)
import litellm  # noqa: E402
import openai  # noqa: E402
from openai.lib.streaming.chat import ChatCompletionStreamState  # noqa: E402

litellm.suppress_debug_info = True
logging.getLogger("LiteLLM").disabled = True  # litellm's own log of what it swallows
MESSAGES = [{"role": "user", "content": "hi"}]

FIRST = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1760000000, "model": "gpt-4o",
         "choices": [{"index": 0, "delta": {"role": "assistant", "content": None, "tool_calls": [
             {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]},
             "finish_reason": None}]}
LAST = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1760000000, "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


def middle(delta: dict, index=0) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1760000000, "model": "gpt-4o",
            "choices": [{"index": index, "delta": delta, "finish_reason": None}]}


ARGS = {"arguments": "{\"city\": \"Paris\"}"}
STREAMS = {
    "choice index \"zero\"": [FIRST, middle({"content": "Paris"}, index="zero"), LAST],
    "fragment index \"first\"": [FIRST, middle({"tool_calls": [{"index": "first", "function": ARGS}]}), LAST],
    "fragment index 0.5": [FIRST, middle({"tool_calls": [{"index": 0.5, "function": ARGS}]}), LAST],
    "tool_calls entry a string": [FIRST, middle({"tool_calls": ["call_1"]}), LAST],
    "tool_calls an object": [FIRST, middle({"tool_calls": {"index": 0, "function": {"arguments": "{}"}}}), LAST],
}


def client(chunks: list) -> openai.OpenAI:
    """An openai client whose every request is answered with ``chunks`` as the SSE body."""
    body = ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()

    def handler(request):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return openai.OpenAI(api_key="placeholder", max_retries=0,
                         http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def sdk(chunks: list) -> str:
    state = ChatCompletionStreamState()
    try:
        for c in client(chunks).chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True):
            state.handle_chunk(c)
    except Exception as exc:  # noqa: BLE001 -- the SDK's answer
        return f"raises {type(exc).__name__}"
    return "reads it"


def with_litellm(chunks: list) -> str:
    try:
        got = list(litellm.completion(model="openai/gpt-4o", messages=MESSAGES, stream=True, client=client(chunks)))
        message = litellm.stream_chunk_builder(got, messages=MESSAGES).choices[0].message
    except Exception as exc:  # noqa: BLE001 -- the answer once fixed
        return f"raises {type(exc).__name__}"
    calls = [(c.function.name, c.function.arguments) for c in message.tool_calls or ()]
    return f"reads it without an error (content {message.content!r}, calls {calls})"


accepted = 0
for label, chunks in STREAMS.items():
    theirs, ours = sdk(chunks), with_litellm(chunks)
    print(f"{label}: openai SDK {theirs}; litellm {ours}")
    accepted += theirs.startswith("raises") and not ours.startswith("raises")
print(f"streams the SDK refuses that litellm reads without an error: {accepted} of {len(STREAMS)}")
raise SystemExit(1 if accepted else 0)
