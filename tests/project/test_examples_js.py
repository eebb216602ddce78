"""The JavaScript example strategy (examples/ollama-js) through the bridge: the conformance
suite passes on it, run the way its README says (``exec:node ollama_strategy.mjs`` from its
folder, on the Ollama example's corpus); its golden outputs are the Python example's; and
one-bug copies of it fail the checks known to catch those bugs, so the run through the
bridge judges the JavaScript code and not a stand-in (a quadratic copy is caught by COST
through the peer's own CPU time). The node comes from scripts/node22.sh.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HERE = EXAMPLES / "ollama-js"
SPEC = "exec:node ollama_strategy.mjs"
JS_GOLDEN = HERE / "tests" / "mcs-conformance" / "ollama@peer.ollama-js-example" / "__snapshots__" / "golden"
PY_GOLDEN = EXAMPLES / "ollama" / "tests" / "mcs-conformance" / "ollama@ollama_strategy.OllamaStrategy" / "__snapshots__" / "golden"

_FAMILY = re.compile(r"^([A-Z]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", re.M)
_FAILED = re.compile(r"^FAILED mcs-conformance::([A-Z]+-\d+)\[", re.M)


@pytest.fixture(scope="module")
def env() -> dict[str, str]:
    """The environment an author has: a node >= 22 first on PATH, no pytest state of ours."""
    done = subprocess.run(["bash", str(ROOT / "scripts" / "node22.sh")], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"no node >= 22 could be obtained (scripts/node22.sh): {done.stderr.strip()[-500:]}")
    out = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    out["PATH"] = os.pathsep.join([str(Path(done.stdout.strip()).parent), os.environ.get("PATH", "")])
    return out


def _suite(cwd: Path, env: dict[str, str], *options: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--mcs-strategy={SPEC}", "--mcs-only",
           "-q", "-rf", *options]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_conformance_suite_passes_on_the_js_example(env: dict[str, str]) -> None:
    done = _suite(HERE, env, "--mcs-corpus=../ollama/corpus", "-n", "2")  # COST-001 and -002 apart: ~13 s, not ~30
    out = done.stdout + done.stderr
    failed = set(_FAILED.findall(done.stdout))
    assert failed == set(), f"failed: {sorted(failed)}\n" + out[-6000:]
    assert done.returncode == 0, out[-6000:]
    assert f"strategy ollama ({SPEC})" in done.stdout, out[-3000:]  # the peer, not a Python class
    assert "ollama-js-example 1.0.0 (javascript)" in done.stdout, out[-3000:]  # its handshake's implementation
    last = [line for line in done.stdout.splitlines() if line.strip()][-1]
    passed = re.search(r"(\d+) passed", last)
    assert passed and int(passed.group(1)) >= 500, last
    assert not re.search(r"error|skipped", last), last
    families = {m[0]: (int(m[1]), int(m[2]), int(m[4])) for m in _FAMILY.findall(done.stdout)}  # passed, failed, xfailed
    assert families, out[-3000:]
    assert sum(f for _, f, _ in families.values()) == 0, families
    assert all(xfailed == 0 for _, _, xfailed in families.values()), families
    for family, at_least in {"PARITY": 6, "EXTRACT": 3, "HISTORY": 3, "COST": 2, "ROUNDTRIP": 1}.items():
        assert families.get(family, (0, 0, 0))[0] >= at_least, (family, families)
    assert "22 snapshots passed" in done.stdout and "snapshots generated" not in done.stdout, out[-3000:]


def test_the_js_example_gives_the_python_examples_golden_outputs() -> None:
    """Same corpus, same outputs: every snapshot, the bundled Ollama cases' too and GOLDEN-002's
    error texts (written as Python writes them), is the Python example's, byte for byte."""
    js = {p.name: p.read_bytes() for p in JS_GOLDEN.glob("*.json")}
    py = {p.name: p.read_bytes() for p in PY_GOLDEN.glob("*.json")}
    assert len(py) >= 22 and sorted(js) == sorted(py)
    for name in py:
        assert js[name] == py[name], name


# A one-bug copy: the example's source with one edit, and the check that must catch it.
BUGS = {
    "merges-parallel-calls": (  # every later call's arguments go into the first call
        "          message.tool_calls.push(...value.map(copy));\n",
        "          for (const call of value.map(copy)) {\n"
        "            const first = message.tool_calls[0];\n"
        "            if (first) Object.assign((first.function.arguments ??= {}), call.function.arguments ?? {});\n"
        "            else message.tool_calls.push(call);\n"
        "          }\n",
        "SPLICE-001",
    ),
    "rejoins-text-every-chunk": (  # the pieces kept and joined again on every chunk: quadratic
        '        put(message, key, (get(message, key) ?? "") + value);\n',
        "        const pieces = (acc.state[key] ??= []);\n"
        "        pieces.push(value);\n"
        '        put(message, key, pieces.join(""));\n',
        "COST-002",  # timed by the peer's own cpu_time: the bridge's pipe is left out
    ),
    "takes-cut-as-finished": (  # a last line with done_reason "length" taken as a finished turn
        '    return isObject(chunk) && chunk.done === true && get(chunk, "done_reason") !== "length";\n',
        "    return isObject(chunk) && chunk.done === true;\n",
        "DONE-002",  # the body's done_reason keeps the calls from running; the signal itself is wrong
    ),
}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_a_one_bug_copy_of_the_js_example_is_failed(bug: str, env: dict[str, str], tmp_path: Path) -> None:
    old, new, check = BUGS[bug]
    source = (HERE / "ollama_strategy.mjs").read_text(encoding="utf-8")
    assert source.count(old) == 1, f"the line the {bug} copy edits is no longer in ollama_strategy.mjs"
    (tmp_path / "ollama_strategy.mjs").write_text(source.replace(old, new), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text((HERE / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    done = _suite(tmp_path, env, f"--mcs-corpus={EXAMPLES / 'ollama' / 'corpus'}", "--mcs-profile=ci",
                  f"--mcs-check={check}", "-p", "no:randomly")
    out = done.stdout + done.stderr
    assert check in set(_FAILED.findall(done.stdout)), out[-6000:]
    assert done.returncode == 1, out[-6000:]
    assert set(_FAILED.findall(done.stdout)) == {check}, out[-6000:]
