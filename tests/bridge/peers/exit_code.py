"""A strategy whose process ends with os._exit(3) on the marked chunk, after starting a
child of its own that would sleep for two minutes (the suite kills the peer's whole process
group, so that child must not outlive the run); and one that exits on every chunk."""

import os
import subprocess
import sys

from mcs_conformance.strategies import TextStrategy

from . import marked


class ExitsOnMarker(TextStrategy):
    def accumulate(self, acc, chunk):
        if marked(chunk):
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
            print("exit_code: leaving with code 3", file=sys.stderr, flush=True)
            os._exit(3)
        return super().accumulate(acc, chunk)


class ExitsEveryTime(TextStrategy):
    def accumulate(self, acc, chunk):
        os._exit(3)
