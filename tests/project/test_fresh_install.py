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

ROOT = Path(__file__).resolve().parents[2]


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

    # a new strategy module in an empty folder, run with the command docs/authoring.md gives:
    # the first run says what to do about snapshots (and fails), the command it prints
    # creates them, the second run is green
    mine = tmp_path / "mine"
    (mine / "my_pkg").mkdir(parents=True)
    (mine / "my_pkg" / "__init__.py").write_text("", encoding="utf-8")
    (mine / "my_pkg" / "mytext.py").write_text(
        "from mcs_conformance.strategies import TextStrategy\n\n\n"
        "class MyText(TextStrategy):\n    name = \"mytext\"\n", encoding="utf-8")
    env = {**env, "PYTHONPATH": str(mine)}
    args = (str(venv / "bin" / "python"), "-m", "pytest", "--mcs-strategy=my_pkg.mytext:MyText", "--mcs-only", "-q")
    first = run(*args, cwd=mine, env=env)
    assert first.returncode == 1, first.stdout[-3000:] + first.stderr[-2000:]
    assert first.stdout.count("do not exist yet") == 1 and " failed" not in first.stdout.splitlines()[-1]
    command = next(line.strip() for line in first.stdout.splitlines() if line.strip().endswith("--snapshot-update"))
    made = run("bash", "-c", command, cwd=mine, env={k: v for k, v in env.items() if k != "PYTHONPATH"})
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-2000:]
    assert list((mine / "tests" / "mcs-conformance" / "mytext@my_pkg.mytext.MyText" / "__snapshots__" / "golden").iterdir())
    second = run(*args, cwd=mine, env=env)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-2000:]


def test_a_clone_with_no_sibling_folders_runs_the_data_tests_and_rebuilds_the_corpus(tmp_path: Path) -> None:
    """The repository is self-contained: copied alone into an empty folder (no sibling folders,
    nothing beside it), the tests that read recordings pass, and the corpus builder run on the
    vendored recordings reproduces the committed corpus byte for byte."""
    listed = run("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", cwd=ROOT)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    clone = tmp_path / "alone" / "mcs-conformance"
    for rel in filter(None, listed.stdout.split("\0")):
        if (ROOT / rel).is_file():
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, clone / rel)
    assert sorted(p.name for p in clone.parent.iterdir()) == ["mcs-conformance"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CI": "true", "PYTHONDONTWRITEBYTECODE": "1"}
    where = run(sys.executable, "-c", "import mcs_conformance; print(mcs_conformance.__file__)", cwd=clone, env=env)
    assert where.stdout.startswith(str(clone)), where.stdout + where.stderr
    readers = sorted(str(p.relative_to(clone)) for p in (clone / "tests").rglob("test_*.py")
                     if "realdata" in p.read_text(encoding="utf-8"))
    assert len(readers) >= 5
    done = run(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", *readers, cwd=clone, env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    cases = clone / "mcs_conformance" / "corpus" / "cases"
    before = {p: p.read_bytes() for p in cases.rglob("*.json")}
    built = run(sys.executable, "scripts/build_corpus.py", cwd=clone, env={**env, "PYTHONPATH": str(clone)})
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    after = {p: p.read_bytes() for p in cases.rglob("*.json")}
    changed = sorted(str(p.relative_to(cases)) for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    assert not changed, f"the corpus builder does not reproduce these cases from recordings/: {changed[:10]}"
