"""recordings/ holds every recording the project reads, each with its provenance and license,
and nothing in the repository reaches outside it for data."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REC = ROOT / "recordings"
MANIFEST = json.loads((REC / "manifest.json").read_text(encoding="utf-8"))
LICENSE_TEXTS = {
    "openai/openai-python": "openai__openai-python.LICENSE",
    "anthropics/anthropic-sdk-python": "anthropics__anthropic-sdk-python.LICENSE",
    "vercel/ai": "vercel__ai.LICENSE",
    "ollama/ollama": "ollama__ollama.LICENSE",
    "vllm-project/vllm": "Apache-2.0.txt",
}


def test_every_recording_is_listed_once_with_its_digest() -> None:
    listed = [e["path"] for e in MANIFEST]
    assert len(listed) == len(set(listed))
    on_disk = sorted(p.relative_to(REC).as_posix() for p in REC.rglob("*")
                     if p.is_file() and p.parent != REC and p.parent.name != "licenses")
    assert sorted(listed) == on_disk
    for e in MANIFEST:
        data = (REC / e["path"]).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (e["bytes"], e["sha256"]), e["path"]


def test_every_recording_names_source_commit_path_and_a_shipped_license() -> None:
    for e in MANIFEST:
        assert e["source"] in LICENSE_TEXTS, e["path"]
        assert len(e["commit"]) == 40 and int(e["commit"], 16) >= 0, e["path"]
        assert e["source_path"] and e["license"] in ("Apache-2.0", "MIT"), e["path"]
        assert e["provenance"], e["path"]
        assert (REC / "licenses" / LICENSE_TEXTS[e["source"]]).is_file()
    if any(e["license"] == "Apache-2.0" for e in MANIFEST):
        assert "Apache License" in (REC / "licenses" / "Apache-2.0.txt").read_text(encoding="utf-8")


def test_no_tracked_file_reads_data_from_outside_the_repository() -> None:
    found = subprocess.run(
        ["git", "grep", "-nE", r"\.\./shared|/ *[\"']shared[\"']|realpayloads|MCS_REALPAYLOADS", "--", ".", ":!tests/corpus_tools/test_recordings.py"],
        cwd=ROOT, capture_output=True, text=True,
    )
    if found.returncode == 128:  # not a git checkout (an sdist): nothing to search
        return
    assert found.stdout == "", f"files that read outside the repository:\n{found.stdout}"
