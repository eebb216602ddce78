# requires: mcs-driver-core==0.4.1
# run: python mcs_driver_parser_crash.py
"""mcs-driver-core raises on model text it cannot read, instead of answering "no call" or
``call_failed``: ``JsonPromptStrategy.parse_tool_call`` hands its match to ``json.loads``
and catches only ``json.JSONDecodeError``, so arguments nested deeper than Python's
recursion limit (``RecursionError``) or a number of more than 4,300 digits (``ValueError``,
Python's integer string conversion limit) escape it, and ``BaseDriver.process_llm_response``
raises on a model answer instead of returning a ``DriverResponse``.

Two model answers as the ``stream=false`` message text, built here: a call whose
arguments nest 5,000 arrays deep, then a good call; a call whose arguments are a
5,000-digit number, then a good call. The driver's documented answer for any model output
is a ``DriverResponse`` (a call executed, ``call_failed`` with a retry prompt, or no call).

    python mcs_driver_parser_crash.py

Exits 1 while process_llm_response raises on either text.
"""

import json
import sys

from mcs.driver.core import BaseDriver, Tool

AFTER = '\n{"tool": "after", "arguments": {}}'
TEXTS = {
    "arguments nested 5,000 deep": '{"tool": "deep", "arguments": {"a": ' + "[" * 5000 + "]" * 5000 + "}}" + AFTER,
    "a 5,000-digit number": '{"tool": "big", "arguments": ' + "7" * 5000 + "}" + AFTER,
}


class Driver(BaseDriver):
    """A driver with the tools the texts call; every call answers "ok"."""

    def list_tools(self) -> list:
        return [Tool(name=n, description=n) for n in ("deep", "big", "after")]

    def execute_tool(self, tool_name, arguments):
        return "ok"


crashed = False
for label, text in TEXTS.items():
    print(f"== {label} ({len(text)} characters): {text[:48]!r}...{text[-40:]!r}")
    print(f"  {'expected':<34} a DriverResponse (a call, call_failed, or no call)")
    try:
        response = Driver().process_llm_response(text)
        print(f"  {'process_llm_response returns':<34} call_executed={response.call_executed} "
              f"call_failed={response.call_failed}")
    except Exception as exc:  # noqa: BLE001 -- the finding is that it raises
        crashed = True
        print(f"  {'process_llm_response raises':<34} {type(exc).__name__}: {str(exc)[:90]}")
sys.exit(1 if crashed else 0)
