"""Summing LangChain's streamed ``AIMessageChunk`` objects costs more per chunk the longer the
stream: every ``+`` re-parses all tool-call arguments so far (``parse_partial_json`` in
``AIMessageChunk.init_tool_calls``), so a long tool call takes quadratic time.

A synthetic stream (one call whose arguments grow by two characters a chunk; how models
stream a long file or document into a tool) is fed at N and 4N chunks to
``ChatOpenAI.stream()`` summed with ``+`` (as LangChain's docs aggregate a stream), and to
the openai SDK's ``ChatCompletionStreamState`` on the same chunks. Linear work costs the same
per chunk at 4N as at N (ratio about 1); quadratic work about 4 times as much.

    python harnesses/repro/langchain_quadratic_sum.py [N]     (default N = 2000; a minute or two)

Exits 1 while LangChain's per-chunk cost grows more than twice as fast as the SDK's.
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


n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
growth = {}
for name, run in (("LangChain stream + sum", langchain), ("openai SDK accumulator", sdk)):
    small, large = run(stream(n)), run(stream(4 * n))
    growth[name] = (large / (4 * n)) / (small / n)
    show(name, f"{n} chunks {small:.2f} s, {4 * n} chunks {large:.2f} s: per-chunk cost x{growth[name]:.1f}")
lc, base = growth["LangChain stream + sum"], growth["openai SDK accumulator"]
raise SystemExit(1 if lc > 2 * base else 0)
