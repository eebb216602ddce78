"""Turn a raw capture into a corpus case whose expectations come from the official SDK.

The path a maintainer takes when a provider changes its stream: capture, import, review
the case's ``expect`` (the SDK's stream=false message, its calls, content text), commit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .capture import read_capture
from .corpus import CorpusError, load_corpus
from .extraction import extract_calls
from .oracles import OracleUnavailable, oracle_module
from .schemas import errors as schema_errors

__all__ = ["ImportProblem", "build_case", "import_capture"]


class ImportProblem(ValueError):
    """The capture cannot be turned into a case; the message says why."""


def import_capture(fmt: str, path: Path, **fields: Any) -> dict[str, Any]:
    """Read an SSE or JSONL capture and build a case (see :func:`build_case`)."""
    try:
        payloads = read_capture(path)
    except (OSError, ValueError) as exc:
        raise ImportProblem(f"{path}: {exc}") from None
    if not payloads:
        raise ImportProblem(f"{path}: no payloads found (expected SSE 'data:' lines or one JSON payload per line)")
    return build_case(fmt, payloads, **fields)


def build_case(
    fmt: str,
    chunks: list[Any],
    *,
    case_id: str,
    description: str,
    provenance: dict[str, Any],
    tags: list[str] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """A schema-valid stream case whose expected message, calls and text come from the SDK oracle.

    Routing (which strategy claims and extracts the message) is what the reference chain
    does with the SDK's message; when that is the text strategy (a call in the text
    channel), the calls are its reading too. Review all of it.
    """
    try:
        oracle = oracle_module(fmt)
    except OracleUnavailable as exc:
        raise ImportProblem(str(exc)) from None
    from .strategies import default_backup, default_chain

    try:
        descriptor = load_corpus().descriptors[fmt]
    except (CorpusError, KeyError):
        raise ImportProblem(f"no descriptor for format {fmt!r} in the bundled corpus") from None
    done = any(descriptor.is_done_chunk(c) for c in chunks)
    error_chunk = next((c for c in chunks if descriptor.is_error_chunk(c)), None)
    expect: dict[str, Any] = {"done": done}
    if error_chunk is not None:
        expect.update(error={"type": "StreamError", "payload": error_chunk}, calls=[], content_text="",
                      extracted_by=None, claimed_by=None, via_backup=False)
    else:
        message = oracle.final_message(chunks)
        chain = default_chain()
        ex = extract_calls(message, chain, default_backup(chain))
        if ex.strategy is not None and ex.strategy.name != fmt:
            # the call rides in the text channel: the text strategy's reading is the one to review
            calls = [{"name": c.name, "arguments": c.arguments, "id": c.id, "error": c.error is not None} for c in ex.calls]
        else:
            calls = oracle.calls(message)
        if not done:
            calls = [{**c, "error": True} for c in calls]  # nothing executes from an unfinished stream
        expect.update(
            message=message,
            calls=calls,
            content_text=oracle.content_text(message),
            claimed_by=ex.resolved.name if ex.resolved else None,
            extracted_by=ex.strategy.name if ex.strategy else None,
            via_backup=ex.via_backup,
        )
    case = {
        "id": case_id,
        "format": fmt,
        "description": description,
        "provenance": provenance,
        "tags": list(tags),
        "chunks": chunks,
        "expect": expect,
    }
    problems = schema_errors("case.schema.json", case)
    if problems:
        raise ImportProblem("the imported case is not schema-valid: " + "; ".join(problems[:3]))
    return case
