"""Turn a capture into a corpus case, for any format with a descriptor.

The path a maintainer takes when a provider changes its stream: capture, import, review
the case's ``expect`` (the stream=false message, its calls, content text), commit. Where the
expectation comes from, in order (``provenance.expect`` says which, except for the first):

1. the official SDK's accumulator, for a format that has one (openai-chat, openai-responses,
   anthropic-messages) and nothing else is named;
2. a recorded stream=false body (``message=``, ``--message FILE``): the message itself, its
   calls and text read by the strategy named with ``strategy=`` (``--strategy``), or by the
   package's reference strategy of the format when there is one;
3. a strategy named with ``strategy=`` (``--strategy MODULE:ATTR``), fed the stream;
4. none of these: the case is written with what the descriptor tells (the completion flag,
   an in-stream error, the routing) and the rest left for the author, with a message that
   says what to fill in (:data:`TO_FILL`).
A capture is a raw SSE or JSONL file, or a capture folder written by ``mcs-conformance
record`` or the recording transport (recording.py); a folder brings its format (from the
request path) and its provenance (capture date, model, and, when the folder is committed
in a git repository, the repository, commit and path). A capture kept in no repository is
imported with ``local=True`` (``--local``): its provenance says ``source: "local"`` and names
the capture's folder or file in ``path``; it has no commit to trace it by.
"""

from __future__ import annotations

import json
import re
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

from .capture import read_capture
from .corpus import Descriptor, bundled_corpus_dir
from ..reference.extraction import extract_calls
from .oracles import OracleUnavailable, oracle_module
from .recording import CaptureError, is_capture, load_capture
from .schemas import errors as schema_errors

__all__ = ["ImportProblem", "TO_FILL", "build_case", "expectations", "import_capture"]


class ImportProblem(ValueError):
    """The capture cannot be turned into a case; the message says why."""


LOCAL = "local"  # provenance.source of a capture kept in no repository


def import_capture(fmt: str | None, path: Path, *, provenance: dict[str, Any], local: bool = False,
                   **fields: Any) -> dict[str, Any]:
    """Read a capture (folder, SSE or JSONL file) and build a case (see :func:`build_case`).

    ``fmt`` may be None for a capture folder whose request path names its format. The
    provenance given wins over what the folder supplies. ``local``: the capture is kept in
    no repository (no remote, no commit); the case says so (``source: "local"``).
    """
    path = Path(path)
    provenance = dict(provenance)
    if local:
        given = [f"--{k}" for k in ("source", "commit") if provenance.get(k)]
        if given:
            raise ImportProblem(f"{path}: --local is for a capture kept in no repository; it cannot go with "
                                f"{' and '.join(given)}")
        provenance.update(source=LOCAL, path=path.resolve().name)
    if path.is_dir():
        if not is_capture(path):
            raise ImportProblem(f"{path}: a folder, but not a capture (it needs request.json and meta.json)")
        try:
            capture = load_capture(path)
            payloads = capture.payloads()
        except CaptureError as exc:
            raise ImportProblem(str(exc)) from None
        fmt = fmt or capture.format
        if fmt is None:
            raise ImportProblem(f"{path}: the format cannot be told from the request URL "
                                f"{capture.request.get('url')!r}; pass --format")
        scrubbed = bool((capture.meta.get("scrubbed") or {}).get("response_body"))
        found = {"kind": "sanitized" if scrubbed else "recorded", "captured": capture.captured,
                 "model": model_of(payloads) or capture.model(), **({} if local else git_provenance(path))}
        provenance = {**{k: v for k, v in found.items() if v}, **provenance}
    else:
        if fmt is None:
            raise ImportProblem(f"{path}: a raw capture file says nothing of its format; pass --format")
        try:
            payloads = read_capture(path)
        except (OSError, ValueError) as exc:
            raise ImportProblem(f"{path}: {exc}") from None
        provenance.setdefault("kind", "recorded")
    if not payloads:
        raise ImportProblem(f"{path}: no payloads found (expected SSE 'data:' lines or one JSON payload per line)")
    missing = [] if provenance["kind"] == "synthetic" or local else \
        [k for k in ("source", "commit") if not provenance.get(k)]
    if missing:
        known = {k: provenance[k] for k in ("source", "commit") if provenance.get(k)}
        raise ImportProblem(
            f"{path}: the case's provenance needs the repository and the commit the capture is kept at: pass "
            "--source OWNER/NAME and --commit SHA (a capture folder committed in a git clone with an 'origin' "
            "remote fills both), or --local for a capture kept in no repository; missing: "
            + ", ".join(missing) + (f" (known: {', '.join(f'{k} {v}' for k, v in known.items())})" if known else ""))
    return build_case(fmt, payloads, provenance=provenance, **fields)


