"""mcs-driver-core's codec raises on model text it cannot read, instead of answering "no call".

Cases text-json/msg-nested-too-deeply (a call whose arguments nest deeper than Python's
recursion limit, then a good call) and text-json/msg-number-too-long (a number with more
than 4,300 digits, then a good call). ``JsonPromptStrategy.parse_tool_call`` hands the
greedy match to ``json.loads``, which raises ``RecursionError`` / ``ValueError``; the codec
catches only ``json.JSONDecodeError``, so ``BaseDriver.process_llm_response`` raises on a
model answer instead of returning a ``DriverResponse``. The text is the ``stream=false``
answer; the standard library's ``json.JSONDecoder.raw_decode`` reads the good call after it.

    python harnesses/repro/mcs_driver_parser_crash.py

Exits 1 while the codec raises on either text.
"""

import json

from mcs.driver.core import PromptStrategy

from _replay import CASES, show

codec = PromptStrategy.default()
crashed = False
for case_id in ("text-json/msg-nested-too-deeply", "text-json/msg-number-too-long"):
    case = json.loads((CASES / f"{case_id}.json").read_text(encoding="utf-8"))
    text = case["message"] if isinstance(case.get("message"), str) else "".join(case["chunks"])
    last = text.rfind('{"tool"')
    try:
        good = json.JSONDecoder().raw_decode(text, last)[0] if last != -1 else None
    except ValueError:
        good = None
    show(f"{case_id} ({len(text)} chars)", text[:60] + "...")
    show("  last call in the text", good)
    try:
        show("  parse_tool_call", codec.parse_tool_call(text))
    except Exception as exc:  # noqa: BLE001 -- the finding is that it raises
        crashed = True
        show("  parse_tool_call raises", f"{type(exc).__name__}: {str(exc)[:80]}")
raise SystemExit(1 if crashed else 0)
