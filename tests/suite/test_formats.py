"""Which format's cases are a strategy's own: by its name, by --mcs-format, or by the bundled
format whose streams it recognizes; the run reads an adopted format under the strategy's name,
with the author's own cases of it added, and the summary says which bundled formats ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.strategies import AnthropicMessagesStrategy, OpenAIChatStrategy, TextStrategy
from mcs_conformance.suite.formats import FormatError, adopt, choose_format
from mcs_conformance.suite.invariants import Subject

CORPUS = load_corpus()


class Renamed(AnthropicMessagesStrategy):
    name = "my-anthropic"


class Greedy(AnthropicMessagesStrategy):
    """Claims every dict: the streams of every native format."""

    name = "greedy"

    def recognizes(self, shape: object) -> bool:
        return isinstance(shape, dict)


class RenamedText(TextStrategy):
    name = "my-text"


def test_a_strategy_named_after_a_format_gets_that_format() -> None:
    choice = choose_format(OpenAIChatStrategy(), CORPUS, None, is_text=False)
    assert (choice.format, choice.how, choice.adopted) == ("openai-chat", "name", None)
    assert adopt(CORPUS, choice) is CORPUS


def test_a_native_strategy_with_another_name_gets_the_bundled_format_whose_streams_it_recognizes() -> None:
    choice = choose_format(Renamed(), CORPUS, None, is_text=False)
    assert (choice.format, choice.how, choice.adopted) == ("anthropic-messages", "recognized", "anthropic-messages")


def test_recognizing_the_streams_of_several_formats_adopts_none_and_says_so() -> None:
    choice = choose_format(Greedy(), CORPUS, None, is_text=False)
    assert choice.format is None and choice.how == "none"
    assert "several" in choice.note and "--mcs-format" in choice.note


def test_a_text_strategy_is_matched_by_its_name_or_its_declaration_only() -> None:
    choice = choose_format(RenamedText(), CORPUS, None, is_text=True)
    assert choice.format is None and "text strategy is matched by its name only" in choice.note
    declared = choose_format(RenamedText(), CORPUS, "text-json", is_text=True)
    assert (declared.format, declared.how, declared.adopted) == ("text-json", "declared", "text-json")


def test_a_declared_format_must_be_loaded_and_cannot_sit_beside_a_name_that_is_a_format() -> None:
    with pytest.raises(FormatError, match="'nope' is no format of the loaded corpus"):
        choose_format(RenamedText(), CORPUS, "nope", is_text=True)
    with pytest.raises(FormatError, match="named 'openai-chat', which is a format of the loaded corpus too"):
        choose_format(OpenAIChatStrategy(), CORPUS, "anthropic-messages", is_text=False)


def test_adopting_reads_the_format_its_cases_and_every_name_of_it_under_the_strategys_name() -> None:
    choice = choose_format(Renamed(), CORPUS, None, is_text=False)
    corpus = adopt(CORPUS, choice)
    before = {c.id: c for c in CORPUS.cases}
    moved = [c for c in corpus.cases if before[c.id].format == "anthropic-messages"]
    assert moved and all(c.format == "my-anthropic" for c in moved)
    assert not any(c.format == "anthropic-messages" for c in corpus.cases)
    assert not any("anthropic-messages" in (c.expect.get("claimed_by"), c.expect.get("extracted_by"))
                   for c in corpus.cases)
    # another format's case that named anthropic-messages (a Hermes-style leak) names the strategy now
    leaks = [c for c in corpus.cases if before[c.id].expect.get("claimed_by") == "anthropic-messages"
             and before[c.id].format != "anthropic-messages"]
    assert all(c.expect["claimed_by"] == "my-anthropic" for c in leaks)
    assert corpus.descriptors["my-anthropic"].data["format"] == "my-anthropic"
    assert "anthropic-messages" not in corpus.descriptors
    assert "my-anthropic" in corpus.history_schemas
    # a fresh copy reads the renamed case, ids stay
    case = moved[0]
    assert case.fresh().format == "my-anthropic" and case.id.startswith("anthropic-messages/")
    # in the chain the strategy stands where the format's reference strategy stood
    subject = Subject(Renamed(), corpus, stands_for=choice.adopted)
    assert [s.name for s in subject.chain()] == ["openai-chat", "openai-responses", "my-anthropic", "text-json"]


STRATEGY = """
from mcs_conformance.strategies import AnthropicMessagesStrategy


