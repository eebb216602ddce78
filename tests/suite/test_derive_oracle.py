"""The derived streams are streams the provider could send: the official SDK accumulators
accept every spliced OpenAI Chat, Anthropic and Responses stream of the bundled corpus and
give what SPLICE-001's rule says (the first stream's calls, then the second's under their
new ids; the text of both, in order), and they read a stream closed by a cut completion as
cut (a length finish the SDK refuses to finalize, ``max_tokens``, an incomplete response).
Merges with last-value-wins keys are proven by tests/suite/test_generators_oracle.py, whose merge
test runs on every accepted case with the descriptors' ``last_value_wins``.
"""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Any

import pytest

from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.suite.derive import cut_completions, cut_points, splice, splice_pairs, with_calls, with_cut_completion
from mcs_conformance.corpus_tools.oracles import ORACLE_MODULES, oracle_module

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CORPUS = load_corpus()


def _sdk(fmt: str, chunks: list[Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return oracle_module(fmt).final_message(chunks)


@lru_cache(maxsize=None)
def _accepted(case_id: str) -> bool:
    case = CORPUS.case(case_id)
    try:
        _sdk(case.format, case.chunks)
    except Exception:  # noqa: BLE001 -- any refusal
        return False
    return True


def _with_calls(fmt: str) -> list[str]:
    d = CORPUS.descriptors[fmt]
    return [c.id for c in CORPUS.cases if c.format == fmt and with_calls(c, d, fmt)]


SPLICED = [(fmt, i) for fmt in ORACLE_MODULES for i in _with_calls(fmt)]


def test_every_bundled_format_with_an_oracle_has_streams_to_splice() -> None:
    for fmt in ORACLE_MODULES:
        assert sum(_accepted(i) for i in _with_calls(fmt)) >= 3, fmt


@pytest.mark.parametrize("fmt,case_id", SPLICED, ids=[i for _, i in SPLICED])
def test_the_sdk_accepts_each_splice_and_reads_both_streams(fmt: str, case_id: str) -> None:
    d = CORPUS.descriptors[fmt]
    oracle = oracle_module(fmt)
    pairs = splice_pairs(CORPUS.case(case_id), CORPUS.cases, d, fmt)
    assert pairs and len(pairs) <= 3
    for first, second in pairs:
        if not (_accepted(first.id) and _accepted(second.id)):
            continue  # a recording the SDK itself refuses (rotating ids) proves nothing here
        made = splice(first.chunks, second.chunks, d)
        message = _sdk(fmt, made.chunks)
        a, b = _sdk(fmt, first.chunks), _sdk(fmt, second.chunks)
        renamed = [{**c, "id": made.renamed.get(c["id"], c["id"])} for c in oracle.calls(b)]
        assert oracle.calls(message) == oracle.calls(a) + renamed, made.chunks.recipe
        text, ta, tb = oracle.content_text(message), oracle.content_text(a), oracle.content_text(b)
        at = text.find(ta)
        assert at >= 0 and text.find(tb, at + len(ta)) >= 0, (text, ta, tb)
        # and the rule's own expectation (the cases' calls) is what the SDK reads
        want = [{k: c.get(k) for k in ("name", "arguments", "id")} for c in first.expect["calls"]]
        want += [{k: (made.renamed.get(c["id"], c["id"]) if k == "id" and c.get("id") else c.get(k))
                  for k in ("name", "arguments", "id")} for c in second.expect["calls"]]
        assert [{k: c[k] for k in ("name", "arguments", "id")} for c in oracle.calls(message)] == want


@pytest.mark.parametrize("fmt,case_id", SPLICED, ids=[i for _, i in SPLICED])
def test_the_sdk_reads_a_cut_completion_as_a_cut(fmt: str, case_id: str) -> None:
    case = CORPUS.case(case_id)
    d = CORPUS.descriptors[fmt]
    kinds = cut_completions(case.chunks, d)
    assert kinds, "every bundled format with an SDK declares a cut completion"
    for description, completion in kinds:
        for after in cut_points(case.chunks, d)[-2:]:
            stream = with_cut_completion(case.chunks, after, description, completion)
            if fmt == "openai-chat":
                from openai import ContentFilterFinishReasonError, LengthFinishReasonError
                from openai._models import construct_type
                from openai.lib.streaming.chat import ChatCompletionStreamState
                from openai.types.chat import ChatCompletionChunk

                state = ChatCompletionStreamState()
                for chunk in stream:
                    if isinstance(chunk, dict):
                        state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=chunk))
                with pytest.raises((LengthFinishReasonError, ContentFilterFinishReasonError)):
                    state.get_final_completion()
            elif fmt == "anthropic-messages":
                assert _sdk(fmt, stream)["stop_reason"] == "max_tokens"
            else:
                assert _sdk(fmt, stream)["status"] == "incomplete"
