"""Helpers for the tests that run pytest or the command line in a scratch project: the author
case of two text-json calls, and the environment of a subprocess run."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

CASE_ID = "text-json/two-calls"
_TEXT_PARTS = [
    "Checking both. ",
    '{"tool": "get_weather", "arguments": {"city": "Paris"}}',
    " and ",
    '{"tool": "get_time", "arguments": {"tz": "CET"}}',
]
TWO_CALLS = {
    "id": CASE_ID,
    "format": "text-json",
    "description": "Two JSON tool calls written in plain text after a short sentence.",
    "provenance": {
        "kind": "synthetic",
        "source": "mcs-conformance",
        "license": "Apache-2.0",
        "why": "a text stream with two calls, written for the plugin's own tests",
    },
    "tags": ["parallel"],
    "chunks": _TEXT_PARTS,
    "expect": {
        "message": "".join(_TEXT_PARTS),
        "calls": [
            {"name": "get_weather", "arguments": {"city": "Paris"}, "id": None},
            {"name": "get_time", "arguments": {"tz": "CET"}, "id": None},
        ],
        "content_text": "".join(_TEXT_PARTS),
        "done": False,
        "claimed_by": "text-json",
        "extracted_by": "text-json",
    },
}


def subprocess_env(project: Path) -> dict[str, str]:
    """Environment for a pytest subprocess: the project importable, bytecode cached outside the tree.

    Every fresh interpreter re-compiles (and assertion-rewrites) the plugin's dependencies when
    bytecode writing is off; a shared cache folder in the temp dir keeps each run to its own cost.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / f"mcs-conformance-tests-pycache-{os.getuid()}")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(project), os.environ.get("PYTHONPATH")]))
    return env
