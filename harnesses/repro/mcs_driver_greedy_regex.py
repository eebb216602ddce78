"""mcs-driver-core finds no call at all in a text that holds two (a greedy ``\\{.*\\}``).

Case text-json/msg-two-calls: a model answer with two JSON tool calls in its text.
``JsonPromptStrategy.parse_tool_call`` (the default codec of ``BaseDriver``) searches
``re.search(r"\\{.*\\}", text, re.S)``: the match runs from the first ``{`` to the last ``}``,
spans both calls, is not one JSON value, and the codec returns ``None``: both calls are
lost, silently, including the first one the driver (one call per response) would run.
The text itself is the ``stream=false`` answer; the JSON objects in it are listed with the
standard library's ``json.JSONDecoder.raw_decode`` for comparison.

    python harnesses/repro/mcs_driver_greedy_regex.py    (pip install -r harnesses/mcs_driver/requirements.txt)

Exits 1 while the codec finds nothing in a text that holds calls.
"""

import json

from mcs.driver.core import PromptStrategy

from _replay import CASES, show

codec = PromptStrategy.default()
failed = False
for case_id in ("text-json/msg-two-calls", "text-json/msg-json-array-of-calls"):
    case = json.loads((CASES / f"{case_id}.json").read_text(encoding="utf-8"))
    text = case["message"] if isinstance(case.get("message"), str) else "".join(case["chunks"])
    decoder, objects, i = json.JSONDecoder(), [], 0
    while (i := text.find("{", i)) != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except ValueError:
            i += 1
            continue
        objects.append(value)
        i = end
    show(f"{case_id} text", text)
    show("  JSON objects in the text", objects)
    show("  parse_tool_call", codec.parse_tool_call(text))
    failed |= codec.parse_tool_call(text) is None and bool(objects)
raise SystemExit(1 if failed else 0)
