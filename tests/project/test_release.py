"""scripts/release.py's checks, each shown to fail on the mistake it exists for. The whole release
run (build, twine, install into an empty virtualenv, the example and the suite from the wheel) is
a step of scripts/test.sh of its own, not a test here."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def release() -> ModuleType:
    spec = importlib.util.spec_from_file_location("release_script", ROOT / "scripts" / "release.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """The files the version check reads, copied."""
    for rel in ("pyproject.toml", "CHANGELOG.md", "README.md", "docs/ci.md", "mcs_conformance/__init__.py",
                "mcs_conformance/corpus/manifest.json"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, tmp_path / rel)
    return tmp_path


def test_the_tree_names_one_version_everywhere(release: ModuleType) -> None:
    assert release.version_problems() == []
    import mcs_conformance

    assert release.package_version() == mcs_conformance.__version__


def test_each_second_place_for_the_version_is_found(release: ModuleType, tree: Path) -> None:
    version = release.package_version(tree)
    corpus = json.loads((tree / "mcs_conformance/corpus/manifest.json").read_text())["version"]
    pyproject = tree / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('dynamic = ["version"]', 'version = "9.9.9"'))
    changelog = tree / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace(f"## {version}", "## 9.9.9", 1))
    ci = tree / "docs" / "ci.md"
    ci.write_text(ci.read_text() + '\n    pip install "mcs-conformance==0.0.1"\n    --mcs-corpus-version=2020.1.1\n')
    problems = release.version_problems(tree)
    assert any("pyproject.toml writes a version" in p for p in problems)
    assert any("top entry is 9.9.9" in p for p in problems)
    assert any("docs/ci.md pins mcs-conformance==0.0.1" in p for p in problems)
    assert any(f"docs/ci.md pins the corpus version 2020.1.1, the bundled corpus is {corpus}" in p for p in problems)


def test_a_changelog_entry_must_name_the_corpus_it_bundles(release: ModuleType, tree: Path) -> None:
    changelog = tree / "CHANGELOG.md"
    corpus = json.loads((tree / "mcs_conformance/corpus/manifest.json").read_text())["version"]
    changelog.write_text(changelog.read_text().replace(f"corpus {corpus}", "corpus 2000.1.1"))
    assert any("does not name the corpus it bundles" in p for p in release.version_problems(tree))


def test_the_wheel_list_finds_a_missing_and_a_stray_file(release: ModuleType) -> None:
    tree = ["README.md", "mcs_conformance/__init__.py", "mcs_conformance/corpus/cases/a.json", "tests/test_x.py"]
    info = [f"mcs_conformance-1.0.dist-info/{m}" for m in release.WHEEL_METADATA]
    good = ["mcs_conformance/__init__.py", "mcs_conformance/corpus/cases/a.json", *info]
    assert release.wheel_lists(good, tree, "1.0").problems("the wheel") == []
    bad = ["mcs_conformance/__init__.py", "mcs_conformance/stale.pyc", *info]
    problems = release.wheel_lists(bad, tree, "1.0").problems("the wheel")
    assert problems == ["the wheel lacks mcs_conformance/corpus/cases/a.json",
                        "the wheel holds mcs_conformance/stale.pyc, which the tree does not track"]


def test_the_sdist_list_allows_what_setuptools_writes_and_nothing_else(release: ModuleType) -> None:
    tree = ["CHANGELOG.md", "LICENSE", "MANIFEST.in", "README.md", "pyproject.toml", "mcs_conformance/__init__.py",
            "tests/test_x.py", "docs/spec.md"]
    top = "mcs_conformance-1.0/"
    generated = [top + "PKG-INFO", top + "setup.cfg", top + "mcs_conformance.egg-info/SOURCES.txt"]
    good = [top + p for p in tree if not p.startswith(("tests/", "docs/"))] + generated
    assert release.sdist_lists(good, tree, "1.0").problems("the sdist") == []
    bad = [m for m in good if not m.endswith("CHANGELOG.md")] + [top + ".venv/x.py", "elsewhere.txt"]
    problems = release.sdist_lists(bad, tree, "1.0").problems("the sdist")
    assert "the sdist lacks CHANGELOG.md" in problems
    assert "the sdist holds .venv/x.py, which the tree does not track" in problems
    assert "the sdist holds elsewhere.txt, which the tree does not track" in problems


def test_every_reference_snapshot_folder_is_run_from_the_wheel(release: ModuleType, tmp_path: Path) -> None:
    for name in ("openai-chat@mcs_conformance.strategies.OpenAIChatStrategy", "mine@my_pkg.mod.Mine",
                 "hermes@mcs_conformance.strategies.HermesStrategy", "old-folder-without-at"):
        (tmp_path / name).mkdir()
    (tmp_path / "stray@mcs_conformance.strategies.File").write_text("")
    assert release.reference_folders(tmp_path) == {
        "hermes": "hermes@mcs_conformance.strategies.HermesStrategy",
        "openai-chat": "openai-chat@mcs_conformance.strategies.OpenAIChatStrategy"}
    assert set(release.reference_folders()) >= {"openai-chat", "openai-responses", "anthropic-messages", "text-json"}
