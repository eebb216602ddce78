"""Record live streams as the provider sent them, with the request that produced them.

One capture is one folder (written by :class:`CaptureWriter`, read by :func:`load_capture`)::

    20261201T101500Z-0001-openai-chat/
      request.json     method, url, headers, body; secrets replaced (see redaction.py), also
                       those first seen in the response
      response.sse     the response body as received (content-encoding removed); the name
                       follows the content type: .sse, .jsonl, .json, .txt or .bin
      meta.json        status, reason, response headers (redacted), started/finished (UTC),
                       upstream, recorder, format (from the request path when known),
                       body file, bytes, sha256, ended_by, error, what was redacted

Two recorders write it: :func:`recording_transport` (an httpx transport for the official
SDK clients: it tees the bytes while the SDK reads them) and the proxy in ``proxy.py``
(``mcs-conformance record``). ``mcs-conformance corpus import`` and ``corpus diff`` read it.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import threading
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .. import __version__
from .capture import parse_payloads
from .redaction import Redactor

__all__ = [
    "Capture", "CaptureError", "CaptureWriter", "async_recording_transport", "find_captures", "format_of_url",
    "is_capture", "load_capture", "recording_transport",
]

LAYOUT = 1  # meta.json "capture": the version of this folder layout

# The one place a URL path names a wire format: the endpoint each format is served at.
FORMAT_BY_PATH = (
    ("/chat/completions", "openai-chat"),
    ("/responses", "openai-responses"),
    ("/messages", "anthropic-messages"),
)

_BODY_FILES = (
    ("text/event-stream", "response.sse"),
    ("application/x-ndjson", "response.jsonl"),
    ("application/jsonl", "response.jsonl"),
    ("application/json", "response.json"),
    ("text/", "response.txt"),
)


class CaptureError(ValueError):
    """A capture folder is missing a file or holds something unreadable; the message says which."""


def format_of_url(url: str) -> str | None:
    """The wire format a request URL's path is the endpoint of, or None when it is not one we know."""
    path = urlsplit(url).path.rstrip("/")
    for suffix, fmt in FORMAT_BY_PATH:
        if path.endswith(suffix):
            return fmt
    return None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _body_file(content_type: str) -> str:
    ct = content_type.split(";")[0].strip().lower()
    for prefix, name in _BODY_FILES:
        if ct.startswith(prefix):
            return name
    return "response.bin"


_counter = itertools.count(1)
_counter_lock = threading.Lock()


def _new_folder(out: Path, fmt: str | None) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    while True:
        with _counter_lock:
            n = next(_counter)
        folder = out / f"{stamp}-{n:04d}-{fmt or 'unknown'}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue


def _request_body(body: bytes, content_type: str) -> dict[str, Any]:
    if not body:
        return {}
    if "json" in content_type.lower() or body[:1] in (b"{", b"["):
        try:
            return {"body": json.loads(body)}
        except ValueError:
            pass
    try:
        return {"body_text": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"body_base64": base64.b64encode(body).decode("ascii")}


