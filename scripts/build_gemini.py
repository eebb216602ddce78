"""Build the gemini cases from recordings/vercel-ai/google (a maintainer's tool).

    python scripts/build_gemini.py

No official SDK folds a Gemini stream, and the vercel/ai fixtures' .json bodies are separate
stream=false runs (other text, ids and usage), so each stream's expected message is built by
the rules of docs/spec.md, gemini (the reference strategy fed the stream); the .json bodies
become message cases of their own. Synthetic cases, each for a named hazard, are made from
the recorded streams here too. Review `git diff mcs_conformance/corpus` after a run.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcs_conformance.corpus_tools.importer import build_case  # noqa: E402
from mcs_conformance.corpus_tools.schemas import errors  # noqa: E402
from mcs_conformance.reference.extraction import extract_calls  # noqa: E402
from mcs_conformance.strategies import GeminiStrategy, default_backup, default_chain  # noqa: E402

FMT = "gemini"
CASES = ROOT / "mcs_conformance" / "corpus" / "cases" / FMT
REC = ROOT / "recordings"
MANIFEST = {e["path"]: e for e in json.loads((REC / "manifest.json").read_text())}
SPEC = "docs/spec.md, gemini"
EXPECT = ("built by the rules of docs/spec.md, gemini (the reference strategy fed the stream): no official SDK "
          "folds the stream, and the recording's .json body is a separate stream=false run")
CUT_MESSAGE = {"level": "reference", "why": "no stream=false body is half a message: what the message holds while the "
               "stream is open or after it was cut is the reference's choice", "source": "docs/spec.md, gemini (a cut message: reference)"}


def chain():
    c = default_chain()
    return type(c)([*[s for s in c if s.name != "text-json"], GeminiStrategy(),
                    *[s for s in c if s.name == "text-json"]])


def payloads(name: str) -> list:
    path = REC / "vercel-ai" / "google" / f"{name}.chunks.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def recorded(local: str, model: str | None) -> dict:
    e = MANIFEST[local]
    out = {"kind": "recorded", "source": e["source"], "path": e["source_path"], "commit": e["commit"],
           "license": e["license"]}
    if model:
        out["model"] = model
    return out


def synthetic(why: str) -> dict:
    return {"kind": "synthetic", "source": "mcs-conformance", "license": "Apache-2.0", "why": why}


def write(case: dict) -> None:
    problems = errors("case.schema.json", case)
    if problems:
        raise SystemExit(f"{case['id']}: not schema-valid: {problems[:3]}")
    CASES.mkdir(parents=True, exist_ok=True)
    path = CASES / (case["id"].split("/", 1)[1] + ".json")
    path.write_text(json.dumps(case, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{case['id']:<70} {case['provenance']['kind']:<9} {len(case.get('chunks') or [])} chunks")


def stream(slug: str, chunks: list, description: str, provenance: dict, tags: list,
           expect: str = EXPECT, more_levels: dict | None = None) -> dict:
    provenance = {**provenance, "expect": expect}
    case = build_case(FMT, chunks, case_id=f"{FMT}/{slug}", description=description, provenance=provenance,
                      tags=tags, strategy=GeminiStrategy(), strategy_spec="mcs_conformance.strategies:GeminiStrategy")
    if "message" in case["expect"]:
        # an error call keeps the arguments read so far, as extract gives them (the importer blanks them)
        done = case["expect"]["done"]
        case["expect"]["calls"] = [
            {"name": c.name, "arguments": c.arguments, "id": c.id, "error": c.error is not None or not done}
            for c in GeminiStrategy().extract(case["expect"]["message"])]
        chosen = {**({} if case["expect"]["done"] else {"message": CUT_MESSAGE}), **(more_levels or {})}
        if chosen:  # a finished stream's message is the stream=false body's shape (must): no level lowered
            case["expect"]["levels"] = chosen
    write(case)
    return case


def model_of(chunks: list) -> str | None:
    return next((c["modelVersion"] for c in chunks if isinstance(c, dict) and isinstance(c.get("modelVersion"), str)),
                None)


RECORDED = {
    "google-text": ("text", ["text", "thought-signature"]),
    "google-reasoning": ("reasoning", ["text", "thought-signature"]),
    "google-reasoning-gemini3": ("reasoning-gemini3", ["text", "thought-signature"]),
    "google-tool-call": ("tool-call", ["tool-call", "thought-signature"]),
    "google-tool-call-gemini3": ("tool-call-gemini3", ["tool-call", "thought-signature"]),
    "google-stream-no-args-tool-call": ("vertex-no-args-and-streamed-calls",
                                        ["tool-call", "parallel", "thinking", "streamed-arguments"]),
    "google-stream-tool-call-arguments": ("vertex-streamed-arguments-two-calls",
                                          ["tool-call", "parallel", "streamed-arguments"]),
    "google-stream-tool-call-array-arguments-missing-terminal-function-call": (
        "vertex-streamed-array-arguments-no-closing-part", ["tool-call", "streamed-arguments"]),
    "google-vertex-stream-tool-call-arguments-nested.1": ("vertex-streamed-nested-arguments",
                                                          ["tool-call", "streamed-arguments"]),
}
BODIES = ["google-text", "google-reasoning", "google-reasoning-gemini3", "google-tool-call", "google-tool-call-gemini3"]


def build_recorded() -> None:
    for name, (slug, tags) in RECORDED.items():
        local = f"vercel-ai/google/{name}.chunks.jsonl"
        chunks = payloads(name)
        stream(slug, chunks, MANIFEST[local]["scenario"], recorded(local, model_of(chunks)), tags)


def build_messages() -> None:
    strategy = GeminiStrategy()
    for name in BODIES:
        local = f"vercel-ai/google/{name}.nonstream.json"
        body = json.loads((REC / local).read_text(encoding="utf-8"))
        c = chain()
        ex = extract_calls(body, c, default_backup(c))
        calls = [{"name": x.name, "arguments": x.arguments if x.error is None else {}, "id": x.id,
                  "error": x.error is not None} for x in strategy.extract(body)]
        case = {
            "id": f"{FMT}/nonstream-{name.removeprefix('google-')}",
            "format": FMT,
            "description": f"A recorded stream=false GenerateContentResponse body ({MANIFEST[local]['scenario']}), "
                           "read as it is.",
            "provenance": recorded(local, body.get("modelVersion")),
            "tags": ["stream-false"],
            "message": body,
            "expect": {"calls": calls, "content_text": strategy.content_text(body),
                       "claimed_by": ex.resolved.name if ex.resolved else None,
                       "extracted_by": ex.strategy.name if ex.strategy else None, "via_backup": ex.via_backup},
        }
        write(case)


def finish_chunk(template: dict, reason: str = "STOP") -> dict:
    chunk = copy.deepcopy(template)
    chunk["candidates"] = [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": reason}]
    return chunk


def build_synthetic() -> None:
    args = payloads("google-stream-tool-call-arguments")
    src = "vercel/ai@ed857f50, packages/google/src/__fixtures__/google-stream-tool-call-arguments.chunks.txt"
    stream("syn-cut-in-streamed-arguments", args[:6],
           "The recorded stream of vertex-streamed-arguments-two-calls cut after the second call's first streamed "
           "piece of location (willContinue: true), before its end and any finishReason: the stream is not done "
           "and neither call may run.",
           synthetic(f"BUG-CLASSES 19 (a truncated stream yields a call: vercel/ai PR#13137): no recording is cut "
                     f"off, so this is the first 6 payloads of {src}"), ["tool-call", "truncated", "streamed-arguments"])
    stream("syn-finish-while-call-open", args[:6] + [finish_chunk(args[-1])],
           "The first 6 payloads of vertex-streamed-arguments-two-calls, then a finish payload (finishReason STOP, "
           "an empty text part) while the second call is still open (its last part said willContinue): the "
           "first call is whole and runs, the second's arguments never ended and it must not run.",
           synthetic(f"BUG-CLASSES 19 (cut arguments executed): a streamed call whose last part said willContinue "
                     f"is incomplete whatever the finish reason; no recording ends so. Payloads of {src} and its "
                     "last payload with the call part replaced by an empty text part"),
           ["tool-call", "truncated", "streamed-arguments"],
           more_levels={"calls": {"level": "should", "why": "a streamed call whose arguments never ended is not "
                                  "run even under finishReason STOP: its arguments may be a prefix (BUG-CLASSES 19)",
                                  "source": "docs/spec.md, gemini (a call whose arguments never ended: should); vercel/ai PR#13137"}})
    text = payloads("google-text")
    error = json.loads((REC / "vercel-ai/google/google-429-retry-info.error.json").read_text(encoding="utf-8"))
    stream("syn-error-mid-stream", text[:1] + [error],
           "The first payload of the recorded text stream, then an error payload (the recorded 429 "
           "RESOURCE_EXHAUSTED body of google-429-retry-info.json): feeding it raises StreamError carrying the "
           "payload; it never looks like a completed turn.",
           synthetic("BUG-CLASSES 14 (a mid-stream error swallowed: a truncated turn looks complete): no recorded "
                     "stream holds an error payload; the API sends a google.rpc.Status in an error object (the "
                     "recorded body vercel/ai@ed857f50 packages/google/src/__fixtures__/google-429-retry-info.json)"),
           ["error", "negative"], expect="the descriptor's error schema: the stream raises StreamError")
    env = {"usageMetadata": {"promptTokenCount": 31, "candidatesTokenCount": 5, "totalTokenCount": 36},
           "modelVersion": "gemini-2.5-flash", "responseId": "mcs-syn-ids-1"}

    def payload(parts: list, **cand) -> dict:
        return {"candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0, **cand}], **env}
    stream("syn-thought-text-and-calls-with-ids",
           [payload([{"text": "**Planning** Two cities, two calls.", "thought": True}]),
            payload([{"text": "Checking both "}]),
            payload([{"text": "cities."},
                     {"functionCall": {"id": "fc-paris-1", "name": "get_weather", "args": {"city": "Paris"}}},
                     {"functionCall": {"id": "fc-tokyo-2", "name": "get_weather", "args": {"city": "Tokyo"}}}]),
            payload([{"text": ""}], finishReason="STOP")],
           "A thought part, answer text in two payloads, then a payload holding the last text and two whole "
           "functionCall parts of the same name with their ids, then the finish: two calls with their own ids, "
           "the thought kept out of the answer text.",
           synthetic("the API reference's FunctionCall.id (ai.google.dev/api/caching#FunctionCall: 'The unique id of "
                     "the function call. If populated, the client to execute the functionCall and return the response "
                     "with the matching id'), which no recording holds; hazards BUG-CLASSES 8 (ids lost), 2 (two "
                     "calls of one name merged), 10 (text before a call) and thought text shown as the answer"),
           ["tool-call", "parallel", "thinking", "ids"])
    malformed = synthetic("no provider sends this on purpose; a proxy, a splicing client or a hand-rolled server "
                          "can, and the case checks that the payload is refused with an error that names the "
                          "problem, not folded into a wrong call")
    call = payloads("google-tool-call")
    bad = copy.deepcopy(call)
    bad[0]["candidates"][0]["content"]["parts"] = bad[0]["candidates"][0]["content"]["parts"][0]
    malformed_case("syn-malformed-parts-not-a-list", bad,
                   "The recorded tool-call stream whose first payload's content.parts is the functionCall part "
                   "itself, not a list: feeding it raises MalformedChunk naming parts.", malformed)
    bad = copy.deepcopy(text)
    bad[1]["candidates"][0]["content"]["parts"][0]["text"] = 42
    malformed_case("syn-malformed-text-not-a-string", bad,
                   "The recorded text stream whose second payload's text part holds the number 42: feeding it "
                   "raises MalformedChunk.", malformed)
    stream("syn-new-call-while-call-open", args[:3] + args[4:],
           "vertex-streamed-arguments-two-calls without the empty functionCall part that closes the first call: "
           "the second call's opening part (a name) arrives while the first is open (its functionCall said "
           "willContinue, but no value of it is still growing). A name starts a call, so the first call ends "
           "there with the arguments it has; both run.",
           synthetic(f"the splice of two Vertex AI streams (SPLICE-001) drops the empty closing part of the first "
                     f"stream's last call, and the API's missing-terminal recording shows the closing part is not "
                     f"always sent: a client must not refuse or merge the two calls. Payloads of {src}"),
           ["tool-call", "parallel", "streamed-arguments"],
           more_levels={"calls": {"level": "reference", "why": "the API reference does not say what a name while "
                                  "a call is open means; the reference ends the open call there (vercel/ai's stream "
                                  "reader does too) unless one of its string values is still growing",
                                  "source": "docs/spec.md, gemini (a name while a call is open: reference); vercel/ai@ed857f50 "
                                  "packages/google/src/google-language-model.ts"}})
    stream("syn-new-call-while-value-open", args[:2] + args[4:],
           "vertex-streamed-arguments-two-calls with the first call cut inside its location value (its last piece "
           "said willContinue), then the second call: the first call's arguments never ended and it must not run; "
           "the second runs.",
           synthetic(f"BUG-CLASSES 19 (cut arguments executed): a streamed string value whose last piece said "
                     f"willContinue is a prefix; no recording is cut so. Payloads of {src}"),
           ["tool-call", "truncated", "streamed-arguments"],
           more_levels={"calls": {"level": "should", "why": "a call whose streamed string value never ended "
                                  "holds a prefix of its arguments; running it acts on arguments the model did "
                                  "not send (BUG-CLASSES 19)",
                                  "source": "docs/spec.md, gemini (a call whose arguments never ended: should); vercel/ai PR#13137"}})
    malformed_case("syn-malformed-continuation-without-call", [text[0]] + args[1:4],
                   "A text payload, then streamed-argument parts (partialArgs, no name) that continue no call (the "
                   "opening part of vertex-streamed-arguments-two-calls left out): feeding them raises "
                   "MalformedChunk.", malformed)


def malformed_case(slug: str, chunks: list, description: str, provenance: dict) -> None:
    write({"id": f"{FMT}/{slug}", "format": FMT, "description": description, "provenance": provenance,
           "tags": ["malformed-chunk"], "chunks": chunks,
           "expect": {"calls": [], "content_text": "", "error": {"type": "MalformedChunk"}}})


if __name__ == "__main__":
    build_recorded()
    build_messages()
    build_synthetic()
