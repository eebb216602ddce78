"""``python -m tests.bridge.peers.no_cpu_time MODULE:ATTR``: the Python server without the
optional ``cpu_time`` member in its handshake, as a peer whose language has no CPU clock of
its own: COST then times the peer's process and the suite's together, less the bridge's own
cost measured with ``ping``."""

import sys

from mcs_conformance.bridge import server

server.MEASURES = ()

if __name__ == "__main__":
    sys.exit(server.main())
