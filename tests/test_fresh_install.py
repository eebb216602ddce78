"""End to end, as a new user: build the wheel and sdist, install the wheel into a fresh
virtualenv outside the repository, copy an example strategy out, run the suite on it.

Slow (a virtualenv and an install); it needs PyPI for the wheel's dependencies.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path, env: dict | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = run(sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), str(ROOT), cwd=ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def test_wheel_and_sdist_carry_corpus_and_schemas(dists: Path) -> None:
    wheel = next(dists.glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "mcs_conformance/corpus/manifest.json" in names
    assert "mcs_conformance/schemas/case.schema.json" in names
    assert any(n.startswith("mcs_conformance/corpus/cases/openai-chat/") for n in names)
    assert any(n.startswith("mcs_conformance/corpus/descriptors/") for n in names)
    manifest = json.loads(zipfile.ZipFile(wheel).read("mcs_conformance/corpus/manifest.json"))
    cases = [n for n in names if n.startswith("mcs_conformance/corpus/cases/") and n.endswith(".json")]
    assert manifest["cases"] == len(cases)
    sdist = next(dists.glob("*.tar.gz"))
    members = tarfile.open(sdist).getnames()
    assert any(m.endswith("mcs_conformance/corpus/manifest.json") for m in members)


def test_fresh_virtualenv_runs_the_suite_on_a_copied_example(dists: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    assert run(sys.executable, "-m", "venv", str(venv), cwd=tmp_path).returncode == 0
    py = venv / "bin" / "python"
    wheel = next(dists.glob("*.whl"))
    done = run(str(py), "-m", "pip", "install", "--quiet", str(wheel), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    project = tmp_path / "author"
    shutil.copytree(ROOT / "examples" / "hermes", project, ignore=shutil.ignore_patterns("__pycache__", ".mcs-conformance"))
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "PYTHONPATH": str(project), "HOME": str(tmp_path), "CI": "true"}
    done = run(str(venv / "bin" / "mcs-conformance"), "check", "hermes_strategy:HermesStrategy", "--mcs-corpus=corpus",
               cwd=project, env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "mcs-conformance summary" in done.stdout
    report = json.loads((project / ".mcs-conformance" / "report.json").read_text())
    assert report["strategy"] == "hermes" and report["invariants"]["passing"] == report["invariants"]["total"] > 5
    assert not any(r["outcome"] == "failed" for r in report["results"])
