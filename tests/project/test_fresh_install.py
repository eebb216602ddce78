"""The repository stands alone: copied into an empty folder, it imports from itself and its
corpus builder reproduces the committed corpus from the vendored recordings; and no test opens a
file beside the clone (tests/conftest.py's guard, proven here to fire).

The install as a new user (the wheel and sdist built, checked against the tree, installed into an
empty virtualenv outside the clone, the example and the suite run from it) is scripts/release.py,
a step of scripts/test.sh of its own.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path, env: dict | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def test_a_clone_alone_imports_itself_and_rebuilds_the_corpus(tmp_path: Path) -> None:
    """Copied alone into an empty folder (no sibling folders, nothing beside it), the package
    imports from the copy and the corpus builder run on the vendored recordings reproduces the
    committed corpus byte for byte. (The tests that read recordings run in every session under
    the guard of tests/conftest.py, which fails any open beside the clone.)"""
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
    cases = clone / "mcs_conformance" / "corpus" / "cases"
    before = {p: p.read_bytes() for p in cases.rglob("*.json")}
    built = run(sys.executable, "scripts/build_corpus.py", cwd=clone, env={**env, "PYTHONPATH": str(clone)})
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    after = {p: p.read_bytes() for p in cases.rglob("*.json")}
    changed = sorted(str(p.relative_to(cases)) for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    assert not changed, f"the corpus builder does not reproduce these cases from recordings/: {changed[:10]}"


def test_the_guard_refuses_a_file_beside_the_clone(tmp_path: Path) -> None:
    from tests.conftest import beside_the_clone

    sibling = ROOT.parent / "a-sibling-folder" / "notes.md"  # never opened: the audit hook refuses it first
    if ROOT.parent == Path(ROOT.anchor) or Path(tempfile.gettempdir()).resolve() in (ROOT.parent, *ROOT.parents):
        pytest.skip("the clone lies in the temporary folder or at the root: the guard is off")
    assert beside_the_clone(str(sibling)) and beside_the_clone(str(ROOT.parent / "other-checkout" / "x.json"))
    assert not beside_the_clone(str(ROOT / "recordings" / "manifest.json"))
    assert not beside_the_clone(str(tmp_path / "x")) and not beside_the_clone(sys.executable)
    with pytest.raises(PermissionError, match="outside the clone"):
        open(sibling, encoding="utf-8")  # raised by the audit hook before the file system is asked
