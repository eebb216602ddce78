"""Every reference in the docs resolves: check ids, spec rule ids, sections, SDK functions.

A reader follows a pointer only if it leads somewhere. These tests read README.md and
docs/*.md (and the docs/spec.md pointers in the bundled cases' `why` / `source`) and check
that every check id (``CHAIN-001``, ``SPLIT-001..003``, ``HISTORY-001, -002``,
``DONE-002/003``, ``RECOG-*``) is a registered check, every rule id (``C4``, ``P3``, ``U2``)
is a rule of docs/spec.md, every section pointer names a heading that exists (a numbered
section only as a link whose anchor carries its number, ``[section 4](#4-read-a-failure)``,
so that renumbering breaks it; a quoted heading after "see" or a file name; a link's
``#anchor``; never "see below" or "the end of this page"), and every SDK function or class the docs
cite by its dotted path (``openai.lib.streaming.chat.ChatCompletionStreamState``) exists in
the installed SDK, whose version is the one docs/spec.md names.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from pathlib import Path

import pytest

import mcs_conformance.suite.invariants  # noqa: F401  (registers the checks)
from mcs_conformance.suite.invariants.base import CHECKS

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SPEC = ROOT / "docs" / "spec.md"
CASES = sorted((ROOT / "mcs_conformance" / "corpus" / "cases").glob("*/*.json"))
FAMILIES = {c.split("-")[0] for c in CHECKS}


def _prose(path: Path) -> str:
    """The file's text with fenced code blocks blanked (line numbers kept)."""
    out, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else line)
    return "\n".join(out)


def _plain(text: str) -> str:
    """Heading or quoted text without markdown emphasis, code marks, quotes and line breaks."""
    return " ".join(re.sub(r"[*_`\"]", "", text).split()).lower()


