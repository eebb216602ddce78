"""A peer that speaks the protocol by hand (no server): it serves the reference text
strategy and, on the ``accumulate`` request whose chunk holds the marker, breaks the
protocol in the way its first argument names:

- ``wrong-id``: answers with the id of the request after it;
- ``bad-json``: writes a reply cut off in the middle;
- ``not-reply``: writes a JSON line that is no reply, then the reply;
- ``endless-line``: writes bytes with no newline, 2 GiB at most, then sleeps;
- ``extra-line``: writes the reply, then a second copy of it that nothing asked for;
- ``truncated-exit``: writes the first half of the reply, no newline, and exits with code 0.

``python raw.py MODE [TOKEN]``: the token is not read; it marks the process for the test
that looks for processes left behind.
"""

import json
import sys
import time

from mcs_conformance.reference.accumulator import Accumulator
from mcs_conformance.reference.protocol import ToolCall, ToolCallRecord
from mcs_conformance.strategies import TextStrategy

MARKER = "zoo"
MEMBERS = ["recognizes", "accumulate", "is_done", "extract", "content_text", "forming_name", "result_messages", "render"]


def _call(c):
    return {"name": c.name, "arguments": c.arguments, "id": c.id, "raw_arguments": c.raw_arguments, "error": c.error}


def _tool_call(c):
    return ToolCall(name=c["name"], arguments=c.get("arguments", {}), id=c.get("id"),
                    raw_arguments=c.get("raw_arguments"), error=c.get("error"))


def _record(r):
    try:
        return ToolCallRecord(call=_tool_call(r["call"]), result=r["result"], is_error=r["is_error"])
    except (TypeError, KeyError):
        return r  # what is no record reaches the strategy as it is


def _each(convert, values):
    out = []
    for v in values:
        try:
            out.append(convert(v))
        except (TypeError, KeyError):
            out.append(v)
    return out


def _answer(s, streams, req):
    cmd = req["cmd"]
    if cmd == "start":
        return {"protocol": 1, "name": s.name, "leaks_into_text": s.leaks_into_text, "members": MEMBERS,
                "implementation": {"name": "raw-peer", "version": "1", "language": "python"}}
    if cmd == "ping":
        return None
    if cmd == "as_dict":
        acc = streams.get(req["stream"])
        return None if acc is None else acc.message
    if cmd == "accumulate":
        return s.accumulate(streams.setdefault(req["stream"], Accumulator()), req["chunk"])
    if cmd in ("recognizes", "is_done"):
        return getattr(s, cmd)(req.get("shape", req.get("chunk")))
    if cmd == "extract":
        return [_call(c) for c in s.extract(req["message"])]
    if cmd in ("content_text", "forming_name"):
        return getattr(s, cmd)(req["message"])
    if cmd == "result_messages":
        return s.result_messages(req["message"], [_record(r) for r in req["records"]])
    if cmd == "render":
        return s.render(_each(_tool_call, req["calls"]))
    raise KeyError(cmd)


def _write(data):
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def main():
    mode = sys.argv[1]
    s, streams = TextStrategy(), {}
    for line in sys.stdin.buffer:
        req = json.loads(line)
        for n in req.get("drop", ()):
            streams.pop(n, None)
        try:
            reply = {"id": req["id"], "ok": _answer(s, streams, req)}
        except Exception as exc:  # noqa: BLE001 -- errors are data
            kind = "MalformedChunk" if type(exc).__name__ == "MalformedChunk" else \
                "ValueError" if isinstance(exc, ValueError) else "Error"
            reply = {"id": req["id"], "error": {"type": kind, "name": type(exc).__name__, "message": str(exc)}}
        data = json.dumps(reply).encode() + b"\n"
        if req["cmd"] == "accumulate" and MARKER in str(req.get("chunk")):
            if mode == "wrong-id":
                data = json.dumps(dict(reply, id=req["id"] + 1)).encode() + b"\n"
            elif mode == "bad-json":
                data = data[: len(data) // 2] + b"\n"
            elif mode == "not-reply":
                _write(b'{"log": "accumulating a chunk with the marker"}\n')
            elif mode == "endless-line":
                block = b"x" * (1 << 20)
                for _ in range(2048):
                    _write(block)
                time.sleep(60)
            elif mode == "extra-line":
                data += data
            elif mode == "truncated-exit":
                _write(data[: len(data) // 2])
                sys.exit(0)
        _write(data)


if __name__ == "__main__":
    main()
