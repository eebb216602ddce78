"""The GitHub Action (action.yml) run on this machine, step by step in its own shell
(tests/helpers/action_runner.py): installed from its own checkout into a new virtualenv, on the
Hermes example as an author's project, once green and once on a one-bug copy; and its shape
(every input used, inputs reaching scripts only through ``env:``).

Slow (a virtualenv and an install); it needs PyPI for the package's dependencies.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers.action_runner import base_env, read_action, run_action

ROOT = Path(__file__).resolve().parents[2]
ACTION = read_action(ROOT / "action.yml")

BUGGY = '''
from hermes_strategy import HermesStrategy


class DropsLaterCalls(HermesStrategy):
    """Keeps only the first call of a message: parallel calls after it are lost."""

    def extract(self, message):
        return super().extract(message)[:1]
'''


def test_action_is_composite_and_inputs_reach_scripts_only_through_env() -> None:
    assert ACTION["runs"]["using"] == "composite"
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    for name in ACTION["inputs"]:
        assert f"inputs.{name}" in text, f"input {name!r} is declared but never used"
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            # an expression inside a script is spliced into its source: a strategy name with a quote
            # in it would run as shell; inputs go through env and are quoted there
            assert "${{" not in step["run"], f"step {step['name']!r} puts an expression into its script"
            # macOS runners' /bin/bash is 3.2: none of bash 4's builtins
            assert not re.search(r"\b(mapfile|readarray|declare -A|local -n)\b", step["run"]), step["name"]
    assert ACTION["inputs"]["strategy"].get("required") is True


def test_docs_ci_shows_the_action_with_inputs_it_declares() -> None:
    doc = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = re.findall(r"uses: \S+/mcs-conformance@\S+\n\s+with:\n((?:\s+[a-z-]+: .*\n)+)", doc)
    assert blocks, "docs/ci.md shows no job using the action"
    for block in blocks:
        used = set(re.findall(r"^\s+([a-z-]+):", block, re.M))
        assert used <= set(ACTION["inputs"]), f"docs/ci.md uses inputs the action lacks: {used - set(ACTION['inputs'])}"
        assert "strategy" in used


def test_the_action_installs_runs_summarizes_and_hands_the_report_to_upload(tmp_path: Path) -> None:
    """Three runs of the action in one new virtualenv (the runner's python): green on the Hermes
    example (installed from the action's own checkout); a one-bug copy (the suite step fails the
    job, the summary and the upload still run); a strategy path that does not import (the summary
    says no report was written). The later two name the package as a requirement, which the first
    run satisfied."""
    venv, home = tmp_path / "venv", tmp_path / "home"
    home.mkdir()
    done = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    env = base_env(venv, home)
    project = tmp_path / "workspace"
    shutil.copytree(ROOT / "examples" / "hermes", project, ignore=shutil.ignore_patterns("__pycache__", ".mcs-conformance"))
    (project / "buggy.py").write_text(BUGGY, encoding="utf-8")

    green = run_action(ROOT, {"strategy": "hermes_strategy:HermesStrategy", "corpus": "corpus", "workers": "2",
                              "report": "out/hermes.json"}, workspace=project, env=env)
    install, suite = green.step("Install mcs-conformance"), green.step("Run the conformance suite")
    assert not green.step("Set up Python").ran  # no python-version given: the python on PATH
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-3000:]
    assert f"pip install {ROOT} pytest-xdist" in install.stdout and "mcs-conformance " in install.stdout
    assert suite.returncode == 0, suite.stdout[-4000:] + suite.stderr[-2000:]
    assert suite.outputs["exit-code"] == "0" and not green.failed
    report = json.loads((project / "out" / "hermes.json").read_text(encoding="utf-8"))
    assert report["strategy"] == "hermes" and report["invariants"]["passing"] == report["invariants"]["total"] > 5
    assert "hermes" in green.summary and "|" in green.summary  # the Markdown summary, a table
    upload = green.step("Upload the report")
    assert upload.ran and upload.uses == "actions/upload-artifact@v4"
    files = upload.with_["path"].splitlines()
    assert [Path(f).name for f in files] == ["hermes.json", "hermes.md"] and all(Path(f).is_file() for f in files)

    # a one-bug strategy: the suite step fails the job; the summary and the upload still run
    (project / "out").rename(project / "out-green")
    red = run_action(ROOT, {"strategy": "buggy:DropsLaterCalls", "corpus": "corpus", "workers": "0",
                            "package": "mcs-conformance", "report": "out/hermes.json",
                            "args": "--mcs-check EXTRACT-001 -k 'EXTRACT and not GOLDEN'"}, workspace=project, env=env)
    suite = red.step("Run the conformance suite")
    assert red.failed and suite.returncode == 1 and suite.outputs["exit-code"] == "1", suite.stdout[-3000:]
    command = suite.stdout.splitlines()[0].split()
    assert "-n" not in command and "--mcs-check" in command and "EXTRACT and not GOLDEN" not in command
    assert red.step("Job summary").ran and "EXTRACT-001" in red.summary
    report = json.loads((project / "out" / "hermes.json").read_text(encoding="utf-8"))
    assert {r["id"] for r in report["results"]} == {"EXTRACT-001"}
    assert any(r["outcome"] == "failed" for r in report["results"])
    assert red.step("Upload the report").ran

    # a strategy path that does not import: a usage error; the summary says no report was written
    broken = run_action(ROOT, {"strategy": "no_such_module:Nothing", "workers": "0", "artifact-name": "",
                               "package": "mcs-conformance", "report": "none/report.json"}, workspace=project, env=env)
    suite = broken.step("Run the conformance suite")
    assert broken.failed and suite.returncode not in (0, 1)
    assert "no_such_module" in suite.stdout + suite.stderr
    assert broken.step("Job summary").returncode == 0 and "no report at" in broken.summary
    assert not broken.step("Upload the report").ran  # artifact-name empty: no upload
