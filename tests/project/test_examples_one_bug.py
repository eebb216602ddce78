"""Detection power from recordings alone: one-bug copies of the example strategies are failed
by the suite when it has only the examples' cases taken from a public source (the provider's
documentation, a parser's own test inputs): every case written for this suite
(``provenance.source`` is ``mcs-conformance``) is removed, and GOLDEN is deselected (a
snapshot only says the output changed). What catches the bugs there is the suite's derived
streams (cut, splice, merge) and its other checks over those few cases, not a hand-made case
per bug. Each copy runs the check that must catch its bug alone. The unmodified examples pass
every check on their whole corpus (tests/project/test_examples.py), whose public-source cases
and derived streams (derived from public-source cases only) are these.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_FAILED = re.compile(r"^FAILED mcs-conformance::([A-Z]+-\d+)\[", re.M)

# The one-bug copies, each a subclass of the example strategy that differs by one bug.
OLLAMA_BUGS = '''
from mcs_conformance.reference.accumulator import copy_tree
from ollama_strategy import OllamaStrategy


class MergesParallelCalls(OllamaStrategy):
    """Parallel calls merged into one: every later call's arguments go into the first call."""

    def accumulate(self, acc, chunk):
        text = super().accumulate(acc, chunk)
        calls = acc.root["message"].get("tool_calls") if isinstance(acc.root, dict) else None
        if calls and len(calls) > 1:
            for extra in calls[1:]:
                calls[0]["function"].setdefault("arguments", {}).update(extra["function"].get("arguments") or {})
            del calls[1:]
        return text


class DropsTextAfterCall(OllamaStrategy):
    """Text that follows a call is dropped: content is ignored once the message holds a call."""

    def accumulate(self, acc, chunk):
        message = chunk.get("message") if isinstance(chunk, dict) else None
        if isinstance(acc.root, dict) and acc.root["message"].get("tool_calls") and isinstance(message, dict):
            chunk = {**chunk, "message": {k: v for k, v in message.items() if k != "content"}}
        return super().accumulate(acc, chunk)


class IgnoresCompletionSignal(OllamaStrategy):
    """The completion signal is ignored: every line is taken as the end of the turn."""

    def is_done(self, chunk):
        return isinstance(chunk, dict)


class TakesCutAsFinished(OllamaStrategy):
    """The cut signal is ignored: a last line with done_reason "length" is taken as a finished turn."""

    def is_done(self, chunk):
        return isinstance(chunk, dict) and chunk.get("done") is True


class OverwritesInsteadOfGrowing(OllamaStrategy):
    """The growing fields are overwritten instead of grown: each line's content and thinking
    replace the earlier pieces. (Ollama sends a call's arguments whole, as an object, so on
    this wire the fields that grow are content and thinking, and the call list, which
    MergesParallelCalls covers.)"""

    def accumulate(self, acc, chunk):
        shown = super().accumulate(acc, chunk)
        message = chunk.get("message") if isinstance(chunk, dict) else None
        if isinstance(message, dict) and any(message.get(k) for k in ("content", "thinking")):
            live = copy_tree(acc.message)
            live["message"].update({k: message[k] for k in ("content", "thinking") if message.get(k)})
            acc.root = live
        return shown


class DropsThinkingFromHistory(OllamaStrategy):
    """The opaque replay field is not replayed: the assistant turn goes back without its thinking."""

    def result_messages(self, message, records):
        history = super().result_messages(message, records)
        history[0].pop("thinking", None)
        return history
'''

HERMES_BUGS = '''
from hermes_strategy import HermesStrategy, _text
from mcs_conformance import ToolCall


class MergesParallelCalls(HermesStrategy):
    """Parallel calls merged into one: the blocks' arguments are joined under the first name."""

    def extract(self, message):
        calls = super().extract(message)
        good = [c for c in calls if c.error is None]
        if len(good) < 2:
            return calls
        arguments = {}
        for c in good:
            arguments.update(c.arguments)
        return [ToolCall(name=good[0].name, arguments=arguments)]


