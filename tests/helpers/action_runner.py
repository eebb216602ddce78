"""Runs a composite GitHub Action's steps on this machine, the way the runner does, for tests.

Each ``run:`` step goes to ``bash --noprofile --norc -eo pipefail`` (the runner's ``shell: bash``)
in its working directory, with the step's ``env:``, ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY``;
``uses:`` steps are not run but recorded with their evaluated ``with:``, so a test can check what
they would have been given. Expressions are evaluated for the forms composite actions commonly
use: ``inputs.X``, ``github.action_path``, ``steps.ID.outputs.X``, ``always()``, ``success()``,
``failure()``, ``== ''``, ``!= ''`` and ``&&``. Anything else raises, naming the expression, so
a new construct in action.yml is added here rather than silently misread.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPR = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
_REF = re.compile(r"^(inputs|github|steps)\.[A-Za-z0-9_.-]+$")


@dataclass
class StepRun:
    """What one step did: ``ran`` is False for a step whose ``if:`` was false."""

    name: str
    ran: bool
    uses: str | None = None
    with_: dict[str, str] = field(default_factory=dict)
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)


@dataclass
class ActionRun:
    steps: list[StepRun]
    summary: str
    failed: bool

    def step(self, name: str) -> StepRun:
        return next(s for s in self.steps if s.name == name)


def read_action(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def run_action(action_path: Path, inputs: dict[str, str], *, workspace: Path, env: dict[str, str],
               timeout: float = 900) -> ActionRun:
    """Run the composite action at ``action_path`` (a folder holding action.yml) with ``inputs``."""
    spec = read_action(action_path / "action.yml")
    declared = spec.get("inputs") or {}
    unknown = sorted(set(inputs) - set(declared))
    if unknown:
        raise ValueError(f"inputs {unknown} are not declared in action.yml")
    missing = sorted(k for k, v in declared.items() if v.get("required") and k not in inputs)
    if missing:
        raise ValueError(f"required inputs {missing} were not given")
    values = {k: str(inputs.get(k, v.get("default", ""))) for k, v in declared.items()}
    context: dict[str, Any] = {"inputs": values, "github": {"action_path": str(action_path)}, "steps": {}}
    summary = workspace / ".github-step-summary.md"
    summary.write_text("", encoding="utf-8")
    done: list[StepRun] = []
    failed = False
    for n, step in enumerate(spec["runs"]["steps"]):
        name = step.get("name", f"step {n}")
        condition = step.get("if", "success()")
        if not _truthy(_evaluate(_strip(condition), context, failed)):
            done.append(StepRun(name, ran=False, uses=step.get("uses")))
            continue
        if "uses" in step:
            with_ = {k: substitute(str(v), context, failed) for k, v in (step.get("with") or {}).items()}
            done.append(StepRun(name, ran=True, uses=step["uses"], with_=with_))
            continue
        if step.get("shell") != "bash":
            raise ValueError(f"step {name!r}: only shell: bash is run here, not {step.get('shell')!r}")
        output = workspace / f".github-output-{n}"
        output.write_text("", encoding="utf-8")
        step_env = {**env, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
                    "GITHUB_ACTION_PATH": str(action_path), "GITHUB_WORKSPACE": str(workspace)}
        step_env.update({k: substitute(str(v), context, failed) for k, v in (step.get("env") or {}).items()})
        cwd = workspace / substitute(step.get("working-directory", "."), context, failed)
        script = workspace / f".github-step-{n}.sh"
        script.write_text(step["run"], encoding="utf-8")
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd,
                              env=step_env, capture_output=True, text=True, timeout=timeout)
        outputs = parse_outputs(output.read_text(encoding="utf-8"))
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": outputs}
        done.append(StepRun(name, ran=True, returncode=proc.returncode, stdout=proc.stdout, stderr=proc.stderr,
                            outputs=outputs))
        failed = failed or proc.returncode != 0
    return ActionRun(done, summary.read_text(encoding="utf-8"), failed)


def parse_outputs(text: str) -> dict[str, str]:
    """``GITHUB_OUTPUT``'s two forms: ``key=value`` lines and ``key<<DELIMITER`` blocks."""
    out: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delim = line.split("<<", 1)
            body = []
            for more in lines:
                if more == delim:
                    break
                body.append(more)
            out[key] = "\n".join(body)
        elif "=" in line:
            key, value = line.split("=", 1)
            out[key] = value
    return out


def substitute(text: str, context: dict[str, Any], failed: bool) -> str:
    """``text`` with every ``${{ ... }}`` replaced by its value."""
    return _EXPR.sub(lambda m: _as_text(_evaluate(m.group(1), context, failed)), text)


def _strip(condition: str) -> str:
    m = _EXPR.fullmatch(condition.strip())
    return m.group(1) if m else condition.strip()


def _evaluate(expr: str, context: dict[str, Any], failed: bool) -> Any:
    terms = [t.strip() for t in expr.split("&&")]
    if len(terms) > 1:
        return all(_truthy(_evaluate(t, context, failed)) for t in terms)
    e = terms[0]
    if e == "always()":
        return True
    if e == "success()":
        return not failed
    if e == "failure()":
        return failed
    m = re.fullmatch(r"(\S+)\s*(==|!=)\s*''", e)
    if m:
        empty = _as_text(_lookup(m.group(1), context)) == ""
        return empty if m.group(2) == "==" else not empty
    if _REF.match(e):
        return _lookup(e, context)
    raise ValueError(f"the local action runner does not evaluate the expression {e!r}")


def _lookup(ref: str, context: dict[str, Any]) -> Any:
    head, rest = ref.split(".", 1)
    node: Any = context[head]
    if head == "steps":
        step_id, _, key = rest.partition(".outputs.")
        return node.get(step_id, {}).get("outputs", {}).get(key, "")
    if rest not in node:
        raise KeyError(f"{ref} is not defined")
    return node[rest]


def _truthy(value: Any) -> bool:
    return bool(value) and value != "false"


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def base_env(venv: Path, home: Path) -> dict[str, str]:
    """A runner-like environment whose ``python`` is the virtualenv's."""
    env = {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "CI": "true",
           "GITHUB_ACTIONS": "true", "LANG": "C.UTF-8", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    cache = os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")
    if Path(cache).is_dir():
        env["PIP_CACHE_DIR"] = cache
    return env
