"""The recording transport: the SDK reads through it unchanged, and each request leaves one capture folder."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import httpx2
import openai
import pytest

from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.corpus_tools.recording import (
    CaptureError, async_recording_transport, format_of_url, load_capture, recording_transport,
)
from mcs_conformance.corpus_tools.redaction import REDACTED

from tests.helpers import realdata
from tests.helpers.captures import assert_no_secret, free_port, only_capture, received_text, request_secrets  # noqa: F401
from tests.helpers.replay import RESPONSE_HEADERS, STREAMS, ReplayServer, sdk_call, sse_events

CORPUS = load_corpus()


def test_the_transport_tees_the_body_byte_for_byte(tmp_path: Path) -> None:
    case_id, rel = STREAMS["openai-chat"]
    with ReplayServer(sse_events(rel)) as server:
        names = sdk_call("openai-chat", server.url, httpx2.Client(transport=recording_transport(tmp_path)))
    case = CORPUS.case(case_id)
    assert names == [c["name"] for c in case.expect["calls"]]  # the SDK read the whole stream through the tee
    folder = only_capture(tmp_path)
    capture = load_capture(folder)
    recorded = realdata.path(rel).read_bytes()
    assert b"".join(sse_events(rel)) == recorded  # this recording is served exactly as stored
    assert (folder / "response.sse").read_bytes() == recorded
    assert sorted(p.name for p in folder.iterdir()) == ["meta.json", "request.json", "response.sse"]
    meta = capture.meta
    assert (meta["status"], meta["format"], meta["body_file"]) == (200, "openai-chat", "response.sse")
    assert meta["sha256"] == hashlib.sha256(recorded).hexdigest() and meta["body_bytes"] == len(recorded)
    assert meta["upstream"] == server.url and meta["recorder"].endswith(" transport") and meta["capture"] == 1
    assert meta["ended_by"] in ("upstream", "client")  # the SDK may close at [DONE], before the chunked end
    assert meta["headers"]["content-type"].startswith("text/event-stream")
    request = capture.request
    assert request["method"] == "POST"
    assert request["url"] == f"{server.url}/v1/chat/completions?key={REDACTED}"
    assert request["body"]["model"] == "gpt-4o" and request["body"]["stream"] is True
    assert capture.payloads() == case.chunks
    assert folder.name.endswith("-openai-chat")


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_no_secret_reaches_a_transport_capture(tmp_path: Path, fmt: str) -> None:
    with ReplayServer(sse_events(STREAMS[fmt][1]), headers=RESPONSE_HEADERS) as server:
        sdk_call(fmt, server.url, httpx2.Client(transport=recording_transport(tmp_path)))
    assert_no_secret(tmp_path, received_text(server), fmt)
    capture = load_capture(only_capture(tmp_path))
    headers = capture.request["headers"]
    assert headers["authorization"] == f"Bearer {REDACTED}" and headers["cookie"] == REDACTED
    assert capture.meta["headers"]["set-cookie"] == REDACTED
    assert capture.meta["headers"]["x-request-id"] == "req_replay_1"  # what is no secret is kept
    expected = {"request header authorization", "request header cookie", "query key", "response header set-cookie",
                "response header openai-organization", "response header anthropic-organization-id"}
    expected |= ({"request header x-api-key"} if fmt == "anthropic-messages"
                 else {"request header openai-organization", "request header openai-project"})
    assert set(capture.meta["redacted"]) == expected


def test_a_gzip_body_is_stored_decoded(tmp_path: Path) -> None:
    case_id, rel = STREAMS["anthropic-messages"]
    with ReplayServer(sse_events(rel), gzip=True) as server:
        names = sdk_call("anthropic-messages", server.url, httpx2.Client(transport=recording_transport(tmp_path)))
    assert names == ["get_weather"]
    capture = load_capture(only_capture(tmp_path))
    assert capture.body_path is not None and capture.body_path.read_bytes() == b"".join(sse_events(rel))
    assert capture.meta["content_encoding"] == "gzip" and capture.meta["body_decoded"] is True
    assert capture.meta["wire_bytes"] < capture.meta["body_bytes"]
    assert capture.payloads() == CORPUS.case(case_id).chunks


def test_the_async_transport_records_too(tmp_path: Path) -> None:
    case_id, rel = STREAMS["openai-chat"]

    async def run(url: str) -> list[str]:
        client = openai.AsyncOpenAI(api_key="sk-test", base_url=url + "/v1", max_retries=0,
                                    http_client=httpx2.AsyncClient(transport=async_recording_transport(tmp_path)))
        stream = await client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}],
                                                      stream=True)
        return [chunk.id async for chunk in stream]

    with ReplayServer(sse_events(rel)) as server:
        ids = asyncio.run(run(server.url))
    chunks = CORPUS.case(case_id).chunks
    assert len(ids) == len([c for c in chunks if c != "[DONE]"])
    capture = load_capture(only_capture(tmp_path))
    assert capture.payloads() == chunks and capture.meta["recorder"].endswith(" transport")


def test_a_client_that_stops_early_leaves_what_it_read(tmp_path: Path) -> None:
    rel = STREAMS["openai-chat"][1]
    events = sse_events(rel)
    with ReplayServer(events) as server:
        client = openai.OpenAI(api_key="sk-test", base_url=server.url + "/v1", max_retries=0,
                               http_client=httpx2.Client(transport=recording_transport(tmp_path)))
        stream = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True)
        first = next(iter(stream))
        stream.close()
    assert first.id
    capture = load_capture(only_capture(tmp_path))
    assert capture.meta["ended_by"] == "client"
    body = capture.body_path.read_bytes()  # type: ignore[union-attr]
    assert body and b"".join(events).startswith(body)


def test_an_unreachable_upstream_leaves_a_capture_with_the_error(tmp_path: Path) -> None:
    client = openai.OpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=0,
                           http_client=httpx2.Client(transport=recording_transport(tmp_path)))
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True)
    capture = load_capture(only_capture(tmp_path))
    assert capture.meta["status"] is None and capture.meta["ended_by"] == "error"
    assert "ConnectError" in capture.meta["error"] and "body_file" not in capture.meta
    with pytest.raises(CaptureError, match="got no response"):
        capture.payloads()


def test_an_error_status_is_captured_but_is_no_stream(tmp_path: Path) -> None:
    body = json.dumps({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
    with ReplayServer([body.encode()], status=401, content_type="application/json") as server:
        with pytest.raises(openai.AuthenticationError):
            sdk_call("openai-chat", server.url, httpx2.Client(transport=recording_transport(tmp_path)))
    capture = load_capture(only_capture(tmp_path))
    assert capture.meta["status"] == 401 and capture.meta["body_file"] == "response.json"
    with pytest.raises(CaptureError, match="HTTP 401, not a stream: .*invalid x-api-key"):
        capture.payloads()


def test_a_stream_false_body_is_no_stream(tmp_path: Path) -> None:
    body = realdata.path("vercel-ai/anthropic/anthropic-text.nonstream.json").read_bytes()
    with ReplayServer([body], content_type="application/json") as server:
        anthropic_client = httpx2.Client(transport=recording_transport(tmp_path))
        done = anthropic_client.post(server.url + "/v1/messages", json={"model": "m", "messages": []})
    assert done.status_code == 200 and done.content == body
    with pytest.raises(CaptureError, match="single JSON body"):
        load_capture(only_capture(tmp_path)).payloads()


@pytest.mark.parametrize(("url", "fmt"), [
    ("https://api.openai.com/v1/chat/completions", "openai-chat"),
    ("https://x.openai.azure.com/openai/deployments/gpt/chat/completions?api-version=2024", "openai-chat"),
    ("https://api.openai.com/v1/responses", "openai-responses"),
    ("https://api.anthropic.com/v1/messages", "anthropic-messages"),
    ("https://api.anthropic.com/v1/messages/count_tokens", None),
    ("https://api.openai.com/v1/embeddings", None),
])
def test_format_of_url(url: str, fmt: str | None) -> None:
    assert format_of_url(url) == fmt


def test_load_capture_names_what_is_missing_or_broken(tmp_path: Path) -> None:
    with pytest.raises(CaptureError, match="not a capture folder \\(no request.json\\)"):
        load_capture(tmp_path)
    (tmp_path / "request.json").write_text("{}", encoding="utf-8")
    (tmp_path / "meta.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(CaptureError, match="meta.json: cannot be read"):
        load_capture(tmp_path)
