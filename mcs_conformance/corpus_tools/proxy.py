"""A recording proxy: any client points its base URL here; each request is forwarded and captured.

``mcs-conformance record --upstream https://api.openai.com --out captures --port 8080`` and
then, for example, ``OpenAI(base_url="http://127.0.0.1:8080/v1")``. The request goes to the
upstream (its path appended to the upstream URL's path) with every header the client sent
but the hop-by-hop ones; the response comes back unchanged (status, headers, body bytes, as
they arrive), and a capture folder (see recording.py) is written beside it. Standard library
only.
"""

from __future__ import annotations

import http.client
import ssl
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .recording import CaptureWriter
from .redaction import Redactor

__all__ = ["RecordingProxy", "UpstreamError"]

_HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
    "trailers", "transfer-encoding", "upgrade", "host",
})
_NO_BODY = (204, 304)


class UpstreamError(ValueError):
    """The upstream URL is not an http(s) URL with a host."""


class RecordingProxy:
    """An HTTP server on ``host:port`` that forwards to ``upstream`` and records every exchange into ``out``.

    Use as a context manager (serves in a thread) or call :meth:`serve_forever`.
    """

    def __init__(
        self,
        upstream: str,
        out: str | Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        fmt: str | None = None,
        timeout: float = 600.0,
        log: Callable[[str], None] | None = None,
        context: ssl.SSLContext | None = None,
    ) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UpstreamError(f"--upstream must be an http:// or https:// URL with a host, not {upstream!r}")
        self.upstream = upstream.rstrip("/")
        self.out = Path(out)
        self.fmt = fmt
        self.timeout = timeout
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.context = context
        self._parts = parts
        self.captures: list[Path] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        handler = type("Handler", (_Handler,), {"proxy": self})
        self.server = ThreadingHTTPServer((host, port), handler)
        self.server.daemon_threads = True

    @property
    def url(self) -> str:
        """The base URL clients point at (``http://host:port``)."""
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def serve_forever(self) -> None:
        self.server.serve_forever()

    def close(self) -> None:
        """Stop serving and release the port."""
        self.server.shutdown()
        self.server.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> RecordingProxy:
        self._thread = threading.Thread(target=self.server.serve_forever, name="mcs-record", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connect(self) -> http.client.HTTPConnection:
        """A new connection to the upstream."""
        p = self._parts
        if p.scheme == "https":
            return http.client.HTTPSConnection(p.hostname, p.port, timeout=self.timeout,
                                               context=self.context or ssl.create_default_context())
        return http.client.HTTPConnection(p.hostname, p.port, timeout=self.timeout)

    def target(self, path: str) -> tuple[str, str]:
        """The path to request upstream, and the full upstream URL, for a path the client asked for."""
        base = self._parts.path.rstrip("/")
        target = base + (path if path.startswith("/") else "/" + path)
        return target, f"{self._parts.scheme}://{self._parts.netloc}{target}"

    def recorded(self, folder: Path, line: str) -> None:
        with self._lock:
            self.captures.append(folder)
        self.log(line)


class _Handler(BaseHTTPRequestHandler):
    proxy: RecordingProxy
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # one line per capture is logged instead

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _forward(self) -> None:
        proxy = self.proxy
        body = self._body()
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP]
        target, url = proxy.target(self.path)
        writer = CaptureWriter(proxy.out, method=self.command, url=url, headers=headers, body=body, recorder="proxy",
                               fmt=proxy.fmt, upstream=proxy.upstream)
        shown = f"{self.command} {Redactor().url(self.path)}"  # the log line holds no secret either
        conn = proxy.connect()
        try:
            try:
                conn.putrequest(self.command, target, skip_host=True, skip_accept_encoding=True)
                conn.putheader("Host", proxy._parts.netloc)
                for k, v in headers:
                    if k.lower() != "content-length":
                        conn.putheader(k, v)
                if body or self.command in ("POST", "PUT", "PATCH"):
                    conn.putheader("Content-Length", str(len(body)))
                conn.endheaders(body or None)
                upstream = conn.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                error = f"upstream {proxy.upstream} failed: {type(exc).__name__}: {exc}"
                folder = writer.close("error", error)
                self._send_error(502, error)
                proxy.recorded(folder, f"{shown} -> 502 ({error}); {folder}")
                return
            ended_by, error = self._relay(upstream, writer)
            folder = writer.close(ended_by, error)
            proxy.recorded(folder, f"{shown} -> {upstream.status}"
                                   f"{'' if error is None else ' (' + error + ')'}; {folder}")
        finally:
            conn.close()

    def _relay(self, upstream: http.client.HTTPResponse, writer: CaptureWriter) -> tuple[str, str | None]:
        """Send the upstream response to the client as it arrives, teeing the body into the capture."""
        writer.response(upstream.status, upstream.reason, upstream.getheaders())
        has_body = self.command != "HEAD" and upstream.status not in _NO_BODY and upstream.status >= 200
        length = upstream.getheader("Content-Length")
        chunked = has_body and (length is None or "chunked" in (upstream.getheader("Transfer-Encoding") or "").lower())
        gone = "the client disconnected before the end"
        try:
            self.send_response_only(upstream.status, upstream.reason)
            for k, v in upstream.getheaders():
                if k.lower() not in _HOP_BY_HOP and not (chunked and k.lower() == "content-length"):
                    self.send_header(k, v)
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
        except OSError as exc:
            return "client", f"{gone} ({type(exc).__name__})"
        self.close_connection = True
        while has_body:
            try:
                data = upstream.read1(65536)
            except (OSError, http.client.HTTPException) as exc:
                return "error", f"upstream {self.proxy.upstream} failed mid-response: {type(exc).__name__}: {exc}"
            try:
                if not data:
                    if chunked:
                        self.wfile.write(b"0\r\n\r\n")
                        self.wfile.flush()
                    break
                writer.write(data)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
                self.wfile.flush()
            except OSError as exc:
                return "client", f"{gone} ({type(exc).__name__})"
        return "upstream", None

    def _send_error(self, status: int, message: str) -> None:
        body = message.encode("utf-8")
        try:
            self.send_response_only(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass
        self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _forward
