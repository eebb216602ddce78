"""Write the bundled cases of the ``ollama`` format (Ollama ``/api/chat``) from their sources.

    python scripts/build_ollama.py            # (re)write mcs_conformance/corpus/cases/ollama/
    python scripts/build_ollama.py --check    # exit 1 when a written case differs

No public recording of a real ``/api/chat`` stream with tools exists beyond the examples of
Ollama's own documentation (recordings/ollama/, provenance in recordings/manifest.json), so the
cases are those examples, and synthetic streams for the hazards docs/spec.md's ``ollama``
section names (each says which). Chunks of the synthetic streams have the shape the server
writes them in (server/routes.go: every line repeats model and created_at; calls arrive whole in
a chunk of their own with ``content: ""``; the last line has done, done_reason and the counts).

``expect.message`` is the ``stream=false`` body, built by the fold the server itself applies to
the same chunks (server/routes.go ``writeChatResponse``, docs/spec.md "ollama"): :func:`fold`
here, written apart from the reference strategy. Where a documented stream=false body of the
same request exists, the script checks that the folded ``message`` equals it.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "mcs_conformance" / "corpus" / "cases" / "ollama"
REC = ROOT / "recordings" / "ollama"

COMMIT = "fb30760996871fa9460115c753afd2c60d4ab0f7"
DOCS = {"source": "ollama/ollama", "commit": COMMIT, "license": "MIT"}
OURS = {"source": "mcs-conformance", "license": "Apache-2.0"}
BY_RULES = "built from the chunks by docs/spec.md's ollama fold (server/routes.go writeChatResponse)"
C6 = {"level": "should", "why": "a call of a turn that never finished (or was cut by its length limit) must not run",
      "source": "docs/spec.md C6 and 'Where not finished lives'; vercel/ai PR #13137 (BUG-CLASSES 19)"}

CUT_MESSAGE = {"level": "reference", "why": "no stream=false body is half a message: the reference folds the lines that "
               "came (done: false, no done_reason)", "source": "docs/authoring.md, \"A format with no SDK accumulator\"; "
               "docs/spec.md, ollama (a cut stream's message)"}

M = "qwen3"
T0 = "2025-10-26T17:21:21.{:06d}Z"


def fold(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The stream=false body the server writes for these chunks: the last chunk, its message's
    content and thinking the pieces joined (thinking left out when empty), tool_calls extended."""
    content, thinking, calls, body = "", "", [], {}
    for chunk in chunks:
        content += chunk["message"].get("content") or ""
        thinking += chunk["message"].get("thinking") or ""
        calls += chunk["message"].get("tool_calls") or []
        body = copy.deepcopy(chunk)
    body["message"].pop("thinking", None)
    body["message"].pop("tool_calls", None)
    body["message"]["content"] = content
    if thinking:
        body["message"]["thinking"] = thinking
    if calls:
        body["message"]["tool_calls"] = copy.deepcopy(calls)
    return body


def line(i: int, content: str = "", **message: Any) -> dict[str, Any]:
    """One chunk before the last, at the i-th timestamp."""
    return {"model": M, "created_at": T0.format(100000 + 11000 * i),
            "message": {"role": "assistant", "content": content, **message}, "done": False}


def last(i: int, reason: str = "stop") -> dict[str, Any]:
    """The done chunk, with the counts the server sends."""
    return {"model": M, "created_at": T0.format(100000 + 11000 * i), "message": {"role": "assistant", "content": ""},
            "done": True, "done_reason": reason, "total_duration": 1833412125, "load_duration": 40816792,
            "prompt_eval_count": 221, "prompt_eval_duration": 118902250, "eval_count": 87, "eval_duration": 1672086958}


def call(name: str, arguments: dict[str, Any], index: int | None = None, id: str | None = None) -> dict[str, Any]:  # noqa: A002
    function: dict[str, Any] = {"name": name, "arguments": arguments}
    if index is not None:
        function = {"index": index, **function}
    return {"id": id, "function": function} if id is not None else {"function": function}


def ndjson(name: str) -> list[dict[str, Any]]:
    return [json.loads(s) for s in (REC / name).read_text(encoding="utf-8").splitlines() if s.strip()]


def calls_of(entries: list[dict[str, Any]], error: bool = False) -> list[dict[str, Any]]:
    return [{"name": e["function"]["name"], "arguments": e["function"]["arguments"], "id": e.get("id"),
             "error": error} for e in entries]


def stream_case(slug: str, description: str, provenance: dict[str, Any], tags: list[str],
                chunks: list[dict[str, Any]], *, done: bool = True, cut: bool = False,
                expect_extra: dict[str, Any] | None = None) -> dict[str, Any]:
    message = fold(chunks)
    entries = message["message"].get("tool_calls", [])
    expect: dict[str, Any] = {
        "message": message,
        "calls": calls_of(entries, error=cut),
        "content_text": message["message"]["content"],
        "done": done,
        "claimed_by": "ollama",
        "extracted_by": "ollama",
        "via_backup": False,
    }
    if cut and entries:
        expect["levels"] = {"calls": C6}
    expect.update(expect_extra or {})
    return {"id": f"ollama/{slug}", "format": "ollama", "description": description,
            "provenance": provenance, "tags": tags, "chunks": chunks, "expect": expect}


