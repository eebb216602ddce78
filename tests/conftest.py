"""Shared test setup: pytester, for the tests that run the conformance plugin in a scratch project."""

pytest_plugins = ["pytester"]
