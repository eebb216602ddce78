"""The documents that describe the code stay true to it."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from mcs_conformance.suite.invariants import CHECKS

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_invariants_doc", ROOT / "scripts" / "gen_invariants_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_invariants_reference_is_generated_from_the_registry() -> None:
    doc = (ROOT / "docs" / "invariants.md").read_text(encoding="utf-8")
    assert doc == _generator().render(), "docs/invariants.md is stale: run python scripts/gen_invariants_doc.py"


def test_every_invariant_is_documented_with_an_example_failure() -> None:
    doc = (ROOT / "docs" / "invariants.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### ([A-Z]+-\d{3})$", doc, re.M)
    assert sorted(headings) == sorted(CHECKS) and len(headings) == len(set(headings))
    missing = [cid for cid in CHECKS if not (ROOT / "docs" / "examples" / f"{cid}.txt").exists()]
    assert not missing, f"no captured example failure for {missing}: run python scripts/gen_invariants_doc.py --capture"


def test_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in readme and "scripts/test.sh" in ci
    assert "bash scripts/example.sh" in readme


def test_plugin_options_are_documented() -> None:
    guide = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    plugin = (ROOT / "mcs_conformance" / "suite" / "plugin.py").read_text(encoding="utf-8")
    for option in re.findall(r'addoption\("(--mcs-[a-z-]+)"', plugin):
        assert option in guide, f"{option} is not in docs/authoring.md"
