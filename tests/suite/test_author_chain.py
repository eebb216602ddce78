"""The author's chain: a native strategy for a wire the package does not bundle, run on the
chain its driver ships, and the run without that declaration.

The scratch project holds a Cohere-v2-like strategy (typed events, a ``tool_plan``,
``tool_calls`` in the OpenAI function shape, so the reference OpenAI Chat strategy, which
claims any dict with ``tool_calls``, claims its messages first in the default chain), its
descriptor and three cases, written here by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.projects import subprocess_env

STRATEGY = '''
import json

from mcs_conformance import MalformedChunk, ToolCall, ToolCallRecord
from mcs_conformance.reference.accumulator import copy_tree

EVENTS = {"message-start", "tool-plan-delta", "tool-call-start", "tool-call-delta", "tool-call-end",
          "content-start", "content-delta", "content-end", "message-end"}


class CohereStrategy:
    """Cohere v2 chat streaming: typed events; the message holds tool_plan, tool_calls, content."""

    name = "cohere-chat"
    leaks_into_text = False

    def recognizes(self, shape):
        if not isinstance(shape, dict):
            return False
        if shape.get("type") in EVENTS:
            return True
        return (shape.get("role") == "assistant" and isinstance(shape.get("tool_plan"), str)
                and isinstance(shape.get("tool_calls", []), list) and isinstance(shape.get("content", []), list))

    def is_done(self, chunk):
        return (isinstance(chunk, dict) and chunk.get("type") == "message-end"
                and (chunk.get("delta") or {}).get("finish_reason") != "MAX_TOKENS")

    def accumulate(self, acc, chunk):
        if not isinstance(chunk, dict) or not isinstance(chunk.get("type"), str):
            raise MalformedChunk(f"cohere-chat: a chunk is an event object, got {chunk!r}")
        kind, part = chunk["type"], ((chunk.get("delta") or {}).get("message") or {})
        if acc.root is None:
            acc.root = {"role": "assistant", "tool_plan": "", "tool_calls": [], "content": []}
        root = acc.root
        i = chunk.get("index", 0)
        if kind == "tool-plan-delta":
            acc.append(root, "tool_plan", part.get("tool_plan", ""))
        elif kind in ("tool-call-start", "tool-call-delta"):
            call = part.get("tool_calls") or {}
            if i >= len(root["tool_calls"]):
                root["tool_calls"].append({"id": call.get("id"), "type": "function",
                                           "function": {"name": (call.get("function") or {}).get("name"),
                                                        "arguments": ""}})
            piece = (call.get("function") or {}).get("arguments") or ""
            acc.append(root["tool_calls"][i]["function"], "arguments", piece)
        elif kind in ("content-start", "content-delta"):
            if i >= len(root["content"]):
                root["content"].append({"type": "text", "text": ""})
            piece = (part.get("content") or {}).get("text") or ""
            acc.append(root["content"][i], "text", piece)
            return piece
        return ""

    def extract(self, message):
        out = []
        for entry in (message.get("tool_calls") or []) if isinstance(message, dict) else []:
            function = entry.get("function") or {}
            try:
                args = json.loads(function.get("arguments") or "{}")
            except ValueError as exc:
                out.append(ToolCall(name=function.get("name") or "", id=entry.get("id"), error=str(exc)))
                continue
            out.append(ToolCall(name=function.get("name") or "", arguments=args, id=entry.get("id")))
        return out

    def content_text(self, message):
        content = message.get("content") if isinstance(message, dict) else None
        return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") == "text")

    def forming_name(self, message):
        calls = self.extract(message)
        return calls[-1].name or None if calls else None

    def result_messages(self, message, records):
        if not isinstance(message, dict):
            raise ValueError(f"cohere-chat: the message is a JSON object, got {type(message).__name__}")
        calls = {c.id: c for c in self.extract(message) if c.error is None}
        for r in records:
            if not isinstance(r, ToolCallRecord) or r.call.id not in calls:
                raise ValueError(f"cohere-chat: a result answers no call of the message: {getattr(r.call, 'id', r)!r}")
        turn = {"role": "assistant", "tool_plan": message.get("tool_plan", ""),
                "tool_calls": copy_tree(message.get("tool_calls") or [])}
        if self.content_text(message):
            turn["content"] = copy_tree(message["content"])
        return [turn] + [{"role": "tool", "tool_call_id": r.call.id,
                          "content": [{"type": "document", "document": {"data": r.result}}]} for r in records]
'''

DESCRIPTOR: dict[str, Any] = {
    "format": "cohere-chat",
    "description": "Cohere v2 chat streaming: typed events, a tool plan, calls in the function shape.",
    "chunk_kind": "object",
    "deltas": [
        {"path": ["delta", "message", "tool_plan"], "empty": True},
        {"path": ["delta", "message", "tool_calls", "function", "arguments"], "empty": True},
        {"path": ["delta", "message", "content", "text"], "empty": True},
    ],
    "routing": [{"at": [], "keys": ["type", "index"]}],
    "terminal": [],
    "noise": [],
    "done": {"type": "object", "required": ["type"], "properties": {"type": {"const": "message-end"}}},
    "history": {
        "call_ids": [{"where": {"role": "assistant"}}, "tool_calls", "*", "id"],
        "result_ids": [{"where": {"role": "tool"}}, "tool_call_id"],
        "assistant_turn": [{"where": {"role": "assistant"}}],
        "replay": [{"description": "the tool plan goes back with the calls",
                    "message": ["tool_plan"], "history": [{"where": {"role": "assistant"}}, "tool_plan"]}],
    },
}

_PROVENANCE = {"kind": "synthetic", "source": "mcs-conformance", "license": "Apache-2.0",
               "why": "a Cohere-like wire the package does not bundle, for the author-chain tests"}
_WEATHER = {"id": "get_weather_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
_TIME = {"id": "get_time_2", "type": "function", "function": {"name": "get_time", "arguments": '{"tz": "CET"}'}}
_EXPECT = {"claimed_by": "cohere-chat", "extracted_by": "cohere-chat"}


def _case(slug: str, description: str, **fields: Any) -> dict[str, Any]:
    return {"id": f"cohere-chat/{slug}", "format": "cohere-chat", "description": description,
            "provenance": _PROVENANCE, "tags": ["tool-call"], **fields}


CASES = [
    _case(
        "stream-plan-and-call",
        "A streamed tool plan, then one call whose arguments come in two pieces.",
        chunks=[
            {"type": "message-start", "id": "m1", "delta": {"message": {"role": "assistant"}}},
            {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will look "}}},
            {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "up the weather."}}},
            {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {
                "id": "get_weather_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}}}},
            {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": '{"city": '}}}}},
            {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": '"Oslo"}'}}}}},
            {"type": "tool-call-end", "index": 0},
            {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
            {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "Asking now."}}}},
            {"type": "content-end", "index": 0},
            {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}},
        ],
        expect={"message": {"role": "assistant", "tool_plan": "I will look up the weather.", "tool_calls": [_WEATHER],
                            "content": [{"type": "text", "text": "Asking now."}]},
                "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "get_weather_1"}],
                "content_text": "Asking now.", "done": True, **_EXPECT},
    ),
    _case(
        "plan-two-calls",
        "An assembled message with a tool plan and two parallel calls.",
        message={"role": "assistant", "tool_plan": "Weather and time.", "tool_calls": [_WEATHER, _TIME], "content": []},
        expect={"calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "get_weather_1"},
                          {"name": "get_time", "arguments": {"tz": "CET"}, "id": "get_time_2"}],
                "content_text": "", **_EXPECT},
    ),
    _case(
        "plan-call-and-text",
        "An assembled message with a tool plan, a text part and one call.",
        message={"role": "assistant", "tool_plan": "Checking the time.", "tool_calls": [_TIME],
                 "content": [{"type": "text", "text": "One moment."}]},
        expect={"calls": [{"name": "get_time", "arguments": {"tz": "CET"}, "id": "get_time_2"}],
                "content_text": "One moment.", **_EXPECT},
    ),
]

CHAIN = ["cohere_pkg:CohereStrategy", "mcs_conformance.strategies:TextStrategy"]
SPEC = "cohere_pkg:CohereStrategy"
# the chain-level checks, and the ones beside them that read the same messages
CHECKS = ["CHAIN-001", "CHAIN-002", "HISTORY-001", "HISTORY-002", "HISTORY-003", "HISTORY-005", "HISTORY-006",
          "RECOG-001", "RECOG-002", "RECOG-003", "RECOG-004", "EXTRACT-001"]


def make_project(root: Path, *, descriptor: dict[str, Any] | None = None, table: str = "") -> Path:
    """A scratch project: the strategy module, the corpus folder and a pyproject.toml."""
    (root / "cohere_pkg.py").write_text(STRATEGY, encoding="utf-8")
    corpus = root / "corpus"
    (corpus / "descriptors").mkdir(parents=True)
    (corpus / "cases" / "cohere-chat").mkdir(parents=True)
    (corpus / "descriptors" / "cohere-chat.json").write_text(json.dumps(descriptor or DESCRIPTOR, indent=2))
    for case in CASES:
        (corpus / "cases" / "cohere-chat" / f"{case['id'].split('/')[1]}.json").write_text(json.dumps(case, indent=2))
    (root / "pyproject.toml").write_text('[tool.mcs-conformance]\ncorpus = ["corpus"]\n' + table, encoding="utf-8")
    return root


def run(project: Path, *args: str, checks: list[str] = CHECKS) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--mcs-only", f"--mcs-strategy={SPEC}",
               "-rs", *(f"--mcs-check={c}" for c in checks), *args]
    return subprocess.run(command, cwd=project, env=subprocess_env(project), capture_output=True, text=True, timeout=600)


def _outcomes(out: str) -> dict[str, int]:
    import re

    last = [line for line in out.splitlines() if re.search(r"\d+ (passed|failed|skipped|error)", line)][-1]
    return {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|errors?|deselected|xfailed)", last)}


def test_the_declared_chain_passes_on_the_command_line(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    r = run(project, *(f"--mcs-chain={c}" for c in CHAIN))
    assert r.returncode == 0, r.stdout + r.stderr
    counts = _outcomes(r.stdout)
    assert counts.get("failed", 0) == 0 and counts["passed"] > 20, r.stdout
    assert "before cohere-chat" not in r.stdout  # no advice: the chain is declared


def test_the_declared_chain_passes_from_the_table(tmp_path: Path) -> None:
    project = make_project(tmp_path, table=f"chain = {json.dumps(CHAIN)}\n")
    r = run(project, checks=["CHAIN-001", "HISTORY-003", "RECOG-004"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert _outcomes(r.stdout)["passed"] >= 3 + 3 + 2, r.stdout  # CHAIN and HISTORY on the own cases, RECOG on text-json


def test_without_a_chain_one_line_of_advice_and_no_cascade(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    r = run(project)
    out = r.stdout
    advice = [line for line in out.splitlines() if "claims the message" in line]
    assert len(advice) == 1, out
    line = advice[0]
    for part in ("openai-chat", "cohere-chat/", "--mcs-chain"):
        assert part in line, line
    failed = [line for line in out.splitlines() if line.startswith("FAILED")]
    assert not [f for f in failed if "CHAIN-" in f or "HISTORY-" in f], failed
    assert _outcomes(out).get("skipped", 0) >= 3, out


def test_a_bad_chain_entry_is_a_usage_error(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    r = run(project, "--mcs-chain=cohere_pkg:NoSuchThing", checks=["CHAIN-001"])
    assert r.returncode == 4, r.stdout + r.stderr
    assert "--mcs-chain cohere_pkg:NoSuchThing" in r.stderr and "no attribute" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_backup_that_is_not_a_text_strategy_is_a_usage_error(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    r = run(project, "--mcs-backup=mcs_conformance.strategies:OpenAIChatStrategy", checks=["CHAIN-001"])
    assert r.returncode == 4, r.stdout + r.stderr
    assert "--mcs-backup" in r.stderr and "text strategy" in r.stderr, r.stderr


def test_a_replay_path_that_selects_nothing_is_a_warning_and_blames_no_strategy(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(DESCRIPTOR))
    bad["history"]["replay"][0]["message"] = ["toolplan"]
    project = make_project(tmp_path, descriptor=bad, table=f"chain = {json.dumps(CHAIN)}\n")
    r = run(project, checks=["HISTORY-003", "EXTRACT-001"])
    assert r.returncode == 0, r.stdout + r.stderr
    warning = "descriptor 'cohere-chat' field history.replay[0].message: ['toolplan'] selects nothing"
    assert warning in r.stdout, r.stdout  # in the summary (and in the header without -q)
    assert "was not replayed" not in r.stdout + r.stderr
    assert "HISTORY-003: a case it reads an executable call from itself, and history.replay in its descriptor" in r.stdout


def test_chain_001_says_which_strategy_claimed_the_message_first(tmp_path: Path) -> None:
    # the declared order puts the reference OpenAI Chat strategy in front of the author's
    project = make_project(tmp_path)
    chain = ["mcs_conformance.strategies:OpenAIChatStrategy", *CHAIN]
    r = run(project, *(f"--mcs-chain={c}" for c in chain), "--mcs-case=cohere-chat/plan-two-calls", checks=["CHAIN-001"])
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("openai-chat's recognizes returned True on this message (case cohere-chat/plan-two-calls), so the chain "
            "gave it to openai-chat before cohere-chat") in r.stdout, r.stdout
    assert "the author's chain, in order: openai-chat > cohere-chat > text-json" in r.stdout, r.stdout
    reproduce = next(line for line in r.stdout.splitlines() if line.startswith("reproduce:"))
    assert " ".join(f"--mcs-chain={c}" for c in chain) in reproduce, reproduce  # the rerun uses the same chain


GREEDY = '''

class Greedy(CohereStrategy):
    """Claims every assistant message with tool_calls, as the OpenAI Chat strategy does."""

    def recognizes(self, shape):
        return super().recognizes(shape) or (isinstance(shape, dict) and "tool_calls" in shape)
'''


def test_recog_004_says_which_strategy_claimed_another_formats_message(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    (project / "cohere_pkg.py").write_text(STRATEGY + GREEDY, encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--mcs-only",
               "--mcs-strategy=cohere_pkg:Greedy", "--mcs-check=RECOG-004", "--mcs-case=openai-chat/nonstream-groq-tool-call"]
    r = subprocess.run(command, cwd=project, env=subprocess_env(project), capture_output=True, text=True, timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("cohere-chat's recognizes returned True on the message of case openai-chat/nonstream-groq-tool-call, which "
            "belongs to openai-chat") in r.stdout, r.stdout
    assert "-null" not in r.stdout  # said in words, not as a diff against nothing


@pytest.mark.parametrize("line, words", [
    ('chain = "my_pkg:Strategy"', "chain must be a list"),
    ('chain = ["my_pkg.Strategy"]', "chain must be a list of 'package.module:Attr'"),
    ("backup = 3", "backup must be a 'package.module:Attr'"),
])
def test_a_malformed_chain_or_backup_key_names_itself(tmp_path: Path, line: str, words: str) -> None:
    from mcs_conformance.suite.settings import SettingsError, load_settings

    (tmp_path / "pyproject.toml").write_text(f"[tool.mcs-conformance]\n{line}\n", encoding="utf-8")
    with pytest.raises(SettingsError, match=words.replace("(", r"\(")):
        load_settings(tmp_path / "pyproject.toml")


def test_the_chain_and_backup_keys_are_read_in_order(tmp_path: Path) -> None:
    from mcs_conformance.suite.settings import load_settings

    (tmp_path / "pyproject.toml").write_text(
        f'[tool.mcs-conformance]\nchain = {json.dumps(CHAIN)}\nbackup = "{CHAIN[1]}"\n', encoding="utf-8")
    settings = load_settings(tmp_path / "pyproject.toml")
    assert settings.chain == tuple(CHAIN) and settings.backup == CHAIN[1]
