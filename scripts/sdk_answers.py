"""What the official SDKs answer on every stream case of their formats: run, stored, checked.

A statement of the implementations report about an official SDK ("the SDK accepts these
chunks", "raises", "keeps the last value") is generated from these stored answers, never
written by hand (harnesses/findings/README.md, the ``sdk`` key). This script runs the four
official SDKs, at the versions the SDK harnesses pin, on every stream case of the bundled
openai-chat, openai-responses and anthropic-messages corpus, and writes
``harnesses/results/sdk-answers.json``:

* ``openai-python`` (openai, harnesses/sdk/requirements.txt): ``client.chat.completions.create(
  stream=True)`` with ``ChatCompletionStreamState``, ``client.responses.create(stream=True)``
  with ``ResponseStreamState``; ``anthropic-python`` (anthropic): ``client.beta.messages.stream``
  (``accumulate_event`` on every event). The paths of harnesses/sdk/ (chat.py, responses.py,
  anthropic_messages.py), whose renderers give the message (the SDK's snapshot, the keys the SDK
  adds that were never on the wire removed), with the SDK's client given the case's SSE bytes
  (``_wire.sse_body``) as one whole response body (``_wire.transport``); the message is read
  once the body is read (``current_completion_snapshot``, ``current_message_snapshot``: their
  ``AssertionError`` when the SDK holds no message is its answer);
* ``openai-node`` (openai on npm) and ``anthropic-node`` (@anthropic-ai/sdk), pinned by
  harnesses/js/package.json: the streaming helpers of harnesses/js/, run by
  harnesses/js/sdk_answers.mjs (``finalChatCompletion()``, ``finalResponse()``,
  ``finalMessage()`` on the whole body).

Nothing is refused before the SDK reads it (the harnesses' glue refuses a chunk that is no JSON
object and, for Responses, an ``error`` / ``response.failed`` event first; here the SDK reads
them). Per case and SDK the answer is ``folds`` (no exception; ``equals``: whether the message
is the case's expected one by the suite's comparison, ``native_view`` and ``same``, or
``null`` when the case expects no message; ``accepted`` when it is another answer the case
accepts) or ``raises`` (``error``: the exception's class and first line).

    python scripts/sdk_answers.py write    # run the SDKs, write the file (node >= 22: scripts/node22.sh)
    python scripts/sdk_answers.py check    # the file is of this corpus, these pins, every case
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the harnesses package, as the suite imports it from the checkout
    sys.path.insert(0, str(ROOT))

ANSWERS = ROOT / "harnesses" / "results" / "sdk-answers.json"
JS = ROOT / "harnesses" / "js"
FORMATS = ("openai-chat", "openai-responses", "anthropic-messages")
COMMAND = "python scripts/sdk_answers.py write"
SDKS: dict[str, dict[str, Any]] = {
    "openai-python": {"package": "openai", "language": "python", "formats": ["openai-chat", "openai-responses"],
                      "path": "client.chat.completions.create(stream=True) + ChatCompletionStreamState; "
                              "client.responses.create(stream=True) + ResponseStreamState"},
    "openai-node": {"package": "openai", "language": "javascript", "formats": ["openai-chat", "openai-responses"],
                    "path": "client.chat.completions.stream(...).finalChatCompletion(); "
                            "client.responses.stream(...).finalResponse()"},
    "anthropic-python": {"package": "anthropic", "language": "python", "formats": ["anthropic-messages"],
                         "path": "client.beta.messages.stream(...) (accumulate_event), current_message_snapshot"},
    "anthropic-node": {"package": "@anthropic-ai/sdk", "language": "javascript", "formats": ["anthropic-messages"],
                       "path": "client.beta.messages.stream(...).finalMessage()"},
}
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


# -- the pins ----------------------------------------------------------------------------------
def pins() -> dict[str, str]:
    """The pinned version of each SDK: harnesses/sdk/requirements.txt, harnesses/js/package.json."""
    py = {}
    for line in (ROOT / "harnesses" / "sdk" / "requirements.txt").read_text(encoding="utf-8").splitlines():
        name, sep, version = line.split("#", 1)[0].strip().partition("==")
        if sep:
            py[name] = version
    js = json.loads((JS / "package.json").read_text(encoding="utf-8"))["dependencies"]
    return {sdk: (py if spec["language"] == "python" else js)[spec["package"]] for sdk, spec in SDKS.items()}


def installed() -> dict[str, str | None]:
    """The version of each SDK this checkout runs (None: not installed)."""
    out: dict[str, str | None] = {}
    for sdk, spec in SDKS.items():
        if spec["language"] == "python":
            try:
                out[sdk] = metadata.version(spec["package"])
            except metadata.PackageNotFoundError:
                out[sdk] = None
        else:
            path = JS / "node_modules" / spec["package"] / "package.json"
            out[sdk] = json.loads(path.read_text(encoding="utf-8"))["version"] if path.is_file() else None
    return out


# -- the cases ---------------------------------------------------------------------------------
def cases() -> tuple[Any, list[Any]]:
    """The bundled corpus and its stream cases of the three formats, by id."""
    from mcs_conformance.corpus_tools.corpus import load_corpus

    corpus = load_corpus()
    return corpus, sorted((c for c in corpus.cases if c.is_stream and c.format in FORMATS), key=lambda c: c.id)


def error_line(text: str) -> str:
    """The first line of an error's text, at most 200 characters, without memory addresses."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "").removesuffix(":")
    first = _ADDRESS.sub("0x…", first.encode("utf-8", "backslashreplace").decode("utf-8"))
    return first if len(first) <= 200 else first[:197] + "..."


