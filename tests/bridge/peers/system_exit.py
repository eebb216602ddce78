"""A strategy that raises SystemExit(5) reading the marked message: the server answers an
Exception as data, but SystemExit ends the process."""

from mcs_conformance.strategies import TextStrategy

from . import marked


class SystemExitOnMarker(TextStrategy):
    def extract(self, message):
        if marked(message):
            raise SystemExit(5)
        return super().extract(message)
