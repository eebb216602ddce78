"""scripts/mutation_summary.py combines the per-strategy mutmut runs the way docs/mutation.md says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from tests.helpers.limits import HANG

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "mutation_summary.py"
CORE = "mcs_conformance.reference.chain.xǁExtractionChainǁresolve__mutmut_{}"
CHAT = "mcs_conformance.reference.strategies.openai_chat.chunks.x__grow__mutmut_{}"


def _run(work: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(work), *args], capture_output=True, text=True, timeout=HANG)


def _meta(work: Path, copy: str, source: str, codes: dict[str, int | None]) -> None:
    path = work / copy / "mutants" / f"{source}.meta"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"exit_code_by_key": codes}))


def test_a_second_strategy_kills_what_the_first_left_standing(tmp_path: Path) -> None:
    _meta(tmp_path, "OpenAIChatStrategy", "mcs_conformance/reference/chain.py",
          {CORE.format(1): 1, CORE.format(2): 0, CORE.format(3): 33, CORE.format(4): 0})
    _meta(tmp_path, "OpenAIChatStrategy", "mcs_conformance/reference/strategies/openai_chat/chunks.py", {CHAT.format(1): 0, CHAT.format(2): 36})
    first = _run(tmp_path, "--standing-core")
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == [CORE.format(2), CORE.format(3), CORE.format(4)]  # never the strategy's own

    _meta(tmp_path, "AnthropicMessagesStrategy", "mcs_conformance/reference/chain.py",
          {CORE.format(2): 1, CORE.format(3): 0, CORE.format(4): None, CORE.format(9): 1})
    out = _run(tmp_path)
    assert out.returncode == 0, out.stderr
    assert "runs: OpenAIChatStrategy, AnthropicMessagesStrategy" in out.stdout
    assert "mcs_conformance/reference/chain.py: 4 mutants, {'killed': 2, 'survived': 2}" in out.stdout  # 9: not the main run's
    assert "score: (killed + timeout) / (run - equivalent) = 3 / 6 = 50.0%" in out.stdout  # a timeout is detected
    assert f"timed out (detected):\n    {CHAT.format(2)}" in out.stdout
    assert f"survived: {CHAT.format(1)}" in out.stdout and f"survived: {CORE.format(3)}" in out.stdout
    standing = _run(tmp_path, "--standing")
    assert standing.stdout.split() == [CORE.format(3), CORE.format(4), CHAT.format(1)]  # the strategy's own too


def test_no_run_is_a_readable_error(tmp_path: Path) -> None:
    out = _run(tmp_path)
    assert out.returncode == 2
    assert "holds no mutmut run" in out.stdout


def test_the_first_run_is_the_one_main_strategy_names(tmp_path: Path) -> None:
    codec = "mcs_conformance.reference.strategies.json_codec.x__fail__mutmut_{}"
    (tmp_path / "main-strategy").write_text("TextStrategy\n")
    _meta(tmp_path, "TextStrategy", "mcs_conformance/reference/strategies/json_codec.py", {codec.format(1): 1, codec.format(2): 0})
    out = _run(tmp_path)
    assert out.returncode == 0, out.stderr
    assert "runs: TextStrategy" in out.stdout
    assert "score: (killed + timeout) / (run - equivalent) = 1 / 2 = 50.0%" in out.stdout
    assert _run(tmp_path, "--standing").stdout.split() == [codec.format(2)]


def test_a_redo_copy_replaces_the_outcomes_it_holds(tmp_path: Path) -> None:
    other = "mcs_conformance.reference.strategies.openai_chat.chunks.x__merge__mutmut_{}"
    _meta(tmp_path, "OpenAIChatStrategy", "mcs_conformance/reference/strategies/openai_chat/chunks.py",
          {CHAT.format(1): 1, CHAT.format(3): 0, CHAT.format(9): 0, other.format(1): 1})
    _meta(tmp_path, "OpenAIChatStrategy-redo", "mcs_conformance/reference/strategies/openai_chat/chunks.py",
          {CHAT.format(1): 0, CHAT.format(3): 1, other.format(1): None})
    out = _run(tmp_path)
    # 1 revived, 3 killed, _grow 9 no longer exists (the function shrank), _merge 1 kept as it was
    assert "score: (killed + timeout) / (run - equivalent) = 2 / 3" in out.stdout
    assert _run(tmp_path, "--standing").stdout.split() == [CHAT.format(1)]


def test_a_redo_overrides_the_runs_taken_before_it_only(tmp_path: Path) -> None:
    # names sort recheck-after-redo; the trees were taken recheck (old), redo, recheck (new)
    _meta(tmp_path, "OpenAIChatStrategy", "mcs_conformance/reference/strategies/openai_chat/chunks.py", {CHAT.format(1): 0, CHAT.format(2): 0})
    _meta(tmp_path, "OpenAIChatStrategy-recheck", "mcs_conformance/reference/strategies/openai_chat/chunks.py", {CHAT.format(1): 1})
    _meta(tmp_path, "OpenAIChatStrategy-120000-redo", "mcs_conformance/reference/strategies/openai_chat/chunks.py",
          {CHAT.format(1): 0, CHAT.format(2): 0})
    _meta(tmp_path, "OpenAIChatStrategy-recheck130000", "mcs_conformance/reference/strategies/openai_chat/chunks.py", {CHAT.format(2): 1})
    for n, copy in enumerate(("OpenAIChatStrategy", "OpenAIChatStrategy-recheck", "OpenAIChatStrategy-120000-redo",
                              "OpenAIChatStrategy-recheck130000")):
        config = tmp_path / copy / "pyproject.toml"
        config.write_text("")
        os.utime(config, (1_000_000 + n, 1_000_000 + n))
    out = _run(tmp_path)
    assert "runs: OpenAIChatStrategy, OpenAIChatStrategy-recheck, OpenAIChatStrategy-120000-redo, " \
           "OpenAIChatStrategy-recheck130000" in out.stdout
    # _grow 1: killed on the old tree only, the redo's survival stands; _grow 2: killed after the redo
    assert _run(tmp_path, "--standing").stdout.split() == [CHAT.format(1)]
