# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_truncated_args_healed.py
"""LangChain's summed stream returns arguments cut off by ``max_tokens`` as a complete call.

A call whose arguments stop at ``{"city": "Par`` because the answer hit ``max_tokens``
(``finish_reason: "length"``; the shape of the suite's case openai-chat/syn-tool-call-cut-by-length).
``ChatOpenAI.stream()`` summed with ``+`` lists ``get_weather({"city": "Par"})`` among its
executable ``tool_calls``: ``AIMessageChunk.init_tool_calls`` closes the cut JSON with
``parse_partial_json``. The openai SDK keeps the raw cut text; LangChain's own stream=false
path (``ChatOpenAI.invoke()`` over a response holding that message) lists the same call in
``invalid_tool_calls``.

Exits 1 while the streamed call is executable and invoke's is not.
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


CUT = [
    chunk({"role": "assistant", "content": None, "tool_calls": [
        {"index": 0, "id": "call_mcs_cut_len", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{\""}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": "city"}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": "\": \"Par"}}]}),
    chunk({}, "length"),
    "[DONE]",
]

sdk = sdk_message(CUT)
streamed, invoked = langchain_stream(CUT), langchain_invoke(sdk, "length")
show("openai SDK arguments (raw)", [c["function"]["arguments"] for c in sdk["tool_calls"]])
show("LangChain stream tool_calls", streamed.tool_calls)
show("LangChain stream invalid_tool_calls", streamed.invalid_tool_calls)
show("LangChain invoke tool_calls", invoked.tool_calls)
show("LangChain invoke invalid_tool_calls", [{"name": t["name"], "args": t["args"]} for t in invoked.invalid_tool_calls])
healed = bool(streamed.tool_calls) and not invoked.tool_calls
print("streamed call executable although its arguments are cut off:", healed)
raise SystemExit(1 if healed else 0)
