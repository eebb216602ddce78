"""A strategy whose extract allocates without bound on the marked message: 64 MiB blocks,
each written (so they are resident), one every 20 ms (the watch's own period, so a loaded
machine that schedules the pytest process late still sees it on the way), up to a cap of
3 GiB as a safety net should the suite's memory watch fail, then it sleeps (the time limit
ends it)."""

import time

from mcs_conformance.strategies import TextStrategy

from . import marked

BLOCK = 64 << 20
CAP = 3 << 30


class AllocatesOnMarker(TextStrategy):
    def extract(self, message):
        if marked(message):
            blocks = []
            while len(blocks) * BLOCK < CAP:
                blocks.append(b"\xa5" * BLOCK)
                time.sleep(0.02)
            time.sleep(60)
        return super().extract(message)
