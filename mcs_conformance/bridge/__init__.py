"""The strategy bridge: a strategy in a process of its own, in any language (docs/bridge.md).

:mod:`.messages` holds protocol version 1 (commands, tool calls and records, errors as
data); :mod:`.client` starts a peer and stands for it as an ``ExtractionStrategy`` the suite
judges, reporting a peer that dies, overspends memory, hangs or breaks the protocol as a
:class:`~.client.PeerFailure`; :mod:`.server` and ``server.mjs`` turn a strategy object into
a peer, in Python and in JavaScript.

May import: the reference (:mod:`mcs_conformance.reference`). The suite imports the client;
the Python server reads a ``MODULE:ATTR`` path with the suite's loader.
"""
