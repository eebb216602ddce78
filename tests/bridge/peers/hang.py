"""A strategy whose extract sleeps for a minute on the marked message: the suite's time
limit (--mcs-timeout) fails that item and kills the process. When MCS_HOSTILE_ASLEEP names
a file, the strategy creates it as it falls asleep (a test waits for that)."""

import os
import time

from mcs_conformance.strategies import TextStrategy

from . import marked


class HangsOnMarker(TextStrategy):
    def extract(self, message):
        if marked(message):
            asleep = os.environ.get("MCS_HOSTILE_ASLEEP")
            if asleep:
                open(asleep, "w").close()
            time.sleep(60)
        return super().extract(message)
