"""The zoo of the open models' text formats: every one-bug copy of each format's reference
strategy (tests/zoo/text_formats.py) is failed by a bundled case of its format, at a level that
fails the default gate, and the reference passes that same item.

The checks run directly on a subject (no pytest run per entry): each entry costs one check on
one case, so the whole zoo takes about a second.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcs_conformance.suite.invariants import CHECKS, Failure, Subject
from mcs_conformance.suite.profiles import hypothesis_settings

from .text_formats import BASES, BUGS, broken
from .verdicts import CORPUS, verdict

# bug -> (check, case slug) per format; None as the slug: a check run once per strategy
KILLS: dict[str, dict[str, tuple[str, str | None]]] = {
    "hermes": {
        "marker-split-not-joined": ("DISPLAY-001", "qwen3-one-call"),
        "ends-at-delimiter-in-string": ("EXTRACT-001", "syn-closing-tag-in-argument-then-text"),
        "cut-call-executed": ("EXTRACT-001", "qwen3-cut-before-closing-tag"),
        "prose-mention-taken-as-call": ("EXTRACT-001", "syn-prose-mentions-call"),
        "second-call-dropped": ("EXTRACT-001", "qwen3-parallel-calls"),
        "arguments-trimmed": ("ROUNDTRIP-001", None),
        "content-before-call-lost": ("DISPLAY-001", "qwen3-text-before-call"),
    },
    "llama3-json": {
        "marker-split-not-joined": ("DISPLAY-001", "vllm-one-call"),
        "ends-at-delimiter-in-string": ("EXTRACT-001", "vllm-brackets-and-quotes-in-strings"),
        "cut-call-executed": ("EXTRACT-001", "syn-cut-in-arguments"),
        "prose-mention-taken-as-call": ("EXTRACT-001", "vllm-prose-then-json"),
        "second-call-dropped": ("EXTRACT-001", "vllm-parallel-calls"),
        "arguments-trimmed": ("ROUNDTRIP-001", None),
        "content-before-call-lost": ("DISPLAY-001", "syn-python-tag-after-text-unicode"),
    },
    "mistral": {
        "marker-split-not-joined": ("DISPLAY-001", "vllm-pre-v11-one-call"),
        "ends-at-delimiter-in-string": ("EXTRACT-001", "vllm-v11-delimiters-in-string"),
        "cut-call-executed": ("EXTRACT-001", "vllm-v11-cut-in-arguments"),
        "prose-mention-taken-as-call": ("EXTRACT-001", "syn-prose-mentions-call-unicode"),
        "second-call-dropped": ("EXTRACT-001", "vllm-v11-parallel-calls"),
        "arguments-trimmed": ("ROUNDTRIP-001", None),
        "content-before-call-lost": ("DISPLAY-001", "vllm-v11-text-before-call"),
    },
    "pythonic": {
        "marker-split-not-joined": ("DISPLAY-001", "vllm-one-call"),
        "ends-at-delimiter-in-string": ("EXTRACT-001", "vllm-escaped-strings"),
        "cut-call-executed": ("EXTRACT-001", "vllm-cut-in-first-call"),
        "prose-mention-taken-as-call": ("EXTRACT-001", "syn-list-in-prose-and-spaces"),
        "second-call-dropped": ("EXTRACT-001", "vllm-parallel-calls"),
        "arguments-trimmed": ("EXTRACT-001", "syn-spaces-and-unicode-in-strings"),
        "content-before-call-lost": ("DISPLAY-001", "syn-text-before-python-start"),
    },
    "qwen3-coder": {
        "marker-split-not-joined": ("DISPLAY-001", "vllm-one-call"),
        "ends-at-delimiter-in-string": ("EXTRACT-001", "syn-delimiters-spaces-unicode"),
        "cut-call-executed": ("EXTRACT-001", "syn-cut-in-parameter"),
        "prose-mention-taken-as-call": ("EXTRACT-001", "syn-prose-mentions-call"),
        "second-call-dropped": ("EXTRACT-001", "vllm-parallel-calls"),
        "arguments-trimmed": ("EXTRACT-001", "syn-delimiters-spaces-unicode"),
        "content-before-call-lost": ("DISPLAY-001", "vllm-text-before-call"),
    },
    "deepseek": {
        "marker-split-not-joined": ("DISPLAY-001", "vllm-v3-one-call"),
        "ends-at-delimiter-in-string": ("EXTRACT-001", "syn-fence-in-string-unicode"),
        "cut-call-executed": ("EXTRACT-001", "syn-cut-in-arguments"),
        "prose-mention-taken-as-call": ("EXTRACT-001", "syn-prose-mentions-call"),
        "second-call-dropped": ("EXTRACT-001", "vllm-v3-parallel-calls"),
        "arguments-trimmed": ("ROUNDTRIP-001", None),
        "content-before-call-lost": ("DISPLAY-001", "vllm-v3-text-before-call"),
    },
    "kimi-k2": {
        "marker-split-not-joined": ("DISPLAY-001", "vllm-one-call"),
        "ends-at-delimiter-in-string": ("EXTRACT-001", "vllm-angle-brackets-in-json"),
        "cut-call-executed": ("EXTRACT-001", "syn-cut-in-arguments-unicode"),
        "prose-mention-taken-as-call": ("EXTRACT-001", "syn-prose-mentions-call"),
        "second-call-dropped": ("EXTRACT-001", "vllm-parallel-calls"),
        "arguments-trimmed": ("EXTRACT-001", "syn-cut-in-arguments-unicode"),
        "content-before-call-lost": ("DISPLAY-001", "vllm-one-call"),
    },
    "glm45": {
        "marker-split-not-joined": ("DISPLAY-001", "vllm-one-call"),
        "ends-at-delimiter-in-string": ("EXTRACT-001", "syn-typed-values-markup-unicode"),
        "cut-call-executed": ("EXTRACT-001", "vllm-cut-before-closing-tag"),
        "prose-mention-taken-as-call": ("EXTRACT-001", "syn-prose-mentions-call"),
        "second-call-dropped": ("EXTRACT-001", "vllm-parallel-calls"),
        "arguments-trimmed": ("EXTRACT-001", "syn-typed-values-markup-unicode"),
        "content-before-call-lost": ("DISPLAY-001", "vllm-text-before-call"),
    },
}



def test_every_format_has_every_bug() -> None:
    assert set(KILLS) == set(BASES)
    assert all(set(bugs) == set(BUGS) for bugs in KILLS.values())


@pytest.mark.parametrize("fmt,bug", [(f, b) for f in KILLS for b in KILLS[f]])
def test_the_bundled_cases_kill_the_bug(fmt: str, bug: str) -> None:
    check, slug = KILLS[fmt][bug]
    case_id = f"{fmt}/{slug}" if slug else None
    assert verdict(BASES[fmt](), check, case_id) in (None, "reference"), "the reference must pass the item"
    assert verdict(broken(fmt, bug), check, case_id) in ("must", "should")


@pytest.mark.parametrize("fmt", sorted(KILLS))
def test_an_author_strategy_declaring_the_format_gets_its_cases_and_their_verdicts(fmt: str) -> None:
    """A text strategy of another name that declares the format (--mcs-format, format in the
    table) runs the format's bundled cases under its own name; the reference passes them, and the
    cases still fail each one-bug copy."""
    from mcs_conformance.suite.formats import adopt, choose_format

    def renamed(strategy: Any) -> Any:
        cls = type(f"Author{type(strategy).__name__}", (type(strategy),), {"name": f"my-{fmt}"})
        return cls() if not getattr(strategy.grammar, "schemas", None) else cls(None)

    author = renamed(BASES[fmt]())
    choice = choose_format(author, CORPUS, fmt, is_text=True)
    adopted = adopt(CORPUS, choice)
    own = [c for c in adopted.cases if c.format == author.name]
    assert len(own) == len(CORPUS.for_format(fmt)) > 0
    bug, (check, slug) = "second-call-dropped", KILLS[fmt]["second-call-dropped"]
    case = adopted.case(f"{fmt}/{slug}").fresh()  # ids stay as bundled; format and names are the author's

    def run(strategy: Any) -> str | None:
        request = case.data.get("request")
        strategy = strategy.with_request(request) if request is not None else strategy
        subject = Subject(strategy, adopted, settings={"hypothesis": hypothesis_settings("ci"), "shrink_budget": 3})
        try:
            CHECKS[check].run(subject, case)
        except Failure as failure:
            return failure.level or CHECKS[check].level
        return None

    assert run(author) is None
    assert run(renamed(broken(fmt, bug))) in ("must", "should")