def judged(case: Any, message: Any) -> dict[str, Any]:
    """A ``folds`` answer: whether the message is the case's, by the suite's comparison."""
    from mcs_conformance.suite.invariants.base import native_view, same

    out: dict[str, Any] = {"answer": "folds", "equals": None}
    if "message" not in case.expect:
        return out
    out["equals"] = same(native_view(message), native_view(case.expect["message"]))
    if not out["equals"]:
        why = next((alt.get("why") for alt in case.expect.get("accept", ())
                    if "message" in alt and same(native_view(message), native_view(alt["message"]))), None)
        if why:
            out["accepted"] = True
    return out


# -- Python: the harnesses' paths, on one whole body -------------------------------------------
def _client(cls: Callable[..., Any], base_url: str, body: bytes) -> Any:
    import httpx2

    from harnesses import _wire

    return cls(api_key="sk-harness", base_url=base_url, max_retries=0,
               http_client=httpx2.Client(transport=_wire.transport(body)))


def _read(chunks: list[Any]) -> list[Any]:
    """The chunks before the first ``[DONE]`` (the SDK's stream stops there)."""
    end = next((i for i, c in enumerate(chunks) if isinstance(c, str) and c.strip() == "[DONE]"), len(chunks))
    return chunks[:end]


def _openai_chat(chunks: list[Any]) -> Any:
    from openai import OpenAI
    from openai.lib.streaming.chat import ChatCompletionStreamState

    from harnesses import _glue, _wire
    from harnesses.sdk import chat

    state = {"sdk": ChatCompletionStreamState(), "keys": set(), "call_keys": set()}
    for chunk in _read(chunks):
        _glue.note_keys(_glue.choice0_deltas(chunk), state["keys"], state["call_keys"])
    client = _client(OpenAI, "http://openai.harness.invalid/v1", _wire.sse_body(chunks))
    with client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}],
                                        stream=True) as stream:
        for model in stream:
            state["sdk"].handle_chunk(model)
    state["sdk"].current_completion_snapshot  # noqa: B018 -- the SDK's AssertionError when it holds no chunk
    return chat._render(state)


