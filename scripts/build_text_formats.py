"""Write the bundled cases of the open models' text formats from their sources.

    python scripts/build_text_formats.py            # (re)write mcs_conformance/corpus/cases/<format>/
    python scripts/build_text_formats.py --check    # exit 1 when a written case differs

Each entry of ``OUTPUTS`` is one model output copied as data from a public parser test (the
repository, commit, path and test id are its provenance), with that test's expected calls and
content, or, where the reference reads it otherwise, the reference's answer with the test's
answer in ``accept`` (docs/spec.md, "Text formats of open models", says which and why). A few
entries are written for this suite (``source: mcs-conformance``), each saying which gap it fills.

The stream of every case is the output split as a server's detokenizer emits it: each of the
format's special tokens alone in its delta, the other text in the pieces a byte-level BPE
pre-tokenizer cuts (a word with its leading space, a run of digits, one punctuation mark), every
character outside ASCII alone (the detokenizer releases a character once its bytes are complete).
No tokenizer file is read: the splits follow from the markers. SPLIT-001 then cuts every delta at
every character, SPLIT-003 at random.

Every format also gets one leak case: an output with a call as the text of an OpenAI Responses
response (a server without a tool parser), which the native strategy claims and the format's
strategy reads as the backup (ADR-0001's fall-through).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "mcs_conformance" / "corpus" / "cases"

VLLM = {"source": "vllm-project/vllm", "license": "Apache-2.0"}
VLLM_HERMES = {**VLLM, "commit": "0eb73d6a09be117cdd0d4da4d6239321001c0d0c",
               "path": "tests/tool_parsers/test_hermes_tool_parser.py"}
VLLM_LLAMA = {**VLLM, "commit": "1e499e36c5828a75c6ca8b76631d264be1187005",
              "path": "tests/tool_parsers/test_llama3_json_tool_parser.py"}
VLLM_MISTRAL = {**VLLM, "commit": "002d5731d3ee99b92d80b103be81c212245f1acf",
                "path": "tests/tool_parsers/test_mistral_tool_parser.py"}
VLLM_PYTHONIC = {**VLLM, "commit": "0716d268c7d81e445bd9ae30205f7bf4cfacd7d5",
                 "path": "tests/tool_parsers/test_pythonic_tool_parser.py"}
OURS = {"source": "mcs-conformance", "license": "Apache-2.0"}
VLLM_QWEN3 = {**VLLM, "commit": "049d8df27dda4fd0caffa289ea12bfe5a47ac794",
              "path": "tests/tool_parsers/test_qwen3coder_tool_parser.py"}
VLLM_DSV3 = {**VLLM, "commit": "0f17ee061e413bf8ab7927f926f69cdff24dc63e",
             "path": "tests/tool_parsers/test_deepseekv3_tool_parser.py"}
VLLM_DSV31 = {**VLLM, "commit": "100fe7e0c14678963aafa5e53001099f761e0f26",
              "path": "tests/tool_parsers/test_deepseekv31_tool_parser.py"}
VLLM_KIMI = {**VLLM, "commit": "0825a6c362795d1643ce5684bb3cfa26ff6ffed2",
             "path": "tests/tool_parsers/test_kimi_k2_tool_parser.py"}
VLLM_GLM = {**VLLM, "commit": "024364d6695352f41c029121af6b8ecf2ae60184",
            "path": "tests/tool_parsers/test_glm4_moe_tool_parser.py"}


def _tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": properties}}}


# the tools of the tests' requests (vLLM's sample_tools fixtures), where the reading depends on them
QWEN3_TOOLS = {"tools": [
    _tool("get_current_weather", {"city": {"type": "string"}, "state": {"type": "string"},
                                  "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]}}),
    _tool("calculate_area", {"shape": {"type": "string"}, "dimensions": {"type": "object"},
                             "precision": {"type": "integer"}}),
]}
GLM_TOOLS = {"tools": [_tool("get_weather", {"city": {"type": "string"}})]}
GLM_TYPED_TOOLS = {"tools": [_tool("save_note", {"text": {"type": "string"}, "stars": {"type": "integer"},
                                                 "pinned": {"type": "boolean"}, "meta": {"type": "object"}})]}

QWEN3_DALLAS = ("<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\n"
                "TX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>")
QWEN3_ORLANDO = QWEN3_DALLAS.replace("Dallas", "Orlando").replace("TX", "FL")
QWEN3_RECTANGLE = ("<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n"
                   "<parameter=dimensions>\n{\"width\": 10, \n \"height\": 20}\n</parameter>\n<parameter=precision>\n2\n"
                   "</parameter>\n</function>\n</tool_call>")

DS_BEGIN, DS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"


def DS_V3(name: str, arguments: str) -> str:  # noqa: N802 -- a template, named as the tests name it
    return f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{arguments}\n```<｜tool▁call▁end｜>"


SECTION_BEGIN_K = "<|tool_calls_section_begin|>"


def KIMI(*calls: tuple[str, str]) -> str:  # noqa: N802
    inner = "".join(f"<|tool_call_begin|>{i} <|tool_call_argument_begin|>{a}<|tool_call_end|>" for i, a in calls)
    return f"{SECTION_BEGIN_K}{inner}<|tool_calls_section_end|>"


def kcall(call_id: str, name: str, arguments: dict | None, error: bool = False) -> dict[str, Any]:
    return {**call(name, arguments, error), "id": call_id}


def GLM_CALL(name: str, pairs: list[tuple[str, str]], indent: str) -> str:  # noqa: N802
    inner = "".join(f"{indent}<arg_key>{k}</arg_key>{indent}<arg_value>{v}</arg_value>" for k, v in pairs)
    return f"<tool_call>{name}{inner}{indent}</tool_call>"

# The special tokens of each format's tokenizer: a server emits each alone in its delta.
SPECIAL = {
    "hermes": ["<tool_call>", "</tool_call>"],  # Qwen2.5 / Qwen3 added tokens 151657, 151658
    "llama3-json": ["<|python_tag|>"],  # Llama 3.1 special token 128010
    "mistral": ["[TOOL_CALLS]"],  # mistral-common control token (v3 and later tokenizers)
    "pythonic": ["<|python_start|>", "<|python_end|>"],  # Llama 4 special tokens
    "qwen3-coder": ["<tool_call>", "</tool_call>"],  # Qwen3 added tokens; <function=...> is plain text
    "deepseek": ["<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>",
                 "<｜tool▁sep｜>"],  # DeepSeek-V3 / V3.1 added tokens
    "kimi-k2": ["<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>",
                "<|tool_call_argument_begin|>", "<|tool_call_end|>"],  # Kimi K2 special tokens
    "glm45": ["<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
                "<think>", "</think>"],  # GLM-4.5 added tokens
}


def call(name: str, arguments: dict | None = None, error: bool = False) -> dict[str, Any]:
    return {"name": name, "arguments": {} if arguments is None else arguments, "id": None, "error": error}


def accept(why: str, source: str, **answer: Any) -> dict[str, Any]:
    return {"why": why, "source": source, **answer}


VLLM_NO_CALL = "vLLM's parser returns no call and the whole output as content; neither answer runs a call"

OUTPUTS: list[dict[str, Any]] = [
    # ---------------------------------------------------------------------------- hermes
    dict(format="hermes", slug="qwen3-text-only", src=VLLM_HERMES, test="test_hermes_parser_streaming_just_forward_text",
         tags=["text-only"], output="This is some prior text that has nothing to do with tool calling.",
         calls=[], content="This is some prior text that has nothing to do with tool calling."),
    dict(format="hermes", slug="qwen3-one-call", src=VLLM_HERMES,
         test="test_hermes_streaming_tool_call_with_stream_interval", tags=["one-call"], leak=True,
         output='<tool_call>{"name": "get_current_temperature", "arguments": {"location": "San Francisco", '
                '"unit": "celsius"}}</tool_call>',
         calls=[call("get_current_temperature", {"location": "San Francisco", "unit": "celsius"})], content=""),
    dict(format="hermes", slug="qwen3-one-call-newlines", src=VLLM_HERMES, test="test_hermes_parser_streaming",
         tags=["one-call"],
         output='<tool_call>{"name": "get_current_temperature","arguments": {"location":"San Francisco, California, '
                'United States", "unit": "celsius"}}</tool_call>',
         calls=[call("get_current_temperature", {"location": "San Francisco, California, United States",
                                                 "unit": "celsius"})], content=""),
    dict(format="hermes", slug="qwen3-parallel-calls", src=VLLM_HERMES,
         test="test_hermes_streaming_multiple_tool_calls_with_stream_interval", tags=["parallel"],
         output='<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call>'
                '<tool_call>{"name": "search", "arguments": {"q": "dogs"}}</tool_call>',
         calls=[call("search", {"q": "cats"}), call("search", {"q": "dogs"})], content=""),
    dict(format="hermes", slug="qwen3-text-before-call", src=VLLM_HERMES,
         test="test_hermes_streaming_content_then_tool_call_with_stream_interval", tags=["text-before"],
         output='Sure, let me check the weather.<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}'
                '</tool_call>',
         calls=[call("get_weather", {"city": "NYC"})], content="Sure, let me check the weather."),
    dict(format="hermes", slug="qwen3-boolean-argument", src=VLLM_HERMES,
         test="test_hermes_streaming_boolean_args_with_stream_interval", tags=["one-call"],
         output='<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>',
         calls=[call("final_answer", {"trigger": True})], content=""),
    dict(format="hermes", slug="qwen3-serialized-arguments", src=VLLM_HERMES,
         test="test_hermes_streaming_serialized_arguments_with_stream_interval", tags=["arguments"],
         output='<tool_call>{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}</tool_call>',
         calls=[call("get_db_config", {"param": "max_connections"})], content=""),
    dict(format="hermes", slug="qwen3-cut-before-closing-tag", src=VLLM_HERMES,
         test="test_hermes_parser_non_streaming_tool_call_until_eos", tags=["cut"],
         output='<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}',
         calls=[call("final_answer", error=True)], content=""),
    dict(format="hermes", slug="qwen3-invalid-json", src=VLLM_HERMES,
         test="test_hermes_parser_non_streaming_tool_call_invalid_json", tags=["invalid"],
         output='<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}',
         calls=[call("final_answer", error=True)], content="",
         accept=[accept(VLLM_NO_CALL, "vllm-project/vllm tests/tool_parsers/test_hermes_tool_parser.py::"
                        "test_hermes_parser_non_streaming_tool_call_invalid_json", calls=[],
                        content_text='<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}')]),
    dict(format="hermes", slug="qwen3-bare-string-arguments", src=VLLM_HERMES,
         test="test_hermes_parser_non_streaming_bare_string_arguments", tags=["invalid"],
         output='<tool_call>\n{"name": "do_thing", "arguments": "hello"}\n</tool_call>',
         calls=[call("do_thing", error=True)], content=""),
    dict(format="hermes", slug="syn-closing-tag-in-argument-then-text", src=OURS,
         why="a literal </tool_call> inside an argument string, then text after the call (vllm#45167; BUG-CLASSES 11, "
             "25): no public test holds both",
         tags=["delimiters", "text-after", "unicode"],
         output="I'll save it.\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"calls.md\", "
                "\"content\": \"End a call with </tool_call> on its own line — ✓ 東京 🌤\", \"meta\": {\"tags\": "
                "[\"a\", {\"b\": null}]}}}\n</tool_call>\nSaved.",
         calls=[call("write_file", {"path": "calls.md",
                                    "content": "End a call with </tool_call> on its own line — ✓ 東京 🌤",
                                    "meta": {"tags": ["a", {"b": None}]}})],
         content="I'll save it.\n\nSaved."),
    dict(format="hermes", slug="syn-prose-mentions-call", src=OURS,
         why="prose that shows a call's JSON without the <tool_call> tags: a call is only what the tags hold "
             "(the text-side twin of the tool_calls: null guard; llama.cpp#18183 took any JSON with a name key)",
         tags=["false-positive"],
         output='Write {"name": "get_weather", "arguments": {"city": "Paris"}} between the tags to call it.',
         calls=[], content='Write {"name": "get_weather", "arguments": {"city": "Paris"}} between the tags to call it.'),
    # ----------------------------------------------------------------------- llama3-json
    dict(format="llama3-json", slug="vllm-text-only", src=VLLM_LLAMA, test="test_extract_tool_calls_no_json",
         tags=["text-only"], output="This is just some text without any tool calls", calls=[],
         content="This is just some text without any tool calls"),
    dict(format="llama3-json", slug="vllm-one-call", src=VLLM_LLAMA, test="test_extract_tool_calls_with_arguments",
         tags=["one-call"], leak=True,
         output='{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}',
         calls=[call("searchTool", {"query": "test query", "limit": 10})], content=""),
    dict(format="llama3-json", slug="vllm-arguments-key", src=VLLM_LLAMA,
         test="test_extract_tool_calls_with_arguments_key", tags=["one-call"],
         output='{"name": "searchTool", "arguments": {"query": "test"}}',
         calls=[call("searchTool", {"query": "test"})], content=""),
    dict(format="llama3-json", slug="vllm-parallel-calls", src=VLLM_LLAMA, test="test_extract_tool_calls_multiple_json",
         tags=["parallel"],
         output='{"name": "searchTool", "parameters": {"query": "test1"}}; {"name": "getOpenIncidentsTool", '
                '"parameters": {}}; {"name": "searchTool", "parameters": {"query": "test2"}}',
         calls=[call("searchTool", {"query": "test1"}), call("getOpenIncidentsTool", {}),
                call("searchTool", {"query": "test2"})], content=""),
    dict(format="llama3-json", slug="vllm-parallel-calls-newline", src=VLLM_LLAMA,
         test="test_extract_tool_calls_streaming_parallel_separators[\\n]", tags=["parallel"],
         output='{"name": "searchTool", "parameters": {"query": "test1"}}\n{"name": "getOpenIncidentsTool", '
                '"parameters": {}}',
         calls=[call("searchTool", {"query": "test1"}), call("getOpenIncidentsTool", {})], content=""),
    dict(format="llama3-json", slug="vllm-nested-arguments", src=VLLM_LLAMA,
         test="test_extract_tool_calls_multiple_with_deep_nesting", tags=["nested", "parallel"],
         output='{"name": "simpleTool", "parameters": {"value": "test"}}; {"name": "complexTool", "parameters": '
                '{"config": {"database": {"connection": {"pool": {"size": 10}}}}}}',
         calls=[call("simpleTool", {"value": "test"}),
                call("complexTool", {"config": {"database": {"connection": {"pool": {"size": 10}}}}})], content=""),
    dict(format="llama3-json", slug="vllm-brackets-and-quotes-in-strings", src=VLLM_LLAMA,
         test="test_extract_tool_calls_with_quotes_and_brackets_in_string", tags=["delimiters"],
         output='{"name": "searchTool", "parameters": {"query": "test {value} [complex]","nested": '
                '{"inner": "more {brackets}"}}}',
         calls=[call("searchTool", {"query": "test {value} [complex]", "nested": {"inner": "more {brackets}"}})],
         content=""),
    dict(format="llama3-json", slug="vllm-escaped-quotes", src=VLLM_LLAMA,
         test="test_extract_tool_calls_with_escaped_quotes_in_nested_json", tags=["delimiters"],
         output='{"name": "parserTool", "parameters": {"text": "He said \\"Hello {world}\\""}}',
         calls=[call("parserTool", {"text": 'He said "Hello {world}"'})], content=""),
    dict(format="llama3-json", slug="vllm-text-after-call", src=VLLM_LLAMA,
         test="test_extract_tool_calls_brace_in_trailing_text", tags=["text-after"],
         output='{"name": "searchTool", "parameters": {"query": "test"}} I used {searchTool} for this.',
         calls=[call("searchTool", {"query": "test"})], content=" I used {searchTool} for this."),
    dict(format="llama3-json", slug="vllm-json-in-trailing-text", src=VLLM_LLAMA,
         test="test_extract_tool_calls_json_fragment_in_trailing_text", tags=["text-after"],
         output='{"name": "searchTool", "parameters": {"query": "test"}} The arguments I passed were {"query": "test"}',
         calls=[call("searchTool", {"query": "test"})], content=' The arguments I passed were {"query": "test"}'),
    dict(format="llama3-json", slug="vllm-prose-then-json", src=VLLM_LLAMA, test="test_extract_tool_calls_simple",
         tags=["false-positive"],
         output='Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?',
         calls=[], content='Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to '
                           'know more?',
         levels={"calls": {"level": "should", "why": "a call object inside prose is data: the Llama 3 prompt format "
                           "has the call be the whole output (or follow <|python_tag|>), and reading JSON anywhere "
                           "runs calls the model only mentioned (llama.cpp#18183); vLLM's parser takes it as a call",
                           "source": "docs/spec.md, llama3-json"}}),
    dict(format="llama3-json", slug="vllm-invalid-json", src=VLLM_LLAMA, test="test_extract_tool_calls_invalid_json",
         tags=["invalid"], output='{"name": "invalidTool", "parameters": {invalid json}',
         calls=[call("invalidTool", error=True)], content="",
         accept=[accept(VLLM_NO_CALL, "vllm-project/vllm tests/tool_parsers/test_llama3_json_tool_parser.py::"
                        "test_extract_tool_calls_invalid_json", calls=[],
                        content_text='{"name": "invalidTool", "parameters": {invalid json}')]),
    dict(format="llama3-json", slug="vllm-no-parameters", src=VLLM_LLAMA,
         test="test_extract_tool_calls_missing_parameters_and_arguments_key", tags=["invalid"],
         output='{"name": "toolWithoutParams"}', calls=[call("toolWithoutParams", error=True)], content="",
         accept=[accept(VLLM_NO_CALL, "vllm-project/vllm tests/tool_parsers/test_llama3_json_tool_parser.py::"
                        "test_extract_tool_calls_missing_parameters_and_arguments_key", calls=[],
                        content_text='{"name": "toolWithoutParams"}')]),
    dict(format="llama3-json", slug="syn-cut-in-arguments", src=OURS,
         why="vLLM's output of test_extract_tool_calls_with_arguments cut after '\"limit\": 1' as a token limit cuts "
             "it: the arguments are a valid JSON prefix, and no public test holds such a cut",
         tags=["cut"], output='{"name": "searchTool", "parameters": {"query": "test query", "limit": 1',
         calls=[call("searchTool", error=True)], content=""),
    dict(format="llama3-json", slug="syn-python-tag-after-text-unicode", src=OURS,
         why="text before <|python_tag|> and unicode in the arguments: the Llama 3.1 prompt format's "
             "<|python_tag|> call, which no public llama3_json test holds",
         tags=["text-before", "unicode"],
         output='Je vérifie la météo à Zürich 🌦.<|python_tag|>{"name": "get_weather", "parameters": '
                '{"city": "Zürich", "note": "«bientôt» — 東京 too"}}',
         calls=[call("get_weather", {"city": "Zürich", "note": "«bientôt» — 東京 too"})],
         content="Je vérifie la météo à Zürich 🌦."),
    # --------------------------------------------------------------------------- mistral
    dict(format="mistral", slug="vllm-text-only", src=VLLM_MISTRAL, test="test_extract_tool_calls_no_tools[pre_v11]",
         tags=["text-only"], output="This is a test", calls=[], content="This is a test"),
    dict(format="mistral", slug="vllm-pre-v11-one-call", src=VLLM_MISTRAL,
         test="test_extract_tool_calls_pre_v11_tokenizer[single_tool_weather]", tags=["one-call", "pre-v11"],
         leak=True,
         output='[TOOL_CALLS] [{"name": "get_current_weather", "arguments":{"city": "San Francisco", "state": "CA", '
                '"unit": "celsius"}}]',
         calls=[call("get_current_weather", {"city": "San Francisco", "state": "CA", "unit": "celsius"})],
         content=""),
    dict(format="mistral", slug="vllm-pre-v11-arguments-before-name", src=VLLM_MISTRAL,
         test="test_extract_tool_calls_pre_v11_tokenizer[argument_before_name_and_name_in_argument]",
         tags=["one-call", "pre-v11", "nested"],
         output='[TOOL_CALLS] [{"arguments":{"name": "John Doe"}, "name": "get_age"}]',
         calls=[call("get_age", {"name": "John Doe"})], content=""),
    dict(format="mistral", slug="vllm-pre-v11-parallel-calls", src=VLLM_MISTRAL,
         test="test_extract_tool_calls_pre_v11_tokenizer[multiple_tools]", tags=["parallel", "pre-v11"],
         output='[TOOL_CALLS] [{"name": "add", "arguments": {"a": 3.5, "b": 4}}, {"name": "get_current_weather", '
                '"arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}}]',
         calls=[call("add", {"a": 3.5, "b": 4}),
                call("get_current_weather", {"city": "San Francisco", "state": "CA", "unit": "celsius"})],
         content=""),
    dict(format="mistral", slug="vllm-pre-v11-text-before-call", src=VLLM_MISTRAL,
         test="test_extract_tool_calls_pre_v11_tokenizer[content_before_tool]", tags=["text-before", "pre-v11"],
         output='Hello[TOOL_CALLS] [{"name": "add", "arguments":{"a": 1, "b": 2}}]',
         calls=[call("add", {"a": 1, "b": 2})], content="Hello"),
    dict(format="mistral", slug="vllm-pre-v11-text-after-call", src=VLLM_MISTRAL,
         test="test_extract_tool_calls_streaming_pre_v11_tokenizer[trailing_data_after_json]",
         tags=["text-after", "pre-v11"],
         output='[TOOL_CALLS] [{"name": "get_current_weather", "arguments":{"city": "Dallas", "state": "TX", '
                '"unit": "fahrenheit"}}]\nextra trailing data',
         calls=[call("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})],
         content="\nextra trailing data"),
    dict(format="mistral", slug="vllm-v11-one-call", src=VLLM_MISTRAL,
         test="test_extract_tool_calls[single_tool_add]", tags=["one-call", "v11"],
         output='[TOOL_CALLS]add_this_and_that{"a": 3.5, "b": 4}',
         calls=[call("add_this_and_that", {"a": 3.5, "b": 4})], content=""),
    dict(format="mistral", slug="vllm-v11-parallel-calls", src=VLLM_MISTRAL,
         test="test_extract_tool_calls[multiple_tool_calls]", tags=["parallel", "v11"],
         output='[TOOL_CALLS]add{"a": 3.5, "b": 4}[TOOL_CALLS]multiply{"a": 3, "b": 6}',
         calls=[call("add", {"a": 3.5, "b": 4}), call("multiply", {"a": 3, "b": 6})], content=""),
    dict(format="mistral", slug="vllm-v11-text-before-call", src=VLLM_MISTRAL,
         test="test_extract_tool_calls_streaming_one_chunk[v11-content_before_tool]", tags=["text-before", "v11"],
         output='bla[TOOL_CALLS]add_this_and_that{"a": 3.5, "b": 4}',
         calls=[call("add_this_and_that", {"a": 3.5, "b": 4})], content="bla"),
    dict(format="mistral", slug="vllm-v11-delimiters-in-string", src=VLLM_MISTRAL,
         test="test_extract_tool_calls[wrong_json]", tags=["delimiters", "v11", "text-before"],
         output='hi{hi[TOOL_CALLS]bash{"command": "print(\\"hello world!\\")\\nre.compile(r\'{}\')"}',
         calls=[call("bash", {"command": "print(\"hello world!\")\nre.compile(r'{}')"})], content="hi{hi"),
    dict(format="mistral", slug="vllm-v11-cut-in-arguments", src=VLLM_MISTRAL, test="test_extract_tool_calls[complex]",
         tags=["cut", "v11"],
         output='hi{hi[TOOL_CALLS]bash{"command": "print(\\"hello world!\\")\\nre.compile(r\'{}\')"',
         calls=[call("bash", error=True)], content="hi{hi"),
    dict(format="mistral", slug="vllm-pre-v11-not-json", src=VLLM_MISTRAL,
         test="test_extract_tool_calls_pre_v11_regex_fallback_fails", tags=["invalid", "pre-v11"],
         output="[TOOL_CALLS] not json at all", calls=[call("not", error=True)], content="",
         accept=[accept(VLLM_NO_CALL.replace("the whole output", "the text after the marker"),
                        "vllm-project/vllm tests/tool_parsers/test_mistral_tool_parser.py::"
                        "test_extract_tool_calls_pre_v11_regex_fallback_fails",
                        calls=[], content_text="not json at all")]),
    dict(format="mistral", slug="syn-marker-in-string-nested-unicode", src=OURS,
         why="unicode, nested arguments, and the format's own delimiters ([TOOL_CALLS], braces) inside argument "
             "strings of a v11 call: no public mistral test holds them",
         tags=["nested", "unicode", "delimiters", "v11"],
         output='[TOOL_CALLS]translate{"text": "Grüß Gott — 東京 🌤", "options": {"glossary": [{"from": "[TOOL_CALLS]", '
                '"to": "}]"}], "formal": true}}',
         calls=[call("translate", {"text": "Grüß Gott — 東京 🌤",
                                   "options": {"glossary": [{"from": "[TOOL_CALLS]", "to": "}]"}], "formal": True}})],
         content=""),
    dict(format="mistral", slug="syn-prose-mentions-call-unicode", src=OURS,
         why="prose that shows a call's JSON list without the [TOOL_CALLS] token, with unicode: a call is only "
             "what follows the token (the text-side twin of the tool_calls: null guard)",
         tags=["false-positive", "unicode"],
         output='Für München schreibe ich [{"name": "get_weather", "arguments": {"city": "München"}}] — fertig ✓',
         calls=[], content='Für München schreibe ich [{"name": "get_weather", "arguments": {"city": "München"}}] — '
                           'fertig ✓'),
    # -------------------------------------------------------------------------- pythonic
    dict(format="pythonic", slug="vllm-text-only", src=VLLM_PYTHONIC, test="test_no_tool_call", tags=["text-only"],
         output="How can I help you today?", calls=[], content="How can I help you today?"),
    dict(format="pythonic", slug="vllm-one-call", src=VLLM_PYTHONIC, test="test_tool_call[simple_streaming]",
         tags=["one-call"], leak=True, output="[get_weather(city='San Francisco', metric='celsius')]",
         calls=[call("get_weather", {"city": "San Francisco", "metric": "celsius"})], content=""),
    dict(format="pythonic", slug="vllm-more-types", src=VLLM_PYTHONIC, test="test_tool_call[more_types_streaming]",
         tags=["one-call", "nested"],
         output="[register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, "
                "role=None, passed_test=True, aliases=['John', 'Johnny'])]",
         calls=[call("register_user", {"name": "John Doe", "age": 37,
                                       "address": {"city": "San Francisco", "state": "CA"}, "role": None,
                                       "passed_test": True, "aliases": ["John", "Johnny"]})], content=""),
    dict(format="pythonic", slug="vllm-parameterless", src=VLLM_PYTHONIC, test="test_tool_call[parameterless_streaming]",
         tags=["one-call"], output="[get_weather()]", calls=[call("get_weather", {})], content=""),
    dict(format="pythonic", slug="vllm-empty-dict-and-list", src=VLLM_PYTHONIC,
         test="test_streaming_tool_call_with_large_steps", tags=["parallel"],
         output="[get_weather(city='San Francisco', metric='celsius'), get_weather(), do_something_cool(steps=[])]",
         calls=[call("get_weather", {"city": "San Francisco", "metric": "celsius"}), call("get_weather", {}),
                call("do_something_cool", {"steps": []})], content=""),
    dict(format="pythonic", slug="vllm-escaped-strings", src=VLLM_PYTHONIC,
         test="test_tool_call[escaped_string_streaming]", tags=["delimiters"],
         output="[get_weather(city='Martha\\'s Vineyard', metric='\\\"cool units\\\"')]",
         calls=[call("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'})], content=""),
    dict(format="pythonic", slug="vllm-parallel-calls", src=VLLM_PYTHONIC, test="test_tool_call[parallel_calls_streaming]",
         tags=["parallel", "nested"],
         output="[get_weather(city='San Francisco', metric='celsius'), register_user(name='John Doe', age=37, "
                "address={'city': 'San Francisco', 'state': 'CA'}, role=None, passed_test=True, "
                "aliases=['John', 'Johnny'])]",
         calls=[call("get_weather", {"city": "San Francisco", "metric": "celsius"}),
                call("register_user", {"name": "John Doe", "age": 37,
                                       "address": {"city": "San Francisco", "state": "CA"}, "role": None,
                                       "passed_test": True, "aliases": ["John", "Johnny"]})], content=""),
    dict(format="pythonic", slug="vllm-bad-sibling-call", src=VLLM_PYTHONIC,
         test="test_bad_sibling_call_does_not_drop_good_calls[False]", tags=["invalid", "parallel"],
         output="[bad(x=b'z'), get_weather(city='San Francisco', metric='celsius')]",
         calls=[call("bad", error=True), call("get_weather", {"city": "San Francisco", "metric": "celsius"})],
         content="",
         accept=[accept("vLLM's parser drops the call it cannot convert and keeps the good one; an error call "
                        "tells the driver the model asked for a call it cannot run, and neither runs it",
                        "vllm-project/vllm tests/tool_parsers/test_pythonic_tool_parser.py::"
                        "test_bad_sibling_call_does_not_drop_good_calls",
                        calls=[call("get_weather", {"city": "San Francisco", "metric": "celsius"})])]),
    dict(format="pythonic", slug="vllm-cut-in-first-call", src=VLLM_PYTHONIC,
         test="test_streaming_tool_call_with_large_steps", tags=["cut"],
         why="the test's first delta alone, as a token limit cuts the output there",
         output="[get_weather(city='San", calls=[call("get_weather", error=True)], content=""),
    dict(format="pythonic", slug="syn-text-before-python-start", src=OURS,
         why="text before a call: Llama 4 wraps its list in <|python_start|> ... <|python_end|> after prose, which no "
             "vLLM pythonic test holds",
         tags=["text-before", "text-after"],
         output="Let me check.<|python_start|>[get_weather(city='Paris', days=3)]<|python_end|> Done.",
         calls=[call("get_weather", {"city": "Paris", "days": 3})], content="Let me check. Done."),
    dict(format="pythonic", slug="syn-list-in-prose-and-spaces", src=OURS,
         why="prose holding a call list that does not open the output (the list is an example, not a call), then "
             "no call: the false-positive guard of the format",
         tags=["false-positive"],
         output="You could write [get_weather(city='Paris')] to ask for the weather.",
         calls=[], content="You could write [get_weather(city='Paris')] to ask for the weather."),
    dict(format="pythonic", slug="syn-spaces-and-unicode-in-strings", src=OURS,
         why="string arguments with white space at their ends and unicode: the format offers no render for "
             "ROUNDTRIP-001 to write them, and no public pythonic test holds them",
         tags=["delimiters", "unicode"],
         output="[send_message(to='  Zoë ', text='\\tvoilà — 東京 🌤\\n', tags=[' a', 'b '])]",
         calls=[call("send_message", {"to": "  Zoë ", "text": "\tvoilà — 東京 🌤\n", "tags": [" a", "b "]})],
         content=""),
    # ---------------------------------------------------------------------- qwen3-coder
    dict(format="qwen3-coder", slug="vllm-text-only", src=VLLM_QWEN3, test="test_extract_tool_calls_no_tools",
         tags=["text-only"], output="This is a test response without any tool calls", calls=[],
         content="This is a test response without any tool calls"),
    dict(format="qwen3-coder", slug="vllm-one-call", src=VLLM_QWEN3, test="test_extract_tool_calls[single_tool]",
         tags=["one-call"], request=QWEN3_TOOLS,
         output=QWEN3_DALLAS, calls=[call("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})],
         content=""),
    dict(format="qwen3-coder", slug="vllm-text-before-call", src=VLLM_QWEN3,
         test="test_extract_tool_calls[single_tool_with_content]", tags=["text-before"], request=QWEN3_TOOLS, leak=True,
         output="Sure! Let me check the weather for you." + QWEN3_DALLAS,
         calls=[call("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})],
         content="Sure! Let me check the weather for you."),
    dict(format="qwen3-coder", slug="vllm-multiline-json-parameter", src=VLLM_QWEN3,
         test="test_extract_tool_calls[single_tool_multiline_param]", tags=["nested", "typed"], request=QWEN3_TOOLS,
         output=QWEN3_RECTANGLE,
         calls=[call("calculate_area", {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": 2})],
         content=""),
    dict(format="qwen3-coder", slug="vllm-typed-values-without-tools", src=VLLM_QWEN3,
         test="test_extract_tool_calls[single_tool_multiline_param]", tags=["typed"],
         why="the test's output without the request's tools: a value's type comes from the tools' schema, which "
             "this case lacks, so the values stay text (the reference's reading, as vLLM's parser reads a "
             "parameter its schema does not define)",
         output=QWEN3_RECTANGLE,
         calls=[call("calculate_area", {"shape": "rectangle", "dimensions": "{\"width\": 10, \n \"height\": 20}",
                                        "precision": "2"})],
         content="",
         levels={"calls": {"level": "reference", "why": "without the request's tools no schema types the values; "
                           "the reference keeps them as text", "source": "docs/spec.md, qwen3-coder"}}),
    dict(format="qwen3-coder", slug="vllm-parallel-calls", src=VLLM_QWEN3, test="test_extract_tool_calls[parallel_tools]",
         tags=["parallel"], request=QWEN3_TOOLS, output=QWEN3_DALLAS + "\n" + QWEN3_ORLANDO,
         calls=[call("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}),
                call("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"})],
         content="\n", accept=[accept("vLLM's parser returns no content for the white space between two calls",
                                      "vllm-project/vllm tests/tool_parsers/test_qwen3coder_tool_parser.py::"
                                      "test_extract_tool_calls[parallel_tools]", content_text="")]),
    dict(format="qwen3-coder", slug="vllm-typed-parameters", src=VLLM_QWEN3,
         test="test_extract_tool_calls[tool_with_typed_params]", tags=["typed", "text-before"], request=QWEN3_TOOLS,
         output="Let me calculate that area for you.<tool_call>\n<function=calculate_area>\n<parameter=shape>\ncircle\n"
                "</parameter>\n<parameter=dimensions>\n{\"radius\": 15.5}\n</parameter>\n<parameter=precision>\n3\n"
                "</parameter>\n</function>\n</tool_call>",
         calls=[call("calculate_area", {"shape": "circle", "dimensions": {"radius": 15.5}, "precision": 3})],
         content="Let me calculate that area for you."),
    dict(format="qwen3-coder", slug="vllm-function-without-tool-call-tags", src=VLLM_QWEN3,
         test="test_extract_tool_calls_fallback_no_tags", tags=["one-call"], request=QWEN3_TOOLS,
         output="<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n"
                "</parameter>\n</function>",
         calls=[call("get_current_weather", {"city": "Dallas", "state": "TX"})], content=""),
    dict(format="qwen3-coder", slug="syn-cut-in-parameter", src=OURS, request=QWEN3_TOOLS,
         why="vLLM's single_tool output cut inside the last parameter, as a token limit cuts it; no public test "
             "holds such a cut",
         tags=["cut"], output=QWEN3_DALLAS.split("fahrenheit")[0] + "fahr",
         calls=[call("get_current_weather", error=True)], content=""),
    dict(format="qwen3-coder", slug="syn-delimiters-spaces-unicode", src=OURS, request=QWEN3_TOOLS,
         why="a parameter value holding markup (<div>, a < b, a look-alike </param>), unicode, and white space at its "
             "ends inside the one newline the template puts around a value: no public test holds them",
         tags=["delimiters", "unicode", "text-after"],
         output="Voilà.<tool_call>\n<function=get_current_weather>\n<parameter=city>\n  São Paulo <div>a < b</param> "
                "東京 🌤 \n</parameter>\n<parameter=state>\nSP\n</parameter>\n</function>\n</tool_call>\nFertig.",
         calls=[call("get_current_weather", {"city": "  São Paulo <div>a < b</param> 東京 🌤 ", "state": "SP"})],
         content="Voilà.\nFertig."),
    dict(format="qwen3-coder", slug="syn-prose-mentions-call", src=OURS, request=QWEN3_TOOLS,
         why="prose that shows a call as JSON, without <tool_call>: no call (the text-side twin of the tool_calls: "
             "null guard; llama.cpp#18183)",
         tags=["false-positive"],
         output='I could send {"name": "get_current_weather", "arguments": {"city": "Dallas"}}, but I know it.',
         calls=[], content='I could send {"name": "get_current_weather", "arguments": {"city": "Dallas"}}, but I know it.'),
    # ------------------------------------------------------------------------- deepseek
    dict(format="deepseek", slug="vllm-v3-text-only", src=VLLM_DSV3, test="TestDeepSeekV3ToolParser[no_tool_calls_output]",
         tags=["text-only"], output="How can I help you today? I can check weather for you.", calls=[],
         content="How can I help you today? I can check weather for you."),
    dict(format="deepseek", slug="vllm-v3-one-call", src=VLLM_DSV3, test="TestDeepSeekV3ToolParser[single_tool_call_output]",
         tags=["one-call", "v3"], leak=True, output=DS_BEGIN + DS_V3("get_weather", '{"city": "Tokyo", "unit": "celsius"}') + DS_END,
         calls=[call("get_weather", {"city": "Tokyo", "unit": "celsius"})], content=""),
    dict(format="deepseek", slug="vllm-v3-parallel-calls", src=VLLM_DSV3,
         test="TestDeepSeekV3ToolParser[parallel_tool_calls_output]", tags=["parallel", "v3"],
         output=DS_BEGIN + DS_V3("get_weather", '{"city": "Tokyo", "unit": "celsius"}')
         + DS_V3("search_hotels", '{"location": "Tokyo", "check_in": "2025-01-15"}') + DS_END,
         calls=[call("get_weather", {"city": "Tokyo", "unit": "celsius"}),
                call("search_hotels", {"location": "Tokyo", "check_in": "2025-01-15"})], content=""),
    dict(format="deepseek", slug="vllm-v3-data-types", src=VLLM_DSV3,
         test="TestDeepSeekV3ToolParser[various_data_types_output]", tags=["nested", "v3"],
         output=DS_BEGIN + DS_V3("test_function", '{"string_field": "hello", "int_field": 42, "float_field": 3.14, '
                                 '"bool_field": true, "null_field": null, "array_field": ["a", "b", "c"], '
                                 '"object_field": {"nested": "value"}, "empty_array": [], "empty_object": {}}') + DS_END,
         calls=[call("test_function", {"string_field": "hello", "int_field": 42, "float_field": 3.14, "bool_field": True,
                                       "null_field": None, "array_field": ["a", "b", "c"],
                                       "object_field": {"nested": "value"}, "empty_array": [], "empty_object": {}})],
         content=""),
    dict(format="deepseek", slug="vllm-v3-empty-arguments", src=VLLM_DSV3,
         test="TestDeepSeekV3ToolParser[empty_arguments_output]", tags=["one-call", "v3"],
         output=DS_BEGIN + DS_V3("get_current_time", "{}") + DS_END, calls=[call("get_current_time", {})], content=""),
    dict(format="deepseek", slug="vllm-v3-text-before-call", src=VLLM_DSV3,
         test="TestDeepSeekV3ToolParser[surrounding_text_output]", tags=["text-before", "v3"],
         output="Let me check the weather for you." + DS_BEGIN + DS_V3("get_weather", '{"city": "Paris"}') + DS_END,
         calls=[call("get_weather", {"city": "Paris"})], content="Let me check the weather for you."),
    dict(format="deepseek", slug="vllm-v3-escaped-strings", src=VLLM_DSV3,
         test="TestDeepSeekV3ToolParser[escaped_strings_output]", tags=["delimiters", "v3"],
         output=DS_BEGIN + DS_V3("send_message", '{"text": "He said \\"hello\\"", "path": "C:\\\\Users\\\\file", '
                                 '"newline": "line1\\nline2"}') + DS_END,
         calls=[call("send_message", {"text": 'He said "hello"', "path": "C:\\Users\\file", "newline": "line1\nline2"})],
         content=""),
    dict(format="deepseek", slug="vllm-v3-invalid-json", src=VLLM_DSV3,
         test="TestDeepSeekV3ToolParser[malformed_input_outputs-0]", tags=["invalid", "v3"],
         output=DS_BEGIN + DS_V3("get_weather", '{"city": "Tokyo"') + DS_END,
         calls=[call("get_weather", error=True)], content="",
         accept=[accept("vLLM's shared parser tests expect no call for a malformed input; neither answer runs one",
                        "vllm-project/vllm tests/tool_parsers/test_deepseekv3_tool_parser.py (malformed_input_outputs)",
                        calls=[])]),
    dict(format="deepseek", slug="vllm-v3-no-call-markers", src=VLLM_DSV3,
         test="TestDeepSeekV3ToolParser[malformed_input_outputs-1]", tags=["invalid", "v3"],
         output=DS_BEGIN + 'function<｜tool▁sep｜>get_weather\n```json\n{"city": "Tokyo"}\n```' + DS_END,
         calls=[call("", error=True)], content="",
         accept=[accept("vLLM's shared parser tests expect no call for a malformed input; neither answer runs one",
                        "vllm-project/vllm tests/tool_parsers/test_deepseekv3_tool_parser.py (malformed_input_outputs)",
                        calls=[])]),
    dict(format="deepseek", slug="vllm-v31-one-call", src=VLLM_DSV31, test="test_extract_tool_calls_with_tool",
         tags=["one-call", "text-before", "v31"],
         output="normal text" + DS_BEGIN + '<｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜>' + DS_END,
         calls=[call("foo", {"x": 1})], content="normal text"),
    dict(format="deepseek", slug="vllm-v31-parallel-calls-text-after", src=VLLM_DSV31,
         test="test_extract_tool_calls_with_multiple_tools", tags=["parallel", "text-before", "text-after", "v31"],
         output="some prefix text" + DS_BEGIN + '<｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜>'
                '<｜tool▁call▁begin｜>bar<｜tool▁sep｜>{"y":2}<｜tool▁call▁end｜>' + DS_END + " some suffix text",
         calls=[call("foo", {"x": 1}), call("bar", {"y": 2})], content="some prefix text some suffix text",
         levels={"content_text": {"level": "should", "why": "the text after the calls is content; vLLM's test "
                                  "keeps only the prefix, which loses what the model wrote after them "
                                  "(BUG-CLASSES 11, vllm#56263)", "source": "docs/spec.md, deepseek"}}),
    dict(format="deepseek", slug="vllm-v31-cut-after-begin", src=VLLM_DSV31,
         test="test_extract_tool_calls_unparsable_block[Let me look that up.]", tags=["cut", "v31"],
         output="Let me look that up." + DS_BEGIN + "get_weather",
         calls=[call("", error=True)], content="Let me look that up.",
         accept=[accept("vLLM's parser returns no call and the whole output as content; neither answer runs a call",
                        "vllm-project/vllm tests/tool_parsers/test_deepseekv31_tool_parser.py::"
                        "test_extract_tool_calls_unparsable_block", calls=[],
                        content_text="Let me look that up." + DS_BEGIN + "get_weather")]),
    dict(format="deepseek", slug="syn-cut-in-arguments", src=OURS,
         why="vLLM's V3.1 output of test_extract_tool_calls_with_tool cut inside the arguments, as a token limit "
             "cuts it, after the call began: the unparsable-block test cuts before any call",
         tags=["cut", "v31"], output="normal text" + DS_BEGIN + '<｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1',
         calls=[call("foo", error=True)], content="normal text"),
    dict(format="deepseek", slug="syn-fence-in-string-unicode", src=OURS,
         why="a V3 call whose argument string holds the format's own ``` fence and unicode, then the prose "
             "mention of a call as JSON: no public test holds them",
         tags=["delimiters", "unicode", "text-after"],
         output=DS_BEGIN + DS_V3("write_note", '{"text": "東京 🌤 — use ```json fences```\\nend"}') + DS_END
                + 'Next time I could send {"name": "write_note", "arguments": {"text": "x"}} again.',
         calls=[call("write_note", {"text": "東京 🌤 — use ```json fences```\nend"})],
         content='Next time I could send {"name": "write_note", "arguments": {"text": "x"}} again.'),
    dict(format="deepseek", slug="syn-prose-mentions-call", src=OURS,
         why="prose that shows a call as JSON, without the tool-calls tokens: no call (llama.cpp#18183)",
         tags=["false-positive"],
         output='A call looks like {"name": "get_weather", "arguments": {"city": "Paris"}} in JSON.',
         calls=[], content='A call looks like {"name": "get_weather", "arguments": {"city": "Paris"}} in JSON.'),
    # ------------------------------------------------------------------------- kimi-k2
    dict(format="kimi-k2", slug="vllm-text-only", src=VLLM_KIMI, test="TestExtractToolCalls::test_no_tools",
         tags=["text-only"], output="This is a test", calls=[], content="This is a test"),
    dict(format="kimi-k2", slug="vllm-one-call", src=VLLM_KIMI, test="TestExtractToolCalls::test_extract_tool_calls[single_tool_call]",
         tags=["one-call", "text-before"], leak=True,
         output="I'll check. " + KIMI(("functions.get_weather:0", '{"city": "Beijing"}')),
         calls=[kcall("functions.get_weather:0", "get_weather", {"city": "Beijing"})], content="I'll check. "),
    dict(format="kimi-k2", slug="vllm-parallel-calls", src=VLLM_KIMI,
         test="TestExtractToolCalls::test_extract_tool_calls[parallel_tool_calls]", tags=["parallel"],
         output="Compare weather. " + KIMI(("functions.get_weather:0", '{"city": "Beijing"}'),
                                          ("functions.get_weather:1", '{"city": "Shanghai"}')),
         calls=[kcall("functions.get_weather:0", "get_weather", {"city": "Beijing"}),
                kcall("functions.get_weather:1", "get_weather", {"city": "Shanghai"})], content="Compare weather. "),
    dict(format="kimi-k2", slug="vllm-three-calls", src=VLLM_KIMI,
         test="TestExtractToolCalls::test_extract_tool_calls[three_tool_calls]", tags=["parallel"],
         output="Multiple tasks. " + KIMI(("functions.get_weather:0", '{"city": "New York"}'),
                                         ("functions.get_news:1", '{"topic": "technology"}'),
                                         ("functions.send_email:2", '{"to": "user@example.com", "subject": "Daily Update"}')),
         calls=[kcall("functions.get_weather:0", "get_weather", {"city": "New York"}),
                kcall("functions.get_news:1", "get_news", {"topic": "technology"}),
                kcall("functions.send_email:2", "send_email", {"to": "user@example.com", "subject": "Daily Update"})],
         content="Multiple tasks. "),
    dict(format="kimi-k2", slug="vllm-angle-brackets-in-json", src=VLLM_KIMI,
         test="TestExtractToolCalls::test_extract_tool_calls[angle_brackets_in_json]", tags=["delimiters"],
         output="Process HTML. " + KIMI(("functions.process_html:0", '{"html": "<div>content</div>"}')),
         calls=[kcall("functions.process_html:0", "process_html", {"html": "<div>content</div>"})],
         content="Process HTML. "),
    dict(format="kimi-k2", slug="vllm-multiline-json", src=VLLM_KIMI,
         test="TestExtractToolCalls::test_extract_tool_calls[multiline_json]", tags=["one-call"],
         output="Formatted. " + KIMI(("functions.process_data:0", '{\n  "name": "test",\n  "value": 123\n}')),
         calls=[kcall("functions.process_data:0", "process_data", {"name": "test", "value": 123})], content="Formatted. "),
    dict(format="kimi-k2", slug="vllm-no-functions-prefix", src=VLLM_KIMI,
         test="TestExtractToolCalls::test_extract_tool_calls[no_functions_prefix]", tags=["one-call"],
         output="No prefix. " + KIMI(("get_weather:0", '{"city": "Tokyo"}')),
         calls=[kcall("get_weather:0", "get_weather", {"city": "Tokyo"})], content="No prefix. "),
    dict(format="kimi-k2", slug="vllm-empty-arguments", src=VLLM_KIMI,
         test="TestExtractToolCalls::test_extract_tool_calls[empty_arguments]", tags=["one-call"],
         output="Empty args. " + KIMI(("functions.test:0", "{}")),
         calls=[kcall("functions.test:0", "test", {})], content="Empty args. "),
    dict(format="kimi-k2", slug="vllm-invalid-json-beside-good", src=VLLM_KIMI,
         test="TestExtractToolCalls::test_invalid_json_still_extracted", tags=["invalid", "parallel"],
         output="Help. " + KIMI(("functions.bad:0", '{"city": "Beijing"'), ("functions.good:1", '{"city": "Shanghai"}')),
         calls=[kcall("functions.bad:0", "bad", None, error=True),
                kcall("functions.good:1", "good", {"city": "Shanghai"})], content="Help. "),
    dict(format="kimi-k2", slug="vllm-malformed-id", src=VLLM_KIMI, test="TestExtractToolCalls::test_invalid_funcall_id_skipped",
         tags=["invalid", "parallel"],
         output="Help. " + KIMI(("functions.invalid.0", '{"city": "Beijing"}'), ("functions.valid:1", '{"city": "Shanghai"}')),
         calls=[kcall("functions.invalid.0", "", None, error=True),
                kcall("functions.valid:1", "valid", {"city": "Shanghai"})], content="Help. ",
         accept=[accept("vLLM's parser skips a call whose id is not NAME:INDEX; neither answer runs it",
                        "vllm-project/vllm tests/tool_parsers/test_kimi_k2_tool_parser.py::"
                        "TestExtractToolCalls::test_invalid_funcall_id_skipped",
                        calls=[kcall("functions.valid:1", "valid", {"city": "Shanghai"})])]),
    dict(format="kimi-k2", slug="syn-cut-in-arguments-unicode", src=OURS,
         why="a section cut inside the second call's arguments, as a token limit cuts it, after a call with unicode "
             "and white space at the ends of a string: no public test holds them",
         tags=["cut", "unicode", "parallel"],
         output="Je regarde. " + SECTION_BEGIN_K + "<|tool_call_begin|>functions.translate:0 <|tool_call_argument_begin|>"
                '{"text": "  Grüß Gott — 東京 🌤 ", "to": "fr"}<|tool_call_end|><|tool_call_begin|>functions.get_weather:1 '
                '<|tool_call_argument_begin|>{"city": "Par',
         calls=[kcall("functions.translate:0", "translate", {"text": "  Grüß Gott — 東京 🌤 ", "to": "fr"}),
                kcall("functions.get_weather:1", "get_weather", None, error=True)], content="Je regarde. "),
    dict(format="kimi-k2", slug="syn-prose-mentions-call", src=OURS,
         why="prose that shows a call as JSON, without the tool-calls section: no call (llama.cpp#18183)",
         tags=["false-positive"],
         output='I would call {"name": "get_weather", "arguments": {"city": "Paris"}} if I needed to.',
         calls=[], content='I would call {"name": "get_weather", "arguments": {"city": "Paris"}} if I needed to.'),
    # ------------------------------------------------------------------------- glm45
    dict(format="glm45", slug="vllm-text-only", src=VLLM_GLM, test="test_extract_tool_calls_no_tools",
         tags=["text-only"], output="This is a test", calls=[], content="This is a test", request=GLM_TOOLS),
    dict(format="glm45", slug="vllm-one-call", src=VLLM_GLM, test="test_extract_tool_calls[single_tool_call]",
         tags=["one-call"], leak=True, request=GLM_TOOLS,
         output=GLM_CALL("get_current_weather", [("city", "Dallas"), ("state", "TX"), ("unit", "fahrenheit")], "\n    "),
         calls=[call("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})], content=""),
    dict(format="glm45", slug="vllm-parallel-calls", src=VLLM_GLM, test="test_extract_tool_calls[multiple_tool_calls]",
         tags=["parallel"], request=GLM_TOOLS,
         output=GLM_CALL("get_current_weather", [("city", "Dallas"), ("state", "TX"), ("unit", "fahrenheit")], "\n    ")
                + "\n    " + GLM_CALL("get_current_weather", [("city", "Orlando"), ("state", "FL"), ("unit", "fahrenheit")], "\n    "),
         calls=[call("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}),
                call("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"})],
         content="\n    ", accept=[accept("vLLM's parser returns no content for the white space between two calls",
                                         "vllm-project/vllm tests/tool_parsers/test_glm4_moe_tool_parser.py::"
                                         "test_extract_tool_calls[multiple_tool_calls]", content_text="")]),
    dict(format="glm45", slug="vllm-text-before-call", src=VLLM_GLM,
         test="test_extract_tool_calls[tool_call_with_content_before]", tags=["text-before"], request=GLM_TOOLS,
         output="I'll help you check the weather. " + GLM_CALL("get_current_weather", [("city", "Seattle"), ("state", "WA"),
                                                                                      ("unit", "celsius")], "\n    "),
         calls=[call("get_current_weather", {"city": "Seattle", "state": "WA", "unit": "celsius"})],
         content="I'll help you check the weather. "),
    dict(format="glm45", slug="vllm-thinking-then-call", src=VLLM_GLM, test="test_extract_tool_calls_with_thinking_tags",
         tags=["text-before"], request=GLM_TOOLS,
         output="<think>I want to get the weather.</think>\n\nI will help you get the weather.\n"
                + GLM_CALL("get_weather", [("city", "Beijing"), ("date", "2025-08-01")], "\n"),
         calls=[call("get_weather", {"city": "Beijing", "date": "2025-08-01"})],
         content="<think>I want to get the weather.</think>\n\nI will help you get the weather.\n"),
    dict(format="glm45", slug="vllm-empty-arguments", src=VLLM_GLM, test="test_extract_tool_calls_empty_arguments",
         tags=["one-call"], request=GLM_TOOLS, output="<tool_call>get_current_time\n</tool_call>",
         calls=[call("get_current_time", {})], content=""),
    dict(format="glm45", slug="vllm-text-between-calls", src=VLLM_GLM, test="test_extract_tool_calls_mixed_content",
         tags=["parallel", "text-before", "text-after"], request=GLM_TOOLS,
         output="I will help you get the weather info.\n\n" + GLM_CALL("get_weather", [("city", "Beijing"), ("date", "2025-08-01")], "\n")
                + "\n\nmeaningwhile, I will also check the weather in Shanghai.\n\n"
                + GLM_CALL("get_weather", [("city", "Shanghai"), ("date", "2025-08-01")], "\n"),
         calls=[call("get_weather", {"city": "Beijing", "date": "2025-08-01"}),
                call("get_weather", {"city": "Shanghai", "date": "2025-08-01"})],
         content="I will help you get the weather info.\n\n\n\nmeaningwhile, I will also check the weather in Shanghai.\n\n",
         levels={"content_text": {"level": "should", "why": "the text between and after calls is content; vLLM's test "
                                  "keeps only the text before the first call, which loses what the model wrote "
                                  "between them (BUG-CLASSES 11, vllm#56263)", "source": "docs/spec.md, glm45"}}),
    dict(format="glm45", slug="vllm-special-characters", src=VLLM_GLM, test="test_extract_tool_calls_special_characters",
         tags=["one-call"], request=GLM_TOOLS,
         output=GLM_CALL("send_message", [("recipient", "Amy"), ("message", "It is a nice day"), ("priority", "high")], "\n"),
         calls=[call("send_message", {"recipient": "Amy", "message": "It is a nice day", "priority": "high"})], content=""),
    dict(format="glm45", slug="vllm-cut-before-closing-tag", src=VLLM_GLM, test="test_extract_tool_calls_incomplete_tool_call",
         tags=["cut"], request=GLM_TOOLS,
         output="<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n"
                "<arg_value>2025-08-01</arg_value>",
         calls=[call("get_weather", error=True)], content="",
         accept=[accept("vLLM's parser returns no call and the whole output as content; neither answer runs a call",
                        "vllm-project/vllm tests/tool_parsers/test_glm4_moe_tool_parser.py::"
                        "test_extract_tool_calls_incomplete_tool_call", calls=[],
                        content_text="<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
                                     "<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>")]),
    dict(format="glm45", slug="syn-typed-values-markup-unicode", src=OURS, request=GLM_TYPED_TOOLS,
         why="values typed by the request's tools (an integer, a boolean, an object) next to a string holding markup "
             "(<div>, a < b), unicode and white space at its ends: no public glm test holds them",
         tags=["typed", "delimiters", "unicode", "nested"],
         output="Je note.<tool_call>save_note\n<arg_key>text</arg_key>\n<arg_value>  <div>a < b</div> 東京 🌤 </arg_value>\n"
                "<arg_key>stars</arg_key>\n<arg_value>4</arg_value>\n<arg_key>pinned</arg_key>\n<arg_value>true</arg_value>\n"
                "<arg_key>meta</arg_key>\n<arg_value>{\"tags\": [\"a\", {\"b\": null}]}</arg_value>\n</tool_call>",
         calls=[call("save_note", {"text": "  <div>a < b</div> 東京 🌤 ", "stars": 4, "pinned": True,
                                   "meta": {"tags": ["a", {"b": None}]}})],
         content="Je note."),
    dict(format="glm45", slug="syn-prose-mentions-call", src=OURS, request=GLM_TOOLS,
         why="prose that shows a call as JSON, without <tool_call>: no call (llama.cpp#18183)",
         tags=["false-positive"],
         output='Send {"name": "get_weather", "arguments": {"city": "Paris"}} to ask for the weather.',
         calls=[], content='Send {"name": "get_weather", "arguments": {"city": "Paris"}} to ask for the weather.'),
]


_PIECE = re.compile(r" ?[A-Za-z]+| ?[0-9]{1,3}| ?[^\sA-Za-z0-9]|\s+")


def server_split(text: str, special: list[str]) -> list[str]:
    """The deltas a server's detokenizer emits for ``text`` (module docstring)."""
    if special:
        parts = re.split("(" + "|".join(map(re.escape, special)) + ")", text)
    else:
        parts = [text]
    out: list[str] = []
    for part in parts:
        if part in special:
            out.append(part)
            continue
        for piece in _PIECE.findall(part):
            if piece.isascii():
                out.append(piece)
            else:
                out.extend(piece)
    assert "".join(out) == text
    return out