class Mine(AnthropicMessagesStrategy):
    name = "claude-stream"
"""


def _author_case() -> dict:
    """An author's own anthropic-messages case: it adds to the bundled ones."""
    bundled = json.loads(Path(CORPUS.case("anthropic-messages/anthropic-text").source).read_text())
    return {**bundled, "id": "anthropic-messages/my-own-text",
            "provenance": {"kind": "synthetic", "source": "mcs-conformance", "license": "Apache-2.0",
                           "why": "an author's own case of a bundled format, for the plugin's tests"}}


def test_without_any_corpus_option_the_run_takes_the_recognized_bundled_format_and_says_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(mine=STRATEGY)
    folder = pytester.path / "corpus" / "cases" / "anthropic-messages"
    folder.mkdir(parents=True)
    (folder / "my-own-text.json").write_text(json.dumps(_author_case()), encoding="utf-8")
    r = pytester.runpytest_subprocess("--mcs-strategy=mine:Mine", "--mcs-only", "-p", "no:cacheprovider",
                                      "--mcs-check=RECOG-002", "--mcs-check=PARITY-001", "--mcs-check=CHAIN-001",
                                      "--mcs-corpus=corpus")
    out = r.stdout.str()
    assert r.ret == 0, out
    line = next(x for x in out.splitlines() if x.startswith("its format: "))
    bundled = sum(1 for c in CORPUS.cases if c.format == "anthropic-messages")
    assert line.startswith("its format: anthropic-messages (recognized: it claims the first chunk of the format's "
                           "streams; bundled: "), line
    assert "other bundled formats run" in out
    # the author's own case of the adopted format ran beside the bundled ones
    assert "PARITY-001[anthropic-messages/my-own-text]" in pytester.runpytest_subprocess(
        "--mcs-strategy=mine:Mine", "--mcs-only", "-p", "no:cacheprovider", "--mcs-check=PARITY-001",
        "--mcs-corpus=corpus", "--collect-only", "-q").stdout.str()
    assert bundled > 50


def test_the_format_can_be_declared_in_the_table_and_a_wrong_one_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(mine="from mcs_conformance.strategies import TextStrategy\n\n"
                             "class Mine(TextStrategy):\n    name = 'my-text'\n")
    pytester.makefile(".toml", pyproject='[tool.mcs-conformance]\nformat = "text-json"\n')
    r = pytester.runpytest_subprocess("--mcs-strategy=mine:Mine", "--mcs-only", "-p", "no:cacheprovider",
                                      "--mcs-check=EXTRACT-001")
    assert r.ret == 0, r.stdout.str()
    assert "its format: text-json (declared with --mcs-format / format; bundled: " in r.stdout.str()
    r = pytester.runpytest_subprocess("--mcs-strategy=mine:Mine", "--mcs-only", "-p", "no:cacheprovider",
                                      "--mcs-format=no-such-format")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert "--mcs-format no-such-format: 'no-such-format' is no format of the loaded corpus" in r.stderr.str()


def test_the_summary_names_every_check_that_collected_no_item_and_what_would_give_it_one(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(mine="from mcs_conformance.strategies import TextStrategy\n\n"
                             "class Mine(TextStrategy):\n    name = 'my-text'\n")
    r = pytester.runpytest_subprocess("--mcs-strategy=mine:Mine", "--mcs-only", "-p", "no:cacheprovider",
                                      "--mcs-check=RECOG-004", "--mcs-check=DONE-002", "--mcs-check=DONE-003",
                                      "--mcs-report=report.json")
    out = r.stdout.str()
    assert r.ret == 0, out
    assert "checks that collected no item for this strategy (2), and what would give them one:" in out
    assert "  DONE-002: a stream case of its format cut before its completion signal" in out
    assert "  DONE-003: a stream case of its format that must raise" in out
    report = json.loads((pytester.path / "report.json").read_text())
    assert [u["id"] for u in report["unrun"]] == ["DONE-002", "DONE-003"]
    assert report["formats"]["own"] is None and report["formats"]["bundled"]["openai-chat"]["items"] > 0
    assert "Checks that collected no item" in (pytester.path / "report.md").read_text()


def test_every_check_says_what_kind_of_case_would_give_it_an_item() -> None:
    from mcs_conformance.suite.invariants import CHECKS

    assert all(len(c.needs) > 10 for c in CHECKS.values()), [c.id for c in CHECKS.values() if len(c.needs) <= 10]
