"""The buffer's message against recorded stream=false bodies of the same request family.

They are separate runs, so values differ; the shapes must match except for the keys the
stream never carries, which docs/design-notes.md lists. This test keeps that list true.
"""

from __future__ import annotations

import json

import pytest

from mcs_conformance import LLMStreamBuffer
from mcs_conformance.corpus_tools.capture import parse_sse
from mcs_conformance.strategies import default_chain
from tests.helpers import realdata


def shape(value: object, at: str = "$") -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(value, dict):
        out[at] = "object"
        for k, v in value.items():
            out.update(shape(v, f"{at}.{k}"))
    elif isinstance(value, list):
        out[at] = "array"
        for v in value:
            out.update(shape(v, f"{at}[*]"))
    else:
        out[at] = "null" if value is None else type(value).__name__
    return out


def differences(stream: object, nonstream: object) -> set[str]:
    a, b = shape(stream), shape(nonstream)
    out = set()
    for k in set(a) | set(b):
        if k not in b:
            out.add(f"only in stream: {k}")
        elif k not in a:
            out.add(f"only in stream=false: {k}")
        elif a[k] != b[k] and "null" not in (a[k], b[k]):
            out.add(f"type differs: {k}")
    return out


def feed(chunks: list) -> object:
    buf = LLMStreamBuffer(default_chain())
    for c in chunks:
        buf.feed(c)
    return buf.as_dict()


CHAT = "openai-python/chat_stream/"
PAIRS = [
    (CHAT + "tool_calls_parallel_2__f82268f2fefd.sse", "openai-python/chat_nonstream/test_parse_multiple_pydantic_tools.json",
     {"only in stream=false: $.refusal"}),
    (CHAT + "text_only__e2aad469b71d.sse", "openai-python/chat_nonstream/test_parse_nothing.json", set()),
    (CHAT + "refusal__173417d55340.sse", "openai-python/chat_nonstream/test_parse_pydantic_model_refusal.json", set()),
    ("vercel-ai/chat/openai-text.chunks.jsonl", "vercel-ai/chat/openai-text.nonstream.json",
     {"only in stream=false: $.annotations"}),
    ("vercel-ai/chat/groq-tool-call.chunks.jsonl", "vercel-ai/chat/groq-tool-call.nonstream.json",
     {"only in stream: $.content"}),
    # OpenAI-compatible providers (docs/spec.md, openai-chat, "OpenAI-compatible providers")
    ("vercel-ai/chat/mistral-tool-call.chunks.jsonl", "vercel-ai/chat/mistral-tool-call.nonstream.json",
     {"only in stream: $.content"}),
    ("vercel-ai/chat/deepseek-tool-call.chunks.jsonl", "vercel-ai/chat/deepseek-tool-call.nonstream.json",
     {"only in stream=false: $.tool_calls[*].index"}),
    ("vercel-ai/chat/xai-tool-call.chunks.jsonl", "vercel-ai/chat/xai-tool-call.nonstream.json",
     {"only in stream=false: $.content", "only in stream=false: $.refusal"}),
    ("vercel-ai/chat/alibaba-tool-call.chunks.jsonl", "vercel-ai/chat/alibaba-tool-call.nonstream.json",
     {"only in stream=false: $.tool_calls[*].index"}),
    ("vercel-ai/responses/azure-tool-call.1.chunks.jsonl", "vercel-ai/responses/azure-tool-call.1.nonstream.json", set()),
    ("vercel-ai/anthropic/anthropic-clear-thinking.1.chunks.jsonl", "vercel-ai/anthropic/anthropic-clear-thinking.1.nonstream.json", set()),
    ("vercel-ai/anthropic/anthropic-tool-no-args.chunks.jsonl", "vercel-ai/anthropic/anthropic-tool-no-args.nonstream.json", set()),
]


@pytest.mark.parametrize("stream,nonstream,listed", PAIRS, ids=[p[0].split("/")[-1] for p in PAIRS])
def test_shapes_differ_only_where_listed(stream: str, nonstream: str, listed: set[str]) -> None:
    body = json.loads(realdata.path(nonstream).read_text())
    if "choices" in body:
        body = body["choices"][0]["message"]
    assert differences(feed(realdata.payloads(stream)), body) == listed


def test_anthropic_cassette_stream_and_nonstream_share_a_shape() -> None:
    cassettes = "anthropic-sdk-python/cassettes/"
    streamed = realdata.cassette(cassettes + "test_runners__TestSyncRunTools__555fb399-a54c-455b-9ac5-2c9673f18e12.json")
    plain = realdata.cassette(cassettes + "test_runners__TestSyncRunTools__b38bbf6c-9a76-40ca-b09d-7a3911776e0f.json")
    message = feed(parse_sse(streamed[0]["response"]["body"]))
    assert differences(message, plain[0]["response"]["body"]) == set()
