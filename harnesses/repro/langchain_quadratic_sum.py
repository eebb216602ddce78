# requires: langchain-openai==1.7.4 langchain-core==1.8.3 openai==3.57.0
# run: python langchain_quadratic_sum.py
"""Summing LangChain's streamed ``AIMessageChunk`` objects costs more per chunk the longer the
tool call: every ``+`` re-parses all of a call's arguments so far (``parse_partial_json`` in
``AIMessageChunk.init_tool_calls``), so a long call takes quadratic time.

One call whose arguments grow by two characters a chunk (how models stream a long file or
document into a tool), N chunks long, streamed by ``ChatOpenAI.stream()`` and summed with
``+`` as LangChain's docs aggregate a stream; each ``+`` is timed. The cost of one ``+`` late
in the stream is compared with its cost early in the stream, in the same run (the medians of
the ``+`` at chunks 500-1000 and of the last 500): a linear accumulator costs the same per
chunk at both ends (about 1x), LangChain's grows with the arguments so far (over 10x at the
default N). The openai SDK's ``ChatCompletionStreamState.handle_chunk`` is timed the same way
on the same chunks.

    python langchain_quadratic_sum.py [N]     (default N = 9000; under a minute)

Exits 1 while a late ``+`` costs more than 3 times an early one.
"""

import statistics
import sys
import time

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


LIMIT = 3.0


def stream(n: int) -> list:
    head = chunk({"role": "assistant", "content": None, "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "write_file", "arguments": "{\"text\": \""}}]})
    body = [chunk({"tool_calls": [{"index": 0, "function": {"arguments": "ab"}}]}) for _ in range(n)]
    tail = chunk({"tool_calls": [{"index": 0, "function": {"arguments": "\"}"}}]})
    return [head, *body, tail, chunk({}, "tool_calls"), "[DONE]"]


def growth(costs: list) -> tuple[float, float, float]:
    early, late = statistics.median(costs[500:1000]), statistics.median(costs[-500:])
    return early, late, late / early


def langchain(chunks: list) -> list:
    llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", max_retries=0,
                     http_client=http(sse(chunks), "text/event-stream"))
    full, costs = None, []
    for piece in llm.stream("write it"):
        if full is None:
            full = piece
            continue
        start = time.perf_counter()
        full = full + piece
        costs.append(time.perf_counter() - start)
    assert full.tool_calls[0]["args"]["text"] == "ab" * (len(chunks) - 4)
    return costs


def sdk(chunks: list) -> list:
    client = openai.OpenAI(api_key="placeholder", max_retries=0, http_client=http(sse(chunks), "text/event-stream"))
    state, costs = ChatCompletionStreamState(), []
    for c in client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True):
        start = time.perf_counter()
        state.handle_chunk(c)
        costs.append(time.perf_counter() - start)
    return costs


n = int(sys.argv[1]) if len(sys.argv) > 1 else 9000
chunks = stream(n)
ratios = {}
for name, run in (("LangChain stream, full + chunk", langchain), ("openai SDK handle_chunk", sdk)):
    early, late = growth(run(chunks))[:2]
    ratios[name] = late / early
    show(name, f"one step early {early * 1e6:.0f} us, late {late * 1e6:.0f} us: x{late / early:.1f} per chunk "
               f"over {n} chunks")
lc = ratios["LangChain stream, full + chunk"]
print(f"a late + costs {lc:.1f}x an early one (limit {LIMIT:.0f}x): {'quadratic' if lc > LIMIT else 'linear'}")
raise SystemExit(1 if lc > LIMIT else 0)
