"""The example strategies under examples/: the conformance suite passes on each, run the
way an outside author runs it, and each example's trickiest behaviour holds."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from jsonschema import Draft202012Validator

from mcs_conformance import LLMStreamBuffer, MalformedChunk, StreamError, ToolCall, ToolCallRecord
from mcs_conformance.strategies import OpenAIChatStrategy, default_chain

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example(folder: str, module: str) -> ModuleType:
    """Import examples/<folder>/<module>.py the way the plugin would, from its own folder."""
    key = f"_example_{folder}_{module}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, EXAMPLES / folder / f"{module}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[key] = mod
        spec.loader.exec_module(mod)
    return sys.modules[key]


def _history_schema(folder: str, fmt: str) -> Draft202012Validator:
    path = EXAMPLES / folder / "corpus" / "schemas" / f"{fmt}.history.schema.json"
    return Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def _view(calls: list[ToolCall]) -> list[tuple]:
    return [(c.name, c.arguments, c.id, c.error is not None) for c in calls]


# -- the conformance suite, run as an author runs it --------------------------------------------
_FAMILY = re.compile(r"^([A-Z]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", re.M)
_FAILED = re.compile(r"^FAILED mcs-conformance::([A-Z]+-\d+\[[^\]]+\])", re.M)

@pytest.mark.parametrize(
    "folder, spec, own",
    [
        ("hermes", "hermes_strategy:HermesStrategy", {"EXTRACT": 10, "HISTORY": 7, "ROUNDTRIP": 1, "SPLIT": 12}),
        ("ollama", "ollama_strategy:OllamaStrategy", {"PARITY": 6, "EXTRACT": 3, "HISTORY": 3}),  # no noise on this wire
    ],
)
def test_conformance_suite_passes_on_the_example(folder: str, spec: str, own: dict[str, int]) -> None:
    here = EXAMPLES / folder
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(here), os.environ.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--mcs-strategy={spec}",
           "--mcs-corpus=corpus", "--mcs-only", "-q", "-rf"]
    done = subprocess.run(cmd, cwd=here, env=env, capture_output=True, text=True, timeout=900)
    out = done.stdout + done.stderr
    failed = set(_FAILED.findall(done.stdout))
    assert failed == set(), f"failed: {sorted(failed)}\n" + out[-6000:]
    assert done.returncode == 0, out[-6000:]
    last = [line for line in done.stdout.splitlines() if line.strip()][-1]
    passed = re.search(r"(\d+) passed", last)
    assert passed and int(passed.group(1)) >= 150, last
    assert not re.search(r"error", last), last
    families = {m[0]: (int(m[1]), int(m[2]), int(m[4])) for m in _FAMILY.findall(done.stdout)}  # passed, failed, xfailed
    assert families, out[-3000:]
    assert sum(f for _, f, _ in families.values()) == 0, families
    assert all(xfailed == 0 for _, _, xfailed in families.values()), families
    for family, at_least in own.items():  # the example's own cases really ran
        assert families.get(family, (0, 0, 0))[0] >= at_least, (family, families)
    assert "snapshots passed" in done.stdout and "snapshots generated" not in done.stdout


# -- Hermes -------------------------------------------------------------------------------------
CLOSE_TAG_TEXT = (
    'I\'ll save it.\n<tool_call>\n{"name": "write_file", "arguments": {"path": "calls.md", '
    '"content": "End a call with </tool_call> on its own line."}}\n</tool_call>\nSaved.'
)
CLOSE_TAG_CALL = ("write_file", {"path": "calls.md", "content": "End a call with </tool_call> on its own line."}, None, False)


def _hermes():
    return _example("hermes", "hermes_strategy").HermesStrategy()


def test_hermes_closing_tag_inside_an_argument_does_not_end_the_call() -> None:
    h = _hermes()
    assert _view(h.extract(CLOSE_TAG_TEXT)) == [CLOSE_TAG_CALL]
    assert h.content_text(CLOSE_TAG_TEXT) == "I'll save it.\n\nSaved."


def test_hermes_closing_tag_inside_an_argument_split_at_every_character() -> None:
    buf = LLMStreamBuffer([_hermes()])
    for ch in CLOSE_TAG_TEXT:
        buf.feed(ch)
    assert buf.as_dict() == CLOSE_TAG_TEXT
    assert buf.display_text == "I'll save it.\n\nSaved."
    assert _view(_hermes().extract(buf.as_dict())) == [CLOSE_TAG_CALL]


def test_hermes_prose_after_a_block_and_between_blocks_is_content() -> None:
    text = 'A<tool_call>{"name": "f", "arguments": {}}</tool_call>B <tool_call>{"name": "g"}</tool_call>C'
    h = _hermes()
    assert _view(h.extract(text)) == [("f", {}, None, False), ("g", {}, None, False)]
    assert h.content_text(text) == "AB C"


def test_hermes_unclosed_or_broken_blocks_are_never_executable() -> None:
    h = _hermes()
    unclosed = '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}'
    assert _view(h.extract(unclosed)) == [("final_answer", {}, None, True)]
    assert _view(h.extract('<tool_call>{"name": "f", "arguments": {"x": 1}</tool_call>')) == [("f", {}, None, True)]
    assert _view(h.extract("<tool_call>not json</tool_call>")) == [("", {}, None, True)]
    assert _view(h.extract('<tool_call>{"name": "f", "arguments": "hello"}</tool_call>')) == [("f", {}, None, True)]


def test_hermes_forming_name_grows_as_a_prefix() -> None:
    h = _hermes()
    text = 'Hi <tool_call>{"name": "get_\\u00e9t\\u00e9", "arguments": {}}</tool_call>'
    names = [h.forming_name(text[:i]) for i in range(len(text) + 1)]
    seen = [n for n in names if n is not None]
    assert seen[-1] == "get_été" and all("get_été".startswith(n) for n in seen)
    assert names[: text.index('"name": "') + 9] == [None] * (text.index('"name": "') + 9)


def test_hermes_render_reads_back_equal_with_tags_inside_values() -> None:
    h = _hermes()
    calls = [
        ToolCall("echo", {"text": "</tool_call><tool_call>{\"name\": \"x\"}", "n": [1, {"k": None}]}),
        ToolCall("noop", {}),
    ]
    assert _view(h.extract(h.render(calls))) == _view(calls)


def test_hermes_result_messages_is_a_valid_history_and_refuses_strangers() -> None:
    h = _hermes()
    text = 'Checking.<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}</tool_call>'
    call = h.extract(text)[0]
    history = h.result_messages(text, [ToolCallRecord(call, "sunny, 22 °C")])
    assert not list(_history_schema("hermes", "hermes").iter_errors(history))
    assert history[0] == {"role": "assistant", "content": text}
    assert json.loads(history[1]["content"].split("\n")[1]) == {"name": "get_weather", "content": "sunny, 22 °C"}
    with pytest.raises(ValueError, match="answers no call"):
        h.result_messages(text, [ToolCallRecord(ToolCall("other", {}), "x")])


def test_hermes_refuses_non_text_chunks() -> None:
    buf = LLMStreamBuffer([_hermes()])
    buf.feed("hello ")
    with pytest.raises(MalformedChunk, match="str chunks"):
        buf.feed({"content": "x"})


# -- Ollama -------------------------------------------------------------------------------------
def _ollama():
    return _example("ollama", "ollama_strategy").OllamaStrategy()


def _chunk(message: dict, done: bool = False, **extra) -> dict:
    return {"model": "qwen3", "created_at": "2025-07-07T21:00:00Z", "message": {"role": "assistant", **message},
            "done": done, **extra}


def test_ollama_tool_calls_are_extended_across_chunks_never_merged() -> None:
    same = {"function": {"name": "get_temperature", "arguments": {"city": "London"}}}
    chunks = [
        _chunk({"content": "", "thinking": "Two "}),
        _chunk({"content": "", "thinking": "cities."}),
        _chunk({"content": "", "tool_calls": [same, {"function": {"name": "get_conditions", "arguments": {"city": "London"}}}]}),
        _chunk({"content": "", "tool_calls": [same]}),  # an identical call again: a second call, not a repeat
        _chunk({"content": ""}, done=True, done_reason="stop", eval_count=15),
    ]
    buf = LLMStreamBuffer([_ollama()])
    for c in chunks:
        buf.feed(c)
    body = buf.as_dict()  # the stream=false body: the last chunk's fields, texts joined, calls extended
    assert buf.done
    assert {k: body[k] for k in ("done", "done_reason", "eval_count")} == {"done": True, "done_reason": "stop", "eval_count": 15}
    assert body["message"]["thinking"] == "Two cities."
    assert [e["function"]["name"] for e in body["message"]["tool_calls"]] == ["get_temperature", "get_conditions", "get_temperature"]
    assert _view(_ollama().extract(body)) == [
        ("get_temperature", {"city": "London"}, None, False),
        ("get_conditions", {"city": "London"}, None, False),
        ("get_temperature", {"city": "London"}, None, False),
    ]


def test_ollama_calls_of_an_unfinished_body_never_run() -> None:
    call = {"function": {"name": "delete_file", "arguments": {"path": "/tmp/x"}}}
    for last in ({"done": False}, {"done": True, "done_reason": "length"}):
        body = {**_chunk({"content": "", "tool_calls": [call]}), **last}
        assert _view(_ollama().extract(body)) == [("delete_file", {"path": "/tmp/x"}, None, True)], last


def test_ollama_body_is_claimed_by_ollama_alone() -> None:
    body = _chunk({"content": "", "tool_calls": [{"function": {"name": "f", "arguments": {"x": 1}}}]}, done=True,
                  done_reason="stop")
    openai = {"role": "assistant", "content": None,
              "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}}]}
    chain = default_chain()
    chain_with = [*list(chain)[:3], _ollama(), *list(chain)[3:]]
    assert [s.name for s in chain_with if s.recognizes(body)] == ["ollama"]
    assert [s.name for s in chain_with if s.recognizes(openai)] == ["openai-chat"]
    assert not _ollama().recognizes({"role": "assistant", "content": "plain text"})
    assert not OpenAIChatStrategy().recognizes(_chunk({"content": "x"}))


def test_ollama_error_line_raises_stream_error_with_the_payload() -> None:
    buf = LLMStreamBuffer([_ollama()])
    buf.feed(_chunk({"content": "The"}))
    error = {"error": "an error was encountered while running the model"}
    with pytest.raises(StreamError) as raised:
        buf.feed(error)
    assert raised.value.payload == error
    assert not buf.done


def test_ollama_result_messages_replays_thinking_and_names_each_result() -> None:
    o = _ollama()
    body = _chunk({"content": "", "thinking": "Both cities.",
                   "tool_calls": [{"function": {"name": "get_temperature", "arguments": {"city": "New York"}}},
                                  {"function": {"name": "get_temperature", "arguments": {"city": "London"}}}]},
                  done=True, done_reason="stop")
    calls = o.extract(body)
    history = o.result_messages(body, [ToolCallRecord(calls[0], "22"), ToolCallRecord(calls[1], "15")])
    assert not list(_history_schema("ollama", "ollama").iter_errors(history))
    assert history[0]["thinking"] == "Both cities."
    assert [(f["id"], f["function"]["index"]) for f in history[0]["tool_calls"]] == [("call_mcs_0", 0), ("call_mcs_1", 1)]
    assert history[1:] == [{"role": "tool", "content": "22", "tool_name": "get_temperature", "tool_call_id": "call_mcs_0"},
                           {"role": "tool", "content": "15", "tool_name": "get_temperature", "tool_call_id": "call_mcs_1"}]
    assert _view(o.extract(history[0])) == [  # the replayed turn reads back as a finished one
        ("get_temperature", {"city": "New York"}, "call_mcs_0", False),
        ("get_temperature", {"city": "London"}, "call_mcs_1", False),
    ]
