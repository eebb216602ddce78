"""A strategy that writes to stdout in every way Python has (print at import time and on
every call, sys.stdout, sys.__stdout__, os.write on fd 1): the Python server keeps the
protocol on a stream of its own, so every item passes."""

import os
import sys

from mcs_conformance.strategies import TextStrategy

print("stdout_garbage: printed while the module is imported")


def _garbage(what):
    print(f"garbage from {what}")
    sys.stdout.write('{"id": 1, "ok": "a reply that is no reply"}\n')
    sys.stdout.flush()
    sys.__stdout__.write("not JSON at all\n")
    sys.__stdout__.flush()
    os.write(1, b"\x00\xff raw bytes on fd 1\n")


class PrintsGarbage(TextStrategy):
    def recognizes(self, shape):
        _garbage("recognizes")
        return super().recognizes(shape)

    def accumulate(self, acc, chunk):
        _garbage("accumulate")
        return super().accumulate(acc, chunk)

    def extract(self, message):
        _garbage("extract")
        return super().extract(message)

    def content_text(self, message):
        _garbage("content_text")
        return super().content_text(message)
