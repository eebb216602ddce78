"""Fixtures of the zoo: a pytester runner for the conformance suite, and the zoo corpus.

The zoo corpus holds the trigger cases of bug classes that the bundled corpus has no case
for (yet). Every expectation in it is a fact written by hand with the stream: the names,
ids, arguments and text the chunks below carry. Where the official SDK accumulator gets
the stream right, ``test_zoo.py`` also checks the hand-written message against it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# ``pytester`` comes from tests/conftest.py (``pytest_plugins`` may only be declared in a
# top-level conftest: declaring it here breaks ``pytest tests``).

ROOT = Path(__file__).resolve().parents[2]

# -------------------------------------------------------------------------- the zoo corpus

_SYNTHETIC = {
    "kind": "synthetic",
    "source": "mcs-conformance",
    "license": "Apache-2.0",
}


def _chunk(delta: dict, finish: str | None = None) -> dict:
    """An OpenAI Chat chunk carrying ``delta`` for choice 0."""
    return {
        "id": "chatcmpl-zoo",
        "object": "chat.completion.chunk",
        "created": 1732900000,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def _calls(*fragments: dict) -> dict:
    return _chunk({"tool_calls": list(fragments)})


def _opening(index: int | None, call_id: str, name: str, arguments: str = "") -> dict:
    """The fragment that opens a call: id, type and name (and maybe arguments)."""
    fragment = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    if index is None:
        del fragment["index"]
    return fragment


_ROLE = _chunk({"role": "assistant", "content": None})
_FINISH = _chunk({}, "tool_calls")


def _call(call_id: str, name: str, arguments: str) -> dict:
    """A tool call as the stream=false message holds it."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _chat_case(slug: str, description: str, why: str, chunks: list, calls: list[dict], content: str | None = None,
               tags: tuple[str, ...] = ("tool-call",)) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": calls}
    return {
        "id": f"openai-chat/{slug}",
        "format": "openai-chat",
        "description": description,
        "provenance": {**_SYNTHETIC, "why": why},
        "tags": ["zoo", *tags],
        "chunks": chunks,
        "expect": {
            "message": message,
            "calls": [
                {"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"]), "id": c["id"],
                 "error": False}
                for c in calls
            ],
            "content_text": content or "",
            "done": True,
            "claimed_by": "openai-chat",
            "extracted_by": "openai-chat",
            "via_backup": False,
        },
    }


_HERMES_SPLIT_TAG = [
    "Let me search for that.\n<tool",
    '_call>\n{"name": "search", ',
    '"arguments": {"query": "zoo opening hours"}}\n</tool_call>',
]
_CLOSING_TAG_TEXT = (
    "I will save the note.\n<tool_call>\n"
    '{"name": "write_file", "arguments": {"path": "notes.md", '
    '"content": "Wrap each call in <tool_call></tool_call> tags."}}\n</tool_call>'
)

