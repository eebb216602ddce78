"""What the official SDK accumulators make of every native stream of the corpus.

Run it to see, case by case, whether the SDK builds the case's expected message, builds
another one, or raises; and, for the cases that expect feeding to raise, whether the SDK
accumulator accepts the chunks. It is the evidence behind the levels in docs/spec.md:

    python -m tests.independent.sdk_evidence [--format openai-chat] [--differs-only]

The oracles are the ones the project's tests use (``mcs_conformance.corpus_tools.oracles``): openai's
``ChatCompletionStreamState`` and ``ResponseStreamState``, anthropic's beta
``accumulate_event``. The SDKs' stream readers also raise on an in-stream error before the
accumulator sees it (openai: a payload with a truthy ``error``; anthropic: an SSE event
named ``error``); that column is reported apart.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any

from mcs_conformance.corpus_tools.corpus import Case, load_corpus
from mcs_conformance.suite.invariants.base import native_view
from mcs_conformance.corpus_tools.oracles import ORACLE_MODULES, oracle_module


@dataclass
class Evidence:
    case: str
    expects: str  # "message" or the error type the case expects
    sdk: str  # "same", "differs", "raises ...", "accepts"
    detail: str = ""


def sdk_stream_reader_raises(case: Case) -> bool:
    """Would the SDK's stream reader raise on one of the chunks before accumulating it?"""
    for chunk in case.chunks or []:
        if not isinstance(chunk, dict):
            continue
        if case.format.startswith("openai") and chunk.get("error"):
            return True  # openai._streaming.Stream: `if is_mapping(data) and data.get("error")`
        if case.format == "anthropic-messages" and chunk.get("type") == "error":
            return True  # anthropic._streaming.Stream: `if sse.event == "error"`
    return False


def first_difference(want: Any, got: Any, path: str = "$") -> str:
    """The first place two JSON trees differ, for a one-line report."""
    if type(want) is not type(got):
        return f"{path}: case {json.dumps(want)[:80]} / SDK {json.dumps(got)[:80]}"
    if isinstance(want, dict):
        for key in list(want) + [k for k in got if k not in want]:
            if key not in got:
                return f"{path}.{key}: absent from the SDK's message (case {json.dumps(want[key])[:60]})"
            if key not in want:
                return f"{path}.{key}: only in the SDK's message ({json.dumps(got[key])[:60]})"
            if want[key] != got[key]:
                return first_difference(want[key], got[key], f"{path}.{key}")
    if isinstance(want, list):
        if len(want) != len(got):
            return f"{path}: {len(want)} entries in the case, {len(got)} in the SDK's"
        for i, (a, b) in enumerate(zip(want, got)):
            if a != b:
                return first_difference(a, b, f"{path}[{i}]")
    return f"{path}: case {json.dumps(want)[:80]} / SDK {json.dumps(got)[:80]}"


def evidence(case: Case) -> Evidence:
    oracle = oracle_module(case.format)
    expects = case.raises or "message"
    try:
        got = oracle.final_message(case.chunks)
    except Exception as exc:  # noqa: BLE001 -- a refusal is the SDK's answer
        return Evidence(case.id, expects, "raises", f"{type(exc).__name__}: {str(exc)[:120]}")
    if case.raises:
        reader = " (its stream reader raises first)" if sdk_stream_reader_raises(case) else ""
        return Evidence(case.id, expects, "accepts" + reader)
    want = native_view(case.expect.get("message"))
    if got == want:
        return Evidence(case.id, expects, "same")
    return Evidence(case.id, expects, "differs", first_difference(want, got))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=sorted(ORACLE_MODULES))
    parser.add_argument("--differs-only", action="store_true", help="leave out the cases where the SDK agrees")
    args = parser.parse_args(argv)
    corpus = load_corpus()
    for case in corpus.cases:
        if not case.is_stream or case.format not in ORACLE_MODULES or args.format not in (None, case.format):
            continue
        e = evidence(case)
        if args.differs_only and e.sdk == "same":
            continue
        print(f"{e.case}\texpects {e.expects}\tSDK {e.sdk}\t{e.detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
