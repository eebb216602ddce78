"""What the README and docs/*.md tell a reader to import imports, and the README's Python
snippet ("Use the reference implementation") runs as written."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers.limits import HANG

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RECORDED = ROOT / "recordings" / "openai-python" / "chat_stream" / "tool_calls_parallel_2__f82268f2fefd.sse"

_FROM = re.compile(r"^\s*from\s+(mcs_conformance(?:\.\w+)*)\s+import\s+\(?([\w\s,]+?)\)?\s*(?:#.*)?$")
_IMPORT = re.compile(r"^\s*import\s+(mcs_conformance(?:\.\w+)*)(?:\s+as\s+\w+)?\s*(?:#.*)?$")


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)


def documented_imports() -> list[tuple[str, str, tuple[str, ...]]]:
    """(document, module, names) for every import line of the package in the docs' text."""
    found = []
    for doc in DOCS:
        for line in doc.read_text(encoding="utf-8").splitlines():
            line = line.strip().strip("`")
            if m := _FROM.match(line):
                names = tuple(n.strip() for n in m.group(2).split(",") if n.strip())
                found.append((doc.name, m.group(1), names))
            elif m := _IMPORT.match(line):
                found.append((doc.name, m.group(1), ()))
    return found


IMPORTS = documented_imports()


def test_the_docs_document_imports() -> None:
    assert len(IMPORTS) >= 3 and any(doc == "README.md" for doc, _, _ in IMPORTS)


@pytest.mark.parametrize("doc, module, names", IMPORTS, ids=[f"{d}:{m}" for d, m, _ in IMPORTS])
def test_a_documented_import_works_without_a_deprecation_warning(doc: str, module: str, names: tuple[str, ...]) -> None:
    body = (
        "import importlib, warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        f"m = importlib.import_module({module!r})\n"
        f"missing = [n for n in {names!r} if not hasattr(m, n) and importlib.util.find_spec({module!r} + '.' + n) is None]\n"
        "assert not missing, missing\n"
    )
    result = subprocess.run([sys.executable, "-c", "import importlib.util\n" + body], cwd=ROOT,
                            capture_output=True, text=True, timeout=HANG)
    assert result.returncode == 0, f"{doc}: {module} {names}: {result.stderr[-2000:]}"


def test_the_readme_reference_snippet_runs(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Use the reference implementation", 1)[1]
    snippet = _python_blocks(section)[0]
    assert "tool_calls_parallel_2.sse" in snippet
    shutil.copy(RECORDED, tmp_path / "tool_calls_parallel_2.sse")
    check = (
        "\nassert buf.done, 'the recorded stream carries its completion signal'\n"
        "assert len(runnable) == 2, found.calls\n"
        "assert found.strategy.name == 'openai-chat', found.strategy\n"
        "assert len(history) >= 2, history\n"
        "print('ok', [c.name for c in runnable])\n"
    )
    result = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", snippet + check],
                            cwd=tmp_path, capture_output=True, text=True, timeout=HANG)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith("ok ")
