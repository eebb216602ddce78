"""Golden snapshot files: names that keep the case id readable and never shared, snapshots of the
old names renamed with their content, and a printed --snapshot-update command that writes what
the run found missing and nothing else."""

from __future__ import annotations

import shlex
from pathlib import Path
from unicodedata import category

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcs_conformance.suite.snapshots import file_stem, legacy_stem, rename_legacy_snapshots, unescape_stem

from tests.suite.test_plugin import CASE_ID, REFERENCE, _golden_folder, _run_command, make_project, outcomes, run

SYRUPY_DROPS = set('\\/?*:|"<>')  # and control characters (category C)


@given(st.text())
def test_a_file_name_stands_for_one_item_name(name: str) -> None:
    stem = file_stem(name)
    assert unescape_stem(stem) == name  # injective: the name is read back from the file name
    assert not SYRUPY_DROPS & set(stem) and not [c for c in stem if category(c).startswith("C")]  # syrupy keeps it as is


def test_a_case_id_stays_readable() -> None:
    assert file_stem("GOLDEN-001[anthropic-messages/foo]") == "GOLDEN-001[anthropic-messages%2Ffoo]"
    assert file_stem("GOLDEN-002[text-json]") == "GOLDEN-002[text-json]"
    assert file_stem("GOLDEN-001[a/100%]") == "GOLDEN-001[a%2F100%25]"  # the escape character is escaped too


def test_ids_that_shared_a_file_before_have_files_of_their_own() -> None:
    one, two = "GOLDEN-001[openai-chat/x-y]", "GOLDEN-001[openai-chatx/-y]"
    assert legacy_stem(one) == legacy_stem(two) == "GOLDEN-001[openai-chatx-y]"
    assert file_stem(one) != file_stem(two)


def test_old_names_are_renamed_when_one_item_claims_them(tmp_path: Path) -> None:
    mine, taken, shared = "GOLDEN-001[f/mine]", "GOLDEN-001[f/taken]", ("GOLDEN-001[f/x-y]", "GOLDEN-001[fx/-y]")
    for name, text in ((mine, "1"), (taken, "old"), (shared[0], "?")):
        (tmp_path / f"{legacy_stem(name)}.json").write_text(text, encoding="utf-8")
    (tmp_path / f"{file_stem(taken)}.json").write_text("new", encoding="utf-8")
    renamed = rename_legacy_snapshots(tmp_path, [mine, taken, *shared, "GOLDEN-002[f]"])
    assert renamed == [("GOLDEN-001[fmine].json", "GOLDEN-001[f%2Fmine].json")]
    assert (tmp_path / "GOLDEN-001[f%2Fmine].json").read_text(encoding="utf-8") == "1"
    # a new name already taken, and a file two items would claim, are left as they are
    assert (tmp_path / f"{file_stem(taken)}.json").read_text(encoding="utf-8") == "new"
    assert (tmp_path / f"{legacy_stem(taken)}.json").is_file() and (tmp_path / f"{legacy_stem(shared[0])}.json").is_file()


GOLDEN = ("--mcs-only", "--mcs-corpus=corpus")


def test_a_run_renames_snapshots_of_the_old_names_and_judges_them(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    args = (*GOLDEN, "--mcs-check=GOLDEN-001", f"--mcs-case={CASE_ID}")
    assert run(pytester, f"--mcs-strategy={REFERENCE}", *args, "--snapshot-update").ret == 0
    folder = _golden_folder(pytester.path, "text-json", REFERENCE)
    new = folder / "GOLDEN-001[text-json%2Ftwo-calls].json"
    content = new.read_bytes()
    old = folder / "GOLDEN-001[text-jsontwo-calls].json"  # where the release before stored it
    new.rename(old)
    result = run(pytester, f"--mcs-strategy={REFERENCE}", *args)
    assert result.ret == 0 and set(outcomes(result).values()) == {"PASSED"}
    assert sorted(p.name for p in folder.iterdir()) == [new.name] and new.read_bytes() == content
    assert "1 golden snapshot(s) renamed from their old file names" in result.stdout.str()


def _update_command(result: pytest.RunResult) -> str:
    return next(x.strip() for x in result.outlines if x.strip().endswith("--snapshot-update"))


@pytest.mark.parametrize("selection", [
    (f"--mcs-case={CASE_ID}",),
    ("-k", CASE_ID),
    (f"mcs-conformance::GOLDEN-001[{CASE_ID}]",),
], ids=["mcs-case", "k", "node-id"])
def test_the_printed_update_command_keeps_the_selection(pytester: pytest.Pytester, selection: tuple[str, ...]) -> None:
    make_project(pytester)
    first = run(pytester, f"--mcs-strategy={REFERENCE}", *GOLDEN, *selection)
    assert first.ret == 1
    text = first.stdout.str()
    assert "1 golden snapshot(s) of strategy text-json do not exist yet" in text, text
    command = _update_command(first)
    argv = shlex.split(command)
    assert all(part in argv for part in selection), command
    assert "--mcs-check=GOLDEN-001" in argv and "--mcs-check=GOLDEN-002" not in argv
    made = _run_command(pytester, command)
    assert made.returncode == 0, made.stdout[-3000:]
    folder = _golden_folder(pytester.path, "text-json", REFERENCE)
    assert sorted(p.name for p in folder.iterdir()) == ["GOLDEN-001[text-json%2Ftwo-calls].json"]
    assert run(pytester, f"--mcs-strategy={REFERENCE}", *GOLDEN, *selection).ret == 0


def test_an_unrestricted_first_run_prints_both_golden_checks(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    first = run(pytester, f"--mcs-strategy={REFERENCE}", *GOLDEN, "--mcs-check=GOLDEN-001", "--mcs-check=GOLDEN-002",
                "--mcs-check=EXTRACT-001")
    argv = shlex.split(_update_command(first))
    checks = [a for a in argv if a.startswith("--mcs-check=")]
    assert checks == ["--mcs-check=GOLDEN-001", "--mcs-check=GOLDEN-002"]  # EXTRACT-001 has no snapshot to write
    assert not [a for a in argv if a.startswith("--mcs-case=")]
