"""A provider stand-in on the loopback address: it replays a recorded stream, as the provider sent it.

The streams come from recordings/ (raw SSE bodies as served) or, for a recording kept as
one JSON payload per line, are framed back into SSE (``event: <type>`` + ``data: <json>``,
as the Responses and Messages APIs send them). Each SSE event is written and flushed on
its own, over chunked transfer encoding, so the client reads a real stream.
"""

from __future__ import annotations

import gzip
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.helpers import realdata

# (case id, the recording it was built from) for the loopback flow, one per native format
STREAMS = {
    "openai-chat": ("openai-chat/tool-calls-parallel-2", "openai-python/chat_stream/tool_calls_parallel_2__f82268f2fefd.sse"),
    "openai-responses": ("openai-responses/azure-tool-call-1", "vercel-ai/responses/azure-tool-call.1.chunks.jsonl"),
    "anthropic-messages": ("anthropic-messages/tool-use-response", "anthropic-sdk-python/sse/tool_use_response.sse"),
}

FAKE_SECRETS = {
    "api_key": "sk-test-FAKEKEY-0123456789abcdefABCDEF",
    "organization": "org-FAKEORG0123456789",
    "project": "proj_FAKEPROJ0123456789",
    "cookie": "FAKECOOKIE0123456789",
    "query_key": "FAKEQUERYKEY0123456789",
    "response_org": "FAKE-RESPONSE-ORG-0123456789",
    "response_cookie": "FAKE-SET-COOKIE-0123456789",
}


def sse_events(rel: str) -> list[bytes]:
    """The SSE events of a recording, one byte string each, as the provider framed them."""
    text = realdata.path(rel).read_text(encoding="utf-8")
    if rel.endswith(".sse"):
        return [block.encode() + b"\n\n" for block in re.split(r"\r?\n\r?\n", text) if block.strip()]
    out = []
    for payload in realdata.payloads(rel):
        data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        event = f"event: {payload['type']}\n" if isinstance(payload, dict) and "type" in payload else ""
        out.append(f"{event}data: {data}\n\n".encode())
    return out


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class ReplayServer:
    """Serves ``events`` to every POST (as text/event-stream unless told otherwise); keeps what it received."""

    events: list[bytes]
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    gzip: bool = False
    content_type: str = "text/event-stream; charset=utf-8"
    received: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        replay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                replay.received.append(Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(replay.status)
                self.send_header("Content-Type", replay.content_type)
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Connection", "close")
                if replay.gzip:
                    self.send_header("Content-Encoding", "gzip")
                for k, v in replay.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                pieces = [gzip.compress(b"".join(replay.events))] if replay.gzip else replay.events
                for piece in pieces:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ReplayServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


RESPONSE_HEADERS = {
    "openai-organization": FAKE_SECRETS["response_org"],
    "anthropic-organization-id": FAKE_SECRETS["response_org"],
    "set-cookie": f"__cf_bm={FAKE_SECRETS['response_cookie']}; path=/; HttpOnly",
    "x-request-id": "req_replay_1",
}


def sdk_call(fmt: str, base: str, http_client: Any = None) -> list[str]:
    """Call the official SDK of ``fmt`` at ``base`` as an application would, carrying the fake
    credentials (key, organisation, project, a cookie, a ``key=`` query); return the tool-call
    names the SDK's own stream helper assembled."""
    import anthropic
    import openai

    s = FAKE_SECRETS
    headers = {"Cookie": f"session={s['cookie']}"}
    query = {"key": s["query_key"]}
    if fmt == "anthropic-messages":
        client = anthropic.Anthropic(api_key=s["api_key"], base_url=base, http_client=http_client, max_retries=0,
                                     default_headers={**headers, "x-api-key": s["api_key"]}, default_query=query)
        with client.messages.stream(model="claude-sonnet-4-20250514", max_tokens=256,
                                    messages=[{"role": "user", "content": "Weather in Paris?"}]) as stream:
            final = stream.get_final_message()
        return [b.name for b in final.content if b.type == "tool_use"]
    client = openai.OpenAI(api_key=s["api_key"], organization=s["organization"], project=s["project"],
                           base_url=base + "/v1", http_client=http_client, max_retries=0,
                           default_headers=headers, default_query=query)
    if fmt == "openai-chat":
        with client.chat.completions.stream(model="gpt-4o", messages=[{"role": "user", "content": "Weather?"}]) as stream:
            final = stream.get_final_completion()
        return [c.function.name for c in final.choices[0].message.tool_calls or []]
    with client.responses.stream(model="gpt-5.1", input="Weather in San Francisco?") as stream:
        response = stream.get_final_response()
    return [item.name for item in response.output if item.type == "function_call"]
