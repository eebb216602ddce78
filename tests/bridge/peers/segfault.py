"""A strategy that reads address 0 through ctypes on the marked chunk: the process dies of
SIGSEGV, as a strategy crashing in a C extension does."""

import ctypes

from mcs_conformance.strategies import TextStrategy

from . import marked


class SegfaultOnMarker(TextStrategy):
    def accumulate(self, acc, chunk):
        if marked(chunk):
            ctypes.string_at(0)
        return super().accumulate(acc, chunk)
