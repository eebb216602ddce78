"""The Python server of the bridge: turn a strategy object into a peer (docs/bridge.md).

``python -m mcs_conformance.bridge.server MODULE:ATTR`` serves the strategy at that path
(what ``--mcs-isolate`` starts); ``serve(strategy)`` serves an object from a script. The
process's stdout is moved to stderr before the strategy's code runs, so a stray ``print``
(or a C library writing to fd 1) cannot corrupt the protocol. An exception the strategy
raises is answered as data; a ``SystemExit``, a crash or ``os._exit`` ends the process,
which the suite reports.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, BinaryIO

from .. import __version__
from ..reference.accumulator import Accumulator
from ..reference.protocol import ToolCall
from .messages import MEASURES, MEMBERS, OPTIONAL_MEMBERS, PROTOCOL, call_or_value, call_to_wire, error_to_wire, record_or_value

__all__ = ["main", "serve"]


def _protocol_out() -> BinaryIO:
    """A private copy of fd 1 for the protocol; fd 1 and sys.stdout now go to stderr, and
    fd 0 and sys.stdin read nothing (a strategy's ``input()`` cannot eat a request)."""
    global _IN
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _IN = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")
    return out


def serve(strategy: Any, *, out: BinaryIO | None = None, inp: BinaryIO | None = None) -> None:
    """Answer requests on stdin until it closes."""
    out = out if out is not None else _OUT
    if out is None and _OUT is None:
        out = _protocol_out()
    inp = inp if inp is not None else (_IN or sys.stdin.buffer)
    handlers = _handlers(strategy)
    streams: dict[int, Accumulator] = {}
    for line in inp:
        if not line.strip():
            continue
        request = json.loads(line)
        rid = request.get("id")
        for n in request.get("drop", ()):
            streams.pop(n, None)
        cmd = request.get("cmd")
        try:
            handler = handlers.get(cmd)
            if handler is None:
                raise _Unknown(f"no command {cmd!r} (this peer serves {', '.join(sorted(handlers))})")
            reply = {"id": rid, "ok": handler(request, streams)}
            if cmd == "accumulate" and request.get("and_is_done") and "is_done" in handlers:
                reply["is_done"] = _answer(handlers["is_done"], request, streams)
            data = json.dumps(reply, separators=(",", ":"))
        except Exception as exc:  # noqa: BLE001 -- what the strategy raised is the answer
            data = json.dumps({"id": rid, "error": _error(exc)}, separators=(",", ":"), default=repr)
        out.write(data.encode("ascii") + b"\n")
        out.flush()


class _Unknown(Exception):
    pass


def _answer(handler: Any, request: dict, streams: dict[int, Accumulator]) -> dict[str, Any]:
    """``{"ok": value}`` or ``{"error": ...}``: the is_done answer carried by an accumulate reply."""
    try:
        value = handler(request, streams)
        json.dumps(value)
        return {"ok": value}
    except Exception as exc:  # noqa: BLE001 -- what the strategy raised is the answer
        return {"error": _error(exc)}


def _error(exc: Exception) -> dict[str, Any]:
    error = error_to_wire(exc)
    if "payload" in error:
        try:
            json.dumps(error["payload"])
        except (TypeError, ValueError):
            error["payload"] = repr(error["payload"])
    return error


def _handlers(s: Any) -> dict[str, Any]:
    def stream(request: dict, streams: dict[int, Accumulator]) -> Accumulator:
        n = request["stream"]
        if n not in streams:
            streams[n] = Accumulator()
        return streams[n]

    def calls(value: Any, what: str) -> list[dict]:
        if not isinstance(value, list):
            raise TypeError(f"{what} returned {type(value).__name__}, not a list of ToolCall")
        for i, c in enumerate(value):
            if not isinstance(c, ToolCall):
                raise TypeError(f"{what} returned item {i} of type {type(c).__name__}, not ToolCall")
        return [call_to_wire(c) for c in value]

    table = {
        "start": lambda r, _: _hello(s),
        "ping": lambda r, _: None,
        "as_dict": lambda r, st: st[r["stream"]].message if r["stream"] in st else None,
        "recognizes": lambda r, _: s.recognizes(r.get("shape")),
        "accumulate": lambda r, st: s.accumulate(stream(r, st), r.get("chunk")),
        "is_done": lambda r, _: s.is_done(r.get("chunk")),
        "extract": lambda r, _: calls(s.extract(r.get("message")), "extract"),
        "content_text": lambda r, _: s.content_text(r.get("message")),
        "forming_name": lambda r, _: s.forming_name(r.get("message")),
        "result_messages": lambda r, _: s.result_messages(r.get("message"), _each(record_or_value, r.get("records"))),
        "render": lambda r, _: s.render(_each(call_or_value, r.get("calls"))),
    }
    present = {m for m in (*MEMBERS, *OPTIONAL_MEMBERS) if callable(getattr(s, m, None))}
    out = {cmd: fn for cmd, fn in table.items() if cmd in present or cmd in ("start", "ping")}
    spent = [0.0]  # CPU seconds inside the strategy's own code (cpu_time): what COST judges

    def timed(fn: Any) -> Any:
        def run(request: dict, streams: dict[int, Accumulator]) -> Any:
            start = time.process_time()
            try:
                return fn(request, streams)
            finally:
                spent[0] += time.process_time() - start
        return run

    for cmd in (*present, "as_dict"):
        out[cmd] = timed(table[cmd])
    out["cpu_time"] = lambda r, _: spent[0]  # MEASURES
    return out


def _each(convert: Any, values: Any) -> Any:
    return [convert(v) for v in values] if isinstance(values, list) else values


def _hello(s: Any) -> dict[str, Any]:
    cls = type(s)
    return {
        "protocol": PROTOCOL,
        "name": getattr(s, "name", None),
        "leaks_into_text": getattr(s, "leaks_into_text", None),
        "implementation": {"name": f"{cls.__module__}.{cls.__qualname__}", "version": __version__,
                           "language": f"python {sys.version.split()[0]}"},
        "members": [m for m in (*MEMBERS, *OPTIONAL_MEMBERS) if callable(getattr(s, m, None))] + list(MEASURES),
    }


_OUT: BinaryIO | None = None
_IN: BinaryIO | None = None


def main(argv: list[str] | None = None) -> int:
    """``python -m mcs_conformance.bridge.server MODULE:ATTR``."""
    global _OUT
    args = sys.argv[1:] if argv is None else argv
    _OUT = _protocol_out()  # before the strategy's module runs: its prints go to stderr
    if len(args) != 1:
        print("usage: python -m mcs_conformance.bridge.server MODULE:ATTR", file=sys.stderr)
        return 2
    from ..suite.loader import StrategyPathError, load_strategy

    try:
        strategy = load_strategy(args[0])
    except StrategyPathError as exc:
        print(f"{args[0]}: {exc}", file=sys.stderr)
        return 2
    serve(strategy)  # the suite refuses a strategy that lacks members, from the handshake's list
    return 0


if __name__ == "__main__":
    sys.exit(main())
