"""Synthesized streams are streams the provider could send for exactly the written calls.

For every bundled format with an SDK oracle, the official SDK's accumulator accepts every
synthesized stream (any calls, leading text or none, re-chunked at random) and its message
holds exactly the written calls (ids, names, arguments) and text: so ROUNDTRIP-002 and
NAME-002, which compare a strategy's answer with the written calls, cannot fail a correct
strategy. The templates themselves are checked: the growing text sits in a declared delta.
"""

from __future__ import annotations

import copy
import json
import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcs_conformance.corpus_tools.corpus import Descriptor, load_corpus
from mcs_conformance.suite.generators import delta_sites
from mcs_conformance.suite.invariants.base import calls_view, same
from mcs_conformance.corpus_tools.oracles import ORACLE_MODULES, oracle_module
from mcs_conformance.reference.protocol import ToolCall
from mcs_conformance.suite.synthesize import channel_problems, native_delimiters, synthesize, synthesized_streams

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

ROOT = Path(__file__).resolve().parents[2]
CORPUS = load_corpus([ROOT / "examples" / "ollama" / "corpus"])
WITH_CHANNEL = sorted(f for f, d in CORPUS.descriptors.items() if d.call_channel is not None)
EXAMPLES = int(os.environ.get("MCS_GENERATOR_EXAMPLES", "6")) * 5
SETTINGS = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_every_native_format_has_a_call_channel() -> None:
    assert WITH_CHANNEL == ["anthropic-messages", "bedrock", "cohere", "gemini", "ollama", "openai-chat",
                            "openai-responses"]
    assert CORPUS.descriptors["text-json"].call_channel is None  # its render covers it


@pytest.mark.parametrize("fmt", WITH_CHANNEL)
def test_the_templates_put_the_growing_text_in_a_declared_delta(fmt: str) -> None:
    descriptor = CORPUS.descriptors[fmt]
    assert channel_problems(descriptor) == []
    stream = synthesize([ToolCall("f", {"k": "v"}, id="c1")], descriptor, "hello")
    texts = [text for chunk in stream for _, text in delta_sites(chunk, descriptor)]
    assert "hello" in texts
    if "delta" in descriptor.call_channel["call"]:
        assert '{"k": "v"}' in texts


def _with(fmt: str, change) -> Descriptor:
    data = copy.deepcopy(CORPUS.descriptors[fmt].data)
    change(data)
    return Descriptor(fmt, data, "test")


def test_arguments_outside_every_delta_are_refused_with_the_reason() -> None:
    def move(data: dict) -> None:
        data["call_channel"]["call"]["delta"] = {"type": "content_block_delta", "index": "$BLOCK",
                                                 "delta": {"type": "input_json_delta", "json": "$ARGS"}}

    descriptor = _with("anthropic-messages", move)
    assert channel_problems(descriptor) == [
        "call_channel.call.delta holds $ARGS at ['delta', 'json'], which no declared delta matches, "
        "so no re-chunking would cut it"]
    with pytest.raises(ValueError, match="no declared delta matches"):
        synthesize([ToolCall("f")], descriptor)


def test_a_call_part_without_name_or_arguments_is_refused() -> None:
    def strip(data: dict) -> None:
        data["call_channel"]["call"] = {"start": [{"model": "m", "created_at": "t", "message": {"role": "assistant"}}]}

    assert channel_problems(_with("ollama", strip)) == [
        "call_channel.call writes no $NAME", "call_channel.call writes neither $ARGS nor $ARGUMENTS"]


def test_leading_text_needs_a_text_part() -> None:
    descriptor = _with("ollama", lambda data: data["call_channel"].pop("text"))
    with pytest.raises(ValueError, match="no text part"):
        synthesize([ToolCall("f")], descriptor, "hi")


def test_placeholders_whole_embedded_and_never_rescanned() -> None:
    calls = [ToolCall("$ID", {"a": [1, {}]}, id="$NAME"), ToolCall("g", {}, id="c2")]
    stream = synthesize(calls, CORPUS.descriptors["openai-responses"], "t")
    added = [c for c in stream if c.get("type") == "response.output_item.added"]
    assert [a["output_index"] for a in added] == [0, 1, 2]  # the text item first
    assert added[1]["item"] == {"id": "fc_mcs_1", "type": "function_call", "status": "in_progress",
                                "arguments": "", "call_id": "$NAME", "name": "$ID"}
    output = stream[-1]["response"]["output"]
    assert [o["id"] for o in output] == ["msg_mcs", "fc_mcs_1", "fc_mcs_2"]
    assert json.loads(output[1]["arguments"]) == {"a": [1, {}]}
    ollama = synthesize(calls, CORPUS.descriptors["ollama"])
    entry = ollama[0]["message"]["tool_calls"][0]["function"]
    assert entry == {"index": 0, "name": "$ID", "arguments": {"a": [1, {}]}}
    entry["arguments"]["a"].append(2)
    assert calls[0].arguments == {"a": [1, {}]}  # the stream holds a copy


def test_native_delimiters_include_the_wire_sentinel() -> None:
    assert "[DONE]" in native_delimiters(CORPUS.descriptors["openai-chat"])
    assert '"' in native_delimiters(CORPUS.descriptors["anthropic-messages"])


def _sdk(fmt: str, chunks: list) -> tuple[list[dict], str]:
    module = oracle_module(fmt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        message = module.final_message(list(chunks))
        return module.calls(message), module.content_text(message)


@pytest.mark.parametrize("fmt", sorted(ORACLE_MODULES))
@SETTINGS
@given(data=st.data())
def test_the_sdk_reads_back_exactly_the_synthesized_calls(fmt: str, data: st.DataObject) -> None:
    drawn = data.draw(synthesized_streams(CORPUS.descriptors[fmt]))
    calls, text = _sdk(fmt, drawn.chunks)
    assert drawn.ids  # every bundled native wire carries ids
    assert same(calls, calls_view(drawn.calls)), drawn.chunks.recipe
    assert text == (drawn.text or "")


@pytest.mark.parametrize("fmt", sorted(ORACLE_MODULES))
def test_the_sdk_reads_back_hard_values(fmt: str) -> None:
    """The values the strategies get wrong most, written once each (no draw needed)."""
    calls = [
        ToolCall("get_weather", {"city": "  Paris  ", "note": "</tool_call>\"}\\u0000[DONE]", "n": [], "o": {}},
                 id="call_1"),
        ToolCall("f", {}, id="call_2"),
        ToolCall("日本語", {"": {"deep": [None, 1.5, "\n"]}}, id="call_3"),
    ]
    for text in (None, "", "Let me check."):
        stream = synthesize(calls, CORPUS.descriptors[fmt], text)
        got, shown = _sdk(fmt, stream)
        assert same(got, calls_view(calls))
        assert shown == (text or "")