def headings(path: Path) -> list[str]:
    """The file's headings, as written (without the leading #s)."""
    return [m.group(1).strip() for m in re.finditer(r"(?m)^#{1,6}\s+(.+)$", _prose(path))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for h in headings(path):
        base = slug(h)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def _where(path: Path, text: str, pos: int) -> str:
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    return f"{name}:{text.count(chr(10), 0, pos) + 1}"


# ------------------------------------------------------------------------------ check ids

_CHECK = re.compile(r"\b([A-Z]{3,})-(\d{3}|\*)(?![\w])((?:(?:\.\.|/|,\s*-)\d{3}(?!\d))*)")


def check_ids(text: str) -> list[tuple[int, str]]:
    """(position, check id) of every check id the text names, range ends and shorthands
    (``SPLIT-001..003``, ``HISTORY-001, -002``, ``DONE-002/003``) spelt out; ``FAMILY-*``
    as the family name followed by ``-*``."""
    out = []
    for m in _CHECK.finditer(text):
        family, first, rest = m.groups()
        if first == "*":
            out.append((m.start(), f"{family}-*"))
            continue
        out.append((m.start(), f"{family}-{first}"))
        out += [(m.start(), f"{family}-{num}") for num in re.findall(r"(\d{3})", rest)]
    return out


def _known_check(cid: str) -> bool:
    family, _, num = cid.partition("-")
    return family in FAMILIES if num == "*" else cid in CHECKS


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_check_id_the_docs_name_is_registered(path: Path) -> None:
    text = _prose(path)
    unknown = [f"{_where(path, text, pos)}: {cid}" for pos, cid in check_ids(text) if not _known_check(cid)]
    assert not unknown, "check ids that are no registered check (mcs_conformance.suite.invariants.CHECKS):\n" + "\n".join(unknown)


def test_check_ids_are_read_with_their_ranges() -> None:
    got = [cid for _, cid in check_ids("SPLIT-001..003, HISTORY-001, -006, DONE-002/003, RECOG-*, ADR-0001, UTF-16")]
    assert got == ["SPLIT-001", "SPLIT-003", "HISTORY-001", "HISTORY-006", "DONE-002", "DONE-003", "RECOG-*"]
    assert not _known_check("SPLIT-009") and not _known_check("NOPE-*") and _known_check("SPLIT-*")


# ------------------------------------------------------------------------------- rule ids

_RULE = re.compile(r"(?<![\w.\-#])([PCBXU]\d{1,2})(?![\w\-]|\.\w)")


def spec_rules() -> set[str]:
    """The rule ids docs/spec.md defines: the first cell of a row of a table headed ``#``."""
    out: set[str] = set()
    header = None
    for line in _prose(SPEC).splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif header[0] == "#" and re.fullmatch(r"[A-Z]\d+", cells[0]):
            out.add(cells[0])
    return out


RULES = spec_rules()


def test_rule_ids_are_read_in_lists_and_at_a_sentence_end() -> None:
    assert _RULE.findall("C3/C4/C6, (P5), ends C8. Not a.C4, C4.x, B5-x, #U2 or BC4.") == ["C3", "C4", "C6", "P5", "C8"]


def test_the_spec_defines_the_rules_the_docs_are_written_around() -> None:
    assert {"P1", "P6", "C1", "C8", "B1", "B6", "X1", "X3", "U1", "U2"} <= RULES, sorted(RULES)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_rule_id_the_docs_name_is_a_rule_of_the_spec(path: Path) -> None:
    text = _prose(path)
    unknown = [f"{_where(path, text, m.start())}: {m.group(1)}" for m in _RULE.finditer(text) if m.group(1) not in RULES]
    assert not unknown, f"rule ids docs/spec.md does not define (it defines {sorted(RULES)}):\n" + "\n".join(unknown)


# ------------------------------------------------------------------------ section pointers

_SECTION = re.compile(r"\[?\bsections?\s+(\d+)\b(\]\(([^)\s]*)\))?", re.I)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_QUOTED = re.compile(r"(?:\bsee\s+|(?<![\w/.-])([\w-]+(?:/[\w-]+)*\.md),\s*)\"([^\"]+)\"")
_DANGLING = re.compile(r"\b(?:see\s+(?:the\s+)?(?:end of this page|below|above)\b|at the end of this page)", re.I)


def _target(path: Path, named: str | None) -> Path:
    """The file a pointer names: relative to the repository, else to the file itself."""
    if not named:
        return path
    return ROOT / named if (ROOT / named).exists() else path.parent / named


def section_problems(path: Path) -> list[str]:
    """Every section pointer of the file that names no heading."""
    text = _prose(path)
    problems = []
    for m in _SECTION.finditer(text):
        num, link = m.group(1), m.group(3)
        if link is None:
            problems.append(f"{_where(path, text, m.start())}: \"{m.group(0)}\" is no link: write "
                            f"[section {num}](file.md#{num}-title), so that renumbering the sections breaks it")
            continue
        anchor = link.partition("#")[2]
        if not anchor.startswith(f"{num}-"):
            problems.append(f"{_where(path, text, m.start())}: [section {num}]({link}) links to another section")
    for m in _LINK.finditer(text):
        link = m.group(1)
        if re.match(r"[a-z]+:", link):
            continue
        file_part, _, anchor = link.partition("#")
        target = (path.parent / file_part).resolve() if file_part else path
        if not target.exists():
            problems.append(f"{_where(path, text, m.start())}: link to {link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            problems.append(f"{_where(path, text, m.start())}: link to {link}: {target.name} has no heading with that anchor")
    for m in _QUOTED.finditer(text):
        target = _target(path, m.group(1))
        if not target.exists():
            problems.append(f"{_where(path, text, m.start())}: {m.group(1)}: no such file")
        elif _plain(m.group(2)) not in {_plain(h) for h in headings(target)}:
            shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target.name
            problems.append(f"{_where(path, text, m.start())}: \"{m.group(2)}\" is no heading of {shown}")
    for m in _DANGLING.finditer(text):
        problems.append(f"{_where(path, text, m.start())}: \"{m.group(0)}\" points nowhere: name the heading")
    return problems


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_section_pointer_of_the_docs_names_a_heading(path: Path) -> None:
    problems = section_problems(path)
    assert not problems, "\n".join(problems)


def test_a_section_pointer_one_off_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# T\n\n## 1. One\n\n## 2. Two\n\n## Three\n\nSee section 2, [section 2](#1-one), "
                    '[section 1](#1-one), [x](#four), see "Three", see "Four" and see the end of this page.\n',
                    encoding="utf-8")
    kinds = ["is no link", "links to another section", "no heading with that anchor", '"Four" is no heading',
             "points nowhere"]
    problems = section_problems(page)
    assert [k for p in problems for k in kinds if k in p] == kinds, problems


# --------------------------------------------------------- docs/spec.md pointers in cases

_SPEC_POINTER = re.compile(r"docs/spec\.md(?:,\s*|\s+)((?:[PCBXU]\d{1,2}(?:,\s*|/)?)+|\"[^\"]+\"|[\w-]+)")


def spec_pointer_problems(name: str, text: str) -> list[str]:
    """docs/spec.md pointers in a text: a rule id must be a rule of the spec, a section name
    (a format, a quoted heading) one of its headings."""
    names = {_plain(h) for h in headings(SPEC)}
    problems = []
    for m in _SPEC_POINTER.finditer(text):
        ref = m.group(1)
        if re.fullmatch(r"(?:[PCBXU]\d{1,2}(?:,\s*|/)?)+", ref):
            problems += [f"{name}: {r} is no rule of docs/spec.md" for r in re.findall(r"[PCBXU]\d{1,2}", ref)
                         if r not in RULES]
        elif (ref.startswith('"') or "-" in ref) and _plain(ref) not in names:
            problems.append(f"{name}: docs/spec.md {ref}: no such heading")
    return problems


def test_every_spec_pointer_of_the_bundled_cases_resolves() -> None:
    problems = [p for path in CASES for p in spec_pointer_problems(path.name, path.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)


def test_a_spec_pointer_to_nothing_is_caught() -> None:
    text = 'docs/spec.md C3, C9; docs/spec.md, openai-chats; docs/spec.md, "Levels"; docs/spec.md, anthropic-messages'
    assert spec_pointer_problems("x", text) == ["x: C9 is no rule of docs/spec.md",
                                                "x: docs/spec.md openai-chats: no such heading"]


# ---------------------------------------------------------------------- SDK functions

_DOTTED = re.compile(r"`((?:openai|anthropic)(?:\.[A-Za-z_]\w*)+)`")
_PIN = re.compile(r"\b(openai|anthropic) (\d+\.\d+\.\d+)\b")


def resolve(dotted: str) -> object:
    """The object a dotted path names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)  # AttributeError names what is missing
        return obj
    raise ImportError(dotted)


def cited() -> list[tuple[str, str]]:
    """(where, dotted path) of every SDK object the docs cite by its dotted path."""
    out = []
    for path in DOCS:
        text = _prose(path)
        out += [(_where(path, text, m.start()), m.group(1)) for m in _DOTTED.finditer(text)]
    return out


def test_the_spec_cites_sdk_functions_by_dotted_path() -> None:
    spec = [d for w, d in cited() if w.startswith("docs/spec.md")]
    assert {"openai.lib.streaming.chat.ChatCompletionStreamState", "openai.lib.streaming.responses.ResponseStreamState",
            "anthropic.lib.streaming._beta_messages.accumulate_event"} <= set(spec), spec


@pytest.mark.parametrize("where,dotted", cited(), ids=[f"{w}:{d}" for w, d in cited()])
def test_every_sdk_function_the_docs_cite_exists(where: str, dotted: str) -> None:
    try:
        resolve(dotted)
    except (ImportError, AttributeError) as exc:
        pytest.fail(f"{where}: `{dotted}` does not exist in the installed SDK ({type(exc).__name__}: {exc})")


def test_the_sdk_versions_the_spec_names_are_the_installed_ones() -> None:
    named = {(sdk, version) for sdk, version in _PIN.findall(_prose(SPEC))}
    assert {sdk for sdk, _ in named} == {"openai", "anthropic"}, named
    wrong = [f"docs/spec.md names {sdk} {v}, installed: {importlib.metadata.version(sdk)}"
             for sdk, v in sorted(named) if importlib.metadata.version(sdk) != v]
    assert not wrong, "the spec's SDK citations were read in another version: check them again\n" + "\n".join(wrong)


def _format_sections() -> dict[str, str]:
    text = _prose(SPEC)
    parts = re.split(r"(?m)^## ", text)
    return {p.split("\n", 1)[0].strip(): p for p in parts[1:]}


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic-messages"])
def test_each_native_formats_section_names_its_sdk_accumulator(fmt: str) -> None:
    section = _format_sections()[fmt]
    m = re.search(r"The SDK:\s*`((?:openai|anthropic)[\w.]+)`", section)
    assert m, f"docs/spec.md, {fmt}: no line 'The SDK: `<dotted path>`' naming the accumulator its rows call \"SDK\""
    resolve(m.group(1))


_SDK_MODULES = ("openai.lib.streaming.chat._completions", "openai.lib.streaming._deltas",
                "openai.lib.streaming.responses._responses", "openai.lib._parsing._completions", "openai._streaming",
                "openai.types.responses", "openai.types.chat", "anthropic.lib.streaming._beta_messages",
                "anthropic.lib.streaming._messages", "anthropic._streaming")


def sdk_names() -> set[str]:
    """Names the SDK modules the spec cites define (their functions and classes, and the
    methods and properties of those classes), builtins left out: the names a bare citation
    of an SDK function would use."""
    import builtins

    names: set[str] = set()
    for module in map(importlib.import_module, _SDK_MODULES):
        for name, obj in vars(module).items():
            if name.startswith("__") or name in vars(builtins) or not callable(obj):
                continue
            names.add(name)
            if isinstance(obj, type) and obj.__module__.startswith(("openai", "anthropic")):
                names |= {f"{name}.{m}" for m in vars(obj) if not m.startswith("__")}
                names |= {m for m in vars(obj) if not m.startswith("_") and callable(getattr(obj, m, None))}
    return names


def test_sdk_sources_name_functions_by_dotted_path() -> None:
    """A table row whose source cites the SDK names its functions and classes only by their
    dotted path, which the test above imports: ``SDK `accumulate_event` `` is refused."""
    known = sdk_names()
    assert {"accumulate_event", "ChatCompletionStreamState", "ResponseStreamState.accumulate_event"} <= known
    bare = []
    header = None
    for n, line in enumerate(_prose(SPEC).splitlines(), 1):
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if header is None:
            header = cells
            continue
        if "source" not in header or len(cells) != len(header) or "SDK" not in cells[header.index("source")]:
            continue
        bare += [f"docs/spec.md:{n}: `{token}`" for token in re.findall(r"`([^`]+)`", cells[header.index("source")])
                 if token.removesuffix("()") in known]
    assert not bare, "SDK functions cited without their dotted path:\n" + "\n".join(bare)
