"""Rewrite the bundled corpus manifest from the case files (run after every corpus change).

    python scripts/update_manifest.py [--version 2027.01.0]

The manifest records the corpus version (kept unless ``--version`` is given), the number
of cases, the cases per provenance kind, and the content hash over the corpus folder
(:func:`mcs_conformance.corpus_tools.corpus.content_hash`). The tests compare the count and the hash with
the files, so a case edited without running this script fails CI.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from mcs_conformance.corpus_tools.corpus import CorpusError, bundled_corpus_dir, content_hash, load_corpus

VERSION = re.compile(r"^\d{4}\.\d{2}\.\d+$")


def manifest(version: str) -> dict[str, Any]:
    """The manifest of the bundled corpus as it is on disk now (every file validated)."""
    corpus = load_corpus()
    kinds = Counter(case.provenance["kind"] for case in corpus.cases)
    return {
        "version": version,
        "cases": len(corpus.cases),
        "by_kind": dict(sorted(kinds.items())),
        "hash": content_hash([bundled_corpus_dir()]),
    }


def main(argv: list[str] | None = None) -> int:
    """Write ``manifest.json``; print what changed."""
    parser = argparse.ArgumentParser(description="Rewrite mcs_conformance/corpus/manifest.json from the case files.")
    parser.add_argument("--version", help="a new calendar version, YYYY.MM.N (default: keep the current one)")
    args = parser.parse_args(argv)
    path = bundled_corpus_dir() / "manifest.json"
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        old = {}
    version = args.version or old.get("version")
    if not isinstance(version, str) or not VERSION.match(version):
        print(f"error: the corpus version must look like 2026.12.0, got {version!r} (pass --version)", file=sys.stderr)
        return 1
    try:
        new = manifest(version)
    except CorpusError as exc:
        print(f"error: the corpus is not valid, fix it first: {exc}", file=sys.stderr)
        return 1
    path.write_text(json.dumps(new, indent=2) + "\n", encoding="utf-8")
    changed = [k for k in new if old.get(k) != new[k]]
    print(f"wrote {Path(path)}: {new['cases']} cases {new['by_kind']}, version {version}, {new['hash']}"
          + (f" (changed: {', '.join(changed)})" if changed else " (unchanged)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