class DropsTextAfterCall(HermesStrategy):
    """Text that follows a call is dropped: the prose ends at the first <tool_call>."""

    def accumulate(self, acc, chunk):
        shown = super().accumulate(acc, chunk)
        acc.state["seen"] = acc.state.get("seen", "") + chunk
        if acc.state.get("called"):
            return ""
        acc.state["called"] = "<tool_call>" in acc.state["seen"]
        return shown

    def content_text(self, message):
        text = _text(message)
        at = text.find("<tool_call>")
        return super().content_text(text if at < 0 else text[:at])


class OverwritesInsteadOfGrowing(HermesStrategy):
    """The text is overwritten instead of grown: each chunk replaces the text so far, so a
    call's arguments keep only their last piece."""

    def accumulate(self, acc, chunk):
        shown = super().accumulate(acc, chunk)
        acc.root = chunk
        return shown

# Hermes has no completion signal (a text stream ends with its transport) and no opaque replay
# field (the assistant turn is the text itself): those two bugs cannot exist in this format.
'''

# example -> (the example strategy, the copies' source, {copy: a check that must fail on it}).
# The checks named are the ones that see the bug with these cases: the derived streams
# (SPLICE-001: two documented turns one after the other; DONE-002: a documented turn cut
# and closed with done_reason "length") catch what no documented case shows.
BUGS = {
    "ollama": ("ollama_strategy:OllamaStrategy", OLLAMA_BUGS, {
        "MergesParallelCalls": "SPLICE-001",
        "DropsTextAfterCall": "SPLICE-001",
        "IgnoresCompletionSignal": "DONE-001",
        "TakesCutAsFinished": "DONE-002",  # the body's done_reason keeps its calls from running: the signal is what differs
        "OverwritesInsteadOfGrowing": "SPLIT-001",
        "DropsThinkingFromHistory": "HISTORY-003",
    }),
    "hermes": ("hermes_strategy:HermesStrategy", HERMES_BUGS, {
        "MergesParallelCalls": "SPLICE-001",
        "DropsTextAfterCall": "SPLICE-001",
        "OverwritesInsteadOfGrowing": "SPLIT-001",
        # no "IgnoresCompletionSignal": a Hermes text stream has no completion signal (it ends
        # with its transport), so a strategy cannot ignore one; no "DropsThinkingFromHistory":
        # the assistant turn is the text itself, there is no opaque field to replay
    }),
}


def _public_corpus(folder: str, into: Path) -> int:
    """Copy the example's corpus without the cases written for this suite; return how many are kept."""
    src = EXAMPLES / folder / "corpus"
    shutil.copytree(src / "descriptors", into / "descriptors")
    if (src / "schemas").exists():
        shutil.copytree(src / "schemas", into / "schemas")
    kept = 0
    for path in sorted((src / "cases").rglob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if case["provenance"]["source"] == "mcs-conformance":
            continue
        target = into / "cases" / path.relative_to(src / "cases")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
        kept += 1
    return kept


def _run(folder: str, tmp: Path, spec: str, check: str) -> tuple[set[str], str, int]:
    """The suite on the copy, the check that must catch its bug alone (the unmodified example
    passes every check on its whole corpus: tests/project/test_examples.py)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp), str(EXAMPLES / folder), os.environ.get("PYTHONPATH", "")])
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", f"--mcs-strategy={spec}",
           "--mcs-corpus=corpus", "--mcs-only", "--mcs-profile=ci", "-q", "-rf", f"--mcs-check={check}",
           "-k", f"{folder} and not GOLDEN"]
    done = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
    return set(_FAILED.findall(done.stdout)), done.stdout + done.stderr, done.returncode


@pytest.mark.parametrize("folder,bug", [(f, b) for f in sorted(BUGS) for b in BUGS[f][2]])
def test_each_one_bug_copy_is_failed(folder: str, bug: str, tmp_path: Path) -> None:
    assert _public_corpus(folder, tmp_path / "corpus") >= 3
    (tmp_path / "bugs.py").write_text(textwrap.dedent(BUGS[folder][1]), encoding="utf-8")
    check = BUGS[folder][2][bug]
    failed, out, code = _run(folder, tmp_path, f"bugs:{bug}", check)
    assert re.search(r"\d+ failed", out), out[-2000:]
    assert BUGS[folder][2][bug] in failed, f"{folder}:{bug} failed only {sorted(failed)}\n" + out[-4000:]
    assert code != 0
