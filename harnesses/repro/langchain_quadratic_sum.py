"""Summing LangChain's streamed ``AIMessageChunk`` objects costs more per chunk the longer the
stream: every ``+`` re-parses all tool-call arguments so far (``parse_partial_json`` in
``AIMessageChunk.init_tool_calls``), so a long tool call takes quadratic time.

A synthetic stream (one call whose arguments grow by two characters a chunk; how models
stream a long file or document into a tool) is fed at N/8 and N chunks to
``ChatOpenAI.stream()`` summed with ``+`` (as LangChain's docs aggregate a stream), and to
the openai SDK's ``ChatCompletionStreamState`` on the same chunks. For 8 times the chunks,
linear work costs about 8 times as much, quadratic work about 64 times; the suite's COST
checks allow 24.

    python harnesses/repro/langchain_quadratic_sum.py [N]     (default N = 16000; about two minutes)

Exits 1 while LangChain's cost grows more than 24 times and the SDK's does not.
"""

import sys
import time

import httpx2
from langchain_openai import ChatOpenAI
from openai._models import construct_type
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from _replay import show, transport


def stream(n: int) -> list:
    def chunk(delta: dict) -> dict:
        return {"id": "chatcmpl-x", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4o",
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}

    head = chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                                       "function": {"name": "write_file", "arguments": '{"text": "'}}]})
    body = [chunk({"tool_calls": [{"index": 0, "function": {"arguments": "ab"}}]}) for _ in range(n)]
    tail = chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]})
    done = {**chunk({}), "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    return [head, *body, tail, done, "[DONE]"]


def langchain(chunks: list) -> float:
    llm = ChatOpenAI(model="gpt-4o", api_key="placeholder", http_client=httpx2.Client(transport=transport(chunks)))
    start, full = time.perf_counter(), None
    for piece in llm.stream("write it"):
        full = piece if full is None else full + piece
    assert full.tool_calls[0]["args"]["text"] == "ab" * (len(chunks) - 4)
    return time.perf_counter() - start


def sdk(chunks: list) -> float:
    start, state = time.perf_counter(), ChatCompletionStreamState()
    for c in chunks:
        if isinstance(c, dict):
            state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=c))
    return time.perf_counter() - start


n = int(sys.argv[1]) if len(sys.argv) > 1 else 16000
growth = {}
for name, run in (("LangChain stream + sum", langchain), ("openai SDK accumulator", sdk)):
    small, large = run(stream(n // 8)), run(stream(n))
    growth[name] = large / small
    show(name, f"{n // 8} chunks {small:.2f} s, {n} chunks {large:.2f} s: cost x{growth[name]:.1f}")
lc, base = growth["LangChain stream + sum"], growth["openai SDK accumulator"]
raise SystemExit(1 if lc > 24 >= base else 0)
