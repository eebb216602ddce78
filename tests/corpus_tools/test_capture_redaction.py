"""Every file of a capture is scrubbed of every secret, whichever side it was first seen on and
whenever: an organisation id the upstream sends back in a response header while the request
carried none leaves request.json too, not only meta.json."""

from __future__ import annotations

import base64
import http.client
import json
from pathlib import Path

import httpx2

from mcs_conformance.corpus_tools.proxy import RecordingProxy
from mcs_conformance.corpus_tools.recording import CaptureWriter, load_capture, recording_transport
from mcs_conformance.corpus_tools.redaction import REDACTED, Redactor, is_secret_field

from tests.helpers.captures import only_capture
from tests.helpers.replay import STREAMS, ReplayServer, sse_events
from tests.helpers.limits import SOCKET

ORG = "org-LEARNED-LATE-0123456789"  # sent back by the upstream only
KEY = "sk-in-the-body-0123456789abcdef"


def _files_holding(folder: Path, secret: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.is_file() and secret.encode() in p.read_bytes())


def _chat_body(**extra: object) -> bytes:
    return json.dumps({"model": "gpt-4o", "stream": True, "messages": [{"role": "user", "content": "Weather?"}],
                       **extra}).encode()


def test_a_secret_first_seen_in_a_response_header_leaves_the_request_already_written(tmp_path: Path) -> None:
    writer = CaptureWriter(tmp_path, method="POST", url="https://api.example.test/v1/chat/completions",
                           headers=[("Content-Type", "application/json")], body=_chat_body(metadata={"team": ORG}),
                           recorder="test")
    folder = writer.folder
    assert _files_holding(folder, ORG) == ["request.json"]  # nothing named it a secret yet
    writer.response(200, "OK", [("Content-Type", "text/event-stream"), ("openai-organization", ORG)])
    assert _files_holding(folder, ORG) == []  # rewritten as soon as the response head named it
    writer.write(f'data: {{"echo": "{ORG}"}}\n\n'.encode())
    writer.close("upstream")
    assert _files_holding(folder, ORG) == []
    capture = load_capture(folder)
    assert capture.request["body"]["metadata"] == {"team": REDACTED}
    assert capture.request["body"]["model"] == "gpt-4o"  # what is no secret is kept
    assert capture.meta["headers"]["openai-organization"] == REDACTED
    assert capture.meta["scrubbed"] == {"request_body": 1, "response_body": 1}
    assert "response header openai-organization" in capture.meta["redacted"]


def test_a_secret_named_in_the_request_body_is_scrubbed_from_the_response_and_meta(tmp_path: Path) -> None:
    writer = CaptureWriter(tmp_path, method="POST", url="https://api.example.test/v1/chat/completions",
                           headers=[("Content-Type", "application/json")], body=_chat_body(api_key=KEY),
                           recorder="test")
    writer.response(401, f"bad key {KEY}", [("Content-Type", "text/plain")])
    writer.write(f"invalid key {KEY}".encode())
    folder = writer.close("error", f"upstream said: {KEY}")
    assert _files_holding(folder, KEY) == []
    capture = load_capture(folder)
    assert capture.request["body"]["api_key"] == REDACTED
    assert capture.meta["reason"] == f"bad key {REDACTED}" and capture.meta["error"] == f"upstream said: {REDACTED}"
    assert "request body field api_key" in capture.meta["redacted"]


def test_a_binary_request_body_is_rewritten_too(tmp_path: Path) -> None:
    body = b"\xff\xfe" + ORG.encode() + b"\x00"
    writer = CaptureWriter(tmp_path, method="POST", url="https://api.example.test/upload",
                           headers=[("Content-Type", "application/octet-stream")], body=body, recorder="test")
    writer.response(200, "OK", [("Content-Type", "text/plain"), ("OpenAI-Organization", ORG)])
    folder = writer.close("upstream")
    request = load_capture(folder).request
    assert base64.b64decode(request["body_base64"]) == b"\xff\xfe" + REDACTED.encode() + b"\x00"
    assert _files_holding(folder, ORG) == []


def test_the_transport_scrubs_the_request_of_a_secret_the_response_head_brings(tmp_path: Path) -> None:
    with ReplayServer(sse_events(STREAMS["openai-chat"][1]), headers={"openai-organization": ORG}) as server:
        with httpx2.Client(transport=recording_transport(tmp_path)) as client:
            with client.stream("POST", f"{server.url}/v1/chat/completions", content=_chat_body(user=ORG),
                               headers={"content-type": "application/json"}) as response:
                assert response.status_code == 200
                response.read()
    assert ORG.encode() in server.received[0].body  # the request did carry it: the check proves something
    folder = only_capture(tmp_path)
    assert _files_holding(folder, ORG) == []
    assert load_capture(folder).request["body"]["user"] == REDACTED


def test_the_proxy_scrubs_the_request_of_a_secret_the_response_head_brings(tmp_path: Path) -> None:
    with ReplayServer(sse_events(STREAMS["openai-chat"][1]), headers={"openai-organization": ORG}) as server:
        with RecordingProxy(server.url, tmp_path, log=lambda line: None) as proxy:
            conn = http.client.HTTPConnection(*proxy.server.server_address[:2], timeout=SOCKET)
            conn.request("POST", "/v1/chat/completions", body=_chat_body(user=ORG),
                         headers={"Content-Type": "application/json"})
            answer = conn.getresponse()
            answer.read()
            conn.close()
            assert answer.status == 200
    assert ORG.encode() in server.received[0].body
    folder = only_capture(tmp_path)
    assert _files_holding(folder, ORG) == []


def test_body_fields_named_for_credentials() -> None:
    assert all(is_secret_field(n) for n in ("api_key", "apiKey", "access_token", "prompt_cache_key", "password"))
    assert not any(is_secret_field(n) for n in ("max_tokens", "model", "messages", "session_id", "project", "user"))
    redactor = Redactor()
    body = {"api_key": "short", "messages": [{"api_key": "nested-is-data-0123"}]}
    assert redactor.json_body(body, "request") == {"api_key": REDACTED, "messages": body["messages"]}
    assert redactor.secrets == set()  # a short value is replaced where named, not searched for elsewhere