def _openai_responses(chunks: list[Any]) -> Any:
    from openai import OpenAI, omit
    from openai.lib.streaming.responses import ResponseStreamState

    from harnesses import _wire
    from harnesses.sdk import responses

    state = {"sdk": ResponseStreamState(input_tools=omit, text_format=omit), "final": None}
    client = _client(OpenAI, "http://openai.harness.invalid/v1", _wire.sse_body(chunks, "openai-responses"))
    with client.responses.create(model="gpt-4o", input="hi", stream=True) as stream:
        for event in stream:
            for out in state["sdk"].handle_event(event):
                if getattr(out, "type", None) in responses._FINAL:
                    state["final"] = out.response
    return responses._render(state)


def _anthropic_messages(chunks: list[Any]) -> Any:
    from anthropic import Anthropic

    from harnesses import _wire
    from harnesses.sdk import anthropic_messages

    on_wire: set[str] = set()
    for event in chunks:
        source = event.get("message") if isinstance(event, dict) and event.get("type") == "message_start" else None
        source = event.get("delta") if isinstance(event, dict) and event.get("type") == "message_delta" else source
        if isinstance(source, dict):
            on_wire.update(source)
    client = _client(Anthropic, "http://anthropic.harness.invalid", _wire.sse_body(chunks, "anthropic-messages"))
    with client.beta.messages.stream(model="claude-sonnet-4-5", max_tokens=1024,
                                     messages=[{"role": "user", "content": "hi"}]) as stream:
        for _ in stream:
            pass
        stream.current_message_snapshot  # noqa: B018 -- the SDK's AssertionError when no message_start came
        return anthropic_messages._render({"live": SimpleNamespace(events=stream), "on_wire": on_wire})


PYTHON_PATHS = {"openai-chat": _openai_chat, "openai-responses": _openai_responses,
                "anthropic-messages": _anthropic_messages}


def python_answer(case: Any) -> dict[str, Any]:
    """The Python SDK's answer on the case's chunks."""
    try:
        with warnings.catch_warnings():  # pydantic's serializer warns on values of the wrong type
            warnings.simplefilter("ignore")
            message = PYTHON_PATHS[case.format](list(case.chunks or []))
    except Exception as exc:  # noqa: BLE001 -- a refusal is the SDK's answer
        return {"answer": "raises", "error": error_line(f"{type(exc).__name__}: {exc}")}
    return judged(case, message)


# -- JavaScript: harnesses/js/sdk_answers.mjs --------------------------------------------------
def node_binary() -> str:
    got = subprocess.run(["bash", str(ROOT / "scripts" / "node22.sh")], capture_output=True, text=True)
    if got.returncode != 0 or not got.stdout.strip():
        raise SystemExit(f"error: no node >= 22 (scripts/node22.sh): {got.stderr.strip()}")
    return got.stdout.strip()


def js_answers(selected: list[Any], node: str) -> dict[str, dict[str, Any]]:
    """The JavaScript SDK's answer on each case, by case id."""
    import mcs_conformance

    server = Path(mcs_conformance.__file__).resolve().parent / "bridge" / "server.mjs"  # `mcs-conformance bridge js`
    env = {**os.environ, "MCS_BRIDGE_JS": server.as_uri()}
    lines = "".join(json.dumps({"id": c.id, "format": c.format, "chunks": list(c.chunks or [])}) + "\n"
                    for c in selected)
    got = subprocess.run([node, str(JS / "sdk_answers.mjs")], input=lines, capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=1800)
    if got.returncode != 0:
        raise SystemExit(f"error: harnesses/js/sdk_answers.mjs exited {got.returncode}: {got.stderr.strip()[-2000:]}")
    by_id = {c.id: c for c in selected}
    out = {}
    for line in got.stdout.splitlines():
        row = json.loads(line)
        case = by_id[row["id"]]
        out[case.id] = (judged(case, row.get("message")) if row["answer"] == "folds"
                        else {"answer": "raises", "error": error_line(row.get("error") or "")})
    missing = set(by_id) - set(out)
    if missing:
        raise SystemExit(f"error: harnesses/js/sdk_answers.mjs gave no answer for {len(missing)} case(s), "
                         f"first {sorted(missing)[0]}: {got.stderr.strip()[-2000:]}")
    return out


