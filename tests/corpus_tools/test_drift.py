"""``corpus diff``: what changed, in terms an author acts on, read from descriptors and schemas only."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mcs_conformance.cli import main
from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.corpus_tools.drift import compare, findings, load_side, render
from mcs_conformance.corpus_tools.proxy import RecordingProxy

from tests.helpers.replay import ReplayServer
from tests.helpers.captures import only_capture
from tests.helpers.limits import SOCKET

CORPUS = load_corpus()
ROOT = Path(__file__).resolve().parents[2]
ANTHROPIC = "anthropic-messages/tool-use-response"
CHAT = "openai-chat/tool-calls-parallel-2"
RESPONSES = "openai-responses/azure-tool-call-1"


def sse(chunks: list[Any]) -> bytes:
    """An SSE body of these payloads, framed as the provider frames them."""
    out = []
    for c in chunks:
        event = f"event: {c['type']}\n" if isinstance(c, dict) and isinstance(c.get("type"), str) else ""
        data = c if isinstance(c, str) else json.dumps(c, separators=(",", ":"))
        out.append(f"{event}data: {data}\n\n")
    return "".join(out).encode()


def write_stream(path: Path, chunks: list[Any]) -> Path:
    path.write_bytes(sse(chunks))
    return path


def chunks_of(case_id: str) -> list[Any]:
    return copy.deepcopy(CORPUS.case(case_id).chunks)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["corpus", "diff", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def diff_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, *args, "--json")
    return code, json.loads(out)


# -- the done-when of the issue: a recorded stream with an event type the format never had ---------
def test_a_recorded_new_event_type_is_named_with_its_descriptor_and_schema_gap(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chunks = chunks_of(ANTHROPIC)
    at = next(i for i, c in enumerate(chunks) if c.get("type") == "content_block_stop")
    chunks.insert(at, {"type": "content_block_checkpoint", "index": 0, "checkpoint": {"tokens": 12}})
    with ReplayServer([sse(chunks)]) as server, RecordingProxy(server.url, tmp_path, log=lambda line: None) as proxy:
        import httpx2

        httpx2.post(proxy.url + "/v1/messages", json={"model": "claude-sonnet-4-5", "stream": True}, timeout=SOCKET)
    capture = only_capture(tmp_path)

    code, out, _ = run(capsys, "bundled", str(capture))
    assert code == 1
    section = out.split("event types never seen before in anthropic-messages:\n", 1)[1]
    assert section.splitlines()[0].strip().startswith("content_block_checkpoint  (1 chunk, first ")
    assert "keys: checkpoint, index, type" in section.splitlines()[0]
    gaps = out.split("not covered by the descriptor or chunk schema:\n", 1)[1]
    assert ("event type 'content_block_checkpoint': no done, error, noise or text-channel chunk of "
            "descriptors/anthropic-messages.json names it, and anthropic-messages.chunk.schema.json has no case "
            "for it") in gaps

    code, report = diff_json(capsys, "bundled", str(capture))
    entry = report["formats"]["anthropic-messages"]
    assert code == 1 and report["drift"] is True
    assert [t["type"] for t in entry["new_event_types"]] == ["content_block_checkpoint"]
    assert entry["new_event_types"][0]["first"] == f"{capture.name} #{at}"
    assert [(g["what"], g["also_in_old"]) for g in entry["coverage"]] == [("event-type", False)]
    assert entry["new_keys"] == [] and entry["completion"]["new_signals"] == []
    assert report["findings"] == findings(report) == 2


def test_a_new_nested_type_names_the_cases_the_schema_has_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chunks = chunks_of(ANTHROPIC)
    start = next(c for c in chunks if c.get("type") == "content_block_start" and c["content_block"]["type"] == "tool_use")
    start["content_block"]["type"] = "mcs_new_block"
    code, report = diff_json(capsys, "bundled", str(write_stream(tmp_path / "s.sse", chunks)), "--format",
                             "anthropic-messages")
    gaps = report["formats"]["anthropic-messages"]["coverage"]
    assert code == 1
    assert [g["detail"] for g in gaps] == [
        "type 'mcs_new_block' at content_block_start: content_block: anthropic-messages.chunk.schema.json has cases "
        "for /_tool_result$/, redacted_thinking, server_tool_use, text, thinking, tool_use there, not this one"]


def test_a_chunk_failing_the_chunk_schema_is_flagged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chunks = chunks_of(ANTHROPIC)
    delta = next(c for c in chunks if c.get("type") == "message_delta")
    delta["delta"]["stop_reason"] = 5
    code, report = diff_json(capsys, ANTHROPIC_FILE(), str(write_stream(tmp_path / "s.sse", chunks)), "--format",
                             "anthropic-messages")
    entry = report["formats"]["anthropic-messages"]
    assert code == 1
    schema_gaps = [g for g in entry["coverage"] if g["what"] == "schema"]
    assert [g["detail"] for g in schema_gaps] == [
        "message_delta chunks fail anthropic-messages.chunk.schema.json: at $.delta.stop_reason: "
        "5 is not of type 'string', 'null'"]
    assert not schema_gaps[0]["also_in_old"]
    assert {(k["event_type"], k["path"], tuple(k["new"])) for k in entry["new_value_types"]} == {
        ("message_delta", "delta.stop_reason", ("number",))}


def ANTHROPIC_FILE() -> str:  # noqa: N802 - reads as the constant it stands for
    return CORPUS.case(ANTHROPIC).source


def test_a_changed_completion_signal_and_terminal_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chunks = [c for c in chunks_of(CHAT) if c != "[DONE]"]
    for c in chunks:
        for choice in c["choices"]:
            if choice.get("finish_reason"):
                choice["finish_reason"] = "stop"
    new = write_stream(tmp_path / "s.sse", chunks)
    code, report = diff_json(capsys, CORPUS.case(CHAT).source, str(new), "--format", "openai-chat")
    c = report["formats"]["openai-chat"]["completion"]
    assert code == 1
    # the recording ends with a usage-only chunk (choices: []) after the finish_reason, then the sentinel
    assert c["old"] == ["chunk with choices[].finish_reason, then chunk, [DONE]"]
    assert c["new"] == ["chunk with choices[].finish_reason, then chunk"]
    assert [s["signal"] for s in c["new_signals"]] == c["new"] and [s["signal"] for s in c["gone_signals"]] == c["old"]
    assert [(t["key"], t["value"]) for t in c["new_terminal_values"]] == [("choices[].finish_reason", "stop")]
    assert [t["type"] for t in report["formats"]["openai-chat"]["gone_event_types"]] == ["[DONE]"]
    text = render(report)
    assert "completion signal changed:\n    OLD: chunk with choices[].finish_reason, then chunk, [DONE]\n" in text
    assert 'choices[].finish_reason value never seen before: "stop"' in text


def test_the_completion_signal_is_the_descriptors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A finish the descriptor's done rule does not accept (a cut output) is no completion signal."""
    chunks = chunks_of(CHAT)
    for c in chunks:
        for choice in c["choices"] if isinstance(c, dict) else []:
            if choice.get("finish_reason"):
                choice["finish_reason"] = "length"
    code, report = diff_json(capsys, CORPUS.case(CHAT).source, str(write_stream(tmp_path / "s.sse", chunks)),
                             "--format", "openai-chat")
    entry = report["formats"]["openai-chat"]
    assert code == 1 and entry["completion"]["new"] == ["no completion signal"]
    assert "done: True -> False" in entry["final_message"]["changes"]


