"""The official JavaScript SDKs as bridge peers (harnesses/js/): each harness runs through the
suite on a few cases of its format, and the live feed hands the SDK one chunk at a time (the
state after each chunk is the state the SDK has at that point, not a later one).

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
    "openai_chat.mjs": ["openai-chat/tool-call-non-strict", "openai-chat/text-only"],
    "openai_responses.mjs": ["openai-responses/azure-tool-call-1", "openai-responses/azure-text-1"],
    "anthropic_messages.mjs": ["anthropic-messages/anthropic-tool-no-args", "anthropic-messages/anthropic-text"],
}




@pytest.mark.parametrize("harness", sorted(HARNESSES))
def test_the_harness_runs_through_therun_suite(node: str, harness: str) -> None:
    cases = HARNESSES[harness]
    for case in cases:
        assert (CASES / f"{case}.json").is_file(), case
    done = run_suite(node, harness, *[f"--mcs-case={c}" for c in cases], *[f"--mcs-check={c}" for c in ("PARITY-001", "EXTRACT-001", "NOISE-002", "HISTORY-001")])
    out = done.stdout + done.stderr
    assert done.returncode in (0, 1), out[-4000:]
    items = ITEM.findall(done.stdout)
    reported = {(check, case) for _, check, case in items}
    assert {case for _, case in reported} == set(cases), out[-4000:]
    assert {check for check, _ in reported} >= {"PARITY-001", "EXTRACT-001"}, out[-4000:]
    last = [line for line in done.stdout.splitlines() if line.strip()][-1]
    counted = sum(int(n) for n in re.findall(r"(\d+) (?:passed|failed|xfailed|xpassed)", last))
    assert counted == len(items), (last, len(items))
    assert "error" not in last, last
    name = {"openai_chat.mjs": "openai-js-chat", "openai_responses.mjs": "openai-js-responses",
            "anthropic_messages.mjs": "anthropic-js-messages"}[harness]
    assert f"through the bridge: {name} " in done.stdout, out[-3000:]  # the peer's handshake, not a Python class


@pytest.mark.parametrize("harness, case", [("openai_chat.mjs", "openai-chat/tool-call-non-strict"),
                                           ("anthropic_messages.mjs", "anthropic-messages/anthropic-tool-no-args")])
def test_a_simple_tool_call_passes_parity_and_extract(node: str, harness: str, case: str) -> None:
    done = run_suite(node, harness, f"--mcs-case={case}", "--mcs-check=PARITY-001", "--mcs-check=EXTRACT-001")
    out = done.stdout + done.stderr
    outcomes = {check: outcome for outcome, check, _ in ITEM.findall(done.stdout)}
    assert outcomes == {"PARITY-001": "PASSED", "EXTRACT-001": "PASSED"}, out[-4000:]
    assert done.returncode == 0, out[-4000:]


_LIVE_CHECK = r"""
import { OpenAIChatStrategy } from "./openai_chat.mjs";
const chunks = JSON.parse(process.argv.at(-1));
const live = { root: null, state: {} };
const strategy = new OpenAIChatStrategy();
const rows = [];
for (let n = 0; n < chunks.length; n++) {
  await strategy.accumulate(live, chunks[n]);
  const state = live.state;
  rows.push({
    pushed: state.live.pushed, seen: state.seen, drained: state.live.drained,
    live: JSON.parse(JSON.stringify(live.root)),
    // the SDK's own state at this point, read through its public getter (undefined once finalised)
    sdk: JSON.parse(JSON.stringify(state.runner.currentChatCompletionSnapshot?.choices?.[0]?.message ?? null)),
  });
}
process.stdout.write(JSON.stringify(rows));
"""


def test_the_live_feed_hands_the_sdk_one_chunk_at_a_time(node: str) -> None:
    """After each accumulate, the SDK has read exactly the chunks fed so far: its own snapshot
    (``currentChatCompletionSnapshot``) holds the arguments of those chunks and no more, and
    the harness's message is that snapshot. The chunk that gives choice 0 its finish ends the
    body: the SDK finalises the completion there, and reads nothing after it (the usage chunk,
    ``[DONE]``)."""
    case = json.loads((CASES / "openai-chat" / "tool-call-non-strict.json").read_text(encoding="utf-8"))
    chunks = case.get("chunks") or case["stream"]
    env = suite_env() | {"MCS_BRIDGE_JS": (ROOT / "mcs_conformance" / "bridge" / "server.mjs").as_uri()}
    done = subprocess.run([node, "--input-type=module", "-e", _LIVE_CHECK, json.dumps(chunks)], cwd=JS, env=env,
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout)
    assert len(rows) == len(chunks)
    expected_args = ""
    end = next(n for n, c in enumerate(chunks) if isinstance(c, dict) and c.get("choices")
               and all(ch.get("finish_reason") for ch in c["choices"]))
    for n, (chunk, row) in enumerate(zip(chunks, rows)):
        assert row["pushed"] == n + 1 and row["drained"], (n, row)
        if n >= end:  # the body ended at the finish: the SDK finalised the completion; the message is the final one's
            if n == end:
                for choice in chunk["choices"]:
                    for fragment in (choice.get("delta") or {}).get("tool_calls") or ():
                        expected_args += (fragment.get("function") or {}).get("arguments") or ""
            assert row["seen"] == sum(isinstance(c, dict) for c in chunks[: end + 1]), (n, row)
            assert row["sdk"] is None and row["live"]["tool_calls"][0]["function"]["arguments"] == expected_args
        elif isinstance(chunk, dict):
            assert row["seen"] == sum(isinstance(c, dict) for c in chunks[: n + 1]), (n, row)  # one 'chunk' event each
            for choice in chunk.get("choices") or ():
                for fragment in (choice.get("delta") or {}).get("tool_calls") or ():
                    expected_args += (fragment.get("function") or {}).get("arguments") or ""
            sdk = row["sdk"]
            assert sdk is not None, (n, row)
            got = "".join(c["function"]["arguments"] for c in sdk.get("tool_calls") or ())
            assert got == expected_args, (n, got, expected_args)
            assert row["live"]["tool_calls" if "tool_calls" in sdk else "role"] == sdk.get("tool_calls", sdk.get("role"))
        else:
            raise AssertionError(f"a chunk that is no object before the finish: {chunk!r}")


# Items the adapters once failed by their own glue, each now the SDK's answer (all pass):
# a tool input the SDK cannot parse read mid-stream (its lazy getter threw while the message
# was written), the beta stream's message_delta fields, content / refusal null the wire never
# carried, an interim response.in_progress on built output.
_GLUE_FIXED = {
    "anthropic_messages.mjs": (["anthropic-messages/syn-stream-cut-in-non-json-input", "anthropic-messages/anthropic-clear-thinking-1"],
                               ["PARITY-001", "PURE-001", "PURE-003", "EXTRACT-001", "CHAIN-001"]),
    "openai_chat.mjs": (["openai-chat/syn-chunks-id-only", "openai-chat/openai-text"], ["PARITY-001", "NOISE-001"]),
    "openai_responses.mjs": (["openai-responses/syn-lifecycle-in-progress-mid-stream-cut"], ["PARITY-001", "PURE-001"]),
}


@pytest.mark.parametrize("harness", sorted(_GLUE_FIXED))
def test_glue_faults_stay_fixed(node: str, harness: str) -> None:
    cases, checks = _GLUE_FIXED[harness]
    done = run_suite(node, harness, *[f"--mcs-case={c}" for c in cases], *[f"--mcs-check={c}" for c in checks])
    out = done.stdout + done.stderr
    items = ITEM.findall(done.stdout)
    assert items, out[-4000:]
    assert {case for _, _, case in items} == set(cases), out[-4000:]
    failed = [(check, case) for outcome, check, case in items if outcome != "PASSED"]
    assert not failed, (failed, out[-4000:])
    assert "PeerError" not in out, out[-4000:]
