"""A pytest plugin (``-p tests.bridge.peers.suite_bug``) registering a check with a bug of
the suite's own: it calls the bridged strategy (which answers) and then raises KeyError.
The item must be reported as the suite's fault, not the strategy's."""

from mcs_conformance.suite.invariants.base import check


@check("ZZZ-901", "a check that calls the peer, then fails on its own", scope="strategy",
       why="a bug in the suite stays the suite's when the strategy runs through the bridge")
def calls_the_peer_then_breaks(subject, case):
    assert subject.strategy.recognizes("text") is True
    return {}["no such key"]
