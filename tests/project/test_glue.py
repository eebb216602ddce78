"""The glue check (harnesses/glue_check.py): no adapter makes or hides a result unlisted.

For the official SDK harnesses (their SDKs are in the test environment) the check runs here,
each adapter's ``glue_view`` on every case of its format; for the others (their libraries
live in the harness virtualenvs) the record their last run stored in harnesses/results/ is
held to the adapter file as it is now.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HARNESSES = tomllib.loads((ROOT / "harnesses" / "harnesses.toml").read_text(encoding="utf-8"))["harness"]
SDK_IDS = ["openai-sdk-chat", "openai-sdk-responses", "anthropic-sdk-messages"]
PYTHON_IDS = [h["id"] for h in HARNESSES if h.get("language", "python") == "python"]


def _results(harness_id: str) -> dict:
    return json.loads((ROOT / "harnesses" / "results" / f"{harness_id}.json").read_text(encoding="utf-8"))


def test_compare_names_each_kind_of_difference():
    from harnesses.glue_check import call, compare, view

    a = view(text="hi", calls=[call("1", "f", "{}"), call("2", "g", "{}")], stop="tool_calls")
    assert compare(a, a) == []
    swapped = view(text="hi", calls=[call("2", "g", "{}"), call("1", "f", "{}")], stop="tool_calls")
    assert [k for k, *_ in compare(a, swapped)] == ["calls.order"]
    other = view(text="hi!", calls=[call("1", "f", '{"x": 1}'), call("2", "g", "{}")], stop="stop")
    assert [k for k, *_ in compare(a, other)] == ["stop", "text", "calls.arguments"]
    assert [k for k, *_ in compare(a, view(refused="APIError"))] == ["refused"]
    assert [k for k, *_ in compare(view(refused="TypeError"), view(refused="KeyError"))] == ["refused.type"]
    assert compare(view(text=None, calls=[call(None, None, "")]), view(text="", calls=[call(None, "", "")])) == []
    assert [k for k, *_ in compare(view(text=[{"type": "text"}]), view(text=""))] == ["text.type"]


@pytest.mark.parametrize("harness_id", SDK_IDS)
def test_an_sdk_adapter_lists_every_difference_from_its_sdk(harness_id):
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    from harnesses.glue_check import run

    record = run(harness_id)
    unlisted = [d for d in record["differences"] if not d["listed"]]
    assert not unlisted, f"{harness_id}: differences its adapter does not list: {unlisted[:5]}"
    stored = _results(harness_id).get("glue")
    assert stored is not None, f"harnesses/results/{harness_id}.json holds no glue record: rerun its harness"
    assert stored["differences"] == record["differences"], (
        f"{harness_id}: the stored glue record is not what the check finds now: rerun bash scripts/implementations.sh "
        f"{harness_id}")


@pytest.mark.parametrize("harness_id", PYTHON_IDS)
def test_the_stored_glue_record_is_of_the_adapter_as_it_is_and_lists_every_difference(harness_id):
    glue = _results(harness_id).get("glue")
    assert glue is not None, f"harnesses/results/{harness_id}.json holds no glue record: rerun its harness"
    path = ROOT / glue["adapter"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == glue["sha256"], (
        f"{glue['adapter']} changed since its glue check: rerun bash scripts/implementations.sh {harness_id}")
    assert glue["corpus_hash"] == _results(harness_id)["corpus_hash"]
    assert glue["cases"] > 0
    unlisted = [d for d in glue["differences"] if not d["listed"]]
    assert not unlisted, f"{harness_id}: differences its adapter does not list: {unlisted[:5]}"
    assert glue["differences_unlisted"] == 0 and glue["differences_listed"] == len(glue["differences"])


def test_every_python_adapter_offers_a_glue_view_and_says_why_for_each_listed_key():
    for h in HARNESSES:
        if h.get("language", "python") != "python":
            continue
        module = h["strategy"].partition(":")[0]
        text = (ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
        assert "def glue_view(case" in text and "GLUE_LISTED: dict[str, str]" in text, module
    for h in HARNESSES:
        glue = _results(h["id"]).get("glue") if (ROOT / "harnesses" / "results" / f"{h['id']}.json").is_file() else None
        for key, why in (glue or {}).get("listed", {}).items():
            assert isinstance(why, str) and len(why) > 20, f"{h['id']}: GLUE_LISTED[{key!r}] says no why"
