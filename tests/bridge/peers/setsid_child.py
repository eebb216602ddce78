"""A strategy that, on the marked chunk, starts a child in a session of its own (``setsid``:
it leaves the peer's process group, as a daemonising helper does) and goes on serving; every
item passes. The child sleeps for five minutes: a run that leaves it behind is caught by the
test's look for processes carrying the run's token."""

import os
import subprocess
import sys
import time

from mcs_conformance.strategies import TextStrategy

from . import marked


class StartsSessionOnMarker(TextStrategy):
    def accumulate(self, acc, chunk):
        if marked(chunk):
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return super().accumulate(acc, chunk)


class StartsSessionThenExits(TextStrategy):
    def accumulate(self, acc, chunk):
        if marked(chunk):
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            os._exit(3)
        return super().accumulate(acc, chunk)


class StartsSessionThenHangs(TextStrategy):
    """On the marked message, starts the child, says it is asleep (MCS_HOSTILE_ASLEEP), and
    hangs: the test kills pytest then, and the child must go with the peer."""

    def extract(self, message):
        if marked(message):
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            open(os.environ["MCS_HOSTILE_ASLEEP"], "w").close()
            time.sleep(60)
        return super().extract(message)
