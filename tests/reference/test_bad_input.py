"""Bad input through the buffer and default chain: clear, documented errors only."""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given, settings

from mcs_conformance import LLMStreamBuffer, MalformedChunk, MCSError, StreamError, UnrecognizedStream
from mcs_conformance.suite.generators import json_values
from mcs_conformance.strategies import default_chain
from tests.helpers import realdata

FIRST_CHUNKS = {
    "openai-chat": realdata.payloads("openai-python/chat_stream/tool_calls_parallel_2__f82268f2fefd.sse")[0],
    "openai-responses": realdata.payloads("vercel-ai/responses/azure-tool-call.1.chunks.jsonl")[0],
    "anthropic-messages": realdata.payloads("anthropic-sdk-python/sse/tool_use_response.sse")[0],
    "text-json": "Hello",
}


@pytest.mark.parametrize("junk", [42, None, [1, 2], {"object": "mystery", "data": 1}, {"type": "unheard_of"}, 3.5, True])
def test_unrecognized_first_chunk_names_its_shape(junk):
    buf = LLMStreamBuffer(default_chain())
    with pytest.raises(UnrecognizedStream) as info:
        buf.feed(junk)
    text = str(info.value)
    assert "first chunk" in text and "openai-chat" in text and type(junk).__name__ in text


@pytest.mark.parametrize("fmt", sorted(FIRST_CHUNKS))
@settings(max_examples=150, derandomize=True, deadline=None)
@given(junk=json_values())
def test_junk_after_resolution_raises_only_documented_errors(fmt, junk):
    buf = LLMStreamBuffer(default_chain())
    buf.feed(FIRST_CHUNKS[fmt])
    try:
        buf.feed(junk)
    except (MalformedChunk, StreamError):
        pass
    buf.as_dict()


@settings(max_examples=300, derandomize=True, deadline=None)
@given(junk=json_values())
def test_junk_first_chunk_raises_only_documented_errors(junk):
    buf = LLMStreamBuffer(default_chain())
    try:
        buf.feed(junk)
        buf.feed(junk)
    except MCSError:
        return


def test_malformed_chunk_message_names_strategy_and_problem():
    buf = LLMStreamBuffer(default_chain())
    buf.feed(FIRST_CHUNKS["openai-chat"])
    with pytest.raises(MalformedChunk) as info:
        buf.feed({"id": "x", "object": "chat.completion.chunk", "choices": "not a list"})
    assert "choices" in str(info.value)


# The native formats outside the default chain: a driver puts the format's strategy in its own chain,
# before the default chain's strategies. Their first chunks are the bundled cases' first chunks.
BESIDE = {
    "gemini": ("GeminiStrategy", "gemini/tool-call"),
    "bedrock": ("BedrockStrategy", "bedrock/tool-call-1"),
    "cohere": ("CohereStrategy", "cohere/cohere-tool-call"),
    "ollama": ("OllamaStrategy", "ollama/doc-stream-tools"),
}


def _chain_with(fmt: str):
    import mcs_conformance.strategies as strategies
    from mcs_conformance.reference.chain import ExtractionChain

    return ExtractionChain([getattr(strategies, BESIDE[fmt][0])(), *default_chain()])


@functools.cache
def _first_chunk_text(fmt: str) -> str:
    from mcs_conformance.corpus_tools.corpus import load_corpus

    return json.dumps(load_corpus().case(BESIDE[fmt][1]).chunks[0])


def _first_chunk(fmt: str):
    return json.loads(_first_chunk_text(fmt))


@pytest.mark.parametrize("fmt", sorted(BESIDE))
@settings(max_examples=150, derandomize=True, deadline=None)
@given(junk=json_values())
def test_junk_after_resolution_of_a_format_beside_the_chain_raises_only_documented_errors(fmt, junk):
    buf = LLMStreamBuffer(_chain_with(fmt))
    buf.feed(_first_chunk(fmt))
    assert buf._strategy is not None and buf._strategy.name == fmt, "the format's own strategy reads its stream"
    try:
        buf.feed(junk)
    except (MalformedChunk, StreamError) as exc:
        assert str(exc).strip(), "a refusal says what is wrong"
    buf.as_dict()
