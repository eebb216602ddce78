"""``mcs-conformance descriptor explain``: what the fuzzers generate for one case, as bounded
text or full JSON; clear errors for a bad descriptor, a case of another format, a message
case; and the worked example of docs/descriptors.md is what the command prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcs_conformance.cli import main
from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.suite.explain import explain, render
from mcs_conformance.suite.generators import char_split, merged

from tests.suite.test_generators import GEMINI_CASE, GEMINI_DATA, worked_example

CORPUS = load_corpus()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["descriptor", "explain", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def gemini_corpus(root: Path) -> Path:
    (root / "descriptors").mkdir(parents=True)
    (root / "cases" / "gemini").mkdir(parents=True)
    (root / "descriptors" / "gemini.json").write_text(json.dumps(GEMINI_DATA), encoding="utf-8")
    (root / "cases" / "gemini" / "text-then-call.json").write_text(json.dumps(GEMINI_CASE), encoding="utf-8")
    return root


def test_the_worked_example_of_the_docs_is_what_explain_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(gemini_corpus(tmp_path))
    code, out, err = run(capsys, "descriptors/gemini.json", "--case", "cases/gemini/text-then-call.json", "--chunk", "1")
    assert code == 0, err
    assert out == worked_example("explain --chunk 1"), f"docs/descriptors.md is stale; the command prints:\n{out}"


def test_explain_a_bundled_case_by_format_and_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "openai-chat", "--case", "openai-chat/groq-tool-call")
    assert code == 0, err
    assert "chunk 1: $.choices[0].delta.tool_calls[0].function.arguments" in out
    assert "at $.choices[0].delta.tool_calls[0]: every piece: index; first piece: id, type" in out
    assert "last piece (terminal): finish_reason" in out
    assert "[reference] after-first" in out and "why reference: a client that asked for one choice" in out
    assert max(len(line) for line in out.splitlines()) < 400


def test_the_json_holds_everything_the_generators_make(capsys: pytest.CaptureFixture[str]) -> None:
    case = CORPUS.case("openai-chat/tool-calls-parallel-2")
    code, out, _ = run(capsys, "openai-chat", "--case", case.id, "--json")
    data = json.loads(out)
    d = CORPUS.descriptors["openai-chat"]
    assert code == 0 and data["case"]["chunks"] == len(case.chunks)
    split = data["char_split"]
    assert split["pieces"] == [p for p in char_split([case.chunks[split["chunk"]]], d)]
    assert sum(not m["merged"] for m in data["merges"]) == len(merged(case.chunks, d)) - 1
    assert [n["level"] for n in data["noise"]] == [n.get("level", "must") for n in d.noise]
    assert data["text_channel"]["stream"][-1] == "[DONE]"


def test_long_strings_are_cut_in_the_middle_with_their_length() -> None:
    case = CORPUS.case("anthropic-messages/anthropic-json-tool-1")
    text = render(explain(CORPUS.descriptors[case.format], case))
    assert '"{\\"elements\\": [{\\"location" ... ' in text and "(85 chars)" in text
    assert all(len(line) < 400 for line in text.splitlines())


def test_a_case_of_another_format_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "anthropic-messages", "--case", "openai-chat/groq-tool-call")
    assert code == 1 and out == ""
    assert "is of format 'openai-chat', but the descriptor" in err and "describes 'anthropic-messages'" in err


def test_a_message_case_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    message = next(c for c in CORPUS.cases if c.format == "openai-chat" and not c.is_stream)
    code, _, err = run(capsys, "openai-chat", "--case", message.id)
    assert code == 1 and "an assembled message, not a stream" in err


def test_an_invalid_descriptor_is_refused_with_its_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = gemini_corpus(tmp_path)
    bad = dict(GEMINI_DATA, routing=[{"at": ["candidates"], "key": ["index"]}])
    (root / "descriptors" / "gemini.json").write_text(json.dumps(bad), encoding="utf-8")
    code, _, err = run(capsys, str(root / "descriptors" / "gemini.json"),
                       "--case", str(root / "cases" / "gemini" / "text-then-call.json"))
    assert code == 1 and err.startswith("error: ") and "gemini.json: invalid against descriptor.schema.json" in err
    assert "$.routing[0]" in err


def test_unknown_names_say_what_is_loaded(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "no-such-format", "--case", "openai-chat/groq-tool-call")
    assert code == 1 and "neither a descriptor file nor a loaded format" in err and "openai-chat" in err
    code, _, err = run(capsys, "openai-chat", "--case", "openai-chat/no-such-case")
    assert code == 1 and "neither a case file nor a loaded case id" in err


def test_an_author_corpus_is_loaded_with_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = gemini_corpus(tmp_path)
    code, out, err = run(capsys, "gemini", "--case", "gemini/text-then-call", "--corpus", str(root))
    assert code == 0, err
    assert "not 1+2: the first holds entries after its delta in $.candidates[0].content.parts" in out


def test_the_chunk_option_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "openai-chat", "--case", "openai-chat/groq-tool-call", "--chunk", "7")
    assert code == 1 and "--chunk 7: the case has chunks 0 to 2" in err


def test_the_call_channel_stream_is_shown_when_declared(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "anthropic-messages", "--case", "anthropic-messages/tool-use-response")
    assert code == 0, err
    section = out[out.index("Call channel (ROUNDTRIP-002"):]
    assert "the sample calls get_weather, get_time after the text 'Let me check.'" in section
    assert '"partial_json": "{\\"city\\": \\"Paris\\"}"' in section and '"index": 2' in section
    data = explain(CORPUS.descriptors["anthropic-messages"], CORPUS.case("anthropic-messages/tool-use-response"))
    assert data["call_channel"]["stream"][-1] == {"type": "message_stop"}


def test_a_call_channel_that_cannot_be_cut_says_why() -> None:
    from mcs_conformance.corpus_tools.corpus import Descriptor

    data = json.loads(json.dumps(CORPUS.descriptors["openai-chat"].data))
    data["call_channel"]["call"]["delta"]["choices"][0]["delta"]["tool_calls"][0]["function"] = {"args": "$ARGS"}
    case = CORPUS.case("openai-chat/groq-tool-call")
    text = render(explain(Descriptor("openai-chat", data, "test"), case))
    assert "Call channel: cannot be used" in text and "which no declared delta matches" in text


def test_explain_says_what_the_derived_streams_do_with_a_case(capsys: pytest.CaptureFixture[str]) -> None:
    """The roles of the chunks, the cut points, each cut completion and the splice changes,
    read from the same functions PREFIX-003 and SPLICE-001 use."""
    from mcs_conformance.suite.derive import cut_completions, cut_points, parts

    case = CORPUS.case("openai-chat/tool-calls-parallel-2")
    d = CORPUS.descriptors["openai-chat"]
    code, out, err = run(capsys, "openai-chat", "--case", case.id, "--json")
    derived = json.loads(out)["derived"]
    head, completion = parts(case.chunks, d)
    assert code == 0, err
    assert derived["head"] == list(range(head)) and derived["completion"] == list(range(completion, len(case.chunks)))
    assert derived["cut_after"] == cut_points(case.chunks, d)
    assert [c["description"] for c in derived["cut_completions"]] == [x for x, _ in cut_completions(case.chunks, d)]
    code, out, err = run(capsys, "openai-chat", "--case", case.id)
    assert code == 0, err
    assert "PREFIX-003 closes each cut with the cut completion 'finish_reason length" in out
    assert '"finish_reason": "length"' in out
    assert "shift: $.choices[*].delta.tool_calls[*].index" in out and "unique: $.choices[*].delta.tool_calls[*].id" in out
    assert "as the first turn, the second turn's $.choices[*].delta.tool_calls[*].index is raised by 2" in out


def test_explain_prints_each_shift_pattern_its_own_offset(capsys: pytest.CaptureFixture[str]) -> None:
    """splice.shift is computed per pattern, from the largest value that pattern selects in
    the first turn (derive.shift_offset, which the splice itself uses)."""
    from mcs_conformance.suite.derive import shift_offset

    case = CORPUS.case("openai-responses/openai-web-search-tool-1")
    d = CORPUS.descriptors["openai-responses"]
    code, out, err = run(capsys, "openai-responses", "--case", case.id, "--json")
    assert code == 0, err
    shifts = json.loads(out)["derived"]["splice_shifts"]
    patterns = d.data["splice"]["shift"]
    assert len(shifts) == len(patterns) >= 1
    assert [s["shift"] for s in shifts] == [shift_offset(case.chunks, p) for p in patterns]
    assert any(s["shift"] > 0 for s in shifts)
