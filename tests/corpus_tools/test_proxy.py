"""The recording proxy: any client points its base URL at it; requests and responses pass unchanged."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mcs_conformance.corpus_tools.proxy import RecordingProxy, UpstreamError
from mcs_conformance.corpus_tools.recording import find_captures, load_capture
from mcs_conformance.corpus_tools.redaction import REDACTED

from tests.helpers.replay import FAKE_SECRETS, RESPONSE_HEADERS, STREAMS, ReplayServer, sdk_call, sse_events
from tests.helpers.captures import assert_no_secret, free_port, only_capture, received_text
from tests.helpers.limits import HANG, SOCKET

CLI = Path(sys.executable).parent / "mcs-conformance"


def raw_post(base: str, path: str, body: bytes = b'{"stream": true}') -> tuple[int, dict[str, str], bytes]:
    """POST with the standard library and read the whole response as bytes (chunked framing removed)."""
    host = base.removeprefix("http://")
    conn = http.client.HTTPConnection(host, timeout=SOCKET)
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json", "Authorization": "Bearer sk-test"})
    response = conn.getresponse()
    data = response.read()
    headers = {k.lower(): v for k, v in response.getheaders()}
    conn.close()
    return response.status, headers, data


def test_the_client_gets_what_the_upstream_sent(tmp_path: Path) -> None:
    rel = STREAMS["openai-responses"][1]
    events = sse_events(rel)
    with ReplayServer(events, headers={"x-request-id": "req_1", "openai-processing-ms": "12"}) as server:
        direct = raw_post(server.url, "/v1/responses")
        with RecordingProxy(server.url, tmp_path, log=lambda line: None) as proxy:
            proxied = raw_post(proxy.url, "/v1/responses")
    assert proxied[0] == direct[0] == 200 and proxied[2] == direct[2] == b"".join(events)
    for key in ("content-type", "x-request-id", "openai-processing-ms"):
        assert proxied[1][key] == direct[1][key]
    capture = load_capture(only_capture(tmp_path))
    assert capture.body_path is not None and capture.body_path.read_bytes() == b"".join(events)
    assert capture.meta["ended_by"] == "upstream" and capture.meta["recorder"].endswith(" proxy")
    assert capture.meta["upstream"] == server.url and capture.meta["format"] == "openai-responses"
    assert capture.request["url"] == server.url + "/v1/responses" and capture.request["body"] == {"stream": True}
    assert [r.path for r in server.received] == ["/v1/responses", "/v1/responses"]


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_sdk_through_the_proxy_and_no_secret_in_the_capture(tmp_path: Path, fmt: str) -> None:
    case_id, rel = STREAMS[fmt]
    lines: list[str] = []
    with ReplayServer(sse_events(rel), headers=RESPONSE_HEADERS) as server:
        with RecordingProxy(server.url, tmp_path, log=lines.append) as proxy:
            names = sdk_call(fmt, proxy.url)
    assert names  # the SDK assembled its tool calls from the proxied stream
    assert_no_secret(tmp_path, received_text(server), fmt)
    folder = only_capture(tmp_path)
    capture = load_capture(folder)
    assert capture.request["headers"]["authorization"] == f"Bearer {REDACTED}"
    assert capture.request["url"].endswith(f"?key={REDACTED}")
    assert lines == [f"POST {server.received[0].path.split('?')[0]}?key={REDACTED} -> 200; {folder}"]


def test_the_proxy_log_line_holds_no_secret(tmp_path: Path) -> None:
    lines: list[str] = []
    with ReplayServer(sse_events(STREAMS["openai-chat"][1])) as server:
        with RecordingProxy(server.url, tmp_path, log=lines.append) as proxy:
            sdk_call("openai-chat", proxy.url)
    assert len(lines) == 1 and lines[0].startswith("POST /v1/chat/completions") and "-> 200;" in lines[0]
    assert not any(v in lines[0] for v in FAKE_SECRETS.values())


def test_the_upstream_path_is_a_prefix(tmp_path: Path) -> None:
    with ReplayServer(sse_events(STREAMS["anthropic-messages"][1])) as server:
        with RecordingProxy(server.url + "/gateway/anthropic/", tmp_path, log=lambda line: None) as proxy:
            status, _, _ = raw_post(proxy.url, "/v1/messages")
    assert status == 200 and server.received[0].path == "/gateway/anthropic/v1/messages"
    assert load_capture(only_capture(tmp_path)).format == "anthropic-messages"


def test_an_unreachable_upstream_is_a_502_and_a_capture(tmp_path: Path) -> None:
    with RecordingProxy(f"http://127.0.0.1:{free_port()}", tmp_path, log=lambda line: None) as proxy:
        status, _, body = raw_post(proxy.url, "/v1/chat/completions")
    assert status == 502 and b"failed: ConnectionRefusedError" in body
    capture = load_capture(only_capture(tmp_path))
    assert capture.meta["ended_by"] == "error" and "ConnectionRefusedError" in capture.meta["error"]


@pytest.mark.parametrize("upstream", ["api.openai.com", "ftp://example.test", "https://"])
def test_a_bad_upstream_is_refused(tmp_path: Path, upstream: str) -> None:
    with pytest.raises(UpstreamError, match="must be an http:// or https:// URL with a host"):
        RecordingProxy(upstream, tmp_path)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_record_command_runs_until_interrupted(tmp_path: Path, stop: signal.Signals) -> None:
    """``mcs-conformance record`` as a user runs it: prints where it listens, records, stops on
    Ctrl-C (or SIGTERM) with its captures written."""
    rel = STREAMS["openai-chat"][1]
    with ReplayServer(sse_events(rel)) as server:
        proc = subprocess.Popen([str(CLI), "record", "--upstream", server.url, "--out", str(tmp_path / "caps")],
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            first = proc.stderr.readline()  # type: ignore[union-attr]
            assert first.startswith("recording http://127.0.0.1:"), first
            url = first.split()[1]
            status, _, body = raw_post(url, "/v1/chat/completions")
            assert status == 200 and body == b"".join(sse_events(rel))
            logged = proc.stderr.readline()  # type: ignore[union-attr]
            assert logged.startswith("POST /v1/chat/completions -> 200; ")
        finally:
            proc.send_signal(stop)
            rest = proc.communicate(timeout=SOCKET)[1]
    assert proc.returncode == 0, rest
    assert "stopped: 1 capture(s) written" in rest
    [folder] = find_captures(tmp_path / "caps")
    assert load_capture(folder).payloads()[-1] == "[DONE]"


def test_the_record_command_with_a_bad_upstream(tmp_path: Path) -> None:
    done = subprocess.run([str(CLI), "record", "--upstream", "api.openai.com", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 2 and done.stderr.startswith("error: --upstream must be an http:// or https:// URL")
    assert "Traceback" not in done.stderr


def test_request_body_sent_chunked_reaches_the_upstream(tmp_path: Path) -> None:
    payload = json.dumps({"model": "gpt-4o", "stream": True}).encode()
    with ReplayServer(sse_events(STREAMS["openai-chat"][1])) as server:
        with RecordingProxy(server.url, tmp_path, log=lambda line: None) as proxy:
            conn = http.client.HTTPConnection(proxy.url.removeprefix("http://"), timeout=SOCKET)
            conn.request("POST", "/v1/chat/completions", body=iter([payload[:10], payload[10:]]),
                         headers={"Content-Type": "application/json"}, encode_chunked=True)
            assert conn.getresponse().read()
            conn.close()
    assert server.received[0].body == payload
    assert load_capture(only_capture(tmp_path)).request["body"] == {"model": "gpt-4o", "stream": True}


def test_the_top_level_help_lists_record(capsys: pytest.CaptureFixture[str]) -> None:
    from mcs_conformance.cli import main

    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "record a recording proxy: forwards to --upstream, writes one capture folder per request" in out


def test_a_gzip_response_passes_encoded_and_is_stored_decoded(tmp_path: Path) -> None:
    import gzip

    events = sse_events(STREAMS["openai-chat"][1])
    with ReplayServer(events, gzip=True) as server:
        with RecordingProxy(server.url, tmp_path, log=lambda line: None) as proxy:
            status, headers, body = raw_post(proxy.url, "/v1/chat/completions")
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == b"".join(events)  # the client got the encoded bytes, unchanged
    capture = load_capture(only_capture(tmp_path))
    assert capture.body_path is not None and capture.body_path.read_bytes() == b"".join(events)
    assert capture.meta["wire_bytes"] == len(body) and capture.meta["body_decoded"] is True
