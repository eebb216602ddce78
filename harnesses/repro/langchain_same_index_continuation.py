# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_same_index_continuation.py
"""LangChain runs the second of two calls sent at the same ``index`` with ``{}`` when that
call's arguments come in a fragment of their own.

Compatible servers that send every call at index 0 with a new id (the shape of the suite's
case openai-chat/syn-same-index-new-ids): ``get_weather({"city": "Paris"})`` then
``get_time({"zone": "CET"})``, each call whole in one fragment (stream A). Stream B is the
same answer with the second call cut where the wire allows it: its id and name in one
fragment, its arguments in the next (``index`` 0, no id, as continuation fragments come).
The openai SDK's accumulator gives one message for both streams (it concatenates every
fragment of one index). ``ChatOpenAI.stream()`` summed with ``+`` reads stream A as two calls
with their arguments (langchain-core keeps same-index chunks with different ids apart), and
stream B as ``get_time`` with ``{}``: an executable call with arguments the model never sent.

Exits 1 while LangChain's calls for stream B differ from its calls for stream A.
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


A = [
    chunk({"role": "assistant", "content": None}),
    chunk({"tool_calls": [{"index": 0, "id": "call_zoo_w", "type": "function",
                           "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}),
    chunk({"tool_calls": [{"index": 0, "id": "call_zoo_t", "type": "function",
                           "function": {"name": "get_time", "arguments": "{\"zone\": \"CET\"}"}}]}),
    chunk({}, "tool_calls"),
    "[DONE]",
]
B = A[:2] + [
    chunk({"tool_calls": [{"index": 0, "id": "call_zoo_t", "type": "function", "function": {"name": "get_time", "arguments": ""}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{\"zone\": \"CET\"}"}}]}),
] + A[3:]


def calls(chunks: list) -> list:
    return [{"name": t["name"], "args": t["args"], "id": t["id"]} for t in langchain_stream(chunks).tool_calls]


show("openai SDK, stream A", sdk_message(A)["tool_calls"])
show("openai SDK, stream B", sdk_message(B)["tool_calls"])
got_a, got_b = calls(A), calls(B)
show("LangChain, stream A", got_a)
show("LangChain, stream B", got_b)
print("LangChain's calls depend on where the second call's fragment was cut:", got_a != got_b)
raise SystemExit(1 if got_a != got_b else 0)