def provenance(entry: dict[str, Any]) -> dict[str, Any]:
    src = entry["src"]
    if src["source"] == "mcs-conformance":
        return {"kind": "synthetic", "source": "mcs-conformance", "license": src["license"], "why": entry["why"]}
    out = {"kind": "synthetic", "source": src["source"], "path": f"{src['path']}::{entry['test']}",
           "commit": src["commit"], "license": src["license"],
           "why": entry.get("why") or "a hand-written model output of the parser's test, with the test's expected "
                                      "calls and content"}
    return out


def stream_case(entry: dict[str, Any]) -> dict[str, Any]:
    fmt, text = entry["format"], entry["output"]
    expect: dict[str, Any] = {"message": text, "calls": entry["calls"], "content_text": entry["content"],
                              "done": False, "claimed_by": fmt, "extracted_by": fmt, "via_backup": False}
    if entry.get("accept"):
        expect["accept"] = entry["accept"]
    if entry.get("levels"):
        expect["levels"] = entry["levels"]
    case = {
        "id": f"{fmt}/{entry['slug']}",
        "format": fmt,
        "description": _description(entry),
        "provenance": provenance(entry),
        "tags": entry.get("tags", []),
        **({"request": entry["request"]} if entry.get("request") else {}),
        "chunks": server_split(text, SPECIAL[fmt]),
        "expect": expect,
    }
    return case


