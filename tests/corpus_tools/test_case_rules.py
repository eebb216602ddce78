"""Every rule a bundled case relies on is written in docs/spec.md.

A case relies on rules beyond its checks' own (which tests/suite/test_levels.py ties to the
spec's rows) where it gives a part of its expectation a level: each such ``source`` must
resolve to the spec. A source resolves when it points into the
spec (``docs/spec.md, openai-chat, Fragments``; ``docs/spec.md C3``: resolved by
tests/project/test_doc_references.py), or when every public reference it cites (an issue or
pull request, ``owner/repo#N``; a BUG-CLASSES row; an SDK class or function run on the same
chunks) is cited by the spec too, where the rule it stands for is written. A source that
cites nothing the spec cites names a rule that lives only in the case file.

The spec's rows also name cases (``(syn-calls-without-index, syn-no-index-*)``): every case
such a row names exists, so a row and the cases it speaks for do not drift apart.
"""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec.md"
CASES = sorted((ROOT / "mcs_conformance" / "corpus" / "cases").glob("*/*.json"))

_REPO = r"[A-Za-z0-9][\w.-]*/[\w.-]+"
_ISSUE = re.compile(rf"({_REPO})\s*(?:PR\s*)?#\s*(\d+)((?:\s*,\s*(?:PR\s*)?#\s*\d+)*)")
_BUG_CLASSES = re.compile(r"BUG-CLASSES(?:\s+rows?)?\s+(\d+(?:\s*(?:,|and)\s*\d+)*)")
_SDK = re.compile(r"\b(ChatCompletionStreamState|ResponseStreamState|accumulate_event|ChatCompletionStream|"
                  r"ResponseStream|BetaMessageStream|ChatCompletionMessage)\b")


_NAMED = re.compile(r"\b((?:syn|msg|nonstream)-[a-z0-9*-]+[a-z0-9*])")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


SPEC_TEXT = _flat(SPEC.read_text(encoding="utf-8"))


def references(source: str) -> list[str]:
    """The public references a source cites, each as the spec would write it."""
    out = []
    for repo, first, more in _ISSUE.findall(source):
        out += [f"{repo}#{n}" for n in [first, *re.findall(r"\d+", more)]]
    for numbers in _BUG_CLASSES.findall(source):
        out += [f"BUG-CLASSES {n}" for n in re.findall(r"\d+", numbers)]
    out += _SDK.findall(source)
    return out


def _cited(ref: str) -> bool:
    if "#" in ref and "/" in ref:
        repo, number = ref.split("#")
        return re.search(rf"{re.escape(repo)}\s*(?:PR\s*)?#\s*{number}\b", SPEC_TEXT) is not None or \
            re.search(rf"{re.escape(repo)}[^|]{{0,80}}?(?:PR\s*)?#\s*{number}\b", SPEC_TEXT) is not None
    if ref.startswith("BUG-CLASSES"):
        number = ref.split()[1]
        return re.search(rf"BUG-CLASSES(?:[^|;.]{{0,40}}?)\b{number}\b", SPEC_TEXT) is not None
    return re.search(rf"\b{re.escape(ref)}\b", SPEC_TEXT) is not None


def named_by_the_spec(case_id: str) -> bool:
    """Does a row of the spec name this case (``openai-chat/syn-x``, ``syn-x``, ``syn-no-index-*``)?"""
    slug = case_id.split("/", 1)[1]
    if re.search(rf"(?<![\w-]){re.escape(slug)}(?![\w-])", SPEC_TEXT):
        return True
    return any(fnmatch.fnmatch(slug, name) for name in _NAMED.findall(SPEC_TEXT) if "*" in name)


def source_problem(source: str, case_id: str = "") -> str | None:
    """Why a source does not resolve to the spec, or None. A source that cites nothing the
    spec could cite (no issue, no SDK) resolves when a row of the spec names the case."""
    if "docs/spec.md" in source:
        return None  # a pointer: tests/project/test_doc_references.py resolves it
    refs = references(source)
    if not refs:
        if case_id and named_by_the_spec(case_id):
            return None
        return "cites nothing docs/spec.md cites, and no row of it names the case: the rule lives only in the case"
    missing = [r for r in refs if not _cited(r)]
    return f"docs/spec.md does not cite {', '.join(missing)}" if missing else None


def _sources(case: dict) -> list[tuple[str, str]]:
    """The sources of the levels a case gives its parts: each names the rule the part is judged
    by. (An ``expect.accept`` source names evidence of another right answer, such as another
    implementation's test, not a rule; tests/corpus_tools/test_corpus.py checks those.)"""
    return [(f"expect.levels.{part}", rule.get("source", "")) for part, rule in case["expect"].get("levels", {}).items()]


def test_every_rule_a_case_relies_on_resolves_to_the_spec() -> None:
    problems = []
    for path in CASES:
        case = json.loads(path.read_text(encoding="utf-8"))
        for where, source in _sources(case):
            problem = source_problem(source, case["id"])
            if problem:
                problems.append(f"{case['id']}: {where} ({source[:100]!r}): {problem}")
    assert not problems, f"{len(problems)} sources that name no rule of docs/spec.md:\n" + "\n".join(problems[:60])


def test_a_source_that_cites_what_the_spec_does_not_is_caught() -> None:
    assert source_problem("docs/spec.md, openai-chat, Fragments") is None
    assert source_problem("ollama/ollama#7881; openai/openai-python PR#3246") is None  # the spec cites both
    assert source_problem("openai 3.57.0 ChatCompletionStreamState on the same chunks") is None
    assert source_problem("several agent frameworks", "openai-responses/syn-error-event-empty") is None  # a row names it
    assert source_problem("several agent frameworks", "openai-chat/no-such-case").startswith("cites nothing")
    assert source_problem("ollama/ollama#7881, #999999") == "docs/spec.md does not cite ollama/ollama#999999"




def test_every_case_a_spec_row_names_exists() -> None:
    ids = {json.loads(p.read_text(encoding="utf-8"))["id"].split("/", 1)[1] for p in CASES}
    missing = sorted({name for name in _NAMED.findall(SPEC_TEXT) if not fnmatch.filter(ids, name)})
    assert not missing, f"docs/spec.md names cases the bundled corpus does not hold: {missing}"
