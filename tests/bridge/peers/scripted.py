"""A peer written by hand for the client's unit tests (tests/bridge/test_client.py).

``python scripted.py MODE LOG [FLAG]``: MODE picks the handshake (``ok``; ``v2``, another
protocol version; ``noname``; ``notjson``; ``dies``, exit 7 before answering; ``few``,
without forming_name and render; ``once``, a second process, told by the FLAG file, exits
with code 9 before answering). Every request is appended to the LOG file (a JSON line)
before it is answered. A text stream: ``accumulate`` appends str chunks, and some chunks
act: ``crash`` exits with code 3; ``malformed``, ``value``, ``bug`` and an object with an
``error`` key are answered as the protocol's errors; ``spin`` burns 0.3 s of CPU;
``noise:BYTES`` writes that much to stderr, then answers; ``flood:BYTES`` writes that much
(into a pipe made 1 MiB, so the suite's reader may fall behind) and a last line, then
exits with code 4.
"""

import fcntl
import json
import os
import sys
import time

MODE, LOG = sys.argv[1], sys.argv[2]
MEMBERS = ["recognizes", "accumulate", "is_done", "extract", "content_text", "forming_name", "result_messages", "render"]
LAST_LINE = "scripted: the last line before exiting"


def hello():
    members = [m for m in MEMBERS if m not in ("forming_name", "render")] if MODE == "few" else MEMBERS
    out = {"protocol": 2 if MODE == "v2" else 1, "name": "scripted", "leaks_into_text": False, "members": members,
           "implementation": {"name": "scripted", "version": "1", "language": "python"}}
    if MODE == "noname":
        del out["name"]
    return out


class Refused(Exception):
    def __init__(self, kind, name, message, payload=None):
        super().__init__(message)
        self.error = {"type": kind, "name": name, "message": message}
        if kind == "StreamError":
            self.error["payload"] = payload


def accumulate(streams, n, chunk):
    if chunk == "crash":
        print("scripted: crashing on purpose", file=sys.stderr, flush=True)
        os._exit(3)
    if chunk == "malformed":
        raise Refused("MalformedChunk", "MalformedChunk", "cannot fold 'malformed'")
    if chunk == "value":
        raise Refused("ValueError", "ValueError", "not a chunk of this format")
    if chunk == "bug":
        raise Refused("Error", "KeyError", "'choices'")
    if isinstance(chunk, dict) and "error" in chunk:
        raise Refused("StreamError", "StreamError", "the provider reported an error", chunk)
    if chunk == "spin":
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass
    if isinstance(chunk, str) and chunk.startswith("flood:"):
        fcntl.fcntl(2, 1031, 1 << 20)  # F_SETPIPE_SZ: the suite's reader falls behind a whole MiB
        line = b"x" * 999 + b"\n"
        for _ in range(int(chunk[len("flood:"):]) // 1000):
            os.write(2, line)
        os.write(2, LAST_LINE.encode() + b"\n")
        os._exit(4)
    if isinstance(chunk, str) and chunk.startswith("noise:"):
        line = b"n" * 999 + b"\n"
        for _ in range(int(chunk[len("noise:"):]) // 1000):
            os.write(2, line)
        return ""
    text = chunk if isinstance(chunk, str) else ""
    streams[n] = streams.get(n, "") + text
    return text


def answer(req, streams):
    cmd = req["cmd"]
    if cmd == "start":
        return hello()
    if cmd == "ping":
        return None
    if cmd == "accumulate":
        return accumulate(streams, req["stream"], req["chunk"])
    if cmd == "as_dict":
        return streams.get(req["stream"])
    if cmd == "recognizes":
        return isinstance(req["shape"], str)
    if cmd == "is_done":
        return req["chunk"] == "."
    if cmd == "extract":
        return [{"name": "f", "arguments": {"text": req["message"]}, "id": "c1"}]
    if cmd == "content_text":
        return req["message"]
    if cmd == "forming_name":
        return None
    if cmd == "result_messages":
        return []
    if cmd == "render":
        return ";".join(c["name"] for c in req["calls"])
    raise Refused("Error", "KeyError", f"no command {cmd!r}")


def main():
    if MODE == "dies":
        print("scripted: cannot load the model weights", file=sys.stderr, flush=True)
        sys.exit(7)
    if MODE == "once":
        flag = sys.argv[3]
        if os.path.exists(flag):
            print("scripted: the port is still taken by the first process", file=sys.stderr, flush=True)
            sys.exit(9)
        open(flag, "w").close()
    streams = {}
    log = open(LOG, "a", encoding="utf-8")
    for line in sys.stdin:
        req = json.loads(line)
        log.write(line if line.endswith("\n") else line + "\n")
        log.flush()
        for n in req.get("drop", ()):
            streams.pop(n, None)
        if MODE == "notjson":
            sys.stdout.write("hello, suite\n")
        else:
            try:
                reply = {"id": req["id"], "ok": answer(req, streams)}
            except Refused as exc:
                reply = {"id": req["id"], "error": exc.error}
            sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