ZOO_CASES: list[dict] = [
    _chat_case(
        "zoo-interleaved-parallel-calls",
        "Two parallel tool calls whose argument fragments interleave (index 0, 1, 0, 1): each "
        "fragment belongs to the call of its index, not to the most recent call.",
        "BUG-CLASSES 1: the bundled OpenAI Chat streams send parallel calls one after the other.",
        [
            _ROLE,
            _calls(_opening(0, "call_zoo_a", "get_weather")),
            _calls(_opening(1, "call_zoo_b", "get_time")),
            _calls({"index": 0, "function": {"arguments": '{"city": '}}),
            _calls({"index": 1, "function": {"arguments": '{"zone": '}}),
            _calls({"index": 0, "function": {"arguments": '"Paris"}'}}),
            _calls({"index": 1, "function": {"arguments": '"CET"}'}}),
            _FINISH,
            "[DONE]",
        ],
        [_call("call_zoo_a", "get_weather", '{"city": "Paris"}'), _call("call_zoo_b", "get_time", '{"zone": "CET"}')],
        tags=("tool-call", "parallel", "interleaved"),
    ),
    _chat_case(
        "zoo-same-index-new-ids",
        "Two complete calls both sent at index 0, each with its own id (as some compatible servers "
        "do): two calls, never one merged get_weatherget_time call.",
        "BUG-CLASSES 2: no recording of a server that reuses index 0 is available.",
        [
            _ROLE,
            _calls(_opening(0, "call_zoo_w", "get_weather", '{"city": "Paris"}')),
            _calls(_opening(0, "call_zoo_t", "get_time", '{"zone": "CET"}')),
            _FINISH,
            "[DONE]",
        ],
        [_call("call_zoo_w", "get_weather", '{"city": "Paris"}'), _call("call_zoo_t", "get_time", '{"zone": "CET"}')],
        tags=("tool-call", "parallel"),
    ),
    _chat_case(
        "zoo-calls-without-index",
        "Two complete tool calls whose fragments carry no index (Ollama-style): two calls, "
        "told apart by their ids.",
        "BUG-CLASSES 3: no recording of an index-less OpenAI-compatible stream is available.",
        [
            _ROLE,
            _calls(_opening(None, "call_zoo_1", "get_weather", '{"city": "Paris"}')),
            _calls(_opening(None, "call_zoo_2", "get_weather", '{"city": "Rome"}')),
            _FINISH,
            "[DONE]",
        ],
        [_call("call_zoo_1", "get_weather", '{"city": "Paris"}'),
         _call("call_zoo_2", "get_weather", '{"city": "Rome"}')],
        tags=("tool-call", "parallel"),
    ),
    _chat_case(
        "zoo-first-call-at-index-1",
        "Content text, then the only tool call at index 1 (the server counts the text block): "
        "one call, no phantom empty call at index 0.",
        "BUG-CLASSES 4: no recording of a stream whose first call has index 1 is available.",
        [
            _ROLE,
            _chunk({"content": "Let me check."}),
            _calls(_opening(1, "call_zoo_i1", "get_weather")),
            _calls({"index": 1, "function": {"arguments": '{"city": "Oslo"}'}}),
            _FINISH,
            "[DONE]",
        ],
        [_call("call_zoo_i1", "get_weather", '{"city": "Oslo"}')],
        content="Let me check.",
    ),
    _chat_case(
        "zoo-name-on-every-fragment",
        "A tool call whose every fragment repeats the whole function name (llama.cpp-style): "
        "the name is get_weather, not the concatenation.",
        "BUG-CLASSES 5: no recording of a server repeating the name is available.",
        [
            _ROLE,
            _calls(_opening(0, "call_zoo_n", "get_weather")),
            _calls({"index": 0, "function": {"name": "get_weather", "arguments": '{"city": '}}),
            _calls({"index": 0, "function": {"name": "get_weather", "arguments": '"Lima"}'}}),
            _FINISH,
            "[DONE]",
        ],
        [_call("call_zoo_n", "get_weather", '{"city": "Lima"}')],
    ),
    _chat_case(
        "zoo-id-on-every-fragment",
        "A tool call whose every fragment repeats its id (and index): one call, the same id "
        "on every fragment is the same call.",
        "BUG-CLASSES 8: no recording of a server repeating the id on every fragment is available.",
        [
            _ROLE,
            _calls(_opening(0, "call_zoo_r", "get_weather")),
            _calls({"index": 0, "id": "call_zoo_r", "function": {"arguments": '{"city": '}}),
            _calls({"index": 0, "id": "call_zoo_r", "function": {"arguments": '"Quito"}'}}),
            _FINISH,
            "[DONE]",
        ],
        [_call("call_zoo_r", "get_weather", '{"city": "Quito"}')],
    ),
    _chat_case(
        "zoo-arguments-before-id",
        "A tool call whose first fragment carries arguments only; id, type and name arrive in "
        "the next fragment at the same index: one call.",
        "BUG-CLASSES 6: no recording of a server sending the id after the arguments is available.",
        [
            _ROLE,
            _calls({"index": 0, "function": {"arguments": '{"city": '}}),
            _calls(_opening(0, "call_zoo_late", "get_weather", '"Kyiv"}')),
            _FINISH,
            "[DONE]",
        ],
        [_call("call_zoo_late", "get_weather", '{"city": "Kyiv"}')],
    ),
    {
        "id": "text-json/zoo-hermes-tag-split",
        "format": "text-json",
        "description": "A text stream whose <tool_call> tag is cut across two chunks (<tool + _call>), "
        "holding a name/arguments call: the message is the joined text and the call is found.",
        "provenance": {**_SYNTHETIC, "why": "BUG-CLASSES 24: the bundled text streams carry no tags."},
        "tags": ["zoo", "text-call", "hermes"],
        "chunks": _HERMES_SPLIT_TAG,
        "expect": {
            "message": "".join(_HERMES_SPLIT_TAG),
            "calls": [{"name": "search", "arguments": {"query": "zoo opening hours"}, "id": None, "error": False}],
            "content_text": "".join(_HERMES_SPLIT_TAG),
            "done": False,
            "claimed_by": "text-json",
            "extracted_by": "text-json",
            "via_backup": False,
        },
    },
    {
        "id": "text-json/zoo-closing-tag-in-argument",
        "format": "text-json",
        "description": "A call in <tool_call> tags whose argument string holds a literal "
        "</tool_call>: the call ends where its JSON ends, not at the first closing tag.",
        "provenance": {**_SYNTHETIC, "why": "BUG-CLASSES 25: no bundled text holds a closing tag inside an argument."},
        "tags": ["zoo", "text-call", "hermes"],
        "message": _CLOSING_TAG_TEXT,
        "expect": {
            "calls": [{"name": "write_file", "id": None, "error": False, "arguments": {
                "path": "notes.md", "content": "Wrap each call in <tool_call></tool_call> tags."}}],
            "content_text": _CLOSING_TAG_TEXT,
            "claimed_by": "text-json",
            "extracted_by": "text-json",
            "via_backup": False,
        },
    },
    {
        "id": "anthropic-messages/zoo-thinking-then-tool-use",
        "format": "anthropic-messages",
        "description": "An Anthropic message with a thinking block (and its signature), a redacted "
        "thinking block and a tool_use: the call, and a continuation that replays both thinking blocks.",
        "provenance": {**_SYNTHETIC,
                       "why": "BUG-CLASSES 21: no bundled Anthropic message has thinking and a tool call."},
        "tags": ["zoo", "tool-call", "thinking"],
        "message": {
            "id": "msg_zoo_thinking",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [
                {"type": "thinking", "thinking": "The user asks for the weather in Paris: call get_weather.",
                 "signature": "EqQBCkgIBhABGAIiQMzooThinkingSignatureForTheReplayCheck"},
                {"type": "redacted_thinking", "data": "EmwKAhgBEgzooRedactedThinkingPayload"},
                {"type": "tool_use", "id": "toolu_zoo_thinking", "name": "get_weather", "input": {"city": "Paris"}},
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 420, "output_tokens": 96},
        },
        "expect": {
            "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "toolu_zoo_thinking",
                       "error": False}],
            "content_text": "",
            "claimed_by": "anthropic-messages",
            "extracted_by": "anthropic-messages",
            "via_backup": False,
        },
    },
]


