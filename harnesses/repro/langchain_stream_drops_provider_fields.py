# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_stream_drops_provider_fields.py
"""LangChain's ``ChatOpenAI`` keeps no provider field outside the OpenAI API (documented).

``ChatOpenAI.stream()`` summed with ``+`` over three streams of OpenAI-compatible providers
(the shapes of the suite's cases openai-chat/syn-reasoning-details-extras,
syn-extras-of-every-json-type and syn-tool-call-fragment-extras): a reasoning provider's
``reasoning_content``, ``x_*`` keys on a delta, extra keys on a tool-call fragment. Printed
next to the openai SDK's accumulated message on the same bytes (the SDK keeps every key) and
next to ``ChatOpenAI.invoke()`` over a stream=false response holding that message.

langchain-openai documents this (module docstring of langchain_openai/chat_models/base.py):
"Non-standard response fields added by third-party providers (e.g., `reasoning_content`,
`reasoning_details`) are **not** extracted or preserved." It points such providers to their
own packages (``ChatDeepSeek``, ``ChatOpenRouter``).

Exits 1 while the summed stream keeps none of these fields.
"""

import json

import httpx2
import openai
from langchain_openai import ChatOpenAI
from openai.lib.streaming.chat import ChatCompletionStreamState


def chunk(delta: dict, finish=None) -> dict:
    return {"id": "chatcmpl-mcs", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4o",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def http(body: bytes, kind: str) -> httpx2.Client:
    """An httpx2 client whose transport answers every request with ``body``: nothing is sent."""
    return httpx2.Client(transport=httpx2.MockTransport(
        lambda request: httpx2.Response(200, headers={"content-type": kind}, content=body)))


def sse(chunks: list) -> bytes:
    return "".join(f"data: {c if isinstance(c, str) else json.dumps(c)}\n\n" for c in chunks).encode()


def langchain_stream(chunks: list):
    """ChatOpenAI.stream() over the chunks, summed with + as LangChain's docs show."""
    llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", max_retries=0,
                     http_client=http(sse(chunks), "text/event-stream"))
    full = None
    for piece in llm.stream("hi"):
        full = piece if full is None else full + piece
    return full


def sdk_message(chunks: list) -> dict:
    """The openai SDK on the same bytes: client.chat.completions.create(stream=True) folded by
    its ChatCompletionStreamState."""
    client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http(sse(chunks), "text/event-stream"))
    state = ChatCompletionStreamState()
    for c in client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True):
        state.handle_chunk(c)
    return state.current_completion_snapshot.choices[0].message.model_dump(exclude_none=True)


def show(label: str, value) -> None:
    print(f"{label:<34} {json.dumps(value, ensure_ascii=False, default=str)}")


def langchain_invoke(message: dict, finish: str):
    """ChatOpenAI.invoke() over a stream=false response that carries ``message``."""
    body = json.dumps({"id": "chatcmpl-mcs", "object": "chat.completion", "created": 0, "model": "gpt-4o",
                       "choices": [{"index": 0, "message": message, "finish_reason": finish}]}).encode()
    llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", max_retries=0, http_client=http(body, "application/json"))
    return llm.invoke("hi")


REASONING = [
    chunk({"role": "assistant", "content": "", "reasoning_content": "The user"}),
    chunk({"content": "", "reasoning_content": " asks about the weather in Paris."}),
    chunk({"content": "It is sunny in Paris."}),
    chunk({}, "stop"),
    "[DONE]",
]
EXTRAS = [
    chunk({"role": "assistant", "content": "", "x_note": "first", "x_sources": ["https://a.example/1"]}),
    chunk({"content": "Hello", "x_note": " second"}),
    chunk({}, "stop"),
    "[DONE]",
]
FRAGMENT = [
    chunk({"role": "assistant", "content": None, "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "x_trace": "t-",
         "function": {"name": "get_weather", "arguments": "", "x_hint": "par"}}]}),
    chunk({"tool_calls": [{"index": 0, "x_trace": "123", "function": {"arguments": "{\"city\": \"Oslo\"}", "x_hint": "tial"}}]}),
    chunk({}, "tool_calls"),
    "[DONE]",
]


def everything(message) -> str:
    """Every value LangChain's message holds, as text (to look for a field's value anywhere)."""
    return json.dumps(message.model_dump(), default=str)


dropped = []
for label, chunks, finish, field, value in (
        ("reasoning_content", REASONING, "stop", "reasoning_content", lambda m: m.get("reasoning_content")),
        ("x_note (a delta's extra key)", EXTRAS, "stop", "x_note", lambda m: m.get("x_note")),
        ("x_trace (a tool call's extra key)", FRAGMENT, "tool_calls", "x_trace",
         lambda m: m["tool_calls"][0].get("x_trace"))):
    sdk = sdk_message(chunks)
    streamed, invoked = langchain_stream(chunks), langchain_invoke(sdk, finish)
    print(label)
    show("  openai SDK (stream)", value(sdk))
    show("  LangChain stream + sum keeps it", value(sdk) in everything(streamed))
    show("  LangChain invoke keeps it", value(sdk) in everything(invoked))
    if value(sdk) not in everything(streamed):
        dropped.append(field)
print("provider fields LangChain does not keep:", dropped)
raise SystemExit(1 if dropped else 0)
