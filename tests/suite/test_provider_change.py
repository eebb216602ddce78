"""The whole "when a provider changes" flow, offline: record, import, diff, run the suite, update snapshots.

A server on the loopback address replays a bundled recording as the provider sent it; the
official SDK calls it through the recording transport and, separately, through the
recording proxy; the capture is imported with ``corpus import`` and must give back the
bundled case it came from (chunks and expectations, the SDK being the oracle), and
``corpus diff`` must see no drift between them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from mcs_conformance.cli import main
from mcs_conformance.corpus_tools.corpus import load_corpus
from mcs_conformance.corpus_tools.importer import git_provenance
from mcs_conformance.corpus_tools.proxy import RecordingProxy
from mcs_conformance.corpus_tools.recording import load_capture, recording_transport

from tests.helpers.replay import STREAMS, ReplayServer, sdk_call, sse_events
from tests.helpers.projects import subprocess_env
from tests.helpers.captures import only_capture

CORPUS = load_corpus()
CLI = Path(sys.executable).parent / "mcs-conformance"
PATHS = ("transport", "proxy")
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """One capture per format and recording path, each made by the official SDK against the replay server."""
    out: dict[tuple[str, str], Path] = {}
    for fmt, (case_id, rel) in STREAMS.items():
        for path in PATHS:
            folder = tmp_path_factory.mktemp(f"{fmt}-{path}")
            with ReplayServer(sse_events(rel)) as server:
                if path == "transport":
                    names = sdk_call(fmt, server.url, httpx2.Client(transport=recording_transport(folder)))
                else:
                    with RecordingProxy(server.url, folder, log=lambda line: None) as proxy:
                        names = sdk_call(fmt, proxy.url)
            assert names == [c["name"] for c in CORPUS.case(case_id).expect["calls"]]
            out[fmt, path] = only_capture(folder)
    return out


def import_case(capture: Path, case_id: str, output: Path, *extra: str) -> int:
    return main(["corpus", "import", str(capture), "--id", case_id, "--description", "The replayed recording, captured.",
                 "--license", "MIT", *extra, "-o", str(output)])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_the_imported_capture_is_the_bundled_case(captures: dict, fmt: str, path: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    case_id = STREAMS[fmt][0]
    bundled = CORPUS.case(case_id)
    capture = captures[fmt, path]
    out = tmp_path / "case.json"
    # no --format: the capture's request path tells it
    assert import_case(capture, case_id, out, "--source", "acme/streams", "--commit", COMMIT) == 0, capsys.readouterr().err
    case = json.loads(out.read_text(encoding="utf-8"))
    assert case["format"] == fmt
    assert case["chunks"] == bundled.chunks
    assert case["expect"] == bundled.expect
    prov = case["provenance"]
    assert prov["kind"] == "recorded" and (prov["source"], prov["commit"]) == ("acme/streams", COMMIT)
    assert prov["model"] == bundled.provenance["model"]
    assert prov["captured"] == load_capture(capture).meta["started"][:10]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", prov["captured"])


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_a_replayed_recording_shows_no_drift(captures: dict, fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    bundled_file = CORPUS.case(STREAMS[fmt][0]).source
    transport, proxy = captures[fmt, "transport"], captures[fmt, "proxy"]
    for old, new in ((bundled_file, transport), ("bundled", proxy), (transport, proxy)):
        code = main(["corpus", "diff", str(old), str(new)])
        out = capsys.readouterr().out
        assert code == 0, out
        assert out.rstrip().endswith("no drift: NEW shows nothing OLD does not")


def test_the_suite_runs_on_the_imported_case_and_takes_its_snapshot(captures: dict, tmp_path: Path) -> None:
    """Run the suite on the new case: it is not green until --snapshot-update writes its golden snapshot."""
    fmt = "anthropic-messages"
    case_id = f"{fmt}/replayed-tool-use"
    project = tmp_path / "project"
    out = project / "corpus" / "cases" / fmt / "replayed-tool-use.json"
    assert import_case(captures[fmt, "proxy"], case_id, out, "--source", "acme/streams", "--commit", COMMIT) == 0
    argv = [str(CLI), "check", "mcs_conformance.strategies:AnthropicMessagesStrategy", "--mcs-corpus=corpus",
            f"--mcs-case={case_id}", "-q"]
    # a run of its own, not an xdist worker's (syrupy reports and writes snapshots through the controller there)
    env = {k: v for k, v in subprocess_env(project).items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    first = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 1, first.stdout[-3000:]  # a run with snapshots still to create is not green
    assert "FAILED" not in first.stdout, first.stdout[-3000:]  # every check passes on the new case
    assert f"1 golden snapshot(s) of strategy {fmt} do not exist yet" in first.stdout
    assert re.search(r"\b1 skipped\b", first.stdout)
    second = subprocess.run([*argv, "--snapshot-update"], cwd=project, env=env, capture_output=True, text=True,
                            timeout=600)
    assert second.returncode == 0, second.stdout[-3000:]
    assert "1 snapshot generated" in second.stdout
    snapshots = [p for p in project.rglob("GOLDEN-001*") if "__snapshots__" in p.parts]
    assert len(snapshots) == 1 and "get_weather" in snapshots[0].read_text(encoding="utf-8")
    third = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert third.returncode == 0 and "1 snapshot passed" in third.stdout, third.stdout[-3000:]


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.test", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.test", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_committed_capture_brings_its_repository_and_commit(captures: dict, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "streams"
    folder = repo / "recordings" / "captures" / captures["openai-chat", "transport"].name
    shutil.copytree(captures["openai-chat", "transport"], folder)
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", "git@github.com:acme/streams.git")
    out = tmp_path / "case.json"
    # not committed yet: a commit that does not hold the files would be a false provenance
    assert git_provenance(folder) == {}
    assert import_case(folder, "openai-chat/replayed", out) == 1
    assert "pass --source OWNER/NAME and --commit SHA" in capsys.readouterr().err
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "capture")
    assert import_case(folder, "openai-chat/replayed", out) == 0
    prov = json.loads(out.read_text(encoding="utf-8"))["provenance"]
    assert prov["source"] == "acme/streams" and prov["commit"] == git(repo, "rev-parse", "HEAD")
    assert prov["path"] == f"recordings/captures/{folder.name}"
    (folder / "response.sse").write_text("data: [DONE]\n\n", encoding="utf-8")  # changed since the commit
    assert git_provenance(folder) == {}
