"""Helpers for the tests of the recording transport and proxy: the one capture a run left, the
fake secrets that must not reach it, what the replay server received, a free port."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from mcs_conformance.corpus_tools.recording import find_captures

from tests.helpers.replay import FAKE_SECRETS, ReplayServer


def request_secrets(fmt: str) -> tuple[str, ...]:
    """The fake secrets ``sdk_call`` sends for a format (organisation and project are OpenAI's headers)."""
    return ("api_key", "cookie", "query_key") + (() if fmt == "anthropic-messages" else ("organization", "project"))


def only_capture(out: Path) -> Path:
    folders = find_captures(out)
    assert len(folders) == 1, folders
    return folders[0]


def assert_no_secret(out: Path, received: str, fmt: str) -> None:
    """The request carried every fake secret, and no file of any capture under ``out`` holds one."""
    for name in request_secrets(fmt):
        assert FAKE_SECRETS[name] in received, f"the request did not carry {name}: the check would prove nothing"
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files
    for path in files:
        data = path.read_bytes()
        leaked = [name for name, value in FAKE_SECRETS.items() if value.encode() in data]
        assert not leaked, f"{path} holds {leaked}"


def received_text(server: ReplayServer) -> str:
    return "\n".join(f"{r.path}\n{json.dumps(r.headers)}\n{r.body.decode()}" for r in server.received)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
