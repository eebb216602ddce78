"""Write the cohere cases (mcs_conformance/corpus/cases/cohere/) from recordings/vercel-ai/cohere/.

Recorded streams become stream cases and recorded stream=false bodies extraction-only cases;
a few synthetic streams, made from a recorded one, cover the hazards docs/spec.md's cohere section
names (each says why). No SDK folds a Cohere stream, so the expected message is built here by the
rules of docs/spec.md, cohere (:func:`fold`), never by the reference strategy; the expected calls
and text are read from it by the same rules (:func:`calls_of`). ``--check`` says whether the
written cases are this script's output.

    python scripts/build_cohere_corpus.py [--check]
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = ROOT / "recordings" / "vercel-ai" / "cohere"
OUT = ROOT / "mcs_conformance" / "corpus" / "cases" / "cohere"
COMMIT = "ed857f50f112e23930b0c2dd8d532cc8bebbc911"
FIXTURES = "packages/cohere/src/__fixtures__/"
FINISHED = {"COMPLETE", "TOOL_CALL", "STOP_SEQUENCE"}
RULES = "built by the rules of docs/spec.md, cohere (scripts/build_cohere_corpus.py, fold): no SDK folds a Cohere stream"


def fold(events: list) -> dict:
    """The stream=false body the events make, by docs/spec.md's cohere rules."""
    body: dict = {}
    blocks: dict = {}
    calls: dict = {}
    for event in events:
        if not isinstance(event, dict):
            continue
        kind, index = event.get("type"), event.get("index")
        message = body.get("message")
        part = (event.get("delta") or {}).get("message") or {}
        if kind == "message-start":
            if "id" in event:
                body["id"] = event["id"]
            body["message"] = {k: copy.deepcopy(v) for k, v in part.items() if v not in ([], "", None)}
        elif kind == "content-start":
            blocks[index] = copy.deepcopy(part["content"])
            message.setdefault("content", []).append(blocks[index])
        elif kind == "content-delta":
            for key, piece in part["content"].items():
                blocks[index][key] = blocks[index].get(key, "") + piece
        elif kind == "tool-plan-delta":
            message["tool_plan"] = message.get("tool_plan", "") + part["tool_plan"]
        elif kind == "tool-call-start":
            calls[index] = copy.deepcopy(part["tool_calls"])
            message.setdefault("tool_calls", []).append(calls[index])
        elif kind == "tool-call-delta":
            function = calls[index]["function"]
            function["arguments"] = function.get("arguments", "") + part["tool_calls"]["function"]["arguments"]
        elif kind == "citation-start":
            message.setdefault("citations", []).append(copy.deepcopy(part["citations"]))
        elif kind == "message-end":
            for key in ("finish_reason", "usage"):
                if key in event["delta"]:
                    body[key] = copy.deepcopy(event["delta"][key])
    return body


def calls_of(body: dict) -> list[dict]:
    """The calls a case expects from a body: arguments parsed from their JSON text ("" and
    "null" are no arguments), every call an error call unless the turn finished."""
    finished = body.get("finish_reason") in FINISHED
    out = []
    for call in body["message"].get("tool_calls", []):
        raw = call["function"].get("arguments")
        try:
            arguments = json.loads(raw) if raw and raw.strip() else {}
        except ValueError:
            arguments = None
        arguments = {} if arguments is None and raw is not None and raw.strip() == "null" else arguments
        good = isinstance(arguments, dict)
        out.append({"name": call["function"]["name"], "arguments": arguments if good else {}, "id": call["id"],
                    "error": not (good and finished)})
    return out


def text_of(body: dict) -> str:
    return "".join(b["text"] for b in body["message"].get("content", []) if b.get("type") == "text")


def recorded(name: str) -> dict:
    return {"kind": "recorded", "source": "vercel/ai", "path": FIXTURES + name, "commit": COMMIT, "license": "Apache-2.0"}