def test_keys_that_disappeared_between_two_streams(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chunks = chunks_of(CHAT)
    for c in chunks:
        if isinstance(c, dict):
            c.pop("system_fingerprint", None)
    code, report = diff_json(capsys, CORPUS.case(CHAT).source, str(write_stream(tmp_path / "s.sse", chunks)),
                             "--format", "openai-chat")
    entry = report["formats"]["openai-chat"]
    assert code == 1
    assert [(k["event_type"], k["path"]) for k in entry["gone_keys"]] == [("chunk", "system_fingerprint")]
    assert entry["new_keys"] == [] and entry["final_message"]["changes"] == []
    assert "keys that disappeared:\n    system_fingerprint  (" in render(report)


def test_a_single_stream_against_a_corpus_lists_no_disappearances(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bundled", CORPUS.case(CHAT).source)
    assert code == 0 and "only what NEW shows and OLD never did is listed" in out


def test_a_changed_final_message_between_two_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = json.loads(Path(CORPUS.case(ANTHROPIC).source).read_text(encoding="utf-8"))
    for c in case["chunks"]:
        if c.get("type") == "content_block_start" and c["content_block"]["type"] == "tool_use":
            c["content_block"]["name"] = "get_forecast"
    case["expect"]["calls"][0]["name"] = "get_forecast"
    tool = next(b for b in case["expect"]["message"]["content"] if b["type"] == "tool_use")
    tool["name"] = "get_forecast"
    new = tmp_path / "case.json"
    new.write_text(json.dumps(case), encoding="utf-8")
    code, report = diff_json(capsys, CORPUS.case(ANTHROPIC).source, str(new))
    changes = report["formats"]["anthropic-messages"]["final_message"]["changes"]
    assert code == 1
    assert changes == ["chunks at $[6].content_block.name", "expect.calls at $[0].name",
                       "expect.message at $.content[1].name"]


def test_capture_summaries_compare_calls_and_completion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two recordings differ in ids and text anyway; what is compared is the calls, completion and routing."""
    chunks = [c for c in chunks_of(RESPONSES) if c.get("type") != "response.completed"]
    code, report = diff_json(capsys, CORPUS.case(RESPONSES).source, str(write_stream(tmp_path / "s.sse", chunks)),
                             "--format", "openai-responses")
    m = report["formats"]["openai-responses"]["final_message"]
    assert code == 1
    assert m["old"]["calls"] == m["new"]["calls"] == ["weather"]
    assert m["changes"] == ["done: True -> False"]


# -- corpus versions -------------------------------------------------------------------------------
def corpus_folder(root: Path, version: str, cases: list[dict[str, Any]]) -> Path:
    for case in cases:
        path = root / "cases" / case["format"] / (case["id"].split("/", 1)[1] + ".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(case), encoding="utf-8")
    (root / "manifest.json").write_text(json.dumps({"version": version}), encoding="utf-8")
    return root


def test_two_corpus_versions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = [ANTHROPIC, CHAT, RESPONSES, "openai-chat/text-only"]
    cases = {i: copy.deepcopy(CORPUS.case(i).data) for i in ids}
    old = corpus_folder(tmp_path / "old", "2026.12.0", [cases[i] for i in ids[:3]])
    assert run(capsys, str(old), str(old))[0] == 0
    changed = copy.deepcopy(cases[RESPONSES])
    changed["expect"]["content_text"] = "changed"
    new = corpus_folder(tmp_path / "new", "2027.01.0", [cases[ANTHROPIC], changed, cases["openai-chat/text-only"]])
    code, report = diff_json(capsys, str(old), str(new))
    assert code == 1
    assert report["old"]["about"].startswith("corpus 2026.12.0 at ")
    assert report["cases"] == {"added": ["openai-chat/text-only"], "removed": [CHAT],
                               "changed": [{"id": RESPONSES, "what": ["expect.content_text at $"]}]}
    assert report["disappearances_compared"] is True
    gone = {k["path"] for k in report["formats"]["openai-chat"]["gone_keys"]}
    assert "choices[].delta.tool_calls" in gone  # the only tool-call stream of the format left
    text = render(report)
    assert "cases removed:\n    openai-chat/tool-calls-parallel-2\n" in text


def test_the_bundled_corpus_against_itself(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = diff_json(capsys, "bundled", "bundled")
    assert code == 0 and report["findings"] == 0 and report["drift"] is False
    assert set(report["formats"]) == {"anthropic-messages", "openai-chat", "openai-responses", "text-json", "hermes",
                                      "llama3-json", "mistral", "pythonic", "qwen3-coder", "deepseek", "kimi-k2",
                                      "glm45", "cohere", "gemini", "ollama", "bedrock"}
    # what the bundled descriptors and schemas leave uncovered is listed, as in OLD already
    gaps = [g for e in report["formats"].values() for g in e["coverage"]]
    assert gaps and all(g["also_in_old"] for g in gaps)
    assert any(g["what"] == "event-type" and "'response.reasoning_summary_part.added'" in g["detail"] for g in gaps)


def test_a_format_without_a_chunk_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The example's Hermes corpus under a format name the bundled corpus has no schema for."""
    source = ROOT / "examples" / "hermes" / "corpus"
    for path in source.rglob("*.json"):
        rel = path.relative_to(source).as_posix().replace("hermes", "my-hermes")
        text = path.read_text(encoding="utf-8").replace('"hermes', '"my-hermes')
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    code, report = diff_json(capsys, str(tmp_path), str(tmp_path))
    assert code == 0
    gaps = report["formats"]["my-hermes"]["coverage"]
    assert [g["detail"] for g in gaps] == ["no chunk schema for my-hermes: nothing checks the shape of its chunks"]


# -- bad arguments ---------------------------------------------------------------------------------
def test_arguments_that_cannot_be_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = write_stream(tmp_path / "s.sse", chunks_of(CHAT))
    (tmp_path / "empty").mkdir()
    bad_case = tmp_path / "bad.json"
    bad_case.write_text(json.dumps({"id": "x/y", "format": "x"}), encoding="utf-8")
    for args, message in [
        ((str(tmp_path / "nothing"), "bundled"), "no such file or folder"),
        (("bundled", str(raw)), "a raw stream file says nothing of its format; pass --format"),
        (("bundled", str(tmp_path / "empty")), "neither a capture folder"),
        (("bundled", str(bad_case)), "not a valid case: at $: "),
    ]:
        code, out, err = run(capsys, *args)
        assert code == 2 and out == "" and err.startswith("error: ") and message in err, err


def test_load_side_kinds(tmp_path: Path) -> None:
    assert load_side("bundled").kind == "corpus"
    assert load_side(CORPUS.case(CHAT).source).kind == "case"
    side = load_side(str(write_stream(tmp_path / "s.sse", chunks_of(CHAT))), "openai-chat")
    assert side.kind == "file" and side.streams[0].chunks == CORPUS.case(CHAT).chunks
    report = compare(side, side)
    assert report["findings"] == 0


def test_the_help_says_what_the_exit_codes_mean(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["corpus", "diff", "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0
    assert "Exit 0: no drift; 1: drift; 2: an argument cannot be read." in " ".join(out.split())
    with pytest.raises(SystemExit):
        main(["corpus", "--help"])
    assert "diff" in capsys.readouterr().out
