"""A strategy whose process exits with code 3 on the marked chunk and cannot start again:
a second process (the suite's restart) exits with code 9 at import, before the handshake,
as a strategy that holds a lock or a port would. MCS_HOSTILE_FLAG names the file that
tells the second process from the first."""

import os
import sys

from mcs_conformance.strategies import TextStrategy

from . import marked

_FLAG = os.environ["MCS_HOSTILE_FLAG"]
if os.path.exists(_FLAG):
    print("no_restart: the first process still holds the lock; giving up", file=sys.stderr, flush=True)
    os._exit(9)
open(_FLAG, "w").close()


class ExitsAndCannotRestart(TextStrategy):
    def accumulate(self, acc, chunk):
        if marked(chunk):
            os._exit(3)
        return super().accumulate(acc, chunk)