def leak_case(entry: dict[str, Any]) -> dict[str, Any]:
    fmt, text = entry["format"], entry["output"]
    message = {
        "id": f"resp_{fmt.replace('-', '_')}_leak", "object": "response", "created_at": 1751900000,
        "status": "completed", "model": entry.get("model", "served-without-a-tool-parser"),
        "output": [{"id": f"msg_{fmt.replace('-', '_')}_leak", "type": "message", "status": "completed",
                    "role": "assistant", "content": [{"type": "output_text", "text": text, "annotations": []}]}],
    }
    return {
        "id": f"{fmt}/leak-{entry['slug']}",
        "format": fmt,
        "description": f"The output of {fmt}/{entry['slug']} as the text of an OpenAI Responses response from a "
                       "server with no tool parser: openai-responses claims the message and finds no call, and the "
                       f"{fmt} strategy reads the call as the backup (ADR-0001's leak fall-through).",
        "provenance": provenance(entry),
        "tags": ["leak", *entry.get("tags", [])],
        **({"request": entry["request"]} if entry.get("request") else {}),
        "message": message,
        "expect": {"calls": entry["calls"], "content_text": text, "claimed_by": "openai-responses",
                   "extracted_by": fmt, "via_backup": True},
    }


def _description(entry: dict[str, Any]) -> str:
    calls = entry["calls"]
    what = ("no call" if not calls else
            f"{len(calls)} call{'s' if len(calls) > 1 else ''}"
            + (" (error calls: never run)" if all(c.get("error") for c in calls) else ""))
    where = (f"{entry['src']['source']}'s parser test {entry['test']}" if entry["src"]["source"] != "mcs-conformance"
             else "written for this suite")
    return (f"A {entry['format']} model output ({', '.join(entry.get('tags', [])) or 'text'}; {what}) from {where}, "
            "streamed as a server's detokenizer emits it (special tokens alone in their delta).")


def cases() -> list[dict[str, Any]]:
    out = []
    for entry in OUTPUTS:
        out.append(stream_case(entry))
        if entry.get("leak"):
            out.append(leak_case(entry))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a written case differs")
    args = parser.parse_args()
    stale = []
    for case in cases():
        path = CASES / case["format"] / f"{case['id'].split('/', 1)[1]}.json"
        text = json.dumps(case, indent=2, ensure_ascii=False) + "\n"
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path.relative_to(ROOT)))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if stale:
        print("stale or missing (run python scripts/build_text_formats.py):\n  " + "\n  ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