class _Decoder:
    """Removes gzip/deflate content-encoding as the bytes arrive; other encodings are kept as they are."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.error: str | None = None
        codings = [c.strip() for c in encoding.lower().split(",") if c.strip() and c.strip() != "identity"]
        if codings in (["gzip"], ["x-gzip"], ["deflate"]):
            self._z: Any = zlib.decompressobj(47)  # gzip or zlib header, detected
            self.decoded = True
        else:
            self._z = None
            self.decoded = not codings

    def feed(self, data: bytes) -> bytes:
        if self._z is None:
            return data
        try:
            return self._z.decompress(data)
        except zlib.error as exc:
            self.error = f"cannot remove the {self.encoding} encoding: {exc}"
            self._z, self.decoded = None, False
            return data

    def flush(self) -> bytes:
        return self._z.flush() if self._z is not None else b""


class CaptureWriter:
    """One capture folder being written: the request at once, the body as it arrives, meta.json at the end.

    Every file is scrubbed of every secret learned on either side, in whatever order: request.json
    is written again when the response head brings a new one, the body and meta.json are
    scrubbed when the capture closes.

    Thread-safe for one request; :meth:`close` may be called more than once (the first wins).
    """

    def __init__(
        self,
        out: str | Path,
        *,
        method: str,
        url: str,
        headers: Iterable[tuple[str, str]],
        body: bytes,
        recorder: str,
        fmt: str | None = None,
        upstream: str | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._closed = False
        self.redactor = Redactor()
        req_headers = self.redactor.headers(headers, "request")
        safe_url = self.redactor.url(url)
        parsed = _request_body(body, req_headers.get("content-type", ""))
        if "body" in parsed:
            parsed["body"] = self.redactor.json_body(parsed["body"], "request")
        self.format = fmt or format_of_url(url)
        self.folder = _new_folder(Path(out), self.format)
        parts = urlsplit(safe_url)
        self.meta: dict[str, Any] = {
            "capture": LAYOUT,
            "recorder": f"mcs-conformance {__version__} {recorder}",
            "upstream": upstream or f"{parts.scheme}://{parts.netloc}",
            "format": self.format,
            "started": _now(),
            "status": None,
        }
        # kept unscrubbed in memory: request.json is written again whenever a secret is learned later
        self._request: dict[str, Any] = {"method": method.upper(), "url": safe_url, "headers": req_headers, **parsed}
        self._known = -1
        self._write_request()
        self._file: Any = None
        self._decoder: _Decoder | None = None
        self._size = 0

    def _write_request(self) -> None:
        """(Re)write request.json scrubbed with every secret known so far; once per new secret.

        A secret may first show up in the response (an organisation id the upstream sends back
        while the client sent none): the request written before it arrived is written again."""
        if len(self.redactor.secrets) == self._known:
            return
        self._known = len(self.redactor.secrets)
        request, _ = self.redactor.scrub_value(self._request)
        body = self._request.get("body_base64")
        scrubbed = 0
        if body is not None:
            data, scrubbed = self.redactor.scrub_bytes(base64.b64decode(body))
            request["body_base64"] = base64.b64encode(data).decode("ascii")
        else:
            _, scrubbed = self.redactor.scrub_value({k: v for k, v in self._request.items() if k in ("body", "body_text")})
        if scrubbed:
            self.meta.setdefault("scrubbed", {})["request_body"] = scrubbed
        (self.folder / "request.json").write_text(json.dumps(request, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    def response(self, status: int, reason: str, headers: Iterable[tuple[str, str]]) -> None:
        """The response head: status, reason and headers (redacted); opens the body file."""
        with self._lock:
            redacted = self.redactor.headers(headers, "response")
            self.meta.update(status=status, reason=reason, headers=redacted)
            self._write_request()  # a secret first seen in these headers leaves request.json too
            name = _body_file(redacted.get("content-type", ""))
            self.meta["body_file"] = name
            self._decoder = _Decoder(redacted.get("content-encoding", ""))
            self._file = (self.folder / name).open("wb")

    def write(self, data: bytes) -> None:
        """Bytes of the body as they came off the wire (still content-encoded)."""
        with self._lock:
            if self._file is None or self._closed:
                return
            self._size += len(data)
            self._file.write(self._decoder.feed(data))  # type: ignore[union-attr]

    def close(self, ended_by: str, error: str | None = None) -> Path:
        """Finish the body file and write meta.json; returns the capture folder.

        ``ended_by``: ``"upstream"`` (the body ended), ``"client"`` (the client closed the
        response first: SDKs stop at their own end marker, e.g. ``[DONE]``) or ``"error"``.
        """
        with self._lock:
            if self._closed:
                return self.folder
            self._closed = True
            self.meta["finished"] = _now()
            self.meta["ended_by"] = ended_by
            if error:
                self.meta["error"] = error
            if self._file is not None:
                self._file.write(self._decoder.flush())  # type: ignore[union-attr]
                self._file.close()
                self._finish_body()
            self._write_request()
            self.meta["redacted"] = sorted(set(self.redactor.removed))
            meta, _ = self.redactor.scrub_value(self.meta)  # a reason or an error may echo a secret too
            (self.folder / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            return self.folder

    def _finish_body(self) -> None:
        path = self.folder / self.meta["body_file"]
        data, scrubbed = self.redactor.scrub_bytes(path.read_bytes())
        if scrubbed:
            path.write_bytes(data)
            self.meta.setdefault("scrubbed", {})["response_body"] = scrubbed
        dec = self._decoder
        assert dec is not None
        if dec.encoding:
            self.meta["content_encoding"] = dec.encoding
            self.meta["body_decoded"] = dec.decoded
        if dec.error:
            self.meta["body_error"] = dec.error
        self.meta.update(body_bytes=len(data), wire_bytes=self._size, sha256=hashlib.sha256(data).hexdigest())


# -- reading -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Capture:
    """A capture folder as read back: its request, meta and body."""

    folder: Path
    request: dict[str, Any]
    meta: dict[str, Any]

    @property
    def format(self) -> str | None:
        return self.meta.get("format")

    @property
    def body_path(self) -> Path | None:
        name = self.meta.get("body_file")
        return self.folder / name if name else None

    def body_text(self) -> str:
        path = self.body_path
        if path is None or not path.is_file():
            raise CaptureError(f"{self.folder}: no response body ({self.meta.get('error') or 'the request got no response'})")
        if self.meta.get("body_decoded") is False:
            raise CaptureError(f"{path}: the body is still {self.meta.get('content_encoding')}-encoded "
                               "(record with Accept-Encoding: gzip or identity)")
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise CaptureError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None

    def payloads(self) -> list[Any]:
        """The stream's payloads (SSE data or JSON lines); refuses an error status or a stream=false body."""
        status = self.meta.get("status")
        if status is None:
            raise CaptureError(f"{self.folder}: the request got no response ({self.meta.get('error', 'no status')})")
        text = self.body_text()
        if not 200 <= int(status) < 300:
            raise CaptureError(f"{self.folder}: the response is HTTP {status}, not a stream: {text[:200]!r}")
        if self.meta.get("body_file") == "response.json":
            raise CaptureError(f"{self.folder}: the response is a single JSON body (stream=false), not a stream; "
                               "record a request with streaming on")
        try:
            return parse_payloads(text, str(self.body_path))
        except ValueError as exc:
            raise CaptureError(str(exc)) from None

    def model(self) -> str | None:
        """The model the request asked for (``model`` in its JSON body)."""
        body = self.request.get("body")
        model = body.get("model") if isinstance(body, dict) else None
        return model if isinstance(model, str) and model else None

    @property
    def captured(self) -> str | None:
        """The capture date, YYYY-MM-DD (UTC)."""
        started = self.meta.get("started")
        return started[:10] if isinstance(started, str) and len(started) >= 10 else None


