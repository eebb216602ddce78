"""The ``mcs-conformance`` command: version, listings, corpus validation, check and report."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import mcs_conformance
from mcs_conformance.cli import main
from mcs_conformance.suite.invariants import CHECKS

from tests.helpers.projects import TWO_CALLS, subprocess_env
from tests.helpers.limits import HANG

CLI = Path(sys.executable).parent / "mcs-conformance"
BUNDLED_CASES = Path(mcs_conformance.__file__).parent / "corpus" / "cases"


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed console script."""
    return subprocess.run([str(CLI), *args], cwd=cwd, env=subprocess_env(cwd), capture_output=True, text=True, timeout=HANG)


def bundled_case_ids() -> list[str]:
    return sorted(json.loads(p.read_text(encoding="utf-8"))["id"] for p in BUNDLED_CASES.rglob("*.json"))


def author_corpus(root: Path, case: dict) -> Path:
    folder = root / "corpus"
    path = folder / "cases" / case["format"] / (case["id"].split("/", 1)[1] + ".json")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(case), encoding="utf-8")
    return folder


def test_version(tmp_path: Path) -> None:
    done = cli(tmp_path, "--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"mcs-conformance {metadata.version('mcs-conformance')}"


def test_list_invariants_lists_every_id_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "invariants"]) == 0
    lines = capsys.readouterr().out.splitlines()
    ids = [line.split()[0] for line in lines[1:] if line.strip()]
    assert sorted(ids) == sorted(CHECKS)
    for line in lines[1:]:
        check = CHECKS[line.split()[0]]
        assert check.family in line.split() and line.rstrip().endswith(check.title)


def test_list_cases_lists_every_bundled_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "cases"]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.splitlines() if "/" in line.split(" ", 1)[0]]
    ids = bundled_case_ids()
    assert sorted(listed) == ids
    assert f"\n{len(ids)} cases (" in out


def test_list_cases_with_an_author_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = author_corpus(tmp_path, TWO_CALLS)
    assert main(["list", "cases", "--corpus", str(folder)]) == 0
    out = capsys.readouterr().out
    assert any(line.split()[:2] == [TWO_CALLS["id"], "synthetic"] for line in out.splitlines() if line.strip())
    assert f"\n{len(bundled_case_ids()) + 1} cases (" in out


def test_corpus_validate_the_bundled_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["corpus", "validate"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"ok: {len(bundled_case_ids())} cases")


def test_corpus_validate_an_author_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = author_corpus(tmp_path / "good", TWO_CALLS)
    assert main(["corpus", "validate", str(good), "--with-bundled"]) == 0
    assert capsys.readouterr().out.startswith(f"ok: {len(bundled_case_ids()) + 1} cases")
    bad = author_corpus(tmp_path / "bad", {**TWO_CALLS, "provenance": {"kind": "synthetic"}})
    assert main(["corpus", "validate", str(bad), "--with-bundled"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "two-calls.json" in err and "provenance" in err


def test_check_runs_the_suite_and_writes_the_report(tmp_path: Path) -> None:
    done = cli(tmp_path, "check", "mcs_conformance.strategies:TextStrategy", "--mcs-check=STRUCT-001")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout.splitlines()[-1]
    report = json.loads((tmp_path / ".mcs-conformance" / "report.json").read_text(encoding="utf-8"))
    assert [(r["id"], r["case"], r["outcome"]) for r in report["results"]] == [("STRUCT-001", "text-json", "passed")]
    assert (tmp_path / ".mcs-conformance" / "report.md").is_file()


def test_check_with_a_bad_strategy_is_a_usage_error(tmp_path: Path) -> None:
    done = cli(tmp_path, "check", "no_such_module_here:Strategy")
    assert done.returncode == int(pytest.ExitCode.USAGE_ERROR)
    assert "cannot import module 'no_such_module_here'" in done.stderr
    assert "Traceback" not in done.stderr


def test_report_of_a_missing_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nothing.json")]) == 1
    assert "cannot read the JSON report" in capsys.readouterr().err


def test_unknown_subcommand_exits_with_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code == 2
    assert "invalid choice: 'frobnicate'" in capsys.readouterr().err
