"""``corpus import`` of capture folders: format and provenance from the capture, clear refusals."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from mcs_conformance.cli import main
from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.corpus_tools.importer import ImportProblem, import_capture, model_of
from mcs_conformance.corpus_tools.recording import CaptureWriter

from tests.helpers.replay import STREAMS, sse_events

CORPUS = load_corpus()
COMMIT = "0123456789abcdef0123456789abcdef01234567"
PROV = {"source": "acme/streams", "commit": COMMIT, "license": "MIT"}
FIELDS = {"case_id": "openai-chat/x", "description": "An imported capture for a test."}


def capture(out: Path, url: str, body: bytes, status: int = 200, content_type: str = "text/event-stream",
            request: bytes = b'{"model": "gpt-4o", "stream": true}') -> Path:
    w = CaptureWriter(out, method="POST", url=url, headers=[("Content-Type", "application/json")], body=request,
                      recorder="test")
    w.response(status, "OK", [("Content-Type", content_type)])
    w.write(body)
    return w.close("upstream")


def chat_body() -> bytes:
    return b"".join(sse_events(STREAMS["openai-chat"][1]))


def test_a_capture_brings_format_date_and_model(tmp_path: Path) -> None:
    folder = capture(tmp_path, "https://api.openai.com/v1/chat/completions", chat_body())
    case = import_capture(None, folder, provenance=PROV, **FIELDS)
    bundled = CORPUS.case(STREAMS["openai-chat"][0])
    assert case["format"] == "openai-chat" and case["chunks"] == bundled.chunks and case["expect"] == bundled.expect
    started = json.loads((folder / "meta.json").read_text())["started"]
    assert case["provenance"] == {"kind": "recorded", "captured": started[:10], "model": "gpt-4o-2024-08-06", **PROV}


def test_the_given_provenance_wins(tmp_path: Path) -> None:
    folder = capture(tmp_path, "https://api.openai.com/v1/chat/completions", chat_body())
    case = import_capture(None, folder, provenance={**PROV, "model": "gpt-4o", "captured": "2026-01-02"}, **FIELDS)
    assert (case["provenance"]["model"], case["provenance"]["captured"]) == ("gpt-4o", "2026-01-02")


def test_model_of_reads_the_stream_then_nothing() -> None:
    assert model_of(CORPUS.case(STREAMS["anthropic-messages"][0]).chunks) == "claude-sonnet-4-20250514"
    assert model_of(["[DONE]", {"type": "ping"}]) is None


@pytest.mark.parametrize(("url", "status", "content_type", "body", "message"), [
    ("https://gw.example.test/v1/complete", 200, "text/event-stream", None, "cannot be told from the request URL"),
    ("https://api.openai.com/v1/chat/completions", 429, "application/json", b'{"error": "slow down"}',
     "is HTTP 429, not a stream: '{\"error\": \"slow down\"}'"),
    ("https://api.openai.com/v1/chat/completions", 200, "application/json", b'{"choices": []}', "stream=false"),
    ("https://api.openai.com/v1/chat/completions", 200, "text/event-stream", b"", "no payloads found"),
])
def test_what_cannot_be_imported_says_why(tmp_path: Path, url: str, status: int, content_type: str,
                                          body: bytes | None, message: str) -> None:
    folder = capture(tmp_path, url, chat_body() if body is None else body, status, content_type)
    with pytest.raises(ImportProblem, match=message.replace("(", r"\(").replace(")", r"\)")):
        import_capture(None, folder, provenance=PROV, **FIELDS)


def test_the_cli_refuses_without_repository_and_commit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = capture(tmp_path / "caps", "https://api.openai.com/v1/chat/completions", chat_body())
    code = main(["corpus", "import", str(folder), "--id", "openai-chat/x", "--description", "An imported capture.",
                 "--license", "MIT"])
    err = capsys.readouterr().err
    assert code == 1 and "pass --source OWNER/NAME and --commit SHA" in err and "Traceback" not in err
    assert main(["corpus", "import", str(tmp_path), "--id", "openai-chat/x", "--description", "An imported capture.",
                 "--license", "MIT", "--source", "a/b", "--commit", COMMIT]) == 1
    assert "a folder, but not a capture" in capsys.readouterr().err
    raw = tmp_path / "raw.sse"
    raw.write_bytes(chat_body())
    assert main(["corpus", "import", str(raw), "--id", "openai-chat/x", "--description", "An imported capture.",
                 "--license", "MIT", "--source", "a/b", "--commit", COMMIT]) == 1
    assert "a raw capture file says nothing of its format; pass --format" in capsys.readouterr().err


def test_a_local_capture_is_imported_without_repository_and_says_so(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    folder = capture(tmp_path / "caps", "https://api.openai.com/v1/chat/completions", chat_body())
    out = tmp_path / "case.json"
    code = main(["corpus", "import", str(folder), "--id", "openai-chat/x", "--description", "An imported capture.",
                 "--license", "MIT", "--local", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    case = json.loads(out.read_text(encoding="utf-8"))
    started = json.loads((folder / "meta.json").read_text())["started"]
    assert case["provenance"] == {"kind": "recorded", "source": "local", "path": folder.name, "license": "MIT",
                                  "captured": started[:10], "model": "gpt-4o-2024-08-06"}
    assert "commit" not in case["provenance"]
    # a local case loads in an author's corpus folder, as any other
    corpus = tmp_path / "corpus"
    (corpus / "cases" / "openai-chat").mkdir(parents=True)
    (corpus / "cases" / "openai-chat" / "x.json").write_text(out.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_corpus([corpus]).case("openai-chat/x").provenance["source"] == "local"


def test_local_goes_with_no_repository_of_its_own(tmp_path: Path) -> None:
    folder = capture(tmp_path, "https://api.openai.com/v1/chat/completions", chat_body())
    with pytest.raises(ImportProblem, match="--local is for a capture kept in no repository; it cannot go with --source"):
        import_capture(None, folder, provenance=PROV, local=True, **FIELDS)


def test_a_capture_committed_in_a_clone_without_a_remote_says_what_is_missing(tmp_path: Path) -> None:
    folder = capture(tmp_path / "caps", "https://api.openai.com/v1/chat/completions", chat_body())
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.test"]
    for args in (["init", "-q"], ["add", "caps"], ["commit", "-q", "-m", "capture"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    with pytest.raises(ImportProblem) as info:
        import_capture(None, folder, provenance={"license": "MIT"}, **FIELDS)
    text = str(info.value)
    assert "or --local for a capture kept in no repository; missing: source (known: commit " in text
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    case = import_capture(None, folder, provenance={"license": "MIT", "source": "me/captures"}, **FIELDS)
    assert (case["provenance"]["commit"], case["provenance"]["path"]) == (commit, f"caps/{folder.name}")


def test_no_bundled_case_is_a_local_capture() -> None:
    local = [c.id for c in CORPUS.cases if c.provenance.get("source") == "local"]
    assert CORPUS.cases and local == []  # the bundled corpus is traceable to a repository and commit


def test_the_readme_import_example_is_complete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's example, run as written on a local capture: every required input is in it."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^mcs-conformance corpus import (?:.*\\\n)*.*$", readme, re.MULTILINE)
    assert match, "the README has no corpus import example"
    argv = shlex.split(match.group().replace("\\\n", " "))[1:]
    assert "captures/<capture>" in argv and "..." not in argv
    folder = capture(tmp_path / "captures", "https://api.openai.com/v1/chat/completions", chat_body())
    argv[argv.index("captures/<capture>")] = str(folder)
    out = argv.index("-o") + 1
    argv[out] = str(tmp_path / argv[out])
    assert main(argv) == 0, capsys.readouterr().err
    assert json.loads(Path(argv[out]).read_text(encoding="utf-8"))["id"] == "openai-chat/new-shape"


# -- a format without an SDK oracle: its descriptor, a stream=false body, a strategy, or the author ----------

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ollama"


def _ollama_stream(tmp_path: Path) -> tuple[Path, dict]:
    case = json.loads((EXAMPLE / "corpus" / "cases" / "ollama" / "api-chat-stream-tools.json").read_text())
    raw = tmp_path / "stream.jsonl"
    raw.write_text("".join(json.dumps(c) + "\n" for c in case["chunks"]), encoding="utf-8")
    return raw, case


def _import(tmp_path: Path, raw: Path, *more: str) -> list[str]:
    return ["corpus", "import", str(raw), "--format", "ollama", "--corpus", str(EXAMPLE / "corpus"),
            "--id", "ollama/imported", "--description", "The documented streamed tool call, imported.",
            "--license", "MIT", "--local", "-o", str(tmp_path / "case.json"), *more]


def test_a_format_without_an_oracle_leaves_expect_for_the_author_and_says_what_to_fill_in(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw, _ = _ollama_stream(tmp_path)
    assert main(_import(tmp_path, raw)) == 0
    err = capsys.readouterr().err
    assert "fill in expect.message" in err and "--message FILE" in err and "--strategy MODULE:ATTR" in err
    case = json.loads((tmp_path / "case.json").read_text())
    assert case["provenance"]["expect"] == "to be filled in by the author"
    assert case["expect"]["done"] is True and "message" not in case["expect"]  # the descriptor's done schema
    folder = tmp_path / "corpus"
    (folder / "cases" / "ollama").mkdir(parents=True)
    (folder / "cases" / "ollama" / "imported.json").write_text(json.dumps(case))
    (folder / "descriptors").mkdir()
    (folder / "descriptors" / "ollama.json").write_bytes((EXAMPLE / "corpus" / "descriptors" / "ollama.json").read_bytes())
    with pytest.raises(Exception, match="message"):  # the loader refuses it until the author fills it in
        load_corpus([folder])


def test_expect_comes_from_a_stream_false_body_or_a_named_strategy_and_the_provenance_says_which(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    raw, source = _ollama_stream(tmp_path)
    body = tmp_path / "body.json"
    body.write_text(json.dumps(source["expect"]["message"]))
    assert main(_import(tmp_path, raw, "--message", str(body), "--strategy", "ollama_strategy:OllamaStrategy")) == 0
    case = json.loads((tmp_path / "case.json").read_text())
    assert case["expect"]["message"] == source["expect"]["message"]
    want_calls = [{"error": False, **c} for c in source["expect"]["calls"]]
    assert case["expect"]["calls"] == want_calls and case["expect"]["done"] is True
    assert case["provenance"]["expect"] == (f"the recorded stream=false body {body}; calls and text read by "
                                            "ollama_strategy:OllamaStrategy")
    assert main(_import(tmp_path, raw, "--strategy", "ollama_strategy:OllamaStrategy")) == 0
    case = json.loads((tmp_path / "case.json").read_text())
    assert case["expect"]["message"] == source["expect"]["message"] and case["expect"]["calls"] == want_calls
    assert case["provenance"]["expect"].startswith("the strategy ollama_strategy:OllamaStrategy fed the stream")
    assert main(_import(tmp_path, raw, "--strategy", "ollama_strategy:Nope")) == 1
    assert "--strategy ollama_strategy:Nope" in capsys.readouterr().err
