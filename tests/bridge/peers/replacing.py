"""``python -m tests.bridge.peers.replacing FORM MODULE:ATTR``: the Python server behind a
JSON layer that replaces what is not valid Unicode with U+FFFD both ways, as Go's
``encoding/json`` (and other languages' default decoders) does with a lone surrogate.

FORM ``json`` asks for nothing in its handshake, so a lone surrogate in a request reaches
the strategy as U+FFFD; FORM ``wtf8-marked`` asks for the marked form (docs/bridge.md, "Text
that is not valid Unicode") and decodes and writes marked strings itself, as such a peer
must, so the strategy sees the text as it was sent."""

import base64
import json
import re
import sys

from mcs_conformance.bridge import server

FORM = sys.argv.pop(1)
MARK = "\x00wtf8:"
LONE = re.compile("[\ud800-\udfff]")


def _walk(value, each):
    if isinstance(value, str):
        return each(value)
    if isinstance(value, dict):
        return {each(k): _walk(v, each) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, each) for v in value]
    return value


def _replaced(text):  # the default decoder's and encoder's answer to a lone surrogate
    return LONE.sub("\ufffd", text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass"))


def _unmarked(text):
    if FORM == "wtf8-marked" and text.startswith(MARK):
        return base64.b64decode(text[len(MARK):]).decode("utf-8", "surrogatepass")
    return text


def _marked(text):
    if FORM == "wtf8-marked" and (LONE.search(text) or text.startswith(MARK)):
        return MARK + base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")
    return text


class _Requests:
    """stdin as the strategy's language reads it: replaced, then unmarked."""

    def __init__(self, raw):
        self.raw = raw

    def __iter__(self):
        for line in self.raw:
            yield json.dumps(_walk(_walk(json.loads(line), _replaced), _unmarked)).encode("utf-8", "surrogatepass")


class _Replies:
    """stdout as the strategy's language writes it: marked, then replaced; the handshake asks
    for the marked form when FORM says so."""

    def __init__(self, raw):
        self.raw = raw

    def write(self, data):
        reply = json.loads(data)
        if isinstance(reply.get("ok"), dict) and reply["ok"].get("protocol") == 1 and FORM == "wtf8-marked":
            reply["ok"]["string_form"] = FORM
        self.raw.write(json.dumps(_walk(_walk(reply, _marked), _replaced)).encode("ascii") + b"\n")

    def flush(self):
        self.raw.flush()


if __name__ == "__main__":
    out = server._protocol_out()
    from mcs_conformance.suite.loader import load_strategy

    server.serve(load_strategy(sys.argv[1]), out=_Replies(out), inp=_Requests(server._IN))