def is_capture(path: str | Path) -> bool:
    """Is ``path`` a capture folder (request.json and meta.json)?"""
    p = Path(path)
    return (p / "meta.json").is_file() and (p / "request.json").is_file()


def find_captures(path: str | Path) -> list[Path]:
    """``path`` itself when it is a capture folder, else the capture folders directly inside it, sorted."""
    p = Path(path)
    if is_capture(p):
        return [p]
    return sorted(c for c in p.iterdir() if c.is_dir() and is_capture(c)) if p.is_dir() else []


def load_capture(path: str | Path) -> Capture:
    """Read a capture folder; :class:`CaptureError` names the file that is missing or broken."""
    folder = Path(path)
    data = {}
    for name in ("request.json", "meta.json"):
        try:
            data[name] = json.loads((folder / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CaptureError(f"{folder}: not a capture folder (no {name})") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CaptureError(f"{folder / name}: cannot be read ({exc})") from None
        if not isinstance(data[name], dict):
            raise CaptureError(f"{folder / name}: expected a JSON object")
    return Capture(folder, data["request.json"], data["meta.json"])


# -- the httpx transport -------------------------------------------------------------------------

def _http_module(http: Any, inner: Any) -> Any:
    """The httpx-style module the SDK uses: given, that of ``inner``, else httpx2 (today's SDKs) or httpx."""
    if http is not None:
        return http
    if inner is not None:
        import importlib

        return importlib.import_module(type(inner).__module__.split(".")[0])
    try:
        import httpx2

        return httpx2
    except ImportError:
        pass
    try:
        import httpx  # type: ignore[import-not-found]

        return httpx
    except ImportError:
        raise ImportError("recording_transport needs httpx2 or httpx (installed with the openai and anthropic SDKs)") from None


_CLASSES: dict[str, tuple[type, type]] = {}


def _classes(http: Any) -> tuple[type, type]:
    """The sync and async transport classes for one httpx-style module (built once per module)."""
    if http.__name__ in _CLASSES:
        return _CLASSES[http.__name__]

    class _Tee(http.SyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, stream: Any, writer: CaptureWriter) -> None:
            self._stream, self._writer = stream, writer

        def __iter__(self) -> Any:
            try:
                for part in self._stream:
                    self._writer.write(part)
                    yield part
            except GeneratorExit:
                self._writer.close("client")
                raise
            except BaseException as exc:
                self._writer.close("error", f"{type(exc).__name__}: {exc}")
                raise
            self._writer.close("upstream")

        def close(self) -> None:
            try:
                self._stream.close()
            finally:
                self._writer.close("client")

    class _AsyncTee(http.AsyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, stream: Any, writer: CaptureWriter) -> None:
            self._stream, self._writer = stream, writer

        async def __aiter__(self) -> Any:
            try:
                async for part in self._stream:
                    self._writer.write(part)
                    yield part
            except GeneratorExit:
                self._writer.close("client")
                raise
            except BaseException as exc:
                self._writer.close("error", f"{type(exc).__name__}: {exc}")
                raise
            self._writer.close("upstream")

        async def aclose(self) -> None:
            try:
                await self._stream.aclose()
            finally:
                self._writer.close("client")

    def _writer(self: Any, request: Any, body: bytes) -> CaptureWriter:
        return CaptureWriter(self.out, method=request.method, url=str(request.url), headers=request.headers.multi_items(),
                             body=body, recorder="transport", fmt=self.fmt)

    def _reason(response: Any) -> str:
        phrase = response.extensions.get("reason_phrase", b"")
        return phrase.decode("latin-1") if isinstance(phrase, bytes) else str(phrase or "")

    class RecordingTransport(http.BaseTransport):  # type: ignore[misc, name-defined]
        """Forwards to ``inner`` and writes one capture per request while the client reads the response."""

        def __init__(self, out: str | Path, inner: Any, fmt: str | None) -> None:
            self.out, self.inner, self.fmt = Path(out), inner, fmt

        def handle_request(self, request: Any) -> Any:
            writer = _writer(self, request, request.read())
            try:
                response = self.inner.handle_request(request)
            except BaseException as exc:
                writer.close("error", f"{type(exc).__name__}: {exc}")
                raise
            writer.response(response.status_code, _reason(response), response.headers.multi_items())
            return http.Response(response.status_code, headers=response.headers, stream=_Tee(response.stream, writer),
                                 extensions=response.extensions, request=request)

        def close(self) -> None:
            self.inner.close()

    class AsyncRecordingTransport(http.AsyncBaseTransport):  # type: ignore[misc, name-defined]
        """The asyncio/anyio twin of RecordingTransport, for ``AsyncOpenAI`` and ``AsyncAnthropic``."""

        def __init__(self, out: str | Path, inner: Any, fmt: str | None) -> None:
            self.out, self.inner, self.fmt = Path(out), inner, fmt

        async def handle_async_request(self, request: Any) -> Any:
            writer = _writer(self, request, await request.aread())
            try:
                response = await self.inner.handle_async_request(request)
            except BaseException as exc:
                writer.close("error", f"{type(exc).__name__}: {exc}")
                raise
            writer.response(response.status_code, _reason(response), response.headers.multi_items())
            return http.Response(response.status_code, headers=response.headers,
                                 stream=_AsyncTee(response.stream, writer), extensions=response.extensions,
                                 request=request)

        async def aclose(self) -> None:
            await self.inner.aclose()

    _CLASSES[http.__name__] = (RecordingTransport, AsyncRecordingTransport)
    return _CLASSES[http.__name__]


def recording_transport(out: str | Path, *, inner: Any = None, fmt: str | None = None, http: Any = None) -> Any:
    """An httpx transport that records every request and its response into ``out`` (one capture each).

    ::

        client = openai.OpenAI(http_client=httpx2.Client(transport=recording_transport("captures")))

    ``inner`` is the transport that really sends (default: the module's ``HTTPTransport()``);
    ``fmt`` overrides the format read from the URL path; ``http`` is the httpx-style module the
    SDK uses (default: httpx2, which today's openai and anthropic SDKs are built on, else httpx).
    """
    http = _http_module(http, inner)
    return _classes(http)[0](out, inner if inner is not None else http.HTTPTransport(), fmt)


def async_recording_transport(out: str | Path, *, inner: Any = None, fmt: str | None = None, http: Any = None) -> Any:
    """:func:`recording_transport` for the async clients (``httpx2.AsyncClient(transport=...)``)."""
    http = _http_module(http, inner)
    return _classes(http)[1](out, inner if inner is not None else http.AsyncHTTPTransport(), fmt)