def synthetic(why: str, base: str) -> dict:
    return {"kind": "synthetic", "source": "mcs-conformance", "license": "Apache-2.0",
            "why": f"{why} (made from the recorded stream of case cohere/{base}, vercel/ai@{COMMIT[:8]} {FIXTURES}{base}.chunks.txt)"}


def stream_case(slug: str, description: str, provenance: dict, chunks: list, tags: list, *, done: bool = True,
                levels: dict | None = None, error: dict | None = None) -> dict:
    expect: dict = {}
    if error is None:
        body = fold(chunks)
        expect = {"done": done, "message": body, "calls": calls_of(body), "content_text": text_of(body),
                  "claimed_by": "cohere", "extracted_by": "cohere", "via_backup": False}
    else:
        expect = {"error": error, "done": False, "calls": [], "content_text": "", "claimed_by": None,
                  "extracted_by": None, "via_backup": False}
    if levels:
        expect["levels"] = levels
    return {"id": f"cohere/{slug}", "format": "cohere", "description": description, "provenance": provenance,
            "tags": tags, "chunks": chunks, "expect": expect}


def read_stream(name: str) -> list:
    return [json.loads(line) for line in (RECORDINGS / f"{name}.chunks.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def read_body(name: str) -> dict:
    return json.loads((RECORDINGS / f"{name}.nonstream.json").read_text(encoding="utf-8"))


def _expect_provenance(case: dict, how: str) -> dict:
    case["provenance"]["expect"] = how
    return case


def cases() -> list[dict]:
    out = []
    recorded_streams = {
        "cohere-text": ("a text answer in one text content block, finish COMPLETE", ["text"]),
        "cohere-reasoning": ("a thinking block then a text block (content indexes 0 and 1): the thinking is no content text", ["thinking"]),
        "cohere-tool-call": ("a tool plan, then two calls one after the other (tool-call-start, arguments fragments by index, tool-call-end), finish TOOL_CALL", ["tool-call", "parallel"]),
        "cohere-empty-tool-call": ("a tool plan and one call to a tool without parameters: tool-call-start with arguments \"\" and no fragment, so the call runs with {}", ["tool-call", "empty-arguments"]),
    }
    for name, (description, tags) in recorded_streams.items():
        out.append(stream_case(name, description, recorded(f"{name}.chunks.txt"), read_stream(name), tags))
    bodies = {
        "cohere-text": "the stream=false body of a text answer: no tool_plan, tool_calls or citations key",
        "cohere-reasoning": "the stream=false body with a thinking block before the text",
        "cohere-tool-call": "the stream=false body of two calls: arguments as JSON text, no content key",
        "cohere-null-args": "the stream=false body of a call to a tool without parameters, whose arguments are the JSON text \"null\": an executable call with {}",
        "cohere-max-tokens": "the stream=false body of a text cut by max_tokens (finish_reason MAX_TOKENS)",
        "cohere-citations": "the stream=false body of a text with citations: the citations are no content text and no call",
    }
    for name, description in bodies.items():
        body = read_body(name)
        out.append({"id": f"cohere/nonstream-{name}", "format": "cohere", "description": description,
                    "provenance": recorded(f"{name}.json"), "tags": ["stream-false"], "message": body,
                    "expect": {"calls": calls_of(body), "content_text": text_of(body), "claimed_by": "cohere",
                               "extracted_by": "cohere", "via_backup": False}})
    out.extend(synthetic_cases())
    for case in out:
        if case["provenance"]["kind"] == "recorded" and "chunks" not in case:
            case["provenance"]["expect"] = "the recorded stream=false body is the message; calls and text read by the rules of docs/spec.md, cohere"
        elif case["expect"].get("message") is not None:
            case["provenance"]["expect"] = RULES
    return out


def synthetic_cases() -> list[dict]:
    calls = read_stream("cohere-tool-call")
    start = next(i for i, e in enumerate(calls) if e["type"] == "tool-call-start")
    plan, tail = calls[:start], calls[start:]
    first = [e for e in tail if e.get("index") == 0]
    second = [e for e in tail if e.get("index") == 1]
    end = calls[-1]
    out = []

    # Fragments of two open calls interleaved: each keyed by its index.
    interleaved = plan + [first[0], second[0]]
    for a, b in zip(first[1:-1], second[1:-1]):
        interleaved += [a, b]
    interleaved += [first[-1], second[-1], end]
    out.append(stream_case(
        "syn-interleaved-calls",
        "the two calls of cohere-tool-call open together and their tool-call-delta fragments alternate (0, 1, 0, 1, ...): each fragment belongs to the call its index names, not to the call opened last",
        synthetic("no recording interleaves two open calls; a client that joins fragments by position or to the last call opened (vercel/ai's Cohere provider keeps one pending call) merges their arguments", "cohere-tool-call"),
        interleaved, ["tool-call", "parallel", "interleaved"]))

    # Cut inside the second call's arguments: no message-end.
    cut_at = tail.index(second[3]) + 1
    out.append(stream_case(
        "syn-cut-in-arguments",
        "cohere-tool-call cut inside the second call's arguments, before message-end: the stream has not finished, so neither call runs",
        synthetic("a stream the network or a proxy cuts (C6: vercel/ai PR #13137, a call run before the model finished it)", "cohere-tool-call"),
        plan + tail[:cut_at], ["tool-call", "cut"], done=False,
        levels={"message": {"level": "reference", "why": "no stream=false body is half a message: what a cut stream's body holds is the reference's choice (the pieces so far, no finish_reason)", "source": "docs/spec.md, cohere; docs/authoring.md, A format with no SDK accumulator"}}))

    # Cut by the token limit inside the arguments: message-end MAX_TOKENS.
    limited = copy.deepcopy(end)
    limited["delta"]["finish_reason"] = "MAX_TOKENS"
    out.append(stream_case(
        "syn-max-tokens-in-arguments",
        "cohere-tool-call whose second call's arguments stop mid-JSON, then message-end with finish_reason MAX_TOKENS: the turn was cut, no call of it runs",
        synthetic("no recorded stream shows a call cut by max_tokens (C6: the cut call's arguments are a JSON prefix; the finished first call is of a turn the model did not end)", "cohere-tool-call"),
        plan + tail[:cut_at] + [limited], ["tool-call", "cut", "max-tokens"],
        levels={"calls": {"level": "should", "why": "a call of a turn cut by max_tokens is never run: the one cut short has a JSON prefix for arguments (vercel/ai PR #13137, BUG-CLASSES 19); the reference runs none of the turn's calls", "source": "docs/spec.md, cohere; C6"}}))

    # Arguments that are a JSON array, not an object.
    bad_args = copy.deepcopy(plan + first[:1])
    bad_args.append({"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": "[\"San Francisco\"]"}}}}})
    bad_args += [first[-1], end]
    out.append(stream_case(
        "syn-arguments-not-object",
        "one call whose arguments are the JSON text [\"San Francisco\"], no object: an error call, never run with {} or with the array",
        synthetic("arguments that parse to no object (C3: a lenient parse runs the tool with made-up arguments, vercel/ai PR #13137)", "cohere-tool-call"),
        bad_args, ["tool-call", "bad-arguments"],
        levels={"calls": {"level": "should", "why": "arguments that are no JSON object give an error call (C3)", "source": "docs/spec.md C3"}}))

    # An error reported in message-end.
    failed = {"type": "message-end", "delta": {"error": "internal server error, please try again later", "finish_reason": "ERROR"}}
    out.append(stream_case(
        "syn-error-in-message-end",
        "cohere-tool-call's first call, then a message-end that carries an error (finish_reason ERROR): feeding raises StreamError with the event",
        synthetic("no recording holds a failed generation; a swallowed error makes a broken turn look complete (BUG-CLASSES 14)", "cohere-tool-call"),
        plan + first + [failed], ["error", "error-event"], error={"type": "StreamError", "payload": failed},
        levels={"error": {"level": "should", "why": "a provider error inside the stream raises StreamError with the provider's payload, never swallowed: a swallowed error makes a broken turn look complete (BUG-CLASSES 14); the SDK yields the event", "source": "cohere 7.3.1 cohere.types.chat_message_end_event_delta.ChatMessageEndEventDelta (error: \"An error message if an error occurred during the generation\")"}}))

    # A fragment for a call never started.
    stray = copy.deepcopy(second[2])
    stray["index"] = 5
    out.append(stream_case(
        "syn-malformed-delta-for-unknown-call",
        "a tool-call-delta whose index names no started call: MalformedChunk naming the event, never a fragment added to another call",
        synthetic("a fragment routed to whatever call is open grows a call the model never meant (BUG-CLASSES 4, fragments joined by position)", "cohere-tool-call"),
        plan + first[:3] + [stray] + first[3:] + [end], ["tool-call", "malformed"], error={"type": "MalformedChunk"},
        levels={"error": {"level": "should", "why": "a fragment for no started call is refused, never routed to another call (the API keys fragments by index)", "source": "https://docs.cohere.com/reference/chat-stream (tool-call-delta: index); BUG-CLASSES 4"}}))

    # Citations from the recorded stream=false body, streamed as the API reference streams them.
    body = read_body("cohere-citations")
    text = body["message"]["content"][0]["text"]
    events: list = [{"id": body["id"], "type": "message-start", "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}},
                    {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}}]
    cuts = [0] + [c["end"] for c in body["message"]["citations"]] + [len(text)]
    for n, (a, b) in enumerate(zip(cuts, cuts[1:])):
        for word in _words(text[a:b]):
            events.append({"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": word}}}})
        if n < len(body["message"]["citations"]):
            events.append({"type": "citation-start", "index": n, "delta": {"message": {"citations": body["message"]["citations"][n]}}})
            events.append({"type": "citation-end", "index": n})
    events += [{"type": "content-end", "index": 0}, {"type": "message-end", "delta": {"finish_reason": body["finish_reason"], "usage": body["usage"]}}]
    case = stream_case(
        "syn-citations-between-text",
        "the recorded stream=false body cohere-citations streamed: text pieces with citation-start / citation-end after each cited span; the citations go to message.citations, the text stays whole",
        {"kind": "synthetic", "source": "mcs-conformance", "license": "Apache-2.0",
         "why": f"no recorded stream carries citation events; made from the recorded stream=false body vercel/ai@{COMMIT[:8]} {FIXTURES}cohere-citations.json (the message is that body), streamed as the API reference's citation-start / citation-end events"},
        events, ["citations", "text"])
    assert case["expect"]["message"] == body, "the streamed citations do not fold back to the recorded body"
    out.append(case)
    return out


def _words(text: str) -> list[str]:
    words, current = [], ""
    for ch in text:
        if ch == " " and current:
            words.append(current)
            current = ""
        current += ch
    return words + ([current] if current else [])


def main(argv: list[str]) -> int:
    check = "--check" in argv
    written = {}
    for case in cases():
        slug = case["id"].split("/", 1)[1]
        written[OUT / f"{slug}.json"] = json.dumps(case, indent=1, ensure_ascii=False) + "\n"
    stale = [p for p, text in written.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    extra = [p for p in OUT.glob("*.json") if p not in written] if OUT.exists() else []
    if check:
        for p in stale + extra:
            print(f"not this script's output: {p.relative_to(ROOT)}")
        return 1 if stale or extra else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for p in stale:
        p.write_text(written[p], encoding="utf-8")
    print(f"{len(written)} cases, {len(stale)} written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