@pytest.fixture(scope="session")
def zoo_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A corpus folder (for ``--mcs-corpus``) holding the zoo's trigger cases."""
    folder = tmp_path_factory.mktemp("zoo-corpus")
    for case in ZOO_CASES:
        fmt, slug = case["id"].split("/", 1)
        path = folder / "cases" / fmt / f"{slug}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return folder


# -------------------------------------------------------------------------- running the suite


@pytest.fixture(scope="session", autouse=True)
def _import_once() -> None:
    """Import what an in-process run imports lazily, once, before any run.

    pytester removes the modules an in-process run imported when the run ends; without
    this, every run would import (and assertion-rewrite) the invariants, the strategies and
    hypothesis's engine again.
    """
    from hypothesis import given, settings
    from hypothesis import strategies as st

    import mcs_conformance.failures  # noqa: F401
    import mcs_conformance.invariants  # noqa: F401
    import mcs_conformance.snapshots  # noqa: F401
    import mcs_conformance.strategies  # noqa: F401
    from mcs_conformance.profiles import hypothesis_settings

    settings(hypothesis_settings("ci"))(given(st.lists(st.integers()))(lambda xs: None))()



@dataclass
class SuiteRun:
    """What one run of the conformance suite reported."""

    outcomes: dict[str, int]
    failed: dict[str, str]  # nodeid -> failure report text
    passed: list[str]
    output: str

    def failed_ids(self) -> set[str]:
        """The invariant ids of the failed items."""
        return {nodeid.split("::", 1)[1].split("[", 1)[0] for nodeid in self.failed}


def _in_fresh_thread(run: Callable[[], Any]) -> Any:
    """Call ``run`` on a new thread and return its result (or raise its error).

    An in-process run nested inside an xdist worker sits deep in the call stack; on
    CPython 3.11 a hot loop that keeps crossing a 16 KiB frame-stack chunk boundary maps and
    unmaps that chunk on every call, which made feeding several times slower there (and the
    COST ratios meaningless). A fresh thread starts with an empty frame stack.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = run()
        except BaseException as exc:  # noqa: BLE001 -- re-raised on the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="mcs-zoo-run")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


@pytest.fixture
def run_suite(pytester: pytest.Pytester, zoo_corpus: Path, monkeypatch: pytest.MonkeyPatch):
    """Run the plugin in-process on a strategy, restricted to checks and cases."""
    monkeypatch.syspath_prepend(str(ROOT))

    def run(spec: str, checks: list[str], cases: list[str] = (), *extra: str, zoo: bool = False) -> SuiteRun:
        args = ["-p", "no:cacheprovider", f"--mcs-strategy={spec}", "--mcs-only", "--mcs-profile=ci", "-q",
                "-p", "no:randomly", "--mcs-timeout=60"]
        args += [f"--mcs-check={c}" for c in checks] + [f"--mcs-case={c}" for c in cases]
        if zoo:
            args.append(f"--mcs-corpus={zoo_corpus}")
        result = _in_fresh_thread(lambda: pytester.runpytest_inprocess(*args, *extra))
        reports = result.reprec.getreports("pytest_runtest_logreport")
        failed = {r.nodeid: r.longreprtext for r in reports if r.failed}
        passed = [r.nodeid for r in reports if r.passed and r.when == "call"]
        return SuiteRun(result.parseoutcomes(), failed, passed, result.stdout.str())

    return run