def model_of(payloads: list[Any]) -> str | None:
    """The first model a stream names: a string ``model`` in a payload or one level inside it."""
    for p in payloads:
        if not isinstance(p, dict):
            continue
        for obj in (p, *(v for v in p.values() if isinstance(v, dict))):
            model = obj.get("model")
            if isinstance(model, str) and model:
                return model
    return None


_REMOTE = re.compile(r"[:/]([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$")


def git_provenance(folder: Path) -> dict[str, str]:
    """Repository (``owner/name`` from the ``origin`` remote), commit and path of a committed capture folder.

    Empty when git is missing, the folder is not in a clone, or it has changes not committed
    (a commit that does not hold the files would be a false provenance).
    """
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30)
        return done.stdout.strip() if done.returncode == 0 else ""

    try:
        root = git("rev-parse", "--show-toplevel")
        if not root:
            return {}
        rel = folder.resolve().relative_to(Path(root).resolve()).as_posix()
        if git("status", "--porcelain", "--untracked-files=all", "--", ".") or not git("ls-files", "--", "."):
            return {}
        commit = git("log", "-1", "--format=%H", "--", ".")
        remote = _REMOTE.search(git("remote", "get-url", "origin"))
    except (OSError, ValueError, subprocess.SubprocessError):
        return {}
    out = {"commit": commit, "path": rel} if re.fullmatch(r"[0-9a-f]{40}", commit) else {}
    if out and remote:
        out["source"] = f"{remote.group(1)}/{remote.group(2)}"
    return out


TO_FILL = ("expect.message (the stream=false body of this request, in wire form), expect.calls (each call's name, "
           "arguments, id and error) and expect.content_text (the text the user sees): a recorded stream=false body "
           "fills the message (--message FILE), a strategy you trust fills all three (--strategy MODULE:ATTR)")


def build_case(
    fmt: str,
    chunks: list[Any],
    *,
    case_id: str,
    description: str,
    provenance: dict[str, Any],
    tags: list[str] = (),  # type: ignore[assignment]
    descriptor: Descriptor | None = None,
    message: Any = None,
    message_source: str | None = None,
    strategy: Any = None,
    strategy_spec: str | None = None,
) -> dict[str, Any]:
    """A stream case whose expectations come from the first source that applies (the module's
    docstring): the SDK oracle, a recorded stream=false ``message`` (read from
    ``message_source``), a ``strategy`` (loaded from ``strategy_spec``), or the author.

    Routing (which strategy claims and extracts the message) is what the reference chain
    does with the message, with ``strategy`` in it; when that is the text strategy (a call
    in the text channel), the calls are its reading too. Review all of it. A case left for
    the author is returned unvalidated: it fails the case schema until they fill it in.
    """
    descriptor = descriptor or bundled_descriptor(fmt)
    if descriptor is None:
        raise ImportProblem(f"no descriptor for format {fmt!r}: the bundled corpus has none, and none was loaded "
                            "from a corpus folder (--corpus DIR)")
    provenance = dict(provenance)
    if message is not None:
        provenance.setdefault("expect", f"the recorded stream=false body {message_source or '(given)'}"
                              + (f"; calls and text read by {strategy_spec}" if strategy_spec else ""))
    elif strategy is not None:
        provenance.setdefault("expect", f"the strategy {strategy_spec or getattr(strategy, 'name', '?')} fed the "
                                        "stream (review it)")
    expect = expectations(fmt, chunks, descriptor=descriptor, message=message, strategy=strategy)
    if expect.get("to_fill"):
        expect.pop("to_fill")
        provenance.setdefault("expect", "to be filled in by the author")
    case = {
        "id": case_id,
        "format": fmt,
        "description": description,
        "provenance": provenance,
        "tags": list(tags),
        "chunks": chunks,
        "expect": expect,
    }
    if provenance.get("expect") == "to be filled in by the author":
        return case
    problems = schema_errors("case.schema.json", case)
    if problems:
        raise ImportProblem("the imported case is not schema-valid: " + "; ".join(problems[:3]))
    return case


