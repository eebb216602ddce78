"""The open models' text formats (mcs_conformance/reference/strategies/text_formats/): each
reference strategy reads every bundled case of its format as the case says, whatever the
chunking, and the shared scanner holds a marker back only while it may still be one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcs_conformance import LLMStreamBuffer
from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.reference.strategies.marked_text import Scanner, held_tail
from mcs_conformance.reference.strategies.text_formats import TEXT_FORMATS
from mcs_conformance.strategies import default_chain
from mcs_conformance.suite.invariants.base import calls_view

STRATEGIES = {s.name: s for s in TEXT_FORMATS}
CORPUS = load_corpus()
STREAMS = [c for c in CORPUS.cases if c.format in STRATEGIES and c.is_stream]


def _strategy(case):
    """The format's reference strategy, for the case's request when it carries one."""
    strategy = STRATEGIES[case.format]()
    request = case.data.get("request")
    return strategy.with_request(request) if request is not None else strategy


def test_the_typed_formats_read_the_request_and_text_without_it() -> None:
    """qwen3-coder and glm45 type a value by the request's tools; without them it stays text."""
    case = CORPUS.case("qwen3-coder/vllm-multiline-json-parameter")
    text = case.expect["message"]
    typed = _strategy(case).extract(text)[0].arguments
    plain = STRATEGIES["qwen3-coder"]().extract(text)[0].arguments
    assert typed["precision"] == 2 and typed["dimensions"] == {"width": 10, "height": 20}
    assert plain["precision"] == "2" and isinstance(plain["dimensions"], str)
    assert not hasattr(STRATEGIES["hermes"](), "with_request")


def test_every_format_has_cases_and_a_leak_case() -> None:
    for fmt in STRATEGIES:
        cases = CORPUS.for_format(fmt)
        assert len([c for c in cases if c.is_stream]) >= 10, fmt
        assert any(c.expect.get("via_backup") for c in cases), fmt


def test_none_is_in_the_default_chain() -> None:
    assert not {s.name for s in default_chain()} & set(STRATEGIES)


@pytest.mark.parametrize("case", STREAMS, ids=lambda c: c.id)
def test_each_case_reads_as_it_says(case) -> None:
    strategy = _strategy(case)
    buf = LLMStreamBuffer([strategy])
    shown = "".join(buf.feed(chunk) for chunk in case.chunks)
    message = buf.as_dict()
    assert message == case.expect["message"]
    assert calls_view(strategy.extract(message)) == calls_view(case.expect["calls"])
    assert shown == strategy.content_text(message) == case.expect["content_text"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(STREAMS), st.data())
def test_display_does_not_depend_on_the_chunking(case, data) -> None:
    text = case.expect["message"]
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=12)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    strategy = _strategy(case)
    buf = LLMStreamBuffer([strategy])
    assert "".join(buf.feed(p) for p in pieces) == case.expect["content_text"]


def test_held_tail_is_a_proper_marker_start_only() -> None:
    assert held_tail("text <tool", 0, ["<tool_call>"]) == 5
    assert held_tail("text <tool_call>", 0, ["<tool_call>"]) == 0  # whole: found, not held
    assert held_tail("a <b", 0, ["<tool_call>"]) == 0


def test_the_bundled_cases_are_what_the_builder_writes() -> None:
    """scripts/build_text_formats.py holds each output's source; the case files are its output."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, str(root / "scripts" / "build_text_formats.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
