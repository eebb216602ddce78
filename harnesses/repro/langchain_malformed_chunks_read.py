"""LangChain's ``ChatOpenAI.stream()`` reads chunks of the wrong type without an error, where the
openai SDK's own accumulator raises on each.

Three short Chat Completions streams, each with one chunk of a wrong type in a choice entry:
a choice whose ``index`` is the word ``"zero"``; a second ``choices`` entry (no ``index``)
whose ``content`` is the number 5; one whose ``delta`` is a string. On the same SSE bytes,
``client.chat.completions.create(stream=True)`` folded by the SDK's
``ChatCompletionStreamState`` raises (``TypeError``), while ``ChatOpenAI.stream()`` summed with
``+`` (as LangChain's docs aggregate a stream) ends without an error: it reads
``choices[0]`` whatever its index and never looks at the other entries. The chunks are
synthetic (no provider is known to send them).

    pip install langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
    python langchain_malformed_chunks_read.py

Exits 1 while LangChain reads a stream the SDK refuses without an error (0 once it raises).
"""
# requires: langchain-openai==1.7.4, langchain-core==1.8.3, openai==3.57.0

import json

import httpx2
import openai
from langchain_openai import ChatOpenAI
from openai.lib.streaming.chat import ChatCompletionStreamState

FIRST = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1760000000, "model": "gpt-4o",
         "choices": [{"index": 0, "delta": {"role": "assistant", "content": None, "tool_calls": [
             {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]},
             "finish_reason": None}]}
LAST = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1760000000, "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


def middle(choices: list) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1760000000, "model": "gpt-4o",
            "choices": choices}


STREAMS = {
    "choice index \"zero\"": [FIRST, middle([{"index": "zero", "delta": {"content": "Paris"}, "finish_reason": None}]), LAST],
    "second entry, content 5": [FIRST, middle([{"index": 0, "delta": {"content": "Par"}, "finish_reason": None},
                                               {"delta": {"content": 5}, "finish_reason": None}]), LAST],
    "second entry, delta a string": [FIRST, middle([{"index": 0, "delta": {"content": "Par"}, "finish_reason": None},
                                                    {"delta": "is", "finish_reason": None}]), LAST],
}


def http(body: bytes) -> httpx2.Client:
    """An httpx2 client whose transport answers every request with ``body``: nothing is sent."""
    return httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)))


def sse(chunks: list) -> bytes:
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def sdk(chunks: list) -> str:
    client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http(sse(chunks)))
    state = ChatCompletionStreamState()
    try:
        for c in client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True):
            state.handle_chunk(c)
    except Exception as exc:  # noqa: BLE001 -- the SDK's answer
        return f"raises {type(exc).__name__}"
    return "reads it"


def langchain(chunks: list) -> str:
    llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", max_retries=0, http_client=http(sse(chunks)))
    full = None
    try:
        for piece in llm.stream("hi"):
            full = piece if full is None else full + piece
    except Exception as exc:  # noqa: BLE001 -- the answer once fixed
        return f"raises {type(exc).__name__}"
    return f"reads it without an error (content {full.content!r})"


accepted = 0
for label, chunks in STREAMS.items():
    theirs, ours = sdk(chunks), langchain(chunks)
    print(f"{label}: openai SDK {theirs}; LangChain {ours}")
    accepted += theirs.startswith("raises") and not ours.startswith("raises")
print(f"streams the SDK refuses that LangChain reads without an error: {accepted} of {len(STREAMS)}")
raise SystemExit(1 if accepted else 0)
