"""A strategy that writes 150 KB to stderr on every chunk (more than a pipe holds, so it
would block if the suite did not read it), and on the marked one writes a last line and
exits with code 4: the suite drains stderr and shows only the last lines."""

import os
import sys

from mcs_conformance.strategies import TextStrategy

from . import marked

LAST_WORDS = "stderr_flood: these are the last words"


class FloodsStderr(TextStrategy):
    def accumulate(self, acc, chunk):
        for _ in range(150):
            sys.stderr.write("noise " * 170 + "\n")  # about 1,000 bytes a line
        sys.stderr.flush()
        if marked(chunk):
            print(LAST_WORDS, file=sys.stderr, flush=True)
            os._exit(4)
        return super().accumulate(acc, chunk)
