"""The conformance suite: the pytest plugin that runs every check against a strategy under test.

The plugin (:mod:`.plugin`: options and collection; :mod:`.judging`: running one check
with time limits and blame; :mod:`.reporting`: the summary, badge and counterexamples),
how a strategy is named and run (:mod:`.loader`, :mod:`.settings`, :mod:`.profiles`,
:mod:`.time_limits`, and :mod:`.formats`: which format's cases are its own), the checks (:mod:`.invariants`) and what they feed (:mod:`.generators`,
:mod:`.derive`, :mod:`.synthesize`, :mod:`.json_patterns`), what an author may declare
(:mod:`.expectations`), and what a failure says (:mod:`.failures`, :mod:`.report`,
:mod:`.snapshots`, :mod:`.explain`).

May import: the reference (:mod:`mcs_conformance.reference`), corpus loading and the schemas
(:mod:`mcs_conformance.corpus_tools.corpus`, :mod:`~mcs_conformance.corpus_tools.schemas`),
pytest, hypothesis and syrupy, and the bridge's client (:mod:`mcs_conformance.bridge.client`).
Nothing outside the suite imports it but the command line and the bridge's Python server,
which reads a ``MODULE:ATTR`` path with :mod:`.loader` (a module of the standard library and
the reference alone).
"""