def expectations(fmt: str, chunks: list[Any], *, descriptor: Descriptor | None = None, message: Any = None,
                 strategy: Any = None) -> dict[str, Any]:
    """A stream's ``expect``: the message, calls and text (from the source that applies, see the
    module's docstring), the completion flag and an in-stream error (from the descriptor), the
    routing. ``to_fill: True`` marks an expectation left for the author."""
    from ..reference.strategies import by_name, default_backup, default_chain

    descriptor = descriptor or bundled_descriptor(fmt)
    if descriptor is None:
        raise ImportProblem(f"no descriptor for format {fmt!r} in the bundled corpus")
    done = any(descriptor.is_done_chunk(c) for c in chunks)
    error_chunk = next((c for c in chunks if descriptor.is_error_chunk(c)), None)
    expect: dict[str, Any] = {"done": done}
    if error_chunk is not None:
        expect.update(error={"type": "StreamError", "payload": error_chunk}, calls=[], content_text="",
                      extracted_by=None, claimed_by=None, via_backup=False)
        return expect
    reader = strategy if strategy is not None else by_name(fmt)
    if message is None and strategy is None:
        try:
            oracle = oracle_module(fmt)
        except OracleUnavailable:
            oracle = None
        if oracle is None:
            expect.update(to_fill=True, calls=[], content_text="", claimed_by=fmt, extracted_by=fmt, via_backup=False)
            return expect
        message = oracle.final_message(chunks)
        read_calls, read_text = oracle.calls, oracle.content_text
    else:
        if message is None:
            from ..reference.buffer import LLMStreamBuffer

            buf = LLMStreamBuffer([strategy])
            for chunk in json.loads(json.dumps(chunks)):
                buf.feed(chunk)
            message = buf.as_dict()
        if reader is None:
            expect.update(to_fill=True, message=message, calls=[], content_text="", claimed_by=fmt, extracted_by=fmt,
                          via_backup=False)
            return expect
        read_calls = lambda m: [{"name": c.name, "arguments": c.arguments if c.error is None else {}, "id": c.id,
                                 "error": c.error is not None} for c in reader.extract(m)]  # noqa: E731
        read_text = reader.content_text
    chain = default_chain()
    if reader is not None and reader.name not in {s.name for s in chain}:
        chain = type(chain)([*[s for s in chain if s.name != "text-json"], reader,
                             *[s for s in chain if s.name == "text-json"]])
    ex = extract_calls(message, chain, default_backup(chain))
    if ex.strategy is not None and ex.strategy.name != fmt:
        # the call rides in the text channel: the text strategy's reading is the one to review
        calls = [{"name": c.name, "arguments": c.arguments, "id": c.id, "error": c.error is not None} for c in ex.calls]
    else:
        calls = read_calls(message)
    if not done:
        calls = [{**c, "error": True} for c in calls]  # nothing executes from an unfinished stream
    expect.update(
        message=message,
        calls=calls,
        content_text=read_text(message),
        claimed_by=ex.resolved.name if ex.resolved else None,
        extracted_by=ex.strategy.name if ex.strategy else None,
        via_backup=ex.via_backup,
    )
    return expect


@lru_cache(maxsize=None)
def bundled_descriptor(fmt: str) -> Descriptor | None:
    """The bundled corpus's descriptor of a format (read alone, without loading the cases)."""
    path = bundled_corpus_dir() / "descriptors" / f"{fmt}.json"
    try:
        return Descriptor(fmt, json.loads(path.read_text(encoding="utf-8")), str(path))
    except (OSError, ValueError):
        return None
