"""Through the bridge the suite gives the verdicts it gives in-process.

- The four reference strategies, run in a child (``--mcs-isolate``), get the same outcome
  and level on every item of a sample of their own cases as in-process (the full
  comparison, every item of every reference strategy, is ``python scripts/bridge_parity.py``).
- A one-bug strategy of the zoo, bridged, fails the check its in-process twin fails.
- Every line the runs exchanged with their peers is valid against the protocol's schemas
  (``mcs_conformance/schemas/bridge/``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "mcs_conformance" / "schemas" / "bridge"
REFERENCES = {
    "openai-chat": "OpenAIChatStrategy",
    "openai-responses": "OpenAIResponsesStrategy",
    "anthropic-messages": "AnthropicMessagesStrategy",
    "text-json": "TextStrategy",
}
SAMPLE = 5  # cases of the strategy's own format, spread over its sorted ids
SHORT = 30  # chunks at most: the sample keeps CI's run short (the script compares every case)


def _run(spec: str, tmp: Path, *args: str, isolate: bool, transcript: Path | None = None) -> dict:
    report = tmp / ("isolated.json" if isolate else "in-process.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(ROOT)
    env.pop("MCS_BRIDGE_TRANSCRIPT", None)
    if transcript is not None:
        env["MCS_BRIDGE_TRANSCRIPT"] = str(transcript)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--mcs-strategy={spec}", "--mcs-only",
           "--mcs-profile=ci", f"--mcs-report={report}", f"--rootdir={ROOT}", *args]
    if isolate:
        cmd.append("--mcs-isolate")
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(report.read_text(encoding="utf-8"))


def _verdicts(report: dict) -> dict[tuple[str, str], tuple[str, str]]:
    return {(r["id"], r["case"]): (r["outcome"], r["level"]) for r in report["results"]}


def _sample(fmt: str) -> list[str]:
    from mcs_conformance.corpus_tools.corpus import load_corpus

    cases = [c for c in load_corpus([]).cases if c.format == fmt]
    streams = sorted(c.id for c in cases if 0 < len(c.chunks or ()) <= SHORT)  # short streams first
    step = max(1, len(streams) // (SAMPLE - 1))
    message = min(c.id for c in cases if not c.chunks)
    return [*streams[::step][:SAMPLE - 1], message]


@pytest.mark.parametrize("fmt", sorted(REFERENCES))
def test_reference_strategy_bridged_gets_the_in_process_verdicts(fmt: str, tmp_path: Path) -> None:
    spec = f"mcs_conformance.strategies:{REFERENCES[fmt]}"
    cases = [f"--mcs-case={c}" for c in _sample(fmt)]
    transcript = tmp_path / "transcript.jsonl"
    here = _verdicts(_run(spec, tmp_path, *cases, isolate=False))
    there = _verdicts(_run(spec, tmp_path, *cases, isolate=True, transcript=transcript))
    assert len(here) >= 30, here  # a sample that judges something
    assert there == here
    _validate_transcript(transcript)


# one planted bug per wire, each failing a different family in-process (tests/zoo/test_zoo.py)
TWINS = [
    ("ChatKeysCallsByIndexOnly", "PARITY-001", "openai-chat/syn-same-index-new-ids"),
    ("ResponsesSwallowsErrors", "DONE-003", "openai-responses/openai-error-1"),
    ("AnthropicDropsThinkingFromHistory", "HISTORY-003", "anthropic-messages/msg-thinking-then-tool-use"),
    ("TextUnescapesEachChunk", "SPLIT-002", "text-json/syn-escapes-split"),
]


@pytest.mark.parametrize("strategy, check, case", TWINS, ids=[t[0] for t in TWINS])
def test_bridged_one_bug_strategy_fails_what_its_twin_fails(strategy: str, check: str, case: str,
                                                             tmp_path: Path) -> None:
    spec = f"tests.zoo.broken:{strategy}"
    args = (f"--mcs-case={case}", f"--mcs-check={check}")
    here = _verdicts(_run(spec, tmp_path, *args, isolate=False))
    there = _verdicts(_run(spec, tmp_path, *args, isolate=True))
    assert here[(check, case)][0] == "failed"
    assert there == here


def _validators() -> tuple[Draft202012Validator, Draft202012Validator, dict]:
    docs = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in SCHEMAS.glob("*.schema.json")}
    registry = Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in docs.values())
    request = Draft202012Validator(docs["request.schema.json"], registry=registry)
    reply = Draft202012Validator(docs["reply.schema.json"], registry=registry)
    return request, reply, docs["reply.schema.json"]


def _validate_transcript(path: Path) -> None:
    request_schema, reply_schema, reply_doc = _validators()
    lines = path.read_bytes().splitlines()
    assert len(lines) > 100, len(lines)
    sent: dict[int, str] = {}
    seen: set[str] = set()
    for raw in lines:
        way, body = raw[:2], json.loads(raw[2:])
        if way == b"> ":
            request_schema.validate(body)
            sent[body["id"]] = body["cmd"]
            continue
        assert way == b"< ", raw[:80]
        reply_schema.validate(body)
        cmd = sent.pop(body["id"])
        seen.add(cmd)
        if "ok" in body:  # the reference strategies answer with the protocol's types
            ok = reply_doc["$defs"][f"ok-{cmd}"]
            Draft202012Validator({**ok, "$defs": reply_doc["$defs"], "$id": reply_doc["$id"]},
                                 registry=reply_schema._resolver._registry).validate(body["ok"])  # type: ignore[attr-defined]
    assert not sent, f"requests without a reply: {sorted(sent.values())}"
    assert {"start", "recognizes", "accumulate", "as_dict", "extract"} <= seen, seen
