# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_index_less_fragments.py
"""LangChain does not merge tool-call fragments that carry no ``index`` (documented).

Some OpenAI-compatible servers send the fragments of a call without ``index`` (the shape of
the suite's case openai-chat/syn-no-index-continuations): ``get_weather`` then its arguments
in two fragments, ``get_time`` then the rest of its arguments. ``ChatOpenAI.stream()`` summed
with ``+`` returns ``get_weather`` and ``get_time`` as executable calls with ``{}`` and the
arguments as nameless calls apart; the openai SDK's accumulator refuses the stream.

langchain-core documents the rule (``ToolCallChunk``, langchain_core/messages/tool.py):
"Chunks are only merged if their values of `index` are equal and not `None`."

Exits 1 while LangChain returns executable calls whose arguments the model never sent.
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


NO_INDEX = [
    chunk({"role": "assistant", "content": None}),
    chunk({"tool_calls": [{"id": "call_mcs_ni_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
    chunk({"tool_calls": [{"function": {"arguments": "{\"city\": "}}]}),
    chunk({"tool_calls": [{"function": {"arguments": "\"Paris\"}"}}]}),
    chunk({"tool_calls": [{"id": "call_mcs_ni_2", "type": "function", "function": {"name": "get_time", "arguments": "{\"zone\": "}}]}),
    chunk({"tool_calls": [{"function": {"arguments": "\"CET\"}"}}]}),
    chunk({}, "tool_calls"),
    "[DONE]",
]
SENT = {"get_weather": {"city": "Paris"}, "get_time": {"zone": "CET"}}

try:
    show("openai SDK", sdk_message(NO_INDEX)["tool_calls"])
except Exception as exc:
    show("openai SDK", f"raises {type(exc).__name__}: {exc}")
full = langchain_stream(NO_INDEX)
show("LangChain tool_calls", [{"name": t["name"], "args": t["args"]} for t in full.tool_calls])
show("LangChain invalid_tool_calls", [{"name": t["name"], "args": t["args"]} for t in full.invalid_tool_calls])
wrong = [t for t in full.tool_calls if t["args"] != SENT.get(t["name"])]
print("executable calls with arguments the model never sent:", len(wrong))
raise SystemExit(1 if wrong else 0)
