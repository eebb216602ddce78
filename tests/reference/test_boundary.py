"""The roles' import boundaries, proved in a fresh interpreter with the forbidden modules blocked.

The reference implementation (and the public API ``mcs_conformance``) imports with pytest,
hypothesis, syrupy, the suite and the recording tools unavailable, and its buffer reads a
stream; the corpus tooling imports without the plugin and the invariants.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tests.helpers.limits import HANG

ROOT = Path(__file__).resolve().parents[2]

BLOCKER = """
import importlib.abc, sys

BLOCKED = {blocked!r}

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if any(fullname == b or fullname.startswith(b + ".") for b in BLOCKED):
            raise ImportError(f"blocked: {{fullname}}")
        return None

sys.meta_path.insert(0, Blocker())
"""


def run_blocked(blocked: list[str], body: str) -> subprocess.CompletedProcess[str]:
    code = BLOCKER.format(blocked=blocked) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=HANG)


REFERENCE_BLOCKED = [
    "pytest", "_pytest", "hypothesis", "syrupy", "jsonschema",
    "mcs_conformance.suite", "mcs_conformance.corpus_tools",
]

REFERENCE_BODY = """
import json, sys
import mcs_conformance
from mcs_conformance import LLMStreamBuffer, extract_calls
import mcs_conformance.reference
from mcs_conformance.reference.strategies import OpenAIChatStrategy, default_backup, default_chain
import mcs_conformance.strategies

chain = default_chain()
buf = LLMStreamBuffer(chain)
chunks = [
    {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}}]},
    {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "function": {"arguments": "{\\"city\\": \\"Paris\\"}"}}]}}]},
    {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    "[DONE]",
]
for chunk in chunks:
    buf.feed(chunk)
found = extract_calls(buf.as_dict(), chain, default_backup(chain), done=buf.done)
print(json.dumps({
    "calls": [[c.name, c.arguments, c.executable] for c in found.calls],
    "done": buf.done,
    "alias": mcs_conformance.strategies is mcs_conformance.reference.strategies,
    "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("pytest", "_pytest", "hypothesis", "syrupy")
                     or m.startswith(("mcs_conformance.suite", "mcs_conformance.corpus_tools"))),
}))
"""


def test_reference_imports_without_suite_pytest_hypothesis_syrupy_or_recording() -> None:
    result = run_blocked(REFERENCE_BLOCKED, REFERENCE_BODY)
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout.strip().splitlines()[-1])
    assert got == {"calls": [["get_weather", {"city": "Paris"}, True]], "done": True, "alias": True, "loaded": []}


def test_the_blocker_blocks() -> None:
    """The technique itself: a blocked module does not import."""
    result = run_blocked(["mcs_conformance.suite"], "import mcs_conformance.suite.plugin\n")
    assert result.returncode != 0 and "blocked: mcs_conformance.suite" in result.stderr


CORPUS_TOOLS = [
    "mcs_conformance.corpus_tools.corpus", "mcs_conformance.corpus_tools.schemas",
    "mcs_conformance.corpus_tools.capture", "mcs_conformance.corpus_tools.importer",
    "mcs_conformance.corpus_tools.recording", "mcs_conformance.corpus_tools.proxy",
    "mcs_conformance.corpus_tools.redaction", "mcs_conformance.corpus_tools.drift",
    "mcs_conformance.corpus_tools.drift_facts", "mcs_conformance.corpus_tools.schema_places",
    "mcs_conformance.corpus_tools.oracles", "mcs_conformance.corpus_tools.oracles.openai_chat",
    "mcs_conformance.corpus_tools.oracles.openai_responses",
    "mcs_conformance.corpus_tools.oracles.anthropic_messages",
]


def test_corpus_tools_import_neither_the_plugin_nor_the_invariants() -> None:
    body = f"""
import importlib
for name in {CORPUS_TOOLS!r}:
    importlib.import_module(name)
from mcs_conformance.corpus_tools.corpus import load_corpus
corpus = load_corpus()
assert corpus.cases, "no bundled cases"
print("ok", len(corpus.cases))
"""
    result = run_blocked(["mcs_conformance.suite", "pytest", "_pytest", "syrupy"], body)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok ")


@pytest.mark.parametrize("old, new", [
    ("mcs_conformance.buffer", "mcs_conformance.reference.buffer"),
    ("mcs_conformance.plugin", "mcs_conformance.suite.plugin"),
    ("mcs_conformance.corpus", "mcs_conformance.corpus_tools.corpus"),
    ("mcs_conformance.capture", "mcs_conformance.corpus_tools.capture"),
    ("mcs_conformance.recording", "mcs_conformance.corpus_tools.recording"),
    ("mcs_conformance.guard", "mcs_conformance.suite.time_limits"),
    ("mcs_conformance.shapes", "mcs_conformance.reference.wire"),
    ("mcs_conformance.invariants.base", "mcs_conformance.suite.invariants.base"),
    ("mcs_conformance.strategies.openai_chat", "mcs_conformance.reference.strategies.openai_chat"),
])
def test_an_old_import_path_works_with_a_deprecation_warning_naming_the_new_one(old: str, new: str) -> None:
    body = f"""
import importlib, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = importlib.import_module({old!r})
new = importlib.import_module({new!r})
assert old is new, (old, new)
messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
assert any({old!r} in m and {new!r} in m for m in messages), messages
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", body], cwd=ROOT, capture_output=True, text=True, timeout=HANG)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_the_public_strategies_path_warns_nothing() -> None:
    body = """
import warnings
warnings.simplefilter("error")
import mcs_conformance.strategies as s
from mcs_conformance.strategies import OpenAIChatStrategy, TextStrategy, default_chain
import mcs_conformance.reference.strategies as r
assert s is r
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", body], cwd=ROOT, capture_output=True, text=True, timeout=HANG)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_the_package_top_level_holds_at_most_four_modules() -> None:
    top = sorted(p.name for p in (ROOT / "mcs_conformance").glob("*.py"))
    assert len(top) <= 4, top
    for role in ("reference", "suite", "corpus_tools", "bridge"):
        init = ROOT / "mcs_conformance" / role / "__init__.py"
        assert init.read_text().startswith('"""'), f"{role} has no docstring"


BRIDGE_BLOCKED = [
    "pytest", "_pytest", "hypothesis", "syrupy", "jsonschema", "mcs_conformance.corpus_tools",
    "mcs_conformance.suite.plugin", "mcs_conformance.suite.invariants", "mcs_conformance.suite.judging",
]

BRIDGE_BODY = """
import io, json, sys
import mcs_conformance.bridge.client, mcs_conformance.bridge.messages
from mcs_conformance.bridge import server
inp = io.BytesIO(b'{"id":0,"cmd":"start","protocol":1}\\n{"id":1,"cmd":"recognizes","shape":""}\\n')
out = io.BytesIO()
server.serve(server_strategy(), out=out, inp=inp)
replies = [json.loads(line) for line in out.getvalue().splitlines()]
assert replies[0]["ok"]["name"] == "text-json" and replies[1] == {"id": 1, "ok": True}, replies
print("ok")
"""


def test_the_bridge_imports_only_the_reference_and_serves_without_the_suite() -> None:
    body = "from mcs_conformance.suite.loader import load_strategy\n" \
           "server_strategy = lambda: load_strategy('mcs_conformance.strategies:TextStrategy')\n" + BRIDGE_BODY
    result = run_blocked(BRIDGE_BLOCKED, body)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