def error_case(slug: str, description: str, why: str, tags: list[str], chunks: list[dict[str, Any]],
               error: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"ollama/{slug}", "format": "ollama", "description": description,
            "provenance": {"kind": "synthetic", **OURS, "why": why}, "tags": tags, "chunks": chunks,
            "expect": {"error": error, "done": False, "calls": [], "content_text": "",
                       "claimed_by": None, "extracted_by": None, "via_backup": False}}


def cases() -> list[dict[str, Any]]:
    out = []

    tools = ndjson("api_chat_stream_tools.docexample.ndjson")
    body = json.loads((REC / "api_chat_nonstream_tools.docexample.json").read_text(encoding="utf-8"))
    assert fold(tools)["message"] == body["message"], "the documented stream and stream=false body disagree"
    out.append(stream_case(
        "doc-stream-tools",
        "The documented streamed tool call: one chunk carries the whole tool_calls list (object arguments, no id, "
        "no index), then the done chunk with done_reason and the counts.",
        {"kind": "synthetic", **DOCS, "path": "docs/api.md", "model": "llama3.2",
         "why": "official documentation example of a real run, abbreviated to its first and last chunk; no public "
                "recording of a whole /api/chat stream with tools exists",
         "expect": BY_RULES + "; its message equals the documented stream=false body of the same request "
                   "(docs/api.md, recordings/ollama/api_chat_nonstream_tools.docexample.json)"},
        ["tool-call", "doc-example"], tools))

    out.append({
        "id": "ollama/doc-nonstream-tools", "format": "ollama",
        "description": "The documented stream=false body for the same tool request, extracted as it is.",
        "provenance": {"kind": "synthetic", **DOCS, "path": "docs/api.md", "model": "llama3.2",
                       "why": "official documentation example of the stream=false response; no recorded body exists"},
        "tags": ["stream-false", "doc-example"], "message": body,
        "expect": {"calls": calls_of(body["message"]["tool_calls"]), "content_text": "",
                   "claimed_by": "ollama", "extracted_by": "ollama", "via_backup": False}})

    out.append(stream_case(
        "doc-stream-text",
        "The documented text stream of an older server: message.images null on the first chunk, a done chunk "
        "without done_reason. The body keeps the last chunk's fields.",
        {"kind": "synthetic", **DOCS, "path": "docs/api.md", "model": "llama3.2",
         "why": "official documentation example, abbreviated to its first and last chunk", "expect": BY_RULES},
        ["text", "doc-example"], ndjson("api_chat_stream_text.docexample.ndjson")))

    history = json.loads((REC / "assistant_tool_calls_history.docexample.json").read_text(encoding="utf-8"))
    four = [{"function": e["function"]} for e in history[1]["tool_calls"]]
    out.append(stream_case(
        "doc-parallel-calls-in-three-chunks",
        "Thinking, then the documented four parallel calls over three chunks (two, one, one), each with its "
        "function.index and no id: tool_calls is every chunk's list extended, never merged or replaced by position.",
        {"kind": "synthetic", **DOCS, "path": "docs/capabilities/tool-calling.mdx", "model": "qwen3",
         "why": "built from the documented four-call parallel example and its rule that streamed tool_calls are "
                "extended; the documentation shows no stream of it", "expect": BY_RULES},
        ["tool-call", "parallel", "thinking", "doc-example"],
        [line(0, thinking="The user wants weather"), line(1, thinking=" in two cities."),
         line(2, tool_calls=four[:2]), line(3, tool_calls=four[2:3]), line(4, tool_calls=four[3:]), last(5)]))

    out.append(stream_case(
        "syn-thinking-content-calls-with-ids",
        "A current server's stream: thinking, then content, then two calls each in its own chunk with the id the "
        "server gives every call (call_ and eight characters), unicode and spaces in the arguments.",
        {"kind": "synthetic", **OURS, "why": "no public recording holds a stream with thinking, content and calls "
                "with ids (server/routes.go toolCallId, ollama/ollama at " + COMMIT + ")", "expect": BY_RULES},
        ["tool-call", "parallel", "thinking", "ids"],
        [line(0, thinking="Zwei Städte — "), line(1, thinking="also zwei Aufrufe."),
         line(2, "Ich sehe nach: "), line(3, "München und 東京 🌤"),
         line(4, tool_calls=[call("get_weather", {"city": "München", "note": "  leading and trailing  "}, 0, "call_3kq8zv1m")]),
         line(5, tool_calls=[call("get_weather", {"city": "東京", "days": 3, "units": None, "tags": []}, 1, "call_p0x7c2ad")]),
         last(6)]))

    out.append(stream_case(
        "syn-same-call-twice-no-ids",
        "The same call (same name, same arguments, no id) sent twice in two chunks: two calls, never merged into one.",
        {"kind": "synthetic", **OURS, "why": "hazard: calls without ids merged by name or arguments lose a call "
                "(BUG-CLASSES 1, 3); no recording repeats a call", "expect": BY_RULES},
        ["tool-call", "parallel"],
        [line(0, tool_calls=[call("roll_die", {"sides": 6})]), line(1, tool_calls=[call("roll_die", {"sides": 6})]),
         last(2)]))

    out.append(stream_case(
        "syn-calls-all-index-0",
        "Two different calls in two chunks, both with function.index 0, as the server's built-in model parsers "
        "send them (they leave Index unset, and api/types.go writes index without omitempty): two calls, never "
        "one call keyed by its index.",
        {"kind": "synthetic", **OURS, "why": "hazard: calls keyed by index merged or replaced (BUG-CLASSES 2); no "
                "public recording of a built-in parser's stream exists (model/parsers/*.go set no Index, ollama/ollama "
                "at " + COMMIT + ")", "expect": BY_RULES},
        ["tool-call", "parallel", "ids"],
        [line(0, thinking="Two lookups."),
         line(1, tool_calls=[call("get_time", {"zone": "Europe/Oslo"}, 0, "call_w2n5h8qe")]),
         line(2, tool_calls=[call("get_weather", {"city": "Oslo"}, 0, "call_k7d1r0ty")]), last(3)]))

    out.append(stream_case(
        "syn-text-split-unicode",
        "A text answer over several content chunks (a non-ASCII dash, an emoji, an empty piece), then the done chunk: "
        "content is the pieces joined.",
        {"kind": "synthetic", **OURS, "why": "the documented text stream shows only its first chunk; this one shows "
                "the joining", "expect": BY_RULES},
        ["text"],
        [line(0, "Paris"), line(1, " — "), line(2, ""), line(3, "the capital 🇫🇷"), line(4, "."), last(5)]))

    out.append(stream_case(
        "syn-cut-before-done-with-calls",
        "Content and a whole call arrive, then the stream ends without its done chunk (the connection dropped): the "
        "body so far says done: false, and the call, though whole, is never executable.",
        {"kind": "synthetic", **OURS, "why": "hazard 'calls run before the stream's end' (docs/spec.md C6): a "
                "network cut cannot be recorded from the documentation",
         "expect": BY_RULES + ", over the chunks that came (the reference's cut message)"},
        ["tool-call", "truncated"],
        [line(0, "Checking."), line(1, tool_calls=[call("delete_file", {"path": "/tmp/report.txt"})])],
        done=False, cut=True, expect_extra={"levels": {"calls": C6, "message": CUT_MESSAGE}}))

    out.append(stream_case(
        "syn-cut-by-length-after-call",
        "A call, then the done chunk with done_reason length (num_predict reached): the turn did not finish, so the "
        "stream is not done and the call is never executable.",
        {"kind": "synthetic", **OURS, "why": "hazard 'calls run before the stream's end': a turn cut by its length "
                "limit (docs/api.md done_reason); no documented stream shows one", "expect": BY_RULES},
        ["tool-call", "truncated", "finish-length"],
        [line(0, tool_calls=[call("send_email", {"to": "a@example.com", "body": "Hi"})]), last(1, "length")],
        done=False, cut=True,
        ))

    out.append(error_case(
        "syn-error-after-call",
        "A call arrives, then the server fails and writes an {\"error\"} line: feeding raises StreamError with that "
        "payload; the call never runs.",
        "a server failure mid-stream (docs/api/errors.mdx, 'Errors that occur while streaming') cannot be taken "
        "from a recorded chat stream; hazard 'calls run before the stream's end'",
        ["error", "negative", "tool-call"],
        [line(0, "Let me look."), line(1, tool_calls=[call("get_weather", {"city": "Oslo"})]),
         {"error": "an error was encountered while running the model"}],
        {"type": "StreamError", "payload": {"error": "an error was encountered while running the model"}}))

    out.append(error_case(
        "syn-malformed-tool-calls-not-list",
        "A chunk whose message.tool_calls is one object, not a list: MalformedChunk naming the field, never a "
        "silent call or a dropped one.",
        "hazard: a malformed chunk read leniently makes or drops a call (docs/spec.md P4); no server writes one",
        ["negative", "malformed"],
        [line(0, "Sure."), line(1, tool_calls={"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}),
         last(2)],
        {"type": "MalformedChunk"}))

    out.append(error_case(
        "syn-malformed-content-number",
        "A chunk whose message.content is a number: MalformedChunk naming the field.",
        "hazard: a malformed chunk read leniently shows or drops text (docs/spec.md P4); no server writes one",
        ["negative", "malformed"],
        [line(0, "One"), line(1, 2), last(2)],
        {"type": "MalformedChunk"}))

    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a written case differs")
    args = parser.parse_args()
    CASES.mkdir(parents=True, exist_ok=True)
    differ = []
    for case in cases():
        path = CASES / (case["id"].split("/", 1)[1] + ".json")
        text = json.dumps(case, indent=2, ensure_ascii=False) + "\n"
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                differ.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
    if differ:
        print("differ:", *differ, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
