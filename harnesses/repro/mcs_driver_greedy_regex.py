# requires: mcs-driver-core==0.4.1
# run: python mcs_driver_greedy_regex.py
"""mcs-driver-core runs no call at all for a model answer that holds two: its JSON codec
(``JsonPromptStrategy.parse_tool_call``, the default codec of ``BaseDriver``) searches
``re.search(r"\\{.*\\}", text, re.S)``, and the greedy match runs from the first ``{`` to the
last ``}``, spans both calls, is no JSON value, and the codec returns ``None``.
``BaseDriver.process_llm_response`` then answers "no call" (an empty ``DriverResponse``),
so both calls are lost silently: even the first, which the driver's one-call-per-response
contract would run, and without the ``call_failed`` its ``DriverResponse`` documents for
"a tool-call signature was found but could not be parsed or executed".

Two model answers as the ``stream=false`` message text: two calls one per line, and two
calls as a JSON array. The JSON objects in each text are listed by the standard library's
``json.JSONDecoder.raw_decode`` for comparison, next to what the driver runs.

    python mcs_driver_greedy_regex.py

Exits 1 while the driver runs no call for a text that holds complete calls.
"""

import json
import sys

from mcs.driver.core import BaseDriver, Tool

TEXTS = {
    "two calls, one per line": '{"tool": "get_weather", "arguments": {"city": "Paris"}}\n'
                               '{"tool": "get_weather", "arguments": {"city": "Tokyo"}}',
    "a JSON array of calls": '[{"tool": "get_weather", "arguments": {"city": "Paris"}}, '
                             '{"tool": "get_time", "arguments": {"tz": "UTC"}}]',
}


class Driver(BaseDriver):
    """A driver with the two tools the texts call; it records what it executes."""

    def __init__(self) -> None:
        super().__init__()
        self.executed = []

    def list_tools(self) -> list:
        return [Tool(name="get_weather", description="weather"), Tool(name="get_time", description="time")]

    def execute_tool(self, tool_name, arguments):
        self.executed.append([tool_name, arguments])
        return "ok"


def calls_in(text: str) -> list:
    """Every JSON object with a tool key in the text, by json.JSONDecoder.raw_decode."""
    decoder, found, i = json.JSONDecoder(), [], 0
    while (i := text.find("{", i)) != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except ValueError:
            i += 1
            continue
        if isinstance(value, dict) and "tool" in value:
            found.append([value["tool"], value.get("arguments", {})])
        i = end
    return found


def show(label: str, value) -> None:
    print(f"{label:<44} {json.dumps(value, ensure_ascii=False)}")


lost = False
for label, text in TEXTS.items():
    driver = Driver()
    response = driver.process_llm_response(text)
    print(f"== {label}: {text!r}")
    show("  calls in the text (json.raw_decode)", calls_in(text))
    show("  driver contract: one call per response", calls_in(text)[:1])
    show("  process_llm_response executed", driver.executed)
    show("  call_executed / call_failed", [response.call_executed, response.call_failed])
    if not driver.executed and calls_in(text):
        lost = True
        print("  no call executed: the driver answers as if the text held no call")
sys.exit(1 if lost else 0)
