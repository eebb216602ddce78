"""The ``node`` fixture of the JavaScript harness tests (tests/harnesses/js.py)."""

from __future__ import annotations

import pytest

from .js import node_with_packages


@pytest.fixture(scope="session")
def node() -> str:
    return node_with_packages()
