"""Write the bundled cases of the Amazon Bedrock ConverseStream format (``bedrock``).

    python scripts/build_bedrock.py            # (re)write mcs_conformance/corpus/cases/bedrock/
    python scripts/build_bedrock.py --check    # exit 1 when a written case differs

Recorded cases are vercel/ai's Bedrock provider fixtures as kept in recordings/vercel-ai/bedrock/
(provenance from recordings/manifest.json; the ones its manifest marks SYNTHETIC were written by
hand upstream and say so). No SDK folds Converse streams, so ``expect`` is built by the rules of
docs/spec.md, "bedrock": the stream is folded by the reference strategy and every case's
provenance says whether a recorded stream=false body of the same turn agrees (``BODIES``). The
synthetic streams below (``SYNTHETIC``) each name the hazard no recording covers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcs_conformance.reference.accumulator import Accumulator  # noqa: E402
from mcs_conformance.reference.errors import MalformedChunk, StreamError  # noqa: E402
from mcs_conformance.reference.strategies.bedrock import BedrockStrategy  # noqa: E402

CASES = ROOT / "mcs_conformance" / "corpus" / "cases" / "bedrock"
RECORDINGS = ROOT / "recordings"
MANIFEST = {e["path"]: e for e in json.loads((RECORDINGS / "manifest.json").read_text())}
FMT = "bedrock"
RULES = "built by the rules of docs/spec.md, bedrock (the stream folded by scripts/build_bedrock.py)"
HAND = "a hand-written stream of vercel/ai's Bedrock provider tests (its ids and texts are made up), kept as data"

# recording stem -> (case slug, description, tags, what the stream=false body says)
RECORDED: dict[str, tuple[str, str, list[str], str | None]] = {
    "amazon-bedrock-text": ("text", "Text only: 13 text deltas without contentBlockStart, messageStop with additionalModelResponseFields, then metadata (usage, metrics).", [], "its stream=false body is a separate run (other text and counts)"),
    "amazon-bedrock-reasoning": ("reasoning", "A reasoningContent block (text deltas, an empty one, then the signature) before a text block; messageStop then metadata.", ["reasoning"], "its stream=false body is a separate run (other reasoning text and signature)"),
    "amazon-bedrock-json-other-tool.1": ("json-other-tool-1", "One toolUse whose input arrives in two fragments; metadata before messageStop.", ["tool-call"], "MATCH"),
    "amazon-bedrock-tool-no-args": ("tool-no-args", "A contentBlockStart with an empty start opens a text block; a toolUse whose only input fragment is \"\" has input {}.", ["tool-call"], "its stream=false body agrees on output.message, stopReason and usage; it has no metrics, which the stream's metadata event carries"),
    "amazon-bedrock-tool-call.1": ("tool-call-1", "One toolUse, its input split inside the object; metadata before messageStop.", ["tool-call"], None),
    "amazon-bedrock-json-tool.1": ("json-tool-1", "One toolUse with its whole input in one fragment; no metadata.", ["tool-call"], None),
    "amazon-bedrock-json-tool.2": ("json-tool-2", "Text deltas with no contentBlockStart or contentBlockStop, then a toolUse.", ["tool-call"], None),
    "amazon-bedrock-json-tool.3": ("json-tool-3", "Three text blocks (indexes 0-2, never stopped) then a toolUse: the text blocks stay three blocks.", ["tool-call"], None),
    "amazon-bedrock-json-with-tool.1": ("json-with-tool-1", "Text, toolUse, text, toolUse: text around calls kept in block order.", ["tool-call", "parallel"], None),
    "amazon-bedrock-json-with-tools.1": ("json-with-tools-1", "Five blocks: text, two toolUse, text, toolUse.", ["tool-call", "parallel"], None),
    "amazon-bedrock-json-only-text-first.1": ("json-only-text-first-1", "A text block, then one toolUse; metadata before messageStop.", ["tool-call"], None),
    "amazon-bedrock-json-tool-text-then-weather-then-json.1": ("text-then-two-weather-calls-1", "Text then two toolUse blocks of the same tool with different inputs; metadata before messageStop.", ["tool-call", "parallel"], None),
}

WHY_ADDITIONAL = {
    "why": "the recorded stream=false bodies of the same prompts carry no additionalModelResponseFields where the stream's messageStop holds a streaming-only {\"delta\": {\"stop_sequence\": null}}: a strategy that leaves it out is accepted",
    "source": "recordings/vercel-ai/bedrock/amazon-bedrock-text.nonstream.json and amazon-bedrock-reasoning.nonstream.json (vercel/ai@ed857f50)",
}


def S(name: str, payload: dict) -> dict:  # noqa: N802
    return {name: payload}


def start_tool(index: int, tid: str, name: str) -> dict:
    return S("contentBlockStart", {"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": tid, "name": name}}})


def text(index: int, piece: str) -> dict:
    return S("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": piece}})


def tool(index: int, piece: str) -> dict:
    return S("contentBlockDelta", {"contentBlockIndex": index, "delta": {"toolUse": {"input": piece}}})


def stop(index: int) -> dict:
    return S("contentBlockStop", {"contentBlockIndex": index})


HEAD = S("messageStart", {"role": "assistant"})
META = S("metadata", {"usage": {"inputTokens": 120, "outputTokens": 40, "totalTokens": 160}, "metrics": {"latencyMs": 900}})
ERR_WHY = "no recording holds an in-stream Bedrock exception event; the ConverseStream reference lists them as members of the event stream"

SYNTHETIC: list[dict[str, Any]] = [
    {
        "slug": "syn-parallel-tool-use-interleaved",
        "description": "Two toolUse blocks open at the same time whose input fragments interleave, each keyed by its contentBlockIndex; the blocks stop out of order. Joining fragments by arrival order mixes the two inputs.",
        "tags": ["tool-call", "parallel", "interleaved"],
        "why": "recorded Bedrock streams hold one open toolUse at a time; the API keys each fragment by contentBlockIndex, and a strategy that joins them by position passes every recording (issue 35, BUG-CLASSES: fragments joined by position)",
        "chunks": [HEAD, text(0, "Checking both cities."), stop(0), start_tool(1, "tooluse_paris01", "get_weather"),
                   start_tool(2, "tooluse_tokyo02", "get_weather"), tool(1, "{\"city\": "), tool(2, "{\"city\": \"To"),
                   tool(1, "\"Paris\", \"unit\": \"c\"}"), tool(2, "kyo\"}"), stop(2), stop(1),
                   S("messageStop", {"stopReason": "tool_use"}), META],
    },
    {
        "slug": "syn-stream-cut-in-tool-input",
        "description": "The stream ends inside a toolUse input (no contentBlockStop, no messageStop): the response has no stop reason, the call is an error call and the stream is not done.",
        "tags": ["tool-call", "truncated"],
        "why": "BUG-CLASSES 19 (a truncated stream yields a call: vercel/ai PR#13137): no recording is cut off, so this is the first events of case json-other-tool-1's turn written out and cut inside the input",
        "chunks": [HEAD, text(0, "Let me look that up."), stop(0), start_tool(1, "tooluse_cut01", "get_weather"),
                   tool(1, "{\"location\": \"San Fr")],
        "levels": {"message": {"level": "reference", "why": "the message of a cut stream is the reference's choice: the response built so far, stopReason null, the open input shown as its partial parse", "source": "docs/spec.md, bedrock (a cut stream's message)"}},
    },
    {
        "slug": "syn-stream-cut-after-tool-block-stop",
        "description": "The stream ends after the toolUse block stopped but before messageStop: the input is complete JSON, yet the response has no stop reason, so the call is not executable.",
        "tags": ["tool-call", "truncated"],
        "why": "BUG-CLASSES 19 (calls run before the stream's end: vercel/ai PR#13137): a turn that never reached messageStop is not finished even when a block is",
        "chunks": [HEAD, start_tool(0, "tooluse_cut02", "get_weather"), tool(0, "{\"location\": \"Paris\"}"), stop(0)],
        "levels": {"message": {"level": "reference", "why": "the message of a cut stream is the reference's choice: the response built so far with stopReason null", "source": "docs/spec.md, bedrock (a cut stream's message)"}},
    },
    {
        "slug": "syn-max-tokens-cut-in-second-call",
        "description": "messageStop with stopReason max_tokens after a finished toolUse and a second one cut inside its input: no call of the cut turn is executable.",
        "tags": ["tool-call", "truncated"],
        "why": "BUG-CLASSES 19 (cut arguments executed): no recording reaches max_tokens inside a toolUse; Bedrock's stopReason max_tokens says the output was cut",
        "chunks": [HEAD, start_tool(0, "tooluse_ok01", "get_weather"), tool(0, "{\"location\": \"Paris\"}"), stop(0),
                   start_tool(1, "tooluse_cut03", "get_weather"), tool(1, "{\"location\": \"Lon"),
                   S("messageStop", {"stopReason": "max_tokens"}), META],
    },
    {
        "slug": "syn-tool-input-not-object",
        "description": "A toolUse whose input is a JSON array: an error call (its arguments are no object), never executed.",
        "tags": ["tool-call"],
        "why": "C3 (arguments that are no object must not run): Bedrock's toolUse input is documented as a JSON object; no recording breaks it",
        "chunks": [HEAD, start_tool(0, "tooluse_arr01", "get_weather"), tool(0, "[\"Paris\", "), tool(0, "\"London\"]"), stop(0),
                   S("messageStop", {"stopReason": "tool_use"})],
    },
    {
        "slug": "syn-reasoning-then-tool-use",
        "description": "A reasoningContent block with its signature and a redacted one, then a toolUse: the continuation replays both reasoning blocks, signature and redacted content unchanged, before the toolUse.",
        "tags": ["tool-call", "reasoning"],
        "why": "BUG-CLASSES 21 (reasoning, signatures and redacted reasoning dropped from the replayed turn: litellm PR #38809): the recorded reasoning stream has no toolUse and no redacted block; Bedrock requires the reasoning block, signature included, in the next request when tools are used",
        "chunks": [HEAD,
                   S("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "The user wants Paris weather; "}}}),
                   S("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "call get_weather."}}}),
                   S("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "EqQBCkgIARABGAIiQMcsSig"}}}),
                   stop(0),
                   S("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"reasoningContent": {"redactedContent": "RXF3QmNrZ0lBUkFCR0FJ"}}}),
                   stop(1), start_tool(2, "tooluse_think01", "get_weather"), tool(2, "{\"location\":"), tool(2, " \"Paris\"}"), stop(2),
                   S("messageStop", {"stopReason": "tool_use"}), META],
    },
    {
        "slug": "syn-error-mid-stream",
        "description": "A stream interrupted by a modelStreamErrorException after some text: feeding it raises StreamError carrying the event; it never looks like a finished turn.",
        "tags": ["error", "negative"],
        "why": ERR_WHY,
        "chunks": [HEAD, text(0, "Let me think about "), text(0, "that."),
                   S("modelStreamErrorException", {"message": "Model stream error", "originalStatusCode": 500, "originalMessage": "overloaded"})],
        "error": "StreamError",
    },
    {
        "slug": "syn-error-in-tool-input",
        "description": "A throttlingException while a toolUse input streams: StreamError carrying the event, no call.",
        "tags": ["error", "negative", "tool-call"],
        "why": ERR_WHY + "; this one arrives while a call is half written (hazard: a half-written call run after an error)",
        "chunks": [HEAD, start_tool(0, "tooluse_err01", "get_weather"), tool(0, "{\"location\": \"Par"),
                   S("throttlingException", {"message": "Too many requests, please wait before trying again."})],
        "error": "StreamError",
    },
    {
        "slug": "syn-second-message-start",
        "description": "A second messageStart after a finished text block (two turns spliced into one stream): refused, never merged into one response.",
        "tags": ["negative"],
        "why": "hazard: two turns spliced into one message (the shape of vercel/ai's anthropic duplicate-message-start fixture, here in Bedrock events)",
        "chunks": [HEAD, text(0, "First turn."), stop(0), HEAD, text(0, "Second turn."), stop(0), S("messageStop", {"stopReason": "end_turn"})],
        "error": "StreamError",
        "error_level": {"level": "should", "why": "a second messageStart inside one stream is refused, never folded into the first turn (two turns merged)", "source": "docs/spec.md, bedrock; the hazard of vercel/ai's anthropic fixtures duplicate-message-start and spliced-message-start"},
        "accept": [{"why": "which error refuses the restart is the reference's choice: MalformedChunk says as much", "source": "docs/spec.md, bedrock (a second messageStart)", "error": {"type": "MalformedChunk"}}],
    },
    {
        "slug": "syn-malformed-tool-delta-without-start",
        "description": "A toolUse input fragment for a contentBlockIndex that no toolUse contentBlockStart opened: refused with MalformedChunk naming the event, never a call without id or name.",
        "tags": ["malformed-chunk"],
        "why": "no provider sends this on purpose; a proxy or a hand-rolled server can, and the input has no call to belong to (hazard: a silent wrong call)",
        "chunks": [HEAD, text(0, "Hi."), stop(0), tool(1, "{\"location\": \"Paris\"}"), stop(1), S("messageStop", {"stopReason": "tool_use"})],
        "error": "MalformedChunk",
    },
    {
        "slug": "syn-malformed-text-delta-for-tool-use",
        "description": "A text delta sent to the index of an open toolUse block: refused with MalformedChunk naming the event.",
        "tags": ["malformed-chunk"],
        "why": "no provider sends this on purpose; the case checks that the event is refused, not folded into a wrong block",
        "chunks": [HEAD, start_tool(0, "tooluse_mal01", "get_weather"), tool(0, "{\"location\": "), text(0, "\"Paris\"}"), stop(0),
                   S("messageStop", {"stopReason": "tool_use"})],
        "error": "MalformedChunk",
        "error_level": {"level": "reference", "why": "the API reference defines no answer to a delta of another kind; refusing it is the reference's choice (a strategy may ignore it, never fold it into the input)", "source": "docs/spec.md, bedrock (malformed events)"},
    },
    {
        "slug": "syn-malformed-event-two-names",
        "description": "One chunk holding two event names (contentBlockDelta and messageStop): refused with MalformedChunk naming the chunk.",
        "tags": ["malformed-chunk"],
        "why": "no provider sends this; an event stream member is exactly one event, and a client that merges frames could produce it",
        "chunks": [HEAD, text(0, "Hello"), {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": " there"}}, "messageStop": {"stopReason": "end_turn"}}],
        "error": "MalformedChunk",
        "error_level": {"level": "reference", "why": "refusing a chunk with two event names is the reference's choice", "source": "docs/spec.md, bedrock (malformed events)"},
    },
]


def fold(chunks: list) -> tuple[Any, Exception | None, bool]:
    strategy, acc, done, error = BedrockStrategy(), Accumulator(), False, None
    for chunk in chunks:
        try:
            strategy.accumulate(acc, chunk)
        except (MalformedChunk, StreamError) as exc:
            error = exc
            break
        done = done or strategy.is_done(chunk)
    return acc.message, error, done


def expect_of(chunks: list) -> dict[str, Any]:
    strategy = BedrockStrategy()
    message, error, done = fold(chunks)
    if error is not None:
        out: dict[str, Any] = {"error": {"type": type(error).__name__}}
        if isinstance(error, StreamError) and error.payload is not None and error.payload is chunks[-1]:
            out["error"]["payload"] = error.payload
        out.update(done=False, calls=[], content_text="", claimed_by=None, extracted_by=None, via_backup=False)
        return out
    calls = [{"name": c.name, "arguments": c.arguments, "id": c.id, "error": c.error is not None} for c in strategy.extract(message)]
    return {"done": done, "message": message, "calls": calls, "content_text": strategy.content_text(message),
            "claimed_by": FMT, "extracted_by": FMT, "via_backup": False}


def recorded_cases() -> list[dict[str, Any]]:
    out = []
    for stem, (slug, description, tags, body) in RECORDED.items():
        path = f"vercel-ai/bedrock/{stem}.chunks.jsonl"
        entry = MANIFEST[path]
        chunks = [json.loads(line) for line in (RECORDINGS / path).read_text().splitlines() if line.strip()]
        expect = expect_of(chunks)
        provenance: dict[str, Any] = {
            "kind": "recorded" if entry["provenance"] == "recorded" else "synthetic",
            "source": entry["source"], "path": entry["source_path"], "commit": entry["commit"], "license": entry["license"],
        }
        if provenance["kind"] == "synthetic":
            provenance["why"] = HAND
        body_path = RECORDINGS / f"vercel-ai/bedrock/{stem}.nonstream.json"
        if body == "MATCH":
            recorded_body = json.loads(body_path.read_text())
            if recorded_body != expect["message"]:
                raise SystemExit(f"{stem}: the stream=false body no longer equals the folded stream")
            expect["message"] = recorded_body
            provenance["expect"] = f"the recorded stream=false body {MANIFEST[str(body_path.relative_to(RECORDINGS))]['source_path']} (the same turn: content, stopReason and usage equal the stream's)"
        else:
            provenance["expect"] = RULES + (f"; {body}" if body else "; its stream=false body is another turn (other text, input and counts)" if body_path.exists() else "")
        if "additionalModelResponseFields" in expect.get("message", {}):
            alt = {k: v for k, v in expect["message"].items() if k != "additionalModelResponseFields"}
            expect["accept"] = [{**WHY_ADDITIONAL, "message": alt}]
        out.append({"id": f"{FMT}/{slug}", "format": FMT, "description": description, "provenance": provenance,
                    "tags": tags, "chunks": chunks, "expect": expect})
    return out


def synthetic_cases() -> list[dict[str, Any]]:
    out = []
    for spec in SYNTHETIC:
        expect = expect_of(spec["chunks"])
        if spec.get("error") and expect.get("error", {}).get("type") != spec["error"]:
            raise SystemExit(f"{spec['slug']}: expected {spec['error']}, the fold gives {expect.get('error')}")
        levels = dict(spec.get("levels", {}))
        if spec.get("error_level"):
            levels["error"] = spec["error_level"]
        if levels:
            expect["levels"] = levels
        if spec.get("accept"):
            expect["accept"] = spec["accept"]
        provenance = {"kind": "synthetic", "source": "mcs-conformance", "license": "Apache-2.0", "why": spec["why"]}
        if "message" in expect:
            provenance["expect"] = RULES
        out.append({"id": f"{FMT}/{spec['slug']}", "format": FMT, "description": spec["description"],
                    "provenance": provenance, "tags": spec["tags"], "chunks": spec["chunks"], "expect": expect})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a written case differs")
    args = parser.parse_args()
    stale = []
    for case in recorded_cases() + synthetic_cases():
        path = CASES / f"{case['id'].split('/', 1)[1]}.json"
        text_out = json.dumps(case, indent=1, ensure_ascii=False) + "\n"
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text_out:
                stale.append(str(path.relative_to(ROOT)))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text_out, encoding="utf-8")
    if stale:
        print("stale or missing (run python scripts/build_bedrock.py):\n  " + "\n  ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
