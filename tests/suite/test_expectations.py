"""expectations.load_expectations: TOML, JSON and pyproject entries; every malformed entry is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcs_conformance.suite.expectations import ExpectationError, ExpectedFailure, load_expectations

ENTRY = '{ id = "SPLIT-003", case = "openai-chat/parallel-tool-calls", reason = "upstream bug #12" }'
KEY = ("SPLIT-003", "openai-chat/parallel-tool-calls")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_nothing_declared(tmp_path: Path) -> None:
    assert load_expectations(None, None) == {}
    assert load_expectations(None, tmp_path / "pyproject.toml") == {}  # no such file
    plain = write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.other]\nexpect-fail = [1]\n')
    assert load_expectations(None, plain) == {}


def test_toml_file(tmp_path: Path) -> None:
    path = write(tmp_path / "xfail.toml", f"expect-fail = [\n  {ENTRY},\n]\n")
    found = load_expectations(str(path), None)
    assert found == {KEY: ExpectedFailure("SPLIT-003", "openai-chat/parallel-tool-calls", "upstream bug #12", str(path))}
    assert found[KEY].key == KEY


def test_toml_file_with_array_of_tables(tmp_path: Path) -> None:
    text = '[[expect-fail]]\nid = "NOISE-001"\ncase = "openai-chat/x"\nreason = "  pings  "\n'
    path = write(tmp_path / "xfail.toml", text)
    assert load_expectations(str(path), None)[("NOISE-001", "openai-chat/x")].reason == "pings"


def test_json_file(tmp_path: Path) -> None:
    data = {"expect-fail": [{"id": "SPLIT-003", "case": "openai-chat/parallel-tool-calls", "reason": "upstream bug #12"},
                            {"id": "STRUCT-001", "case": "my-format", "reason": "flag pending"}]}
    path = write(tmp_path / "xfail.json", json.dumps(data))
    found = load_expectations(str(path), None)
    assert set(found) == {KEY, ("STRUCT-001", "my-format")}
    assert found[("STRUCT-001", "my-format")].reason == "flag pending"


def test_pyproject_section_and_file_together(tmp_path: Path) -> None:
    pyproject = write(tmp_path / "pyproject.toml", f"[tool.mcs-conformance]\nexpect-fail = [{ENTRY}]\n")
    other = write(tmp_path / "more.toml", 'expect-fail = [{ id = "DONE-001", case = "openai-chat/y", reason = "r" }]\n')
    found = load_expectations(str(other), pyproject)
    assert set(found) == {KEY, ("DONE-001", "openai-chat/y")}
    assert "pyproject.toml" in found[KEY].source and "[tool.mcs-conformance]" in found[KEY].source
    assert found[("DONE-001", "openai-chat/y")].source == str(other)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ('{ id = "SPLIT-003", case = "c/d" }', "expect-fail[0] needs a non-empty string 'reason'"),
        ('{ id = "SPLIT-003", case = "c/d", reason = "" }', "needs a non-empty string 'reason'"),
        ('{ id = "SPLIT-003", case = "c/d", reason = " \\t" }', "needs a non-empty string 'reason'"),
        ('{ id = "SPLIT-003", case = "c/d", reason = 12 }', "needs a non-empty string 'reason'"),
        ('{ case = "c/d", reason = "r" }', "needs a non-empty string 'id'"),
        ('{ id = "SPLIT-003", reason = "r" }', "needs a non-empty string 'case'"),
        ('{ id = "SPLIT-003", case = "c/d", reason = "r", strict = true }', "unknown keys ['strict']"),
        (f'{ENTRY}, "SPLIT-001"', "expect-fail[1] must be a table"),
    ],
)
def test_malformed_entries(tmp_path: Path, entries: str, message: str) -> None:
    path = write(tmp_path / "xfail.toml", f"expect-fail = [{entries}]\n")
    with pytest.raises(ExpectationError) as exc:
        load_expectations(str(path), None)
    assert message in str(exc.value) and str(path) in str(exc.value)


def test_expect_fail_must_be_a_list(tmp_path: Path) -> None:
    path = write(tmp_path / "xfail.toml", '[expect-fail]\nid = "SPLIT-003"\n')
    with pytest.raises(ExpectationError, match="'expect-fail' must be a list"):
        load_expectations(str(path), None)
    listed = write(tmp_path / "xfail.json", json.dumps([{"id": "SPLIT-003", "case": "c/d", "reason": "r"}]))
    with pytest.raises(ExpectationError, match="'expect-fail' must be a list"):
        load_expectations(str(listed), None)


def test_duplicates_within_one_file(tmp_path: Path) -> None:
    path = write(tmp_path / "xfail.toml", f"expect-fail = [{ENTRY}, {ENTRY.replace('#12', '#13')}]\n")
    with pytest.raises(ExpectationError, match=r"SPLIT-003\[openai-chat/parallel-tool-calls\] is declared twice"):
        load_expectations(str(path), None)


def test_duplicates_across_pyproject_and_file(tmp_path: Path) -> None:
    pyproject = write(tmp_path / "pyproject.toml", f"[tool.mcs-conformance]\nexpect-fail = [{ENTRY}]\n")
    other = write(tmp_path / "xfail.toml", f"expect-fail = [{ENTRY}]\n")
    with pytest.raises(ExpectationError) as exc:
        load_expectations(str(other), pyproject)
    assert "declared twice" in str(exc.value) and "pyproject.toml" in str(exc.value) and "xfail.toml" in str(exc.value)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ExpectationError, match="no such file"):
        load_expectations(str(tmp_path / "absent.toml"), None)
    broken_toml = write(tmp_path / "xfail.toml", "expect-fail = [\n")
    with pytest.raises(ExpectationError, match="cannot be parsed"):
        load_expectations(str(broken_toml), None)
    broken_json = write(tmp_path / "xfail.json", '{"expect-fail": [}')
    with pytest.raises(ExpectationError, match="cannot be parsed"):
        load_expectations(str(broken_json), None)
    broken_pyproject = write(tmp_path / "pyproject.toml", "[tool.mcs-conformance\n")
    with pytest.raises(ExpectationError, match="not valid TOML"):
        load_expectations(None, broken_pyproject)
