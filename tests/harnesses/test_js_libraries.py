"""The JavaScript libraries on top of the SDKs as bridge peers (harnesses/js/): the Vercel AI SDK
over its OpenAI Chat, OpenAI Responses and Anthropic providers, and LangChain.js's ChatOpenAI.
Each harness runs through the suite on two cases of its format, and the live feed hands the
library one chunk at a time (what the adapter's message holds after a chunk is what the library
had given its caller by then, not a later state).

Needs node >= 22 (scripts/node22.sh) and the pinned packages (`npm ci --prefix harnesses/js`);
skipped with the reason when either cannot be had.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from .js import CASES, ITEM, JS, ROOT, run_suite
from .js import env as suite_env
from tests.helpers.limits import HANG


HARNESSES = {
    "vercel_openai_chat.mjs": ("vercel-ai-openai-chat", ["openai-chat/tool-call-non-strict", "openai-chat/text-only"]),
    "vercel_openai_responses.mjs": ("vercel-ai-openai-responses", ["openai-responses/azure-tool-call-1", "openai-responses/azure-text-1"]),
    "vercel_anthropic.mjs": ("vercel-ai-anthropic", ["anthropic-messages/anthropic-tool-no-args", "anthropic-messages/anthropic-text"]),
    "langchain_openai.mjs": ("langchain-js-openai", ["openai-chat/tool-call-non-strict", "openai-chat/text-only"]),
}
CHECKS = ("PARITY-001", "EXTRACT-001", "HISTORY-001")




@pytest.mark.parametrize("harness", sorted(HARNESSES))
def test_the_harness_runs_through_therun_suite(node: str, harness: str) -> None:
    name, cases = HARNESSES[harness]
    for case in cases:
        assert (CASES / f"{case}.json").is_file(), case
    done = run_suite(node, harness, *[f"--mcs-case={c}" for c in cases], *[f"--mcs-check={c}" for c in CHECKS])
    out = done.stdout + done.stderr
    assert done.returncode in (0, 1), out[-4000:]
    items = ITEM.findall(done.stdout)
    reported = {(check, case) for _, check, case in items}
    assert {case for _, case in reported} == set(cases), out[-4000:]
    assert {check for check, _ in reported} >= {"PARITY-001", "EXTRACT-001"}, out[-4000:]
    assert not [i for i in items if i[0] == "ERROR"], out[-4000:]
    last = [line for line in done.stdout.splitlines() if line.strip()][-1]
    counted = sum(int(n) for n in re.findall(r"(\d+) (?:passed|failed|xfailed|xpassed)", last))
    assert counted == len(items), (last, len(items))
    assert "error" not in last, last
    assert f"through the bridge: {name} " in done.stdout, out[-3000:]  # the peer's handshake, not a Python class


@pytest.mark.parametrize("harness, case", [("langchain_openai.mjs", "openai-chat/tool-call-non-strict"),
                                           ("vercel_openai_chat.mjs", "openai-chat/tool-call-non-strict"),
                                           ("vercel_anthropic.mjs", "anthropic-messages/anthropic-tool-no-args")])
def test_a_simple_tool_call_is_extracted_from_the_stream(node: str, harness: str, case: str) -> None:
    done = run_suite(node, harness, f"--mcs-case={case}", "--mcs-check=EXTRACT-001", "--mcs-check=DONE-001")
    out = done.stdout + done.stderr
    outcomes = {check: outcome for outcome, check, _ in ITEM.findall(done.stdout)}
    assert outcomes == {"EXTRACT-001": "PASSED", "DONE-001": "PASSED"}, out[-4000:]
    assert done.returncode == 0, out[-4000:]


_LIVE_CHECK = r"""
const [file, name, raw] = process.argv.slice(-3);
const strategy = new (await import(`./${file}`))[name]();
const chunks = JSON.parse(raw);
const live = { root: null, state: {} };
const rows = [];
for (const chunk of chunks) {
  const text = await strategy.accumulate(live, chunk);
  rows.push({ text, message: JSON.parse(JSON.stringify(live.root ?? null)) });
}
process.stdout.write(JSON.stringify(rows));
"""


def _fed(node: str, file: str, name: str, chunks: list) -> list[dict]:
    env = suite_env() | {"MCS_BRIDGE_JS": (ROOT / "mcs_conformance" / "bridge" / "server.mjs").as_uri()}
    done = subprocess.run([node, "--input-type=module", "-e", _LIVE_CHECK, file, name, json.dumps(chunks)], cwd=JS, env=env,
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout)
    assert len(rows) == len(chunks)
    return rows


def _chunks(case: str) -> list:
    data = json.loads((CASES / f"{case}.json").read_text(encoding="utf-8"))
    return data.get("chunks") or data["stream"]


@pytest.mark.parametrize("file, name", [("vercel_openai_chat.mjs", "VercelOpenAIChatStrategy"),
                                        ("langchain_openai.mjs", "LangChainJSOpenAIStrategy")])
def test_the_live_feed_hands_the_library_one_chunk_at_a_time(node: str, file: str, name: str) -> None:
    """After each accumulate the message holds the argument text and the content of exactly the
    chunks fed so far (the library read them and gave its parts / chunks), and the display text
    of a chunk is the content that chunk carried."""
    for case in ("openai-chat/tool-call-non-strict", "openai-chat/text-only"):
        chunks = _chunks(case)
        rows = _fed(node, file, name, chunks)
        args = content = ""
        for n, (chunk, row) in enumerate(zip(chunks, rows)):
            if isinstance(chunk, dict):
                for choice in chunk.get("choices") or ():
                    delta = choice.get("delta") or {}
                    content += delta.get("content") or ""
                    for fragment in delta.get("tool_calls") or ():
                        args += (fragment.get("function") or {}).get("arguments") or ""
                assert row["text"] == "".join((c.get("delta") or {}).get("content") or "" for c in chunk.get("choices") or ()), (case, n, row)
            message = row["message"]
            assert message is not None and message.get("role") == "assistant", (case, n, row)
            got = "".join(c["function"]["arguments"] or "" for c in message.get("tool_calls") or ())
            assert got == args, (case, n, got, args)
            assert (message.get("content") or "") == content, (case, n, message.get("content"), content)


def test_a_vercel_call_carries_the_library_parse_only_once_the_library_finished_it(node: str) -> None:
    """The AI SDK hands a Chat Completions call as a `tool-call` part only when the response body
    ends, which the harness does as the transport would: after `[DONE]`, or after the chunk that
    gives every open choice its `finish_reason`. Before, the harness's message has the argument
    text but no parsed input, and `extract` reports the call as unfinished rather than parsing it
    itself."""
    chunks = _chunks("openai-chat/tool-call-non-strict")
    assert chunks[-1] == "[DONE]"
    finish = next(n for n, c in enumerate(chunks)
                  if isinstance(c, dict) and any(ch.get("finish_reason") for ch in c.get("choices") or ()))
    rows = _fed(node, "vercel_openai_chat.mjs", "VercelOpenAIChatStrategy", chunks)
    before, after = rows[finish - 1]["message"], rows[finish]["message"]
    assert before["tool_calls"][0]["function"]["arguments"] == after["tool_calls"][0]["function"]["arguments"]
    assert before["mcs_ai_sdk"][0]["input"] is None and "no tool-call part" in before["mcs_ai_sdk"][0]["error"]
    assert after["mcs_ai_sdk"] == [{"input": {"city": "New York City"}, "error": None}]
    assert rows[-1]["message"]["mcs_ai_sdk"] == after["mcs_ai_sdk"]
