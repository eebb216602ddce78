"""Rebuild the recorded corpus cases from recordings/ (a maintainer's tool).

    python scripts/build_corpus.py [RECORDINGS_DIR]

Every case's expected message, calls and content text come from the official SDK oracle
(mcs_conformance.corpus_tools.importer.build_case); provenance comes from recordings/manifest.json.
Hand-written cases (messages, synthetic streams) live in the corpus as files and are not
touched. Review `git diff mcs_conformance/corpus` after a run.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from mcs_conformance.corpus_tools.capture import parse_sse, read_capture, split_at
from mcs_conformance.reference.extraction import extract_calls
from mcs_conformance.corpus_tools.importer import build_case
from mcs_conformance.corpus_tools.oracles import oracle_module
from mcs_conformance.corpus_tools.schemas import errors
from mcs_conformance.strategies import by_name, default_backup, default_chain

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "mcs_conformance" / "corpus" / "cases"
SRC = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "recordings"
MANIFEST = {e["path"]: e for e in json.loads((SRC / "manifest.json").read_text())}
COMMITS = {
    "openai/openai-python": "e43b422412a9e96c9cc5192c61fffbe2d7e04836",
    "anthropics/anthropic-sdk-python": "009b035305e0724ce108ebd796935f91711fc6e1",
    "vercel/ai": "ed857f50f112e23930b0c2dd8d532cc8bebbc911",
}
LICENSES = {"openai/openai-python": "Apache-2.0", "anthropics/anthropic-sdk-python": "MIT", "vercel/ai": "Apache-2.0"}
STARTS = {"anthropic-messages": {"message_start"}, "openai-responses": {"response.created"}}
# The OpenAI-compatible providers' recordings in vercel-ai/chat/ (file-name prefix -> provider tag),
# and where each stream differs from OpenAI's (docs/spec.md, openai-chat, "OpenAI-compatible providers").
PROVIDERS = {"groq": "groq", "azure": "azure", "mistral": "mistral", "deepseek": "deepseek", "xai": "xai",
             "alibaba": "alibaba", "moonshotai": "moonshotai", "perplexity": "perplexity"}
DIFFERS = {
    "mistral-tool-call": "no `index` and no `type` on the fragment (Mistral's API reference defaults them to 0 and "
    "function; the openai SDK raises TypeError), the whole call in one fragment, finish_reason and usage on that "
    "same chunk",
    "mistral-incremental-tool-call": "an `index` inside the delta (folded into the message as the SDK does), "
    "`content: \"\"` beside the calls, a continuation fragment without id that sends `name: \"\"` and `type` again",
    "mistral-reasoning": "`content` is a list of thinking and text parts without `index`: the openai SDK raises "
    "(RuntimeError) and the reference refuses the stream; Mistral's stream=false body holds the parts merged by type",
    "deepseek-tool-call": "`reasoning_content` deltas (\"\" first, null once the answer starts), usage with "
    "prompt_cache_hit_tokens on the finish chunk; the stream=false body keeps `index` on its tool calls",
    "xai-tool-call": "`reasoning_content` deltas, no `finish_reason` key before the finish chunk, the whole call in "
    "one fragment, usage in a trailing `choices: []` chunk with num_sources_used and cost_in_usd_ticks",
    "alibaba-tool-call": "continuation fragments carry `id: \"\"` and `type` again, a trailing empty-arguments "
    "fragment in a choice without finish_reason, usage in a trailing `choices: []` chunk",
    "moonshotai-stream": "no `object` key on any chunk, `reasoning_content`, finish_reason and usage on the chunk "
    "that carries the last content",
    "perplexity-text": "`role` on every delta (the openai SDK concatenates it), cumulative usage, citations and "
    "search_results on every chunk, `object: \"chat.completion.done\"` on the finishing chunk",
}
# Streams the openai SDK folds otherwise than the reference: why, for the case's expect.accept
SDK_OTHERWISE = {
    "perplexity-text": "the SDK concatenates a role repeated on every delta",
}
# Streams the openai SDK raises on: the level of the reference's answer, its why and source
SDK_RAISES = {
    "mistral-tool-call": {
        "level": "should",
        "why": "a tool-call fragment the SDK cannot place (it raises) is routed to its call or the stream is refused "
               "with MalformedChunk; dropped silently, the call is lost (BUG-CLASSES 3); Mistral's API reference "
               "gives a fragment without index the index 0",
        "source": "Mistral API reference, ToolCall (index: optional, default 0); ollama/ollama#7881; "
                  "openai/openai-python PR#3246"},
    "mistral-reasoning": {
        "level": "reference",
        "why": "the SDK refuses this stream too (a content part without index); a strategy may fold the parts "
               "instead (no call rides in them), as Mistral's stream=false body holds them merged by type",
        "source": "openai 3.57.0 ChatCompletionStreamState on the same chunks; the recorded stream=false body "
                  "packages/mistral/src/__fixtures__/mistral-reasoning.json; docs/spec.md, openai-chat, "
                  "Malformed chunks"},
}
REFERENCE = "mcs_conformance.strategies:OpenAIChatStrategy"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def kind_of(prov: str) -> str:
    p = prov.lower()
    if "synthetic" in p or "edited" in p:
        return "synthetic" if "sanitized" not in p else "sanitized"
    if "sanitized" in p:
        return "sanitized"
    return "recorded"


def provenance(local: str, model: str | None, extra_why: str = "") -> dict:
    e = MANIFEST[local]
    kind = kind_of(e["provenance"])
    out = {"kind": kind, "source": e["source"], "path": e["source_path"], "commit": e["commit"], "license": e["license"]}
    m = re.search(r"recorded (\d{4}-\d{2}-\d{2})", e["format"])
    if m:
        out["captured"] = m.group(1)
    if model:
        out["model"] = model
    if kind == "synthetic":
        out["why"] = extra_why or f"made by hand upstream ({e['provenance']}); kept because no recording shows this shape"
    return out


def model_of(chunks: list) -> str | None:
    for c in chunks:
        if isinstance(c, dict):
            for m in (c.get("model"), (c.get("message") or {}).get("model"), (c.get("response") or {}).get("model")):
                if isinstance(m, str) and m:
                    return m
    return None


# vercel/ai folders of the formats this script builds (the cohere and google ones have scripts of their own)
VERCEL_DIRS = {"chat": "openai-chat", "responses": "openai-responses", "anthropic": "anthropic-messages"}
REVIEWED = ("levels", "accept")  # expectations a reviewer writes (docs/spec.md), not derived: a rebuild keeps them


def write(case: dict) -> None:
    path = CASES / case["format"] / (case["id"].split("/", 1)[1] + ".json")
    if path.is_file():
        kept = json.loads(path.read_text(encoding="utf-8")).get("expect", {})
        for key in REVIEWED:
            if key in kept:
                case["expect"].setdefault(key, kept[key])
    problems = errors("case.schema.json", case)
    if problems:
        raise SystemExit(f"{case['id']}: not schema-valid: {problems[:3]}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(case, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{case['id']:<70} {case['provenance']['kind']:<9} {len(case.get('chunks') or [])} chunks")


def stream(fmt: str, local: str, chunks: list, name: str, tags: list[str], note: str = "", **overrides) -> None:
    e = MANIFEST[local]
    description = overrides.pop("description", None) or f"{e['scenario']}{note}"
    case = build_case(fmt, chunks, case_id=f"{fmt}/{name}", description=description,
                      provenance=provenance(local, model_of(chunks), overrides.pop("why", "")), tags=tags)
    case["expect"].update(overrides.pop("expect", {}))
    write(case)


def build_streams() -> None:
    for local, e in sorted(MANIFEST.items()):
        if local.startswith("openai-python/chat_stream/"):
            name = local.split("/")[-1].split("__")[0].replace("_", "-")
            tags = ["recorded-sdk-fixture"] + (["tool-call"] if "tool" in name else []) + (["parallel"] if "parallel" in name else [])
            stream("openai-chat", local, read_capture(SRC / local), name, tags)
        elif local.startswith("vercel-ai/chat/") and local.endswith(".chunks.jsonl"):
            name = local.split("/")[-1].replace(".chunks.jsonl", "").replace(".", "-")
            chunks = read_capture(SRC / local)
            tags = ["tool-call", "whole-call-in-one-delta"] if "tool" in name else []
            tags = _compat_tags(name, chunks, tags)
            if name in DIFFERS:
                write(_compat(local, chunks, name, tags))
            else:
                stream("openai-chat", local, chunks, name, tags)
        elif local.startswith("vercel-ai/responses/") and local.endswith(".chunks.jsonl"):
            name = local.split("/")[-1].replace(".chunks.jsonl", "").replace(".", "-")
            parts = split_at(read_capture(SRC / local), STARTS["openai-responses"])
            for i, part in enumerate(parts):
                suffix = f"-part{i + 1}" if len(parts) > 1 else ""
                note = f" (message {i + 1} of {len(parts)} in the recording)" if len(parts) > 1 else ""
                tags = ["multi-message"] if len(parts) > 1 else []
                if "copilot" in name:
                    completed = next(c for c in part if c.get("type") == "response.completed")["response"]
                    case = _copilot(local, part, name, completed)
                    write(case)
                    continue
                stream("openai-responses", local, part, name + suffix, tags, note)
        elif local.startswith("vercel-ai/anthropic/") and local.endswith(".chunks.jsonl"):
            name = local.split("/")[-1].replace(".chunks.jsonl", "").replace(".", "-")
            chunks = read_capture(SRC / local)
            if name in ("duplicate-message-start", "spliced-message-start"):
                write(_restart(local, chunks, name))
                continue
            parts = split_at(chunks, STARTS["anthropic-messages"])
            for i, part in enumerate(parts):
                suffix = f"-part{i + 1}" if len(parts) > 1 else ""
                note = f" (message {i + 1} of {len(parts)} in the recording)" if len(parts) > 1 else ""
                stream("anthropic-messages", local, part, name + suffix, ["multi-message"] if len(parts) > 1 else [], note)
        elif local.startswith("anthropic-sdk-python/sse/"):
            name = local.split("/")[-1].replace(".sse", "").replace("_", "-")
            chunks = read_capture(SRC / local)
            tags = ["truncated", "max-tokens"] if "incomplete" in name else []
            stream("anthropic-messages", local, chunks, name, tags)
        elif local.startswith("anthropic-sdk-python/cassettes/") and local.endswith(".json"):
            turns = json.loads((SRC / local).read_text())
            uid = local.split("__")[-1][:8]
            for t, turn in enumerate(turns):
                body = turn["response"]["body"]
                if isinstance(body, str) and "data:" in body:
                    stream("anthropic-messages", local, parse_sse(body), f"cassette-{uid}-turn{t + 1}",
                           ["cassette"], f" (streamed turn {t + 1} of the cassette)")


def _provider(name: str) -> str | None:
    return next((tag for prefix, tag in PROVIDERS.items() if name.startswith(prefix + "-")), None)


def _provider_tags(local: str) -> list[str]:
    provider = _provider(local.split("/")[-1]) if local.startswith("vercel-ai/chat/") else None
    return [f"provider-{provider}"] if provider else []


def _fragments(chunk: dict) -> list:
    return [f for ch in chunk.get("choices") or () for f in ((ch.get("delta") or {}).get("tool_calls") or ())]


def _compat_tags(name: str, chunks: list, tags: list[str]) -> list[str]:
    """The provider tag (`provider-<name>`) before the case's other tags; a tool call streamed in
    pieces is no whole-call-in-one-delta."""
    opened = [f for c in chunks for f in _fragments(c) if isinstance(f, dict) and (f.get("function") or {}).get("name")]
    pieces = [f for c in chunks for f in _fragments(c) if isinstance(f, dict)
              and (f.get("function") or {}).get("arguments") and not (f.get("function") or {}).get("name")]
    if pieces or not opened:
        tags = [t for t in tags if t != "whole-call-in-one-delta"]
    provider = _provider(name)
    return ([f"provider-{provider}"] if provider else []) + tags


def _compat(local: str, chunks: list, name: str, tags: list[str]) -> dict:
    """A provider's stream: the SDK's message where the SDK folds it as the reference does; where the
    SDK refuses it or folds it otherwise, the reference strategy's reading, with the SDK's answer
    accepted (docs/spec.md, "How a case says where the sources differ")."""
    from mcs_conformance.corpus_tools.importer import build_case as build
    from mcs_conformance.reference.buffer import LLMStreamBuffer
    from mcs_conformance.reference.errors import MCSError
    from mcs_conformance.strategies import OpenAIChatStrategy

    description = f"{MANIFEST[local]['scenario'].split(':')[0]}. Differs from OpenAI's stream: {DIFFERS[name]}."
    prov = provenance(local, model_of(chunks), _why(local, name))
    oracle = oracle_module("openai-chat")
    try:
        sdk, sdk_error = oracle.final_message(chunks), None
    except Exception as exc:  # noqa: BLE001 - the SDK's refusal is the fact recorded
        sdk, sdk_error = None, exc
    buf = LLMStreamBuffer([OpenAIChatStrategy()])
    try:
        for chunk in json.loads(json.dumps(chunks)):
            buf.feed(chunk)
        mine = buf.as_dict()
    except MCSError as exc:
        if sdk_error is None or name not in SDK_RAISES:
            raise SystemExit(f"{name}: the reference refuses the stream ({exc}); say why in SDK_RAISES first")
        return {
            "id": f"openai-chat/{name}", "format": "openai-chat", "description": description, "provenance": prov,
            "tags": tags, "chunks": chunks,
            "expect": {"calls": [], "content_text": "", "error": {"type": type(exc).__name__},
                       "levels": {"error": SDK_RAISES[name]}},
        }
    if sdk_error is None and sdk == mine:
        return build("openai-chat", chunks, case_id=f"openai-chat/{name}", description=description, provenance=prov,
                     tags=tags)
    prov["expect"] = (f"the reference strategy {REFERENCE} fed the stream: the openai SDK "
                      + (f"raises {type(sdk_error).__name__} on it" if sdk_error else "folds it otherwise")
                      + " (docs/spec.md, openai-chat, OpenAI-compatible providers)")
    case = build("openai-chat", chunks, case_id=f"openai-chat/{name}", description=description, provenance=prov,
                 tags=tags, strategy=OpenAIChatStrategy(), strategy_spec=REFERENCE)
    sdk_source = "openai ChatCompletionStreamState (openai 3.57.0) on the same chunks"
    if sdk_error is not None:
        if name not in SDK_RAISES:
            raise SystemExit(f"{name}: the SDK raises {sdk_error!r}; say why in SDK_RAISES first")
        case["expect"]["levels"] = {"message": SDK_RAISES[name], "calls": SDK_RAISES[name]}
        case["expect"]["accept"] = [{"why": f"the SDK raises on this stream ({type(sdk_error).__name__}: "
                                            f"{str(sdk_error)[:60]}): refusing it with a clear error is right too",
                                     "source": sdk_source + " raises", "error": {"type": "MalformedChunk"}}]
    else:
        if name not in SDK_OTHERWISE:
            raise SystemExit(f"{name}: the SDK folds this stream otherwise; say why in SDK_OTHERWISE")
        case["expect"]["accept"] = [{"why": SDK_OTHERWISE[name], "source": sdk_source, "message": sdk}]
    return case


def _why(local: str, name: str) -> str:
    if kind_of(MANIFEST[local]["provenance"]) != "synthetic":
        return ""
    return (f"the upstream fixture is written by hand ({MANIFEST[local]['provenance']}); kept as the source's only "
            f"stream of this provider: {DIFFERS.get(name, MANIFEST[local]['scenario'])}")


def _copilot(local: str, chunks: list, name: str, completed: dict) -> dict:
    """The Copilot recording: the SDK refuses its rotating ids, so the truth is the recorded completed response."""
    oracle = oracle_module("openai-responses")
    chain = default_chain()
    ex = extract_calls(completed, chain, default_backup(chain))
    return {
        "id": f"openai-responses/{name}",
        "format": "openai-responses",
        "description": MANIFEST[local]["scenario"] + ". The SDK accumulator refuses the rotating ids, so the expected "
        "message is the recording's own response.completed response.",
        "provenance": provenance(local, model_of(chunks)),
        "tags": ["id-rotation", "gateway"],
        "chunks": chunks,
        "expect": {"message": completed, "calls": oracle.calls(completed), "content_text": oracle.content_text(completed),
                   "done": True, "claimed_by": ex.resolved.name, "extracted_by": ex.strategy.name, "via_backup": ex.via_backup},
    }


def _restart(local: str, chunks: list, name: str) -> dict:
    return {
        "id": f"anthropic-messages/{name}",
        "format": "anthropic-messages",
        "description": MANIFEST[local]["scenario"] + ". A second message_start inside one stream is never merged "
        "silently: feeding it raises StreamError.",
        "provenance": provenance(local, model_of(chunks), "an upstream negative fixture: a restarted stream"),
        "tags": ["negative", "restart"],
        "chunks": chunks,
        "expect": {"error": {"type": "StreamError"}, "calls": [], "content_text": "", "done": False,
                   "claimed_by": None, "extracted_by": None, "via_backup": False},
    }


def build_messages() -> None:
    """Recorded stream=false bodies as extraction-only cases."""
    chain = default_chain()
    backup = default_backup(chain)
    for local, e in sorted(MANIFEST.items()):
        bodies: list[tuple[str, str, object]] = []
        if local.startswith("openai-python/chat_nonstream/"):
            body = json.loads((SRC / local).read_text())
            bodies.append(("openai-chat", "nonstream-" + slug(local.split("/")[-1][:-5]), body["choices"][0]["message"]))
        elif local.startswith(tuple(f"vercel-ai/{d}/" for d in VERCEL_DIRS)) and local.endswith(".nonstream.json"):
            body = json.loads((SRC / local).read_text())
            fmt = VERCEL_DIRS[local.split("/")[1]]
            if fmt == "openai-chat":
                body = body["choices"][0]["message"]
            if fmt == "openai-responses" and body.get("object") != "response":
                continue  # an HTTP error body, not a message
            bodies.append((fmt, "nonstream-" + slug(local.split("/")[-1].replace(".nonstream.json", "")), body))
        elif local.startswith("anthropic-sdk-python/cassettes/") and local.endswith(".json"):
            uid = local.split("__")[-1][:8]
            for t, turn in enumerate(json.loads((SRC / local).read_text())):
                if isinstance(turn["response"]["body"], dict) and turn["response"]["body"].get("type") == "message":
                    bodies.append(("anthropic-messages", f"nonstream-cassette-{uid}-turn{t + 1}", turn["response"]["body"]))
        for fmt, name, message in bodies:
            oracle = oracle_module(fmt)
            ex = extract_calls(message, chain, backup)
            expect = {"calls": oracle.calls(message), "content_text": oracle.content_text(message),
                      "claimed_by": ex.resolved.name if ex.resolved else None,
                      "extracted_by": ex.strategy.name if ex.strategy else None, "via_backup": ex.via_backup}
            if not isinstance(expect["content_text"], str):  # content parts (Mistral's thinking and text)
                expect["content_text"] = by_name(fmt).content_text(message)
                expect["levels"] = {"content_text": {
                    "level": "reference",
                    "why": "content parts: the SDK's model keeps the list; the reference shows the text parts, not "
                           "the thinking part",
                    "source": "openai 3.57.0 ChatCompletionMessage on the same message; docs/spec.md, openai-chat, "
                              "Reading the message"}}
            write({
                "id": f"{fmt}/{name}",
                "format": fmt,
                "description": f"A recorded stream=false response body ({e['scenario'][:160]}), extracted as it is.",
                "provenance": provenance(local, message.get("model") if isinstance(message, dict) else None),
                "tags": _provider_tags(local) + ["stream-false"],
                "message": message,
                "expect": expect,
            })


if __name__ == "__main__":
    build_streams()
    build_messages()
