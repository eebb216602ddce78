"""The corpus and its tooling: reading the bundled cases, recording new streams, importing them.

Loading and validating the corpus (:mod:`.corpus`, :mod:`.schemas`), recording real
traffic (:mod:`.recording`: an httpx transport; :mod:`.proxy`: an HTTP proxy;
:mod:`.redaction`; :mod:`.capture`: reading a capture back), turning a capture into a case
(:mod:`.importer`, with the official SDKs' accumulators run offline as the oracle,
:mod:`.oracles`), and comparing new captures with the corpus (:mod:`.drift`, which reads a
format through :mod:`.drift_facts` and :mod:`.schema_places`).

May import: the reference (:mod:`mcs_conformance.reference`), jsonschema, and the optional
SDKs the oracles run. Must not import the conformance suite (:mod:`mcs_conformance.suite`: the
plugin, the invariants); ``tests/reference/test_boundary.py`` checks it.
"""
