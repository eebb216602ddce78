"""The glue check's JavaScript runner (harnesses/js/glue_check.mjs) on the official SDK adapters:
it prints the adapter's GLUE_LISTED first, then one view pair per case line, and the two views
show what the SDK does where the glue once hid it (the end of a body without `[DONE]`, a
`response.failed` the SDK reads).

Needs node >= 22 (scripts/node22.sh) and the pinned packages (`npm ci --prefix harnesses/js`);
skipped with the reason when either cannot be had.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from .js import CASES, JS, ROOT
from .js import env as suite_env
from tests.helpers.limits import HANG

RUNNER = JS / "glue_check.mjs"


def _views(node: str, adapter: str, cases: list[str]) -> tuple[dict[str, str], list[Any]]:
    lines = "".join(json.dumps(json.loads((CASES / f"{c}.json").read_text(encoding="utf-8"))) + "\n" for c in cases)
    done = subprocess.run([node, str(RUNNER), str(JS / adapter)], input=lines, cwd=ROOT, env=suite_env(),
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr[-3000:]
    out = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert out and set(out[0]) == {"GLUE_LISTED"}, done.stdout[:2000]
    assert len(out) == len(cases) + 1, done.stdout[-2000:]
    return out[0]["GLUE_LISTED"], out[1:]


def test_chat_views_see_the_sdk_at_the_end_of_the_body(node: str) -> None:
    listed, (mistral, parallel, message_case) = _views(node, "openai_chat.mjs", [
        "openai-chat/mistral-incremental-tool-call", "openai-chat/tool-calls-parallel-2", "openai-chat/msg-call-id-empty"])
    assert all(isinstance(k, str) and isinstance(v, str) and v for k, v in listed.items())
    # no role on any delta, no [DONE]: the SDK refuses the finished completion, and so does the adapter
    assert mistral["library"]["refused"] == mistral["adapter"]["refused"] == "OpenAIError", mistral
    assert parallel["library"]["calls"] == parallel["adapter"]["calls"] and len(parallel["adapter"]["calls"]) == 2, parallel
    assert parallel["library"]["stop"] == parallel["adapter"]["stop"] == "tool_calls", parallel
    assert message_case is None  # a message case: no library view


def test_responses_views_read_response_failed_as_the_sdk_does(node: str) -> None:
    _, (failed, error) = _views(node, "openai_responses.mjs", [
        "openai-responses/syn-response-failed", "openai-responses/openai-error-1"])
    for side in ("library", "adapter"):
        assert failed[side]["refused"] is None and failed[side]["stop"] == "failed", failed
        assert error[side]["refused"] == "provider error", error


def test_anthropic_views_agree_on_a_recorded_call(node: str) -> None:
    _, (view,) = _views(node, "anthropic_messages.mjs", ["anthropic-messages/anthropic-tool-no-args"])
    assert view["library"] == view["adapter"], view
    assert view["adapter"]["stop"] == "tool_use" and len(view["adapter"]["calls"]) == 1, view


def test_the_runner_refuses_a_file_that_is_no_adapter(node: str) -> None:
    done = subprocess.run([node, str(RUNNER)], input="", cwd=ROOT, env=suite_env(), capture_output=True, text=True,
                          timeout=HANG)
    assert done.returncode == 2 and "usage" in done.stderr, done.stderr
    done = subprocess.run([node, str(RUNNER), str(JS / "_live.mjs")], input="", cwd=ROOT, env=suite_env(),
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 2 and "glueView" in done.stderr, done.stderr