# -- the file ----------------------------------------------------------------------------------
def dump(data: dict[str, Any]) -> str:
    """The answers as JSON, one case a line, cases and SDKs sorted."""
    head = {k: v for k, v in data.items() if k != "answers"}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False, sort_keys=True)},")
    rows = [f"    {json.dumps(cid)}: {json.dumps(data['answers'][cid], ensure_ascii=False, sort_keys=True)}"
            for cid in sorted(data["answers"])]
    lines.append('  "answers": {')
    lines.append(",\n".join(rows))
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def load(path: Path = ANSWERS) -> dict[str, Any] | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def run(only: list[str] | None = None) -> dict[str, Any]:
    """Run the SDKs (all, or the ``only`` ones) on every case; the data of the file."""
    corpus, selected = cases()
    want, have = pins(), installed()
    sdks = [s for s in SDKS if only is None or s in only]
    wrong = [f"{s}: {SDKS[s]['package']} {have[s] or 'not installed'}, pinned {want[s]}" for s in sdks if have[s] != want[s]]
    if wrong:
        raise SystemExit("error: the SDKs installed are not the pinned ones (pip install -r harnesses/sdk/requirements.txt; "
                         "npm ci --prefix harnesses/js): " + "; ".join(wrong))
    answers: dict[str, dict[str, Any]] = {c.id: {} for c in selected}
    runtimes = {"python": sys.version.split()[0]}
    for sdk in sdks:
        spec = SDKS[sdk]
        mine = [c for c in selected if c.format in spec["formats"]]
        if spec["language"] == "python":
            for case in mine:
                answers[case.id][sdk] = python_answer(case)
        else:
            node = node_binary()
            runtimes["node"] = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip().lstrip("v")
            for cid, answer in js_answers(mine, node).items():
                answers[cid][sdk] = answer
    return {
        "command": COMMAND,
        "corpus_version": corpus.version,
        "corpus_hash": corpus.content_hash,
        "runtimes": runtimes,
        "sdks": {s: {**SDKS[s], "version": have[s]} for s in sdks},
        "answers": answers,
    }


def problems(data: dict[str, Any] | None = None) -> list[str]:
    """Why the stored answers are not those of this checkout's corpus and pins; one a line."""
    data = load() if data is None else data
    if data is None:
        return [f"{ANSWERS.relative_to(ROOT)} is missing: run {COMMAND}"]
    corpus, selected = cases()
    out = []
    if data.get("corpus_hash") != corpus.content_hash:
        out.append(f"the stored SDK answers are of corpus {data.get('corpus_version')} ({data.get('corpus_hash')}), "
                   f"not {corpus.version} ({corpus.content_hash}): run {COMMAND}")
    want = pins()
    for sdk in SDKS:
        got = (data.get("sdks") or {}).get(sdk, {}).get("version")
        if got != want[sdk]:
            out.append(f"the stored answers of {sdk} are of version {got}, the pin is {want[sdk]}: run {COMMAND}")
    for case in selected:
        for sdk, spec in SDKS.items():
            if case.format in spec["formats"] and sdk not in (data.get("answers") or {}).get(case.id, {}):
                out.append(f"no stored answer of {sdk} for {case.id}: run {COMMAND}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("write", help="run the SDKs on every case and write harnesses/results/sdk-answers.json")
    sub.add_parser("check", help="the stored answers are of this corpus and these pins, for every case")
    args = parser.parse_args(argv)
    if args.cmd == "write":
        start = time.monotonic()
        data = run()
        ANSWERS.parent.mkdir(parents=True, exist_ok=True)
        ANSWERS.write_text(dump(data), encoding="utf-8")
        n = sum(len(a) for a in data["answers"].values())
        print(f"wrote {ANSWERS.relative_to(ROOT)}: {len(data['answers'])} cases, {n} SDK runs, "
              f"{time.monotonic() - start:.0f} s")
        return 0
    found = problems()
    for p in found:
        print(f"error: {p}", file=sys.stderr)
    if not found:
        print(f"ok: {ANSWERS.relative_to(ROOT)} holds every case's answers of corpus {load()['corpus_version']}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
